#!/usr/bin/env bash
# Usage: startup-order.sh BIN OUTPUT. Writes OUTPUT, the start-up list
# build.sh links with: the functions of flowhost and of the flow libraries
# in BIN that run from exec to an answered `initialize` and a clean exit,
# as callgrind sees them, then their zero-initialised variables (.bss) that
# the same session reads or writes, as valgrind's lackey sees them. The
# linker (--symbol-ordering-file) lays those functions out first, side by
# side, and those variables first in .bss: a start then faults in a few
# hundred kilobytes of each image's code, not pages all over it, and an idle
# host keeps fewer pages of either resident (docs/performance.md, "The
# release build"). Every image is linked with the same list; a name an image
# lacks is passed over. A stale list costs speed and memory, never
# correctness; the benchmark prints how much of it the built images hold.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: startup-order.sh BIN OUTPUT" >&2; exit 2; }
bin="$1" output="$2"
command -v valgrind >/dev/null || { echo "startup-order.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }
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
python3 - "$work/profile" "$work/order.txt" <<'PY'
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
print(f"startup-order: {len(names)} functions", file=sys.stderr)
PY
# The variables: a bss page is memory only once something touches it, and
# the runtime's caches for every type and conformance (most never used) lie
# among the few a start uses. lackey prints each load and store; the
# images' addresses are read from the process while it waits, idle.
python3 - "$work" "$work/order.txt" "$initialize" <<'PY'
import bisect, subprocess, sys
work, output, initialize = sys.argv[1:]
host = subprocess.Popen(
    ["valgrind", "--tool=lackey", "--trace-mem=yes", f"--log-file={work}/lackey.log",
     f"{work}/flowhost", "--examples", "--store", f"{work}/order.sqlite"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
host.stdin.write((initialize + "\n").encode())
host.stdin.flush()
while b'"method":"getUser"' not in host.stdout.readline():
    pass
maps = open(f"/proc/{host.pid}/maps").read()
host.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"shutdown"}\n{"jsonrpc":"2.0","method":"exit"}\n')
host.stdin.close()
host.stdout.read()
if host.wait() != 0:
    sys.exit("the session under lackey failed")
# Each image's .bss as the process mapped it, and the symbols in it.
ranges, symbols = [], {}
for line in maps.splitlines():
    fields = line.split()
    if len(fields) < 6 or int(fields[2], 16) != 0 or not fields[5].startswith(work + "/"):
        continue
    image = fields[5]
    base = int(fields[0].split("-")[0], 16)
    for section in subprocess.run(["readelf", "-SW", image], capture_output=True, text=True).stdout.splitlines():
        parts = section.replace("[ ", "[").split()
        if len(parts) > 5 and parts[1] == ".bss":
            start, size = int(parts[3], 16), int(parts[5], 16)
            ranges.append((base + start, base + start + size, image, base))
    symbols[image] = sorted(
        (int(value, 16), int(size, 16), name)
        for value, size, kind, name in (l.split() for l in subprocess.run(
            ["nm", "-S", "--defined-only", image], capture_output=True, text=True).stdout.splitlines() if len(l.split()) == 4)
        if kind in "bB")
ranges.sort()
starts = [r[0] for r in ranges]
touched = {}
with open(f"{work}/lackey.log", errors="replace") as log:
    for line in log:
        if len(line) < 4 or line[0] != " " or line[1] not in "LSM":
            continue
        address = int(line[3:].split(",", 1)[0], 16)
        i = bisect.bisect_right(starts, address) - 1
        if i < 0 or address >= ranges[i][1]:
            continue
        _, _, image, base = ranges[i]
        table = symbols[image]
        j = bisect.bisect_right(table, (address - base, 1 << 62, "")) - 1
        if j >= 0 and table[j][0] <= address - base < table[j][0] + max(table[j][1], 1):
            touched.setdefault(table[j][2], None)
listed = set(open(output).read().split())
variables = [name for name in touched if name not in listed]
with open(output, "a") as out:
    out.write("".join(name + "\n" for name in variables))
print(f"startup-order: {len(variables)} variables", file=sys.stderr)
PY
mv "$work/order.txt" "$output"
