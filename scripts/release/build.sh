#!/usr/bin/env bash
# The release build: what the benchmark measures and a deployment runs.
# `swift build -c release` with link-time optimisation on Linux, with the
# tuning below; a plain `swift build -c release` builds the same code
# without it, and starts slower. docs/performance.md, "The release build",
# says what each part buys.
#
# - Package.swift turns on the flags SwiftPM takes only as unsafeFlags
#   (refused in a package resolved by version) when FLOWHOST_RELEASE_TUNING
#   is set: a flow library exports its entry symbols only
#   (plugin-exports.map), and no module imports the concurrency or regex
#   libraries unless it uses them.
# - Each image is optimised and linked by lld as one program; its Swift
#   symbols are internal to it and a type's runtime records go with the type.
# - The functions a start runs, and the zero-initialised variables it
#   touches, are laid out first in every image (startup-order.sh profiles a
#   first link of this build, then the images are linked again with the
#   list), and .rodata lies before .data (rodata-first.ld). SQLite and
#   libsodium come before libc in each image's list of libraries: the
#   dynamic linker looks up each of their references to themselves through
#   that list, in order, at every start. The list is made
#   once per build folder; FLOWHOST_REORDER=1 makes it again after changes
#   to what a start runs. Without valgrind the images are linked without
#   one: they work, and start slower.
#
# Extra arguments go to `swift build` (`--product flowhost`,
# `--show-bin-path`); the start-up list is made by a whole build only.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=scripts/release

export FLOWHOST_RELEASE_TUNING=1
flags=(-c release)
order="$PWD/.build/release-startup-order.txt"
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
    -Xlinker --as-needed -Xlinker -lsqlite3 -Xlinker -lsodium -Xlinker --no-as-needed
    -Xlinker "--symbol-ordering-file=$order" -Xlinker --no-warn-symbol-ordering
    -Xlinker -T -Xlinker "$PWD/$here/rodata-first.ld"
  )
  mkdir -p .build
  [ -f "$order" ] || : >"$order"
fi

if [ $# -gt 0 ] || [ "$(uname -s)" != Linux ]; then
  exec swift build "${flags[@]}" "$@"
fi

swift build "${flags[@]}"
if [ -s "$order" ] && [ "${FLOWHOST_REORDER:-}" != 1 ]; then
  exit 0
fi
if ! command -v valgrind >/dev/null; then
  echo "build.sh: valgrind is not installed: the images are linked without a start-up order (scripts/setup.sh --test installs it)" >&2
  exit 0
fi
bin="$(swift build "${flags[@]}" --show-bin-path)"
"$here/startup-order.sh" "$bin" "$order"
# SwiftPM does not link again for a changed list (the flag names the same
# file): the images go, and are linked again with it.
rm -f "$bin/flowhost" "$bin"/lib*.so
swift build "${flags[@]}"
