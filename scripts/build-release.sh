#!/usr/bin/env bash
# The release build: `swift build -c release` with link-time optimisation on
# Linux. Each image (the host, every flow library) is optimised and linked
# by lld as one program. They export C entry points only, so the Swift
# symbols of the modules each carries are internal to it
# (`-internalize-at-link`), and a type's runtime records go with the type
# when nothing uses it (`-conditional-runtime-records`). Relative
# relocations are packed (DT_RELR, glibc 2.36 and later). No image carries
# `$ORIGIN` in its run path (`--disable-local-rpath`): none needs a library
# beside it (flows are opened by their full path), and the dynamic linker
# otherwise looks there, in each of its hardware-capability folders, for
# every library the image needs.
# Swift's concurrency runtime and its string-processing libraries are not
# linked because a module was compiled (every module imports them unless
# told not to) but by name, where a target uses them (Package.swift,
# `concurrencyRuntime`): flowhost uses neither, and loading the three, with
# libdispatch under them, is a quarter of a hello-world's start. Every
# dependency's types are reached through accessors, not by mangled name, so
# that swift-log's unused `TaskLocal` leaves no reference behind.
# The functions a start runs are laid out first, together, in every image,
# and the zero-initialised variables it touches first in .bss
# (scripts/startup-order.txt, written by scripts/startup-order.sh): a start
# faults in fewer pages, and an idle host keeps fewer resident.
# docs/performance.md, "The release build", says what each buys.
#
# SQLite is compiled from Debian's source of the installed version, as
# bitcode, and linked in place of Debian's archive (scripts/sqlite-source.sh,
# Package.swift's FLOWHOST_SQLITE_ARCHIVE): the optimisation keeps only what
# the host calls.
#
# Extra arguments go to `swift build` (`--product flowhost`, `--show-bin-path`).
# A plain `swift build -c release` builds the same code without these flags:
# it works, and starts slower.
set -euo pipefail
cd "$(dirname "$0")/.."

# Package.swift turns on the flags SwiftPM takes only as unsafeFlags
# (refused in a package resolved by version) when this is set.
export FLOWHOST_RELEASE_TUNING=1
flags=(-c release)
if [ "$(uname -s)" = Linux ]; then
  flags+=(
    --experimental-lto-mode=full
    --disable-local-rpath
    -Xswiftc -use-ld=lld
    -Xswiftc -Xfrontend -Xswiftc -internalize-at-link
    -Xswiftc -Xfrontend -Xswiftc -conditional-runtime-records
    -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
    -Xswiftc -Xfrontend -Xswiftc -disable-autolink-library -Xswiftc -Xfrontend -Xswiftc swift_Concurrency
    -Xswiftc -Xfrontend -Xswiftc -disable-autolink-library -Xswiftc -Xfrontend -Xswiftc swift_StringProcessing
    -Xswiftc -Xfrontend -Xswiftc -disable-autolink-library -Xswiftc -Xfrontend -Xswiftc swift_RegexParser
    -Xlinker -z -Xlinker pack-relative-relocs
    -Xlinker "--symbol-ordering-file=$PWD/scripts/startup-order.txt" -Xlinker --no-warn-symbol-ordering
    -Xlinker -T -Xlinker "$PWD/scripts/rodata-first.ld"
  )
  FLOWHOST_SQLITE_ARCHIVE="$(scripts/sqlite-source.sh)"
  export FLOWHOST_SQLITE_ARCHIVE
fi
exec swift build "${flags[@]}" "$@"
