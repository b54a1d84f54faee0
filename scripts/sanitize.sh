#!/usr/bin/env bash
# The end-to-end suite against sanitizer builds: AddressSanitizer over every
# flow's happy path and abuse cases (all of Tests/EndToEnd but the long
# crash and load tests), ThreadSanitizer over the parts with threads of
# their own (code delivery's worker, the log sink, a plugin calling from
# another thread) and the main flows. Any sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
status=0

check() {  # name: fails when the sanitizer wrote any report
  if compgen -G "$logs/$1*" > /dev/null; then
    echo "sanitize: $1 reports:" >&2
    head -60 "$logs"/"$1"* >&2
    status=1
  else
    echo "sanitize: $1: no reports"
  fi
}

swift build --build-path .build-asan --sanitize=address 2>&1 | tail -1
# Leak checking is off: a loaded plugin is never unloaded (Swift images cannot
# be), so what its instances hold at exit is reachable by design.
# The isolation tests whose flow (or library, in the names child) crashes
# on purpose are left out: the child's own sanitizer would report the crash, and without an address
# space limit (sanitizer builds keep none) the one that allocates without
# end would take the machine's memory. The rest run, children included.
ASAN_OPTIONS=detect_leaks=0:log_path="$logs/asan" FLOWHOST_SANITIZER=address \
  FLOWHOST_BIN_DIR="$(swift build --build-path .build-asan --show-bin-path)" \
  python3 -m pytest -q -rfE -n 3 Tests/EndToEnd --deselect Tests/EndToEnd/test_crash_safety.py --deselect Tests/EndToEnd/test_concurrency.py \
  --deselect Tests/EndToEnd/test_isolation.py::test_a_segfault_mid_dialogue_ends_that_dialogue_only \
  --deselect Tests/EndToEnd/test_isolation.py::test_a_flow_that_allocates_without_end_meets_its_address_space_limit \
  --deselect Tests/EndToEnd/test_isolation.py::test_when_the_names_child_dies_each_library_is_probed_on_its_own \
  || status=1
check asan

# The plugins find the TSan runtime's symbols in the executable only if it exports them.
swift build --build-path .build-tsan --sanitize=thread -Xlinker --export-dynamic 2>&1 | tail -1
TSAN_OPTIONS=log_path="$logs/tsan" FLOWHOST_BIN_DIR="$(swift build --build-path .build-tsan --show-bin-path)" \
  python3 -m pytest -q -rfE -n 3 Tests/EndToEnd/test_misbehaving.py Tests/EndToEnd/test_security.py Tests/EndToEnd/test_mfa.py \
  Tests/EndToEnd/test_stepup.py Tests/EndToEnd/test_data_signing.py Tests/EndToEnd/test_lda_toggle.py \
  Tests/EndToEnd/test_device_activation.py || status=1
check tsan
exit $status
