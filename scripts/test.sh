#!/usr/bin/env bash
# Every test: installs what is missing, builds every product (the host and
# each flow library), runs the Swift unit tests, then the end-to-end tests
# that spawn the built binary through the Python reference client.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --test
swift build
swift test
FLOWHOST_BIN_DIR="$(swift build --show-bin-path)" python3 -m pytest -q -rfE Tests/EndToEnd
