#!/usr/bin/env bash
# Prints the path of the SQLite archive the release build links
# (scripts/build-release.sh), making it first if it is not there yet: SQLite
# compiled from Debian's own source of the installed libsqlite3-dev (its
# patches applied), as LLVM bitcode, with the options below. The release
# build's link-time optimisation then keeps only the SQLite the host calls
# and lays its start-up functions out with the host's. Debian's archive, its
# 102 objects compiled for every use, is what ordinary builds link.
# docs/performance.md, "The release build".
#
# The source comes through apt-get from the machine's own Debian mirrors,
# read through a sources list of this script's (`deb-src` beside each
# `deb` entry) into .build-sqlite/: the system's apt configuration is not
# changed and no root is needed. scripts/setup.sh (--test, --bench)
# installs the tools it uses: dpkg-dev (dpkg-source), tcl (SQLite's
# generator scripts), make.
#
# The version is the installed libsqlite3-dev's, so the header the Swift
# code reads (Sources/CSQLite) declares exactly this code. A security update
# of SQLite needs a rebuild, as for any static link.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/.build-sqlite"

version="$(dpkg-query -W -f='${Version}' libsqlite3-dev 2>/dev/null || true)"
if [ -z "$version" ]; then
  echo "sqlite-source: libsqlite3-dev is not installed (scripts/setup.sh installs it)" >&2
  exit 1
fi

# Debian's options where they change what SQL does (debian/rules), then
# what the host does not use left out: fewer pages of code, and fewer
# tables of pointers the loader must write in every process (the extension
# API's 264, the compile-option names', JSON's functions').
options=(
  -DSQLITE_THREADSAFE=1
  -DSQLITE_SECURE_DELETE
  -DSQLITE_OMIT_LOOKASIDE=1
  -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
  -DSQLITE_ALLOW_ROWID_IN_VIEW
  -DSQLITE_USE_URI=1
  -DSQLITE_MAX_SCHEMA_RETRY=25
  -DSQLITE_MAX_VARIABLE_NUMBER=250000
  # No extension is ever loaded into the host's SQLite.
  -DSQLITE_OMIT_LOAD_EXTENSION
  -DSQLITE_DEFAULT_MEMSTATUS=0
  -DSQLITE_OMIT_DEPRECATED
  -DSQLITE_OMIT_SHARED_CACHE
  -DSQLITE_OMIT_COMPILEOPTION_DIAGS
  -DSQLITE_OMIT_PROGRESS_CALLBACK
  -DSQLITE_OMIT_JSON
  -DSQLITE_OMIT_DECLTYPE
  -DSQLITE_OMIT_TCL_VARIABLE
  -DSQLITE_OMIT_UTF16
  -DSQLITE_OMIT_GET_TABLE
  # The store is never read through a mapping (SQLiteStore.connect): the
  # mapping code is left out too.
  -DSQLITE_MAX_MMAP_SIZE=0
)

# The archive is kept per version and per set of options and flags (a
# digest of them): a change to either makes a new one, not the old reused.
compile_flags=(-c -O2 -fPIC -flto=full -fno-strict-aliasing -g0 -D_HAVE_SQLITE_CONFIG_H)
digest="$(printf '%s\n' "${compile_flags[@]}" "${options[@]}" | sha256sum | cut -c1-12)"
out="$root/$version-$digest"
archive="$out/libflowhost-sqlite3.a"
if [ -f "$archive" ]; then
  echo "$archive"
  exit 0
fi

for tool in dpkg-source tclsh make; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "sqlite-source: $tool is missing (scripts/setup.sh --test or --bench installs it)" >&2
    exit 1
  fi
done
toolchain="$(dirname "$(readlink -f "$(command -v swift)")")"
clang="$toolchain/clang"
llvm_ar="$toolchain/llvm-ar"

work="$root/work"
rm -rf "$work"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/src"

# A sources list of deb-src entries mirroring the machine's Debian deb entries.
sources="$work/apt/sources.list"
: >"$sources"
parts="$work/apt/sources.list.d"
mkdir -p "$parts"
if [ -f /etc/apt/sources.list ]; then
  sed -n 's/^deb \(.*debian.*\)$/deb-src \1/p' /etc/apt/sources.list >>"$sources"
fi
for file in /etc/apt/sources.list.d/*.sources; do
  [ -f "$file" ] || continue
  grep -qi 'debian' "$file" || continue
  sed 's/^Types: deb$/Types: deb-src/' "$file" >"$parts/$(basename "$file")"
done
apt_options=(
  -o "Dir::Etc::SourceList=$sources" -o "Dir::Etc::SourceParts=$parts"
  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
  -o "Debug::NoLocking=1" -o "APT::Sandbox::User=$(id -un)"
)
echo "sqlite-source: fetching Debian's source of sqlite3 $version" >&2
# Entries of other origins may fail to update; whether the source was found decides.
apt-get "${apt_options[@]}" -qq update >&2 || true
(cd "$work/src" && apt-get "${apt_options[@]}" -qq source "sqlite3=$version" >&2)
tree="$(find "$work/src" -mindepth 1 -maxdepth 1 -type d -name 'sqlite3-*' | head -n 1)"
if [ -z "$tree" ]; then
  echo "sqlite-source: Debian's source of sqlite3 $version was not found" >&2
  exit 1
fi

# The amalgamation (one sqlite3.c) and the platform's config.h, made by SQLite's own build.
echo "sqlite-source: generating sqlite3.c" >&2
(cd "$tree" && ./configure --quiet --disable-tcl >&2 && make --quiet sqlite3.c >&2)

mkdir -p "$out"
echo "sqlite-source: compiling" >&2
"$clang" "${compile_flags[@]}" -I"$tree" "${options[@]}" "$tree/sqlite3.c" -o "$out/sqlite3.o"
rm -f "$archive.tmp"
"$llvm_ar" rcs "$archive.tmp" "$out/sqlite3.o"
mv "$archive.tmp" "$archive"
rm -rf "$work" "$out/sqlite3.o"
echo "$archive"
