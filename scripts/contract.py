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
SWIFT_DIR = os.path.join(ROOT, "Sources", "FlowHostClient", "Generated")
TS_TYPES = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean", "object": "Record<string, unknown>", "array": "unknown[]"}
PY_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "object": "dict", "array": "list"}


def discover(bin_dir):
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run(
            [os.path.join(bin_dir, "flowhost"), "--examples", "--store", os.path.join(folder, "store.sqlite")],
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
    # A row's data column may be empty ("| |"): every documented code is listed.
    rows = re.findall(r"^\| (-?\d+) \| (.+?) \|(.*?)\|$", section, re.M)
    return [{"code": int(code), "message": meaning.strip(), "x-flowhost-data": data.strip() or None} for code, meaning, data in rows]


def contract(bin_dir):
    document = discover(bin_dir)
    available = schema_files()
    flows = sorted({event["flow"] for event in document["x-flowhost-events"]} | {"mfa", "step-up", "device-activation", "lda-toggle", "data-signing", "echo"})
    used = set()
    with open(os.path.join(ROOT, "Protocol", "status-codes.json"), encoding="utf-8") as handle:
        status_file = json.load(handle)
    statuses = status_file["events"]
    document["x-flowhost-status-meanings"] = status_file["meanings"]
    for method in document["methods"]:
        params = owners(method["name"], flows, available, "params")
        result = owners(method["name"], flows, available, "result") or \
            ["%s.result" % flow for flow in method.get("x-flowhost-flows", []) if "%s.result" % flow in available]
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
        if event["name"] in statuses:
            event["x-flowhost-status"] = statuses[event["name"]]
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
    # The shapes of an error answer: any error; -32602 naming the field; an
    # SDK refusal (a positive code with the SDK's long and short codes).
    document["x-flowhost-error-schemas"] = {"any": ref("error"), "invalidParams": ref("invalid-params-error"), "sdkRefusal": ref("sdk-error")}
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
    lines += typed_python_events(document)
    return "\n".join(lines)


def typed_python_events(document):
    """A class per event name: its top-level params as read-only attributes, its status codes."""
    properties = event_properties(document)
    statuses = {event["name"]: event.get("x-flowhost-status") for event in document["x-flowhost-events"]}
    lines = ["", "class Event:",
             '    """An event from the host: `name`, `params` (the raw dict), its top-level',
             '    params as attributes (None when absent), and `status_code` / `error_code`',
             '    read where the contract says this event carries them."""',
             "    name = None", "    STATUS = None", "",
             "    def __init__(self, params):", "        self.params = params or {}", "",
             "    def _at(self, path):", "        value = self.params",
             '        for part in path.split("."):',
             "            if not isinstance(value, dict) or part not in value:", "                return None",
             "            value = value[part]", "        return value", "",
             "    @property", "    def status_code(self) -> Optional[int]:",
             '        return self._at(self.STATUS["statusPath"]) if self.STATUS else None', "",
             "    @property", "    def error_code(self) -> Optional[int]:",
             '        return self._at(self.STATUS["errorPath"]) if self.STATUS else None', "",
             "    def __repr__(self):", '        return "%s(%r)" % (type(self).__name__, self.params)']
    for name in sorted(properties):
        lines += ["", "", "class %s(Event):" % type_name(name), '    """`%s`."""' % name, "    name = %r" % name,
                  "    STATUS = %r" % (statuses.get(name),)]
        for prop in sorted(properties[name]):
            kind = PY_TYPES.get(properties[name][prop][0], "Any")
            lines += ["", "    @property", "    def %s(self) -> Optional[%s]:" % (prop, kind), "        return self.params.get(%r)" % prop]
    lines += ["", "", "EVENT_TYPES = {%s}" % ", ".join("%r: %s" % (name, type_name(name)) for name in sorted(properties)), "", "",
              "def typed_event(message):",
              '    """The typed event for a received event message ({"method", "params"}); Event for one the contract does not name."""',
              '    kind = EVENT_TYPES.get(message.get("method"))',
              "    if kind is None:",
              '        event = Event(message.get("params"))',
              '        event.name = message.get("method")',
              "        return event",
              '    return kind(message.get("params"))', ""]
    return lines


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
           "export const HOST_REQUESTS = %s;" % json.dumps(sorted(r["name"] for r in document["x-flowhost-host-requests"])),
           "export const EVENT_STATUS = %s;" % json.dumps({e["name"]: e["x-flowhost-status"] for e in sorted(document["x-flowhost-events"], key=lambda e: e["name"]) if "x-flowhost-status" in e}, sort_keys=True), ""]
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
    dts += ["}", ""]
    properties = event_properties(document)
    statuses = {event["name"]: event.get("x-flowhost-status") for event in document["x-flowhost-events"]}
    for name in sorted(properties):
        status = statuses.get(name)
        doc = "/** `%s`%s */" % (name, "; status codes at %s: %s; error codes at %s: %s" % (
            status["statusPath"], ", ".join(map(str, status["status"])), status["errorPath"], ", ".join(map(str, status["error"]))) if status else "")
        fields = ["  %s%s: %s;" % (prop if re.match(r"^[A-Za-z_$][\w$]*$", prop) else json.dumps(prop),
                                   "" if properties[name][prop][1] else "?", TS_TYPES.get(properties[name][prop][0], "unknown"))
                  for prop in sorted(properties[name])]
        dts += [doc, "export interface %s {" % type_name(name)] + fields + ["}", ""]
    dts += ["/** Each event's params type, by event name. */", "export interface EventMap {"]
    dts += ["  %s: %s;" % (json.dumps(name), type_name(name)) for name in sorted(properties)]
    dts += ["}", "",
            "/** Where each event carries its status and error codes, and which it can carry. */",
            "export declare const EVENT_STATUS: { [K in EventName]?: { statusPath: string; status: number[]; errorPath: string; error: number[] } };", ""]
    dts += [
            "export type EventName = %s;" % " | ".join(json.dumps(e) for e in sorted({e["name"] for e in document["x-flowhost-events"]})),
            "export type HostRequestName = %s;" % " | ".join(json.dumps(r["name"]) for r in sorted(document["x-flowhost-host-requests"], key=lambda r: r["name"])),
            "export declare const EVENTS: EventName[];", "export declare const CHALLENGES: EventName[];",
            "export declare const HOST_REQUESTS: HostRequestName[];",
            "export declare function installTypedMethods(client: unknown): void;", ""]
    return "\n".join(js), "\n".join(dts)


def load_schema(ref):
    """A schema file by `$ref` (`schemas/x.schema.json` or a sibling's bare name)."""
    name = ref.split("/")[-1]
    with open(os.path.join(SCHEMAS, name), encoding="utf-8") as handle:
        return json.load(handle)


def top_properties(schema):
    """The top-level properties of a schema (through allOf and $ref): name -> (JSON type or None, required)."""
    found = {}
    if "$ref" in schema:
        found.update(top_properties(load_schema(schema["$ref"])))
    for member in schema.get("allOf", []):
        for name, value in top_properties(member).items():
            found[name] = value if name not in found or found[name][0] == value[0] else (None, found[name][1] and value[1])
    required = set(schema.get("required", []))
    for name, member in schema.get("properties", {}).items():
        found[name] = (json_type(member), name in required)
    return found


def json_type(schema):
    """A schema's one JSON type: its `type`, else the type every `const`/`enum` value shares."""
    if isinstance(schema.get("type"), str):
        return schema["type"]
    values = [schema["const"]] if "const" in schema else schema.get("enum", [])
    kinds = {"boolean" if isinstance(v, bool) else "integer" if isinstance(v, int) else "number" if isinstance(v, float)
             else "string" if isinstance(v, str) else None for v in values}
    return kinds.pop() if len(kinds) == 1 else None


def event_properties(document):
    """Per event name (events of one name in several flows are one type): its top-level properties."""
    events = {}
    for event in document["x-flowhost-events"]:
        properties = top_properties(event["params"]) if "$ref" in event["params"] else top_properties(event["params"])
        merged = events.setdefault(event["name"], {})
        for name, (kind, required) in properties.items():
            if name in merged and merged[name][0] != kind:
                merged[name] = (None, False)
            else:
                merged[name] = (kind, required and merged.get(name, (kind, True))[1])
    return events


def type_name(event):
    base = event.replace("$/", "")
    return base[:1].upper() + base[1:] + "Event"


SWIFT_TYPES = {"string": ("String", "stringValue"), "integer": ("Int", "intValue"), "boolean": ("Bool", "boolValue"),
               "number": ("Double", "doubleValue"), "array": ("[JSONValue]", "arrayValue")}
SWIFT_RESERVED = {"default", "protocol", "self", "class", "struct", "enum", "func", "in", "is", "as", "case", "import", "init", "operator", "return", "static", "subscript", "switch", "where", "while", "repeat", "var", "let", "internal", "public", "private", "extension", "deinit", "for", "if", "else", "guard", "throws", "try", "catch", "Type"}


def swift_case(event):
    return event.replace("$/", "")


def typed_swift(document):
    """TypedEvents.swift (an enum case and a struct per event) and TypedRequests.swift (a method per request)."""
    events = event_properties(document)
    ev = ["// Generated by scripts/contract.py from Protocol/openrpc.json: do not edit.", "",
          "/// An event from the host, typed by name. Events of one name sent by several",
          "/// flows (`getPassword`) are one type; `challengeMode` tells them apart.",
          "public enum FlowHostEvent: Sendable {"]
    for name in sorted(events):
        ev.append("    case %s(%s)" % (swift_case(name), type_name(name)))
    ev += ["    /// An event the contract does not name (a flow it does not know).",
           "    case other(name: String, params: JSONValue)", "",
           "    public init(name: String, params: JSONValue) {", "        switch name {"]
    for name in sorted(events):
        ev.append('        case "%s": self = .%s(%s(params: params))' % (name, swift_case(name), type_name(name)))
    ev += ["        default: self = .other(name: name, params: params)", "        }", "    }", "",
           "    public var name: String {", "        switch self {"]
    for name in sorted(events):
        ev.append('        case .%s: return "%s"' % (swift_case(name), name))
    ev += ["        case .other(let name, _): return name", "        }", "    }", "",
           "    public var params: JSONValue {", "        switch self {"]
    for name in sorted(events):
        ev.append("        case .%s(let event): return event.params" % swift_case(name))
    ev += ["        case .other(_, let params): return params", "        }", "    }", ""]
    statuses = {event["name"]: event.get("x-flowhost-status") for event in document["x-flowhost-events"]}
    for accessor, path_key, codes_key in (("statusCode", "statusPath", "status"), ("errorCode", "errorPath", "error")):
        ev += ["    /// Where the contract says this event carries its %s code (nil for an event without one)." % codes_key,
               "    public var %s: Int? {" % accessor, "        switch name {"]
        for name in sorted(n for n in events if statuses.get(n)):
            ev.append('        case "%s": return params.value(at: "%s")?.intValue' % (name, statuses[name][path_key]))
        ev += ["        default: return nil", "        }", "    }", ""]
        ev += ["    /// The %s codes the contract lists for this event." % codes_key,
               "    public var documented%sCodes: [Int] {" % codes_key.capitalize(), "        switch name {"]
        for name in sorted(n for n in events if statuses.get(n)):
            ev.append('        case "%s": return %s' % (name, json.dumps(statuses[name][codes_key])))
        ev += ["        default: return []", "        }", "    }", ""]
    ev[-1] = "}"
    ev.append("")
    for name in sorted(events):
        ev += ["/// `%s`: its top-level params, typed (nil when absent or of another type)." % name,
               "public struct %s: Sendable {" % type_name(name), "    public let params: JSONValue",
               "    public init(params: JSONValue) { self.params = params }"]
        for prop in sorted(events[name]):
            kind, _ = events[name][prop]
            swift_type, accessor = SWIFT_TYPES.get(kind, ("JSONValue", None))
            ident = "`%s`" % prop if prop in SWIFT_RESERVED else prop
            if accessor:
                ev.append('    public var %s: %s? { params["%s"]?.%s }' % (ident, swift_type, prop, accessor))
            else:
                ev.append('    public var %s: JSONValue? { params["%s"] }' % (ident, prop))
        ev += ["}", ""]
    methods = [m for m in sorted(document["methods"], key=lambda m: m["name"]) if m["name"] not in ("exit", "initialize")]
    rq = ["// Generated by scripts/contract.py from Protocol/openrpc.json: do not edit.", "",
          "/// A method per request of the contract: params by name, optional ones left out when nil.",
          "extension FlowHostClient {"]
    for method in methods:
        params = method.get("params", [])
        args = []
        for p in sorted(params, key=lambda p: not p.get("required")):
            kind = p.get("schema", {}).get("type")
            swift_type = {"string": "String", "integer": "Int64", "boolean": "Bool", "number": "Double"}.get(kind, "JSONValue")
            args.append("%s: %s%s" % (p["name"], swift_type, "" if p.get("required") else "? = nil"))
        args.append("timeout: Duration = .seconds(10)")
        summary = (method.get("summary") or method["name"]).replace("\n", " ")
        rq += ["    /// %s" % summary, "    @discardableResult",
               "    public func %s(%s) async throws -> JSONValue {" % (camel(method["name"]).replace("$", ""), ", ".join(args))]
        if params:
            rq.append("        var params: [String: JSONValue] = [:]")
            for p in params:
                kind = p.get("schema", {}).get("type")
                wrap = {"string": ".string(%s)", "integer": ".int(%s)", "boolean": ".bool(%s)", "number": ".double(%s)"}.get(kind, "%s")
                if p.get("required"):
                    rq.append('        params["%s"] = %s' % (p["name"], wrap % p["name"]))
                else:
                    rq.append('        if let %s { params["%s"] = %s }' % (p["name"], p["name"], wrap % p["name"]))
            rq.append('        return try await request("%s", .object(params), timeout: timeout)' % method["name"])
        else:
            rq.append('        return try await request("%s", timeout: timeout)' % method["name"])
        rq += ["    }", ""]
    rq[-1] = "}"
    rq.append("")
    return "\n".join(ev), "\n".join(rq)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [arg for arg in args if arg != "--check"]
    bin_dir = args[0] if args else subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    text = contract(bin_dir)
    js, dts = typed_typescript(json.loads(text))
    swift_events, swift_requests = typed_swift(json.loads(text))
    outputs = {CONTRACT: text, TYPED_PYTHON: typed_python(json.loads(text)),
               os.path.join(TS_DIR, "typed.js"): js, os.path.join(TS_DIR, "typed.d.ts"): dts,
               os.path.join(SWIFT_DIR, "TypedEvents.swift"): swift_events, os.path.join(SWIFT_DIR, "TypedRequests.swift"): swift_requests}
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
