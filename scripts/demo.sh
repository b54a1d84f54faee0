#!/usr/bin/env bash
# The main job: builds FlowHost and runs `flowhost demo`, a scripted session
# of every flow against a temporary store, printed as a readable exchange.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
swift build
"$(swift build --show-bin-path)/flowhost" demo
