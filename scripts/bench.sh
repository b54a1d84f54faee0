#!/usr/bin/env bash
# The benchmark: builds flowhost and its flows in release mode
# (scripts/release/build.sh: link-time optimised, its start-up list made
# again for what this build's start runs), builds the
# benchmark package (which compiles its C reference server itself), and runs
# both side by side. Prints one table; writes Benchmarks/results/latest.json
# and, from it, the README's table (Benchmarks/readme_table.py).
# Pass --quick for a short run with smaller counts, --only approval-history,history for some
# sections (written to Benchmarks/results/only.json).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --bench
FLOWHOST_REORDER=1 scripts/release/build.sh
swift build -c release --package-path Benchmarks
mkdir -p Benchmarks/results
# A run of some sections only (--only) writes its rows beside the table of
# the last whole run, never over it.
json=Benchmarks/results/latest.json
for argument in "$@"; do
  if [ "$argument" = --only ]; then json=Benchmarks/results/only.json; fi
done
status=0
Benchmarks/.build/release/flowhost-bench \
  --flowhost "$(scripts/release/build.sh --show-bin-path)/flowhost" \
  --json "$json" "$@" || status=$?
# A whole run's table is the README's (a missed target shows there too).
if [ "$json" = Benchmarks/results/latest.json ] && [ -s "$json" ]; then
  python3 Benchmarks/readme_table.py --write README.md
fi
exit "$status"
