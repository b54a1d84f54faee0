#!/usr/bin/env bash
# The tutorial's flows (docs/writing-a-flow.md), built the way an outside
# author builds them, then tested and driven:
#   - C: the SDK installed into a scratch prefix by scripts/install-sdk.sh,
#     the example copied out of the tree and built with make and pkg-config;
#   - Swift: Examples/TermsFlow, its own package depending on this one by
#     URL and version, as an outside package does: the URL resolves through
#     a SwiftPM mirror to this checkout, copied into a git repository tagged
#     with the host's version (no unsafeFlags may be in its graph, or SwiftPM
#     refuses it); built with its own scratch folder (.build-examples);
#   - its FlowHostTesting tests run against the Swift flow and the C build,
#     and its step-up's tests with the built-in flows built from the dependency;
#   - the end-to-end tests load both into the built flowhost with --plugins.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

scripts/install-sdk.sh --prefix "$work/prefix"
cp -r Examples/terms-c "$work/terms-c"
rm -f "$work/terms-c/libterms.so"
# CFLAGS given on the command line, as a packager does: the flow keeps what it needs.
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" make -s -C "$work/terms-c" CFLAGS="-O1 -g"

# This checkout as it is (tracked and untracked files, not what git
# ignores), as a repository tagged with the version flowhost reports.
version="$(sed -n 's/.*public var hostVersion = "\(.*\)"/\1/p' Sources/FlowHostCore/HostEngine+Options.swift)"
[ -n "$version" ] || { echo "examples.sh: no hostVersion found" >&2; exit 1; }
mkdir "$work/flowhost"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -C "$work/flowhost" -xf -
git -C "$work/flowhost" init -q
git -C "$work/flowhost" add -A
git -C "$work/flowhost" -c user.name=examples -c user.email=examples@localhost commit -qm "this checkout"
git -C "$work/flowhost" tag "$version"
# The mirror lives in a configuration folder of this run's own (the shared
# one SwiftPM reads beside a package's), and the
# example's scratch folder is new each run, so no earlier resolution is reused.
rm -rf "$root/.build-examples" Examples/TermsFlow/Package.resolved
mkdir "$work/swiftpm-config"
cat > "$work/swiftpm-config/mirrors.json" <<JSON
{"object": [{"original": "https://github.com/flowhost/flowhost.git", "mirror": "$work/flowhost"}], "version": 1}
JSON
spm=(--package-path Examples/TermsFlow --scratch-path "$root/.build-examples" --config-path "$work/swiftpm-config")
swift build "${spm[@]}" 2>&1 | tail -1
swift build "${spm[@]}" --build-tests 2>&1 | tail -1
# The built-in flows a step-up's test loads, built from the dependency as
# an outside author builds them: beside the test binary.
for product in FlowPluginDeviceActivation FlowPluginMFA FlowPluginStepUp; do
  swift build "${spm[@]}" --product "$product" 2>&1 | tail -1
done
TERMS_C_LIBRARY="$work/terms-c/libterms.so" swift test "${spm[@]}" --skip-build
swift_dir="$(swift build "${spm[@]}" --show-bin-path)"

FLOWHOST_BIN_DIR="${FLOWHOST_BIN_DIR:-$(swift build --show-bin-path)}" \
FLOWHOST_EXAMPLE_SWIFT="$swift_dir/libTermsFlow.so" FLOWHOST_EXAMPLE_C="$work/terms-c/libterms.so" \
  python3 -m pytest -q -rfE Tests/EndToEnd/test_examples.py
