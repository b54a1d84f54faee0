#!/usr/bin/env bash
# The Debian package: .build-package/flowhost_VERSION_ARCH.deb, made with
# debhelper (dh) from the release build (scripts/release/build.sh, run here
# too: it builds only what changed). What goes where, and why the Swift
# runtime goes with it, is in docs/deployment.md ("The Debian package");
# the package's rules are packaging/debian/, its units packaging/*.socket
# and packaging/*.service.
#
#   scripts/package.sh        # then: apt-get install ./.build-package/flowhost_*.deb
#
# Needs debhelper and patchelf (scripts/setup.sh --test installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/release/build.sh 2>&1 | tail -1
release="$(scripts/release/build.sh --show-bin-path)"
version="$("$release/flowhost" --version)"
out=.build-package
stage="$out/flowhost-$version"
root="$stage/staged"
runtime=/usr/lib/flowhost/swift

rm -rf "$stage" "$out"/flowhost_*.deb
mkdir -p "$root"
cp -r packaging/debian/. "$stage/debian/"
cp packaging/flowhost.socket packaging/flowhost@.service packaging/flowhost-tls.socket "$stage/debian/"
# flowhost-tls@.service is flowhost@.service (a link); `dh_installsystemd
# --name=flowhost-tls` finds a template under this name.
cp -L packaging/flowhost-tls@.service "$stage/debian/flowhost@.flowhost-tls.service"
cat > "$stage/debian/changelog" <<CHANGELOG
flowhost ($version) unstable; urgency=medium

  * Built from commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown).

 -- FlowHost maintainers <flowhost-maintainers@users.noreply.github.com>  $(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
CHANGELOG

# The programs and the built-in flows (not the examples: they load only on
# request, and a package installs what an operator runs).
install -d "$root/usr/bin" "$root/usr/lib/flowhost/plugins" "$root$runtime"
install -m 0755 "$release/flowhost" "$release/flowhost-cli" "$root/usr/bin/"
install -m 0644 "$release"/libFlowPlugin*.so "$root/usr/lib/flowhost/plugins/"

# The Swift runtime libraries these load from the toolchain: a private copy,
# found through each image's RUNPATH (the build's names the toolchain's
# folder). Debian's own libraries stay Debian's: dpkg-shlibdeps makes them
# Depends.
images=("$root/usr/bin/flowhost" "$root/usr/bin/flowhost-cli" "$root"/usr/lib/flowhost/plugins/*.so)
toolchain="$(readelf -d "$release/flowhost" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')"
[ -n "$toolchain" ] || { echo "package.sh: the release flowhost names no RUNPATH: where is the Swift runtime?" >&2; exit 1; }
libraries="$(for image in "${images[@]}"; do ldd "$image"; done | awk -v dir="$toolchain/" 'index($3, dir) == 1 { print $3 }' | sort -u)"
[ -n "$libraries" ] || { echo "package.sh: no Swift runtime library found under $toolchain" >&2; exit 1; }
for library in $libraries; do install -m 0644 "$library" "$root$runtime/"; done
for image in "${images[@]}"; do patchelf --set-rpath "$runtime" "$image"; done

# The contract, served by rpc.discover (found at ../share/flowhost from the host).
install -d "$root/usr/share/flowhost"
install -m 0644 Protocol/openrpc.json "$root/usr/share/flowhost/"
# The message catalogs, read when a client sets a language (at ../share/flowhost/locale from the host).
install -d "$root/usr/share/flowhost/locale"
install -m 0644 Protocol/locale/*.po "$root/usr/share/flowhost/locale/"

# The C header and pkg-config file for flows written in C.
# The .pc names no library of its own, so it goes where arch-independent ones do.
DESTDIR="$root" scripts/install-sdk.sh --prefix /usr >/dev/null
install -d "$root/usr/share/pkgconfig"
mv "$root/usr/lib/pkgconfig/flowhost-plugin.pc" "$root/usr/share/pkgconfig/"
rmdir "$root/usr/lib/pkgconfig"

# Man pages, from swift-argument-parser's generate-manual plugin, on the
# debug build (the same commands; a release build here would replace the
# release build's tuned products with untuned ones).
manuals=.build/plugins/GenerateManual/outputs/flowhost-cli
rm -rf "$manuals"
swift package plugin generate-manual --configuration debug >/dev/null
install -d "$root/usr/share/man/man1"
install -m 0644 "$manuals"/*.1 "$root/usr/share/man/man1/"

# The default config (a conffile: dpkg keeps the operator's changes), the
# documents, and the sample stunnel configuration.
install -d "$root/etc/flowhost"
install -m 0644 packaging/config.json "$root/etc/flowhost/config.json"
install -d "$root/usr/share/doc/flowhost/examples"
install -m 0644 docs/deployment.md SECURITY.md "$root/usr/share/doc/flowhost/"
install -m 0644 packaging/stunnel.conf "$root/usr/share/doc/flowhost/examples/"

(cd "$stage" && debian/rules binary)
deb="$(ls "$out"/flowhost_"$version"_*.deb)"
echo "package.sh: $deb"
