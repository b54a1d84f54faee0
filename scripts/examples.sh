#!/usr/bin/env bash
# The tutorial's flows (docs/writing-a-flow.md), built the way an outside
# author builds them, then tested and driven:
#   - C: the SDK installed into a scratch prefix by scripts/install-sdk.sh,
#     the example copied out of the tree and built with make and pkg-config;
#   - Swift: Examples/TermsFlow, its own package depending on this one by
#     path, built with its own scratch folder (.build-examples);
#   - its FlowHostTesting tests run against the Swift flow and the C build;
#   - the end-to-end tests load both into the built flowhost with --plugins.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

scripts/install-sdk.sh --prefix "$work/prefix"
cp -r Examples/terms-c "$work/terms-c"
rm -f "$work/terms-c/libterms.so"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" make -s -C "$work/terms-c"

swift build --package-path Examples/TermsFlow --scratch-path "$root/.build-examples" 2>&1 | tail -1
swift build --package-path Examples/TermsFlow --scratch-path "$root/.build-examples" --build-tests 2>&1 | tail -1
TERMS_C_LIBRARY="$work/terms-c/libterms.so" \
  swift test --package-path Examples/TermsFlow --scratch-path "$root/.build-examples" --skip-build
swift_dir="$(swift build --package-path Examples/TermsFlow --scratch-path "$root/.build-examples" --show-bin-path)"

FLOWHOST_BIN_DIR="${FLOWHOST_BIN_DIR:-$(swift build --show-bin-path)}" \
FLOWHOST_EXAMPLE_SWIFT="$swift_dir/libTermsFlow.so" FLOWHOST_EXAMPLE_C="$work/terms-c/libterms.so" \
  python3 -m pytest -q -rfE Tests/EndToEnd/test_examples.py
