#!/usr/bin/env bash
# Fuzzing with libFuzzer: the line framer and envelope decoder (fuzz-frames),
# FlowHost's JSON reader and writer against jansson's (fuzz-json), the message catalogs' PO reader (fuzz-po), the whole dispatcher with the real flows on a scratch store
# (fuzz-dispatch), and the readers of what a device's platform answers: CBOR, COSE keys, authenticator data, ES256 signatures,
# WebAuthn registrations and assertions (fuzz-device-input). Usage: scripts/fuzz.sh [SECONDS per target, default 30].
# Crashes are written to Tests/Fuzz/Crashes/; move one into
# Tests/Fuzz/Corpus/<target>/ to keep it as a regression input (the plain
# build replays that folder in scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"

swift build  # the flows fuzz-dispatch loads
flows="$(swift build --show-bin-path)"
# Coverage instrumentation and AddressSanitizer, and libFuzzer without its
# own main (SwiftPM names the executable's entry point itself).
no_main="$(dirname "$(dirname "$(command -v swiftc)")")/lib/clang"
no_main="$(find "$no_main" -name 'libclang_rt.fuzzer_no_main-*.a' | head -1)"
[ -n "$no_main" ] || { echo "fuzz: libclang_rt.fuzzer_no_main not found in the Swift toolchain" >&2; exit 1; }
flags=(--build-path .build-fuzz -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
       -Xswiftc -DFUZZING -Xlinker "$no_main" -Xlinker -lstdc++)
swift build "${flags[@]}" --product fuzz-frames 2>&1 | grep -v "ld.gold: warning" | tail -1
swift build "${flags[@]}" --product fuzz-json 2>&1 | grep -v "ld.gold: warning" | tail -1
swift build "${flags[@]}" --product fuzz-po 2>&1 | grep -v "ld.gold: warning" | tail -1
swift build "${flags[@]}" --product fuzz-dispatch 2>&1 | grep -v "ld.gold: warning" | tail -1
swift build "${flags[@]}" --product fuzz-device-input 2>&1 | grep -v "ld.gold: warning" | tail -1
bin="$(swift build --build-path .build-fuzz --show-bin-path)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 scripts/fuzz-seeds.py "$work/seeds"
mkdir -p Tests/Fuzz/Crashes
status=0
for target in frames json po dispatch device-input; do
  mkdir -p "$work/$target"
  cp Tests/Fuzz/Corpus/"$target"/* "$work/seeds/$target"/* "$work/$target"/ 2>/dev/null || true
  echo "fuzz: $target for ${seconds}s"
  if ! FLOWHOST_FUZZ_PLUGINS="$flows" ASAN_OPTIONS=detect_leaks=0 \
      "$bin/fuzz-$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="Tests/Fuzz/Crashes/$target-" "$work/$target" > "$work/$target.log" 2>&1; then
    status=1
    grep -E "ERROR|SUMMARY|Test unit written" "$work/$target.log" | head -20 >&2
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" "$work/$target.log" | sed "s/^/fuzz: $target: /" || true
done
exit $status
