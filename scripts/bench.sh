#!/usr/bin/env bash
# The benchmark: builds flowhost and its flows in release mode
# (scripts/build-release.sh: link-time optimised), builds the
# benchmark package (which compiles its C reference server itself), and runs
# both side by side. Prints one table; writes Benchmarks/results/latest.json.
# Pass --quick for a short run with smaller counts.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --bench
scripts/build-release.sh
swift build -c release --package-path Benchmarks
mkdir -p Benchmarks/results
Benchmarks/.build/release/flowhost-bench \
  --flowhost "$(scripts/build-release.sh --show-bin-path)/flowhost" \
  --json Benchmarks/results/latest.json "$@"
