#!/usr/bin/env bash
# Every test: installs what is missing, builds every product (the host and
# each flow library), runs the Swift unit tests, replays the fuzz corpus,
# runs the end-to-end tests that spawn the built binary through the Python
# reference client (the crash-safety and eight-host load tests included),
# the inspector's page in a headless Chromium,
# the Debian package of the release build, installed, driven and purged,
# again with every flow isolated in a process of its own on the release build,
# builds and drives the tutorial's flows from outside the package,
# again on a throw-away PostgreSQL cluster with the release build,
# then the end-to-end suite against AddressSanitizer and ThreadSanitizer
# builds, then a short fuzzing run (FLOWHOST_FUZZ_SECONDS per target, 20 by default).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage says when it starts (and so how long the one before took).
stage() { echo "test.sh: $(date -u +%H:%M:%S) $*"; }
# The end-to-end suites run on three workers (pytest-xdist): their tests
# mostly wait on hosts, so three keep two cores busy. Each worker has its own
# temporary folders and, on PostgreSQL, its own throw-away cluster.
workers=(-n 3)
stage setup
scripts/setup.sh --test
stage build
swift build
bin="$(swift build --show-bin-path)"
# The Swift client's tests drive the built host (FlowHostClientTests).
stage unit tests
FLOWHOST_BIN_DIR="$bin" swift test
# The PostgreSQL store's own tests, on a throw-away cluster, directly and
# through a PgBouncer in transaction mode.
python3 Tests/EndToEnd/pgcluster.py swift test --skip-build --filter PostgresStoreTests
python3 Tests/EndToEnd/pgcluster.py --bouncer swift test --skip-build --filter PostgresStoreTests
"$bin/fuzz-frames" Tests/Fuzz/Corpus/frames
"$bin/fuzz-json" Tests/Fuzz/Corpus/json
"$bin/fuzz-po" Tests/Fuzz/Corpus/po
FLOWHOST_FUZZ_PLUGINS="$bin" "$bin/fuzz-dispatch" Tests/Fuzz/Corpus/dispatch
"$bin/fuzz-device-input" Tests/Fuzz/Corpus/device-input
stage end-to-end tests on SQLite
FLOWHOST_BIN_DIR="$bin" python3 -m pytest -q -rfE "${workers[@]}" Tests/EndToEnd
stage inspector
# The inspector (`flowhost inspect`): its access rules, then a real headless
# Chromium through the page; screenshots of each step in .build-screenshots/.
FLOWHOST_BIN_DIR="$bin" python3 -m pytest -q -rfE Tests/Inspector
# The release build (scripts/release/build.sh: link-time optimised, its
# start laid out first; what the benchmark measures and a deployment runs).
stage release build
scripts/release/build.sh 2>&1 | tail -1
release="$(scripts/release/build.sh --show-bin-path)"
# flowhost names no Swift library it does not use (scripts/release/build.sh):
# the concurrency and regex libraries, with libdispatch, slow every start.
if readelf -d "$release/flowhost" | grep -E 'lib(swift_Concurrency|swift_StringProcessing|swift_RegexParser|dispatch)\.so'; then
  echo "the release flowhost names a library it does not use" >&2
  exit 1
fi
# The C libraries are Debian's shared ones, so that apt upgrade patches them
# in FlowHost: no copy compiled in.
# Each tool's output is read whole before it is searched: with pipefail, a
# `grep -q` that stops at its first match can leave the tool writing into a
# closed pipe, and the pipeline then fails whatever grep found.
loaded="$(ldd "$release/flowhost")"
symbols="$(nm "$release/flowhost")"
for library in libsqlite3 libsodium libjansson libargon2; do
  if ! grep -q "$library\.so" <<<"$loaded"; then
    echo "the release flowhost does not load Debian's shared $library" >&2
    exit 1
  fi
done
if grep -qE ' [Tt] (sqlite3_open_v2|crypto_sign_verify_detached|json_loads|argon2id_hash_raw)$' <<<"$symbols"; then
  echo "the release flowhost carries its own copy of a C library" >&2
  exit 1
fi
# The start-up list was made (valgrind is installed here).
[ -s .build/release-startup-order.txt ] || { echo "the release build made no start-up list" >&2; exit 1; }
# The Debian package of that build, installed on this machine (as root)
# as an operator would: lintian, admin check, a host per connection through
# systemd-socket-activate on a Unix-domain socket and through stunnel over
# TLS, systemd-analyze's rating, then a purge each way: the state kept
# when the operator chose to, nothing left when not (Tests/Package). Without
# root it fails here (CI is set), never skips.
stage package
python3 -m pytest -q -rfE Tests/Package
# Again with every flow in a process of its own (--isolate-all), on the
# release build: the proxy must be invisible to every flow and client, and
# the release build gets the whole suite on SQLite. The
# crash-safety and load tests run shorter here (40 kills, 10 s): the full
# ones ran just above, and this run is about the flows' boundary, within
# CI's time.
stage every flow isolated, release build
FLOWHOST_TEST_ISOLATE=all FLOWHOST_CRASH_KILLS=40 FLOWHOST_CONCURRENCY_SECONDS=10 FLOWHOST_BIN_DIR="$release" \
  python3 -m pytest -q -rfE "${workers[@]}" Tests/EndToEnd
# The tutorial's flows, built out of tree in Swift and in C, tested with
# FlowHostTesting, then loaded into the built host and driven.
stage "the tutorial's flows"
FLOWHOST_BIN_DIR="$bin" scripts/examples.sh
# The same suite on PostgreSQL (a throw-away cluster), its queries through a
# PgBouncer in transaction mode and each host's feed LISTEN on the cluster
# itself (--feed-store), as a deployment behind a pooler runs; tests that
# read the SQLite file itself are skipped, and test_postgres.py and
# test_pgbouncer.py ran above already. On the release build. Its
# crash-safety and load tests run at half length (100 kills, 15 s), within
# CI's time: the full ones ran on SQLite above.
stage PostgreSQL
FLOWHOST_TEST_BACKEND=pgbouncer FLOWHOST_CRASH_KILLS=100 FLOWHOST_CONCURRENCY_SECONDS=15 FLOWHOST_BIN_DIR="$release" python3 -m pytest -q -rfE "${workers[@]}" Tests/EndToEnd --deselect Tests/EndToEnd/test_postgres.py --deselect Tests/EndToEnd/test_pgbouncer.py
stage sanitizers
scripts/sanitize.sh
stage fuzzing
scripts/fuzz.sh "${FLOWHOST_FUZZ_SECONDS:-20}"
stage done
