#!/usr/bin/env bash
# Writes scripts/startup-order.txt: the functions of flowhost and of the flow
# libraries that run from exec to an answered `initialize` and a clean exit,
# as callgrind sees them. scripts/build-release.sh hands the list to the
# linker (--symbol-ordering-file), which lays those functions out first, side
# by side: a start then faults in a few hundred kilobytes of each image's
# code, not pages all over it, and an idle host keeps fewer of them resident
# (README, "Start-up"). Every image is linked with the same list; a name an
# image lacks is passed over.
#
# Run it after changes to what runs at start. A stale list costs speed only:
# functions it no longer names go where the linker puts them by default. The
# benchmark prints how much of the list the built flowhost still holds.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || { echo "startup-order.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }
scripts/build-release.sh >/dev/null
bin="$(scripts/build-release.sh --show-bin-path)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# valgrind reads the images' symbol tables; their debug information is
# only slow to read, so it profiles copies without it.
cp "$bin/flowhost" "$bin"/lib*.so "$work/"
for image in "$work/flowhost" "$work"/lib*.so; do strip --strip-debug "$image"; done
initialize='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1.1","clientInfo":{"name":"startup-order","version":"1"},"device":{"deviceID":"startup-order","ldaCapabilities":[]}}}'
session() { printf '%s\n%s\n%s\n' "$initialize" '{"jsonrpc":"2.0","id":1,"method":"shutdown"}' '{"jsonrpc":"2.0","method":"exit"}'; }
# The store is made by a first run: a start usually finds it made.
session | "$work/flowhost" --examples --store "$work/order.sqlite" >/dev/null
session | valgrind --tool=callgrind --callgrind-out-file="$work/profile" --compress-strings=no --compress-pos=no \
  "$work/flowhost" --examples --store "$work/order.sqlite" >/dev/null 2>"$work/valgrind.log" ||
  { cat "$work/valgrind.log" >&2; exit 1; }
python3 - "$work/profile" scripts/startup-order.txt <<'PY'
import sys
# Callgrind names each function once per object (`ob=`) it lives in; a
# recursion level is written as a `'N` suffix, and a function without a
# symbol as its address.
profile, output = sys.argv[1], sys.argv[2]
names, image = {}, ""
for line in open(profile, encoding="utf-8", errors="replace"):
    if line.startswith("ob="):
        image = line[3:].strip().rsplit("/", 1)[-1]
    elif line.startswith("fn=") and (image == "flowhost" or image.startswith("libFlowPlugin")):
        name = line[3:].strip().split("'", 1)[0]
        if name and not name.startswith("0x"):
            names.setdefault(name, None)
with open(output, "w") as out:
    out.write("".join(name + "\n" for name in names))
print(f"{len(names)} functions written to {output}")
PY
