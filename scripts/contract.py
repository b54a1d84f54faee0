#!/usr/bin/env python3
"""Writes Protocol/openrpc.json: the host's own rpc.discover document (every
method of every built flow, its events and services), with each method,
event and host request linked by `$ref` to its schema in Protocol/schemas,
and the error codes of spec §3. Usage: scripts/contract.py [--check] [BIN_DIR]
(`--check` compares with the committed file instead of writing it: the
test suite runs it so a stale contract fails).

Schema files are named `<flow>.<method or event>.params|result.schema.json`
(host requests `platform.<name>`, for `platform/<name>`; the host's own
methods and events bare or `host.<name>`)."""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "Protocol", "schemas")
CONTRACT = os.path.join(ROOT, "Protocol", "openrpc.json")


def discover(bin_dir):
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [os.path.join(bin_dir, "flowhost"), "--store", os.path.join(folder, "store.sqlite")],
            input='{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}\n', capture_output=True, text=True, timeout=30,
            env=dict(os.environ, FLOWHOST_LOG_LEVEL="error"))
    return json.loads(out.stdout.splitlines()[0])["result"]


def schema_files():
    return {name[: -len(".schema.json")] for name in os.listdir(SCHEMAS) if name.endswith(".schema.json")}


def ref(name):
    return {"$ref": "schemas/%s.schema.json" % name}


def owners(name, flows, available, kind):
    """The schema names for `name` of `kind` (params or result): one per flow that has one, else a bare or host one."""
    found = ["%s.%s.%s" % (flow, name, kind) for flow in flows if "%s.%s.%s" % (flow, name, kind) in available]
    for bare in ("%s.%s" % (name, kind), "host.%s.%s" % (name, kind)):
        if not found and bare in available:
            found.append(bare)
    return found


def errors():
    with open(os.path.join(ROOT, "Protocol", "spec.md"), encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("## 3. Errors", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (-?\d+) \| (.+?) \| (.*?) \|$", section, re.M)
    return [{"code": int(code), "message": meaning.strip(), "x-flowhost-data": data.strip() or None} for code, meaning, data in rows]


def contract(bin_dir):
    document = discover(bin_dir)
    available = schema_files()
    flows = sorted({event["flow"] for event in document["x-flowhost-events"]} | {"mfa", "step-up", "device-activation", "lda-toggle", "data-signing", "echo"})
    used = set()
    for method in document["methods"]:
        params = owners(method["name"], flows, available, "params")
        result = owners(method["name"], flows, available, "result")
        if params:
            method["x-flowhost-paramsSchema"] = ref(params[0])
            used.update(params)
        if result:
            method["result"] = {"name": "result", "schema": ref(result[0])}
            used.update(result)
    for event in document["x-flowhost-events"]:
        name = "%s.%s.params" % (event["flow"], event["name"].lstrip("$/")) if event["flow"] != "host" else \
            "host.%s.params" % event["name"].replace("$/", "")
        if name in available:
            event["params"] = ref(name)
            used.add(name)
    requests = []
    for name in sorted(available):
        if name.startswith("platform.") and name.endswith(".params"):
            method = "platform/" + name[len("platform."): -len(".params")]
            request = {"name": method, "params": ref(name)}
            result = name[: -len(".params")] + ".result"
            if result in available:
                request["result"] = ref(result)
                used.add(result)
            used.add(name)
            requests.append(request)
    document["x-flowhost-host-requests"] = requests
    document["x-flowhost-host-request-error"] = ref("platform.error")
    document["x-flowhost-errors"] = errors()
    document["x-flowhost-schemas-without-a-place"] = sorted(
        name for name in available - used - {"platform.error"} if name.endswith(".params") or name.endswith(".result"))
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [arg for arg in args if arg != "--check"]
    bin_dir = args[0] if args else subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    text = contract(bin_dir)
    if check:
        with open(CONTRACT, encoding="utf-8") as handle:
            if handle.read() != text:
                sys.exit("Protocol/openrpc.json is stale: run scripts/contract.py and commit the result")
        return
    with open(CONTRACT, "w", encoding="utf-8") as handle:
        handle.write(text)


if __name__ == "__main__":
    main()
