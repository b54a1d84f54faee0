#!/usr/bin/env bash
# Installs what a C flow is built with: the plugin ABI's headers and a
# pkg-config file, `flowhost-plugin` (Cflags for the headers, and the shared
# libjansson every flow must link). Debian's layout: PREFIX/include/flowhost
# and PREFIX/lib/pkgconfig. Then:
#     cc -shared -fPIC $(pkg-config --cflags --libs flowhost-plugin) my_flow.c -o libmy_flow.so
#
#   scripts/install-sdk.sh                   # into /usr/local (as root)
#   scripts/install-sdk.sh --prefix ~/.local # then PKG_CONFIG_PATH=~/.local/lib/pkgconfig
# DESTDIR is honoured, as packagers expect.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "install-sdk: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$prefix" in /*) ;; *) echo "install-sdk: --prefix must be an absolute path" >&2; exit 2 ;; esac

header=Sources/CFlowHostABI/include/flowhost_plugin.h
major=$(sed -n 's/^#define FLOWHOST_ABI_VERSION \([0-9]*\)u*.*/\1/p' "$header")
minor=$(sed -n 's/^#define FLOWHOST_ABI_MINOR \([0-9]*\)u*.*/\1/p' "$header")
[ -n "$major" ] && [ -n "$minor" ] || { echo "install-sdk: cannot read the ABI version from $header" >&2; exit 1; }

include_dir="${DESTDIR:-}$prefix/include/flowhost"
pkgconfig_dir="${DESTDIR:-}$prefix/lib/pkgconfig"
install -d "$include_dir" "$pkgconfig_dir"
install -m 0644 Sources/CFlowHostABI/include/flowhost_plugin.h Sources/CFlowHostABI/include/flowhost_errors.h "$include_dir/"
cat > "$pkgconfig_dir/flowhost-plugin.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include/flowhost

Name: flowhost-plugin
Description: The FlowHost plugin ABI: write an authentication flow in C
Version: $major.$minor
Requires: jansson
Cflags: -I\${includedir}
PC
echo "install-sdk: flowhost-plugin $major.$minor: headers in $include_dir, pkg-config file in $pkgconfig_dir"
