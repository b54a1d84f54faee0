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
TYPED_PYTHON = os.path.join(ROOT, "Protocol", "clients", "python", "flowhost_client", "typed.py")
TS_DIR = os.path.join(ROOT, "Protocol", "clients", "typescript")
TS_TYPES = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean", "object": "Record<string, unknown>", "array": "unknown[]"}
PY_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "object": "dict", "array": "list"}


def discover(bin_dir):
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [os.path.join(bin_dir, "flowhost"), "--store", os.path.join(folder, "store.sqlite")],
            input='{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}\n', capture_output=True, text=True, timeout=30,
            env=dict(os.environ, FLOWHOST_LOG_LEVEL="error", FLOWHOST_CONTRACT="none"))
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


def snake(name):
    name = name.replace(".", "_").replace("/", "_")
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def typed_python(document):
    """A method per request of the contract, on a mixin the client inherits."""
    lines = [
        '"""Generated by scripts/contract.py from Protocol/openrpc.json: do not edit.',
        "",
        "A typed method per request of the contract (params by name, in the",
        "contract's order; optional ones are left out when None), and the names",
        'of the events, the challenges among them, and the host requests."""',
        "",
        "from typing import Any, Optional",
        "",
        "",
        "class TypedRequests:",
        '    """Mixed into FlowHostClient, which provides request()."""',
    ]
    for method in sorted(document["methods"], key=lambda m: m["name"]):
        if method["name"] in ("exit", "initialize"):
            continue  # exit is a notification; initialize has its own helper
        required = [p for p in method.get("params", []) if p.get("required")]
        optional = [p for p in method.get("params", []) if not p.get("required")]
        def annotation(param, optional=False):
            kind = PY_TYPES.get(param.get("schema", {}).get("type"), "Any")
            return "Optional[%s] = None" % kind if optional else kind
        signature = ["self"] + ["%s: %s" % (p["name"], annotation(p)) for p in required] + \
            ["%s: %s" % (p["name"], annotation(p, True)) for p in optional] + ["timeout: float = 10.0"]
        lines += ["", "    def %s(%s) -> Any:" % (snake(method["name"]), ", ".join(signature))]
        summary = (method.get("summary") or method["name"]).replace('"""', "'")
        lines.append('        """%s"""' % summary)
        if method.get("params"):
            lines.append("        params = {%s}" % ", ".join('"%s": %s' % (p["name"], p["name"]) for p in required))
            for p in optional:
                lines.append('        if %s is not None:' % p["name"])
                lines.append('            params["%s"] = %s' % (p["name"], p["name"]))
            lines.append('        return self.request("%s", params, timeout=timeout)' % method["name"])
        else:
            lines.append('        return self.request("%s", timeout=timeout)' % method["name"])
    events = sorted({event["name"] for event in document["x-flowhost-events"]})
    challenges = sorted({event["name"] for event in document["x-flowhost-events"] if event.get("challenge")})
    requests = sorted(request["name"] for request in document["x-flowhost-host-requests"])
    lines += ["", "", "EVENTS = %r" % (tuple(events),), "CHALLENGES = %r" % (tuple(challenges),), "HOST_REQUESTS = %r" % (tuple(requests),), ""]
    return "\n".join(lines)


def camel(name):
    parts = re.split(r"[./]", name)
    return parts[0] + "".join(part[:1].upper() + part[1:] for part in parts[1:])


def typed_typescript(document):
    """typed.js (a method per request on the client's prototype) and typed.d.ts (their types)."""
    methods = [m for m in sorted(document["methods"], key=lambda m: m["name"]) if m["name"] not in ("exit", "initialize")]
    js = ["// Generated by scripts/contract.py from Protocol/openrpc.json: do not edit.",
          "// A method per request of the contract: params by name; optional ones left out when undefined.",
          "", "const METHODS = {"]
    for method in methods:
        js.append('  %s: %s,' % (json.dumps(camel(method["name"])), json.dumps(method["name"])))
    js += ["};", "", "export function installTypedMethods(Client) {",
           "  for (const [name, method] of Object.entries(METHODS)) {",
           "    Client.prototype[name] = function (params, options) {",
           "      const given = params === undefined ? undefined : Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));",
           "      return this.request(method, given, options);",
           "    };", "  }", "}", "",
           "export const EVENTS = %s;" % json.dumps(sorted({e["name"] for e in document["x-flowhost-events"]})),
           "export const CHALLENGES = %s;" % json.dumps(sorted({e["name"] for e in document["x-flowhost-events"] if e.get("challenge")})),
           "export const HOST_REQUESTS = %s;" % json.dumps(sorted(r["name"] for r in document["x-flowhost-host-requests"])), ""]
    dts = ["// Generated by scripts/contract.py from Protocol/openrpc.json: do not edit.", "",
           "export interface RequestOptions { timeoutMs?: number }", ""]
    for method in methods:
        if method.get("params"):
            fields = ["  %s%s: %s;" % (p["name"], "" if p.get("required") else "?", TS_TYPES.get(p.get("schema", {}).get("type"), "unknown"))
                      for p in method["params"]]
            dts += ["/** %s */" % (method.get("summary") or method["name"]).replace("*/", "* /"),
                    "export interface %sParams {" % (camel(method["name"])[:1].upper() + camel(method["name"])[1:])] + fields + ["}", ""]
    dts += ["export interface TypedRequests {"]
    for method in methods:
        name = camel(method["name"])
        if method.get("params"):
            optional = "" if any(p.get("required") for p in method["params"]) else "?"
            dts.append("  %s(params%s: %sParams, options?: RequestOptions): Promise<unknown>;" % (name, optional, name[:1].upper() + name[1:]))
        else:
            dts.append("  %s(params?: undefined, options?: RequestOptions): Promise<unknown>;" % name)
    dts += ["}", "",
            "export type EventName = %s;" % " | ".join(json.dumps(e) for e in sorted({e["name"] for e in document["x-flowhost-events"]})),
            "export type HostRequestName = %s;" % " | ".join(json.dumps(r["name"]) for r in sorted(document["x-flowhost-host-requests"], key=lambda r: r["name"])),
            "export declare const EVENTS: EventName[];", "export declare const CHALLENGES: EventName[];",
            "export declare const HOST_REQUESTS: HostRequestName[];",
            "export declare function installTypedMethods(client: unknown): void;", ""]
    return "\n".join(js), "\n".join(dts)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [arg for arg in args if arg != "--check"]
    bin_dir = args[0] if args else subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    text = contract(bin_dir)
    js, dts = typed_typescript(json.loads(text))
    outputs = {CONTRACT: text, TYPED_PYTHON: typed_python(json.loads(text)),
               os.path.join(TS_DIR, "typed.js"): js, os.path.join(TS_DIR, "typed.d.ts"): dts}
    for path, content in outputs.items():
        if check:
            with open(path, encoding="utf-8") as handle:
                if handle.read() != content:
                    sys.exit("%s is stale: run scripts/contract.py and commit the result" % os.path.relpath(path, ROOT))
        else:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(content)


if __name__ == "__main__":
    main()
