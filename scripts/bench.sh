#!/usr/bin/env bash
# The benchmark: builds flowhost and its flows in release mode, builds the
# benchmark package (which compiles its C reference server itself), and runs
# both side by side. Prints one table; writes Benchmarks/results/latest.json.
# Pass --quick for a short run with smaller counts.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --bench
swift build -c release
swift build -c release --package-path Benchmarks
mkdir -p Benchmarks/results
Benchmarks/.build/release/flowhost-bench \
  --flowhost "$(swift build -c release --show-bin-path)/flowhost" \
  --json Benchmarks/results/latest.json "$@"
