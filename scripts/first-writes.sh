#!/usr/bin/env bash
# Which code first writes each page of an image's zero-initialised data in
# an idle host: the release flowhost with every flow, from exec to the
# greeting after `initialize` (scripts/first-writes.c, preloaded). Prints
# each page written after the image's own start, its first writer's stack
# (symbols from the images' tables), and whether the write came only at
# exit (that page is not resident while the host idles).
#
#   scripts/first-writes.sh                  # libswiftCore.so
#   scripts/first-writes.sh flowhost         # the executable's own .bss
#
# A diagnostic, run by hand (docs/performance.md, "The start path"); not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
image="${1:-libswiftCore.so}"

scripts/build-release.sh >/dev/null
bin="$(scripts/build-release.sh --show-bin-path)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cc -O1 -shared -fPIC -o "$work/first-writes.so" scripts/first-writes.c

python3 - "$bin/flowhost" "$work" "$image" <<'PY'
import bisect, os, subprocess, sys, time
flowhost, work, image = sys.argv[1:]
out = work + "/writes.txt"
initialize = ('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1.1",'
              '"clientInfo":{"name":"first-writes","version":"1"},"device":{"deviceID":"first-writes","ldaCapabilities":[]}}}\n')
environment = dict(os.environ, LD_PRELOAD=work + "/first-writes.so", FIRST_WRITES_IMAGE=image, FIRST_WRITES_OUT=out)
host = subprocess.Popen([flowhost, "--examples", "--store", work + "/store.sqlite"], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)
host.stdin.write(initialize.encode())
host.stdin.flush()
received = b""
while b'"method":"getUser"' not in received:
    line = host.stdout.readline()
    if not line:
        sys.exit("the host stopped before greeting")
    received += line
time.sleep(0.3)
maps = open("/proc/%d/maps" % host.pid).read()
idle_length = os.path.getsize(out)
host.stdin.close()
host.wait()
text = open(out).read()

mappings = []
for line in maps.splitlines():
    fields = line.split()
    if len(fields) >= 6 and fields[5].startswith("/"):
        start, end = (int(x, 16) for x in fields[0].split("-"))
        mappings.append((start, end, fields[5]))
base = {}
for start, _, path in mappings:
    base[path] = min(base.get(path, start), start)
tables = {}

def symbol(address):
    for start, end, path in mappings:
        if start <= address < end:
            if path not in tables:
                listing = subprocess.run(["nm", "-C", "--defined-only", path], capture_output=True, text=True).stdout
                listing += subprocess.run(["nm", "-D", "-C", "--defined-only", path], capture_output=True, text=True).stdout
                tables[path] = sorted((int(f[0], 16), " ".join(f[2:])) for f in (l.split() for l in listing.splitlines())
                                      if len(f) >= 3 and f[1] in "tTwW")
            table = tables[path]
            index = bisect.bisect_right(table, (address - base[path], "\uffff")) - 1
            return "%s: %s" % (os.path.basename(path), table[index][1] if index >= 0 else "?")
    return "?"

image_base = next((b for p, b in base.items() if p.endswith(image)), 0)
lines = text.splitlines()
pages = 0
offset = 0
for number, line in enumerate(lines):
    line_start = offset
    offset += len(line) + 1
    if not line.startswith("PAGE"):
        continue
    _, page, _, address = line.split()
    pages += 1
    at_exit = line_start >= idle_length
    print("page +%x (first write at +%x)%s" % (int(page, 16) - image_base, int(address, 16) - image_base, ", at exit only" if at_exit else ""))
    frames = [symbol(int(x, 16)) for x in lines[number + 1].split()[2:14]]
    for frame in [f for f in frames if "first-writes.so" not in f and "libc.so" not in f][:9]:
        print("    " + frame[:150])
print("pages first written after start:", pages)
PY
