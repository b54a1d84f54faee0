"""Protocol/openrpc.json is the built host's rpc.discover document, linked to
the schemas; it must be regenerated (scripts/contract.py) when a flow
changes, and every schema it names must exist."""

import json
import os
import subprocess
import sys
import threading

import pytest

from conftest import BIN_DIR, ROOT, store_environment, store_location


def test_the_committed_contract_is_current():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "contract.py"), "--check", BIN_DIR],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr + out.stdout


def references(value, found=None):
    """Every `$ref` in a JSON value, as the file it names (a `#` fragment
    dropped; a reference within the same file is none)."""
    found = set() if found is None else found
    if isinstance(value, dict):
        if isinstance(value.get("$ref"), str) and not value["$ref"].startswith("#"):
            found.add(value["$ref"].split("#")[0])
        for member in value.values():
            references(member, found)
    elif isinstance(value, list):
        for member in value:
            references(member, found)
    return found


def test_every_reference_in_the_contract_names_a_schema():
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        text = handle.read()
    document = json.loads(text)
    refs = references(document)
    assert refs and all(os.path.exists(os.path.join(ROOT, "Protocol", ref)) for ref in refs), sorted(refs)
    assert {request["name"] for request in document["x-flowhost-host-requests"]} == {
        "platform/authenticateLDA", "platform/createCredential", "platform/createDeviceKey", "platform/getAssertion", "platform/signDeviceChallenge",
        "platform/verifyServerBiometric"}
    assert -32007 in {error["code"] for error in document["x-flowhost-errors"]}


def golden_lines(name):
    """(direction "->" or "<-", host "@B" or "", message, text) for each JSON object line of a transcript."""
    with open(os.path.join(ROOT, "Protocol", "golden", name), encoding="utf-8") as handle:
        for raw in handle.read().splitlines():
            if raw[:3] not in ("-> ", "<- "):
                continue
            host = "@B" if raw[3:].startswith("@B") else ""
            text = raw[3:].split(" ", 1)[1] if raw[3:].startswith("@") else raw[3:]
            try:
                message = json.loads(text)
            except ValueError:
                continue  # the errors transcript sends broken lines on purpose
            if isinstance(message, dict):
                yield raw[:2], host, message, text


def contract_methods():
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        return {method["name"]: method for method in json.load(handle)["methods"]}


def test_every_request_in_the_golden_transcripts_fits_its_schema():
    """The client lines of every transcript that the host accepted (by name,
    or by position in the contract's param order) fit the method's params
    schema where it has one. (Lines the host refused, sent on purpose by the
    errors transcript, are left out.)"""
    from schemas import validate
    methods = contract_methods()
    checked = 0
    for name in sorted(os.listdir(os.path.join(ROOT, "Protocol", "golden"))):
        sent, accepted = [], set()
        for direction, host, message, _ in golden_lines(name):
            if direction == "->":
                sent.append((host, message))
            elif "result" in message:
                accepted.add((host, json.dumps(message.get("id"))))
        for host, message in sent:
            method = methods.get(message.get("method"))
            if not method or "x-flowhost-paramsSchema" not in method or "params" not in message:
                continue
            if (host, json.dumps(message.get("id"))) not in accepted:
                continue
            params = message["params"]
            if isinstance(params, list):
                params = {spec["name"]: value for spec, value in zip(method["params"], params)}
            ref = method["x-flowhost-paramsSchema"]["$ref"]
            validate(os.path.basename(ref)[: -len(".schema.json")], params)
            checked += 1
    assert checked >= 40


SCENARIO = r"""
import sys, flowhost_client
from flowhost_client import FlowHostClient, RPCError
assert flowhost_client.__file__.startswith(sys.argv[4]), flowhost_client.__file__  # the installed copy
binary, store, code, config = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[5]
host = FlowHostClient([binary, "--store", store, "--config", config])
host.initialize(device={"deviceID": "typed-1", "deviceName": "typed", "ldaCapabilities": []})
assert "getPassword" in flowhost_client.CHALLENGES and "platform/authenticateLDA" in flowhost_client.HOST_REQUESTS
host.wait_event("getUser")
host.set_user(userName="alice")
host.wait_event("getActivationCode")
host.set_activation_code(activationCode=code)
host.wait_event("getDeviceName")
host.set_device_name(deviceName="typed")
host.wait_event("getPassword")
host.set_password(password="Tr0ub4dor&Zebra", challengeMode=1)
host.wait_event("onUserLoggedIn")
host.log_off(userID="alice")
host.wait_event("getUser")
host.set_user(userName="alice")
host.wait_event("getPassword")
host.set_password(password="Wrong&Passw0rd9", challengeMode=0)
retry = host.next_event("getPassword")
assert type(retry).__name__ == "GetPasswordEvent" and retry.challengeMode == 0 and retry.status_code == 102 and retry.error_code == 0
assert retry.attemptsLeft == 2 and 102 in retry.STATUS["status"]
host.set_password(password="Tr0ub4dor&Zebra", challengeMode=0)
host.wait_event("onUserLoggedIn")
signed = None
host.authenticate_user_and_sign_data(payload="typed", authLevel=0, authenticatorType=0, reason="typed client")
assert host.wait_event("onAuthenticateUserAndSignData")["params"]["status"]["statusCode"] == 100
host.shutdown()
print("typed scenario ok")
"""


def test_the_python_client_installs_and_its_typed_methods_drive_the_flows(deployment, tmp_path):
    import shutil
    target = tmp_path / "site"
    source = tmp_path / "source"  # a copy: building writes build/ and egg-info beside the sources
    shutil.copytree(os.path.join(ROOT, "Protocol", "clients", "python"), str(source))
    install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", str(target),
                              str(source)], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    code = deployment.add_user("alice")
    with open(deployment.store + ".json", "w") as handle, open(deployment.config) as config:
        handle.write(config.read())
    run = subprocess.run([sys.executable, "-c", SCENARIO, os.path.join(BIN_DIR, "flowhost"), store_location(deployment.store), code, str(target),
                          deployment.store + ".json"],
                         capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(target), **store_environment(deployment.store)))
    assert run.returncode == 0 and "typed scenario ok" in run.stdout, run.stderr[-2000:]


def test_the_typescript_client_drives_the_flows(deployment):
    import shutil
    node = shutil.which("node")
    assert node, "Node.js is installed by scripts/setup.sh --test"
    alice, bob = deployment.add_user("alice"), deployment.add_user("bob")
    run = subprocess.run([node, os.path.join(ROOT, "Protocol", "clients", "typescript", "test", "scenario.mjs"),
                          os.path.join(BIN_DIR, "flowhost"), store_location(deployment.store), deployment.config, alice, bob],
                         capture_output=True, text=True, timeout=120, env=dict(os.environ, **store_environment(deployment.store)))
    assert run.returncode == 0 and "typescript scenario ok" in run.stdout, (run.stdout + run.stderr)[-3000:]


def test_the_typescript_clients_platform_keystore_proves_a_p256_key(deployment):
    """platform-keys.js: every ES256 signature low-s and verifying; then a P-256
    key activates, proves a login, a step-up and a data signing, and the high-s
    form of its signature (which the keystore never sends) is refused."""
    import shutil
    node = shutil.which("node")
    assert node, "Node.js is installed by scripts/setup.sh --test"
    run = subprocess.run([node, os.path.join(ROOT, "Protocol", "clients", "typescript", "test", "platform-keys.mjs"),
                          os.path.join(BIN_DIR, "flowhost"), store_location(deployment.store), deployment.config, deployment.add_user("alice")],
                         capture_output=True, text=True, timeout=120, env=dict(os.environ, **store_environment(deployment.store)))
    assert run.returncode == 0 and "typescript platform keys ok" in run.stdout, (run.stdout + run.stderr)[-3000:]


def serve_each_connection(listener, argv, env, tls=None):
    """Serves each connection on `listener` with a host of its own, as a
    socket unit with Accept=yes does: the connection is the host's stdin
    and stdout. With `tls` (an ssl.SSLContext), as a TLS terminator does:
    the decrypted bytes pass through this process. Returns the hosts."""
    hosts = []

    def pump(read, write, done):
        try:
            while True:
                data = read()
                if not data:
                    break
                write(data)
        except OSError:
            pass
        done()

    def accept():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            if tls is None:
                hosts.append(subprocess.Popen(argv, stdin=connection.fileno(), stdout=connection.fileno(), stderr=subprocess.DEVNULL, env=env))
                connection.close()
                continue
            try:
                secure = tls.wrap_socket(connection, server_side=True)
            except OSError:
                connection.close()
                continue
            host = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, bufsize=0)
            hosts.append(host)
            threading.Thread(target=pump, args=(lambda: secure.recv(65536), host.stdin.write, host.stdin.close), daemon=True).start()
            threading.Thread(target=pump, args=(lambda: os.read(host.stdout.fileno(), 65536), secure.sendall, secure.close), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return hosts


def test_the_typescript_client_connects_to_a_host_behind_a_unix_socket_and_through_tls(deployment, tmp_path):
    """FlowHostClient.connect: a Unix-domain socket's path, and {host, port}
    over TLS with the server's certificate checked against a CA file."""
    import shutil
    import socket
    import ssl
    node = shutil.which("node")
    assert node, "Node.js is installed by scripts/setup.sh --test"
    argv = [os.path.join(BIN_DIR, "flowhost"), "--store", store_location(deployment.store), "--config", deployment.config]
    env = dict(os.environ, **store_environment(deployment.store))
    script = os.path.join(ROOT, "Protocol", "clients", "typescript", "test", "socket.mjs")

    path = str(tmp_path / "flowhost.sock")
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(path)
    unix.listen(4)
    hosts = serve_each_connection(unix, argv, env)
    try:
        run = subprocess.run([node, script, "unix", path, "alice", deployment.add_user("alice")], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and "typescript socket ok" in run.stdout, (run.stdout + run.stderr)[-3000:]
        assert len(hosts) == 2
    finally:
        unix.close()
        os.unlink(path)
        for host in hosts:
            host.kill()

    key, certificate = str(tmp_path / "key.pem"), str(tmp_path / "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", certificate],
                   check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    tcp = socket.create_server(("127.0.0.1", 0))
    hosts = serve_each_connection(tcp, argv, env, tls=context)
    try:
        run = subprocess.run([node, script, "tls", "localhost", str(tcp.getsockname()[1]), certificate, "carol", deployment.add_user("carol")],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and "typescript socket ok" in run.stdout, (run.stdout + run.stderr)[-3000:]
    finally:
        tcp.close()
        for host in hosts:
            host.kill()


def test_rpc_discover_serves_the_committed_contract(spawn, deployment):
    """A host with every built flow, the example included, answers rpc.discover
    with exactly the committed document (the contract is found in the source
    tree above the built executable)."""
    host = deployment.host(extra=("--examples",))
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        assert host.request("rpc.discover") == json.load(handle)


def test_rpc_discover_serves_the_contract_of_the_loaded_flows_only(spawn, echo_dir, tmp_path):
    """With the echo flow alone, its entries carry the contract's schemas, and
    nothing of the flows it did not load appears; with the contract turned off,
    the declarations alone."""
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--store", str(tmp_path / "s.sqlite"))
    document = host.request("rpc.discover")
    methods = {method["name"]: method for method in document["methods"]}
    assert methods["echo"]["x-flowhost-paramsSchema"] == {"$ref": "schemas/echo.echo.params.schema.json"}
    assert methods["echo"]["result"]["schema"] == {"$ref": "schemas/echo.echo.result.schema.json"}
    assert "setUser" not in methods and {event["flow"] for event in document["x-flowhost-events"]} == {"echo", "host"}
    assert -32007 in {error["code"] for error in document["x-flowhost-errors"]}
    plain = spawn("--no-default-plugins", "--plugins", echo_dir, "--store", str(tmp_path / "t.sqlite"), "--contract", "none")
    assert "x-flowhost-errors" not in plain.request("rpc.discover")


def test_a_named_contract_that_cannot_be_read_stops_the_host(flowhost_bin, tmp_path):
    out = subprocess.run([flowhost_bin, "--contract", str(tmp_path / "missing.json"), "--store", str(tmp_path / "s.sqlite")],
                         input="", capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "cannot read the contract" in out.stderr


def test_every_method_event_and_host_request_has_a_complete_schema_and_every_schema_is_used():
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        document = json.load(handle)
    incomplete = []
    for method in document["methods"]:
        if method.get("params") and "x-flowhost-paramsSchema" not in method:
            incomplete.append("%s params" % method["name"])
        if not method.get("x-flowhost-notification") and "$ref" not in method.get("result", {}).get("schema", {}):
            incomplete.append("%s result" % method["name"])
    incomplete += ["%s params" % event["name"] for event in document["x-flowhost-events"] if "$ref" not in event["params"]]
    incomplete += ["%s %s" % (request["name"], part) for request in document["x-flowhost-host-requests"]
                   for part in ("params", "result") if "$ref" not in request.get(part, {})]
    assert not incomplete, incomplete
    assert document["x-flowhost-schemas-without-a-place"] == []
    # The other schema files are parts the linked ones build on ($ref), or
    # documented elsewhere (the admin JSON, §21; receipts, §19).
    linked = {ref.split("/")[-1] for ref in references(document)}
    pending = list(linked)
    while pending:
        with open(os.path.join(ROOT, "Protocol", "schemas", pending.pop()), encoding="utf-8") as handle:
            found = {ref.split("/")[-1] for ref in references(json.load(handle))} - linked
        linked |= found
        pending += list(found)
    with open(os.path.join(ROOT, "Protocol", "spec.md"), encoding="utf-8") as handle:
        spec = handle.read()
    unused = [name for name in os.listdir(os.path.join(ROOT, "Protocol", "schemas"))
              if name not in linked and name[: -len(".schema.json")] not in spec]
    assert not unused, unused


def test_every_golden_result_fits_its_methods_result_schema():
    from schemas import validate
    methods = contract_methods()
    checked = 0
    for name in sorted(os.listdir(os.path.join(ROOT, "Protocol", "golden"))):
        sent = {}
        for direction, host, message, text in golden_lines(name):
            key = (host, json.dumps(message.get("id")))
            if direction == "->" and "method" in message and "id" in message:
                sent[key] = message["method"]
            elif direction == "<-" and "result" in message and key in sent:
                ref = (methods.get(sent[key]) or {}).get("result", {}).get("schema", {}).get("$ref")
                if ref and "{{" not in text:
                    validate(ref.split("/")[-1][: -len(".schema.json")], message["result"])
                    checked += 1
    assert checked >= 20, checked


def test_the_typescript_declarations_type_check_and_type_a_clients_use():
    """tsc --strict over a client's use of the declarations; its @ts-expect-error
    lines (a missing param, an unknown event, a wrongly typed field) must be errors."""
    import shutil
    tsc = shutil.which("tsc")
    assert tsc, "tsc is installed by scripts/setup.sh --test (Debian's node-typescript)"
    folder = os.path.join(ROOT, "Protocol", "clients", "typescript")
    run = subprocess.run([tsc, "--noEmit", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext",
                          "test/typecheck.ts", "test/node-shim.d.ts"], cwd=folder, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_error_code_the_spec_or_a_golden_uses_is_in_the_contract():
    """Issue 21.16: x-flowhost-errors left out -32002, -32003, -32005, -32006,
    -32010 and -32603 (rows with an empty data column were not read)."""
    import re
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        listed = {entry["code"] for entry in json.load(handle)["x-flowhost-errors"]}
    with open(os.path.join(ROOT, "Protocol", "spec.md"), encoding="utf-8") as handle:
        section = handle.read().split("## 3. Errors", 1)[1].split("\n## ", 1)[0]
    documented = {int(code) for code in re.findall(r"^\| (-\d+) \|", section, re.M)}
    assert {-32002, -32003, -32005, -32006, -32010, -32603, -32016} <= documented
    assert documented <= listed, sorted(documented - listed)
    golden = set()
    folder = os.path.join(ROOT, "Protocol", "golden")
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            golden |= {int(code) for code in re.findall(r'"error":\{"code":(-\d+)', handle.read())}
    assert golden <= listed, sorted(golden - listed)


def test_extend_session_idle_timeout_is_in_the_contract():
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        methods = {method["name"]: method for method in json.load(handle)["methods"]}
    assert methods["extendSessionIdleTimeout"]["x-flowhost-flows"] == ["mfa"]
    assert methods["extendSessionIdleTimeout"]["result"]["schema"] == {"$ref": "schemas/mfa.extendSessionIdleTimeout.result.schema.json"}


def test_every_object_the_host_sends_is_described_closed():
    """Issue 48.10: a client that refuses unknown members (Go's
    DisallowUnknownFields) can decode every frame: each schema of what the
    host sends (events, results, host requests, errors and their data)
    closes every object it describes, through allOf too."""
    from schemas import open_objects, ref_name
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        document = json.load(handle)
    sent = {ref_name(event["params"]) for event in document["x-flowhost-events"]}
    sent |= {ref_name(method["result"]["schema"]) for method in document["methods"] if "result" in method}
    sent |= {ref_name(request["params"]) for request in document["x-flowhost-host-requests"]}
    sent |= {ref_name(schema) for schema in document["x-flowhost-error-schemas"].values()}
    sent |= {ref_name(error["x-flowhost-dataSchema"]) for error in document["x-flowhost-errors"] if "x-flowhost-dataSchema" in error}
    assert "rpc.discover.result" in sent and "error-data.challengeMismatch" in sent
    left_open = [place for name in sorted(sent) for place in open_objects(name)]
    assert not left_open, left_open


def test_every_error_code_with_data_has_a_data_schema():
    """Issue 48.10: each code spec §3 gives `data` (-32601, -32004, -32007,
    -32013, -32014, …) names the schema of that data in the contract."""
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        errors = json.load(handle)["x-flowhost-errors"]
    without = [error["code"] for error in errors if error["x-flowhost-data"] and "x-flowhost-dataSchema" not in error]
    assert not without, without
    assert {-32601, -32004, -32007, -32013, -32014} <= {error["code"] for error in errors if "x-flowhost-dataSchema" in error}


def test_one_event_name_has_one_schema():
    """Issue 48.12: getPassword, getUserConsentForLDA and getActivationCode
    are sent by several flows and the frame does not say which: each event
    name has one schema, whose challengeMode tells the cases apart."""
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        events = json.load(handle)["x-flowhost-events"]
    schemas = {}
    for event in events:
        schemas.setdefault(event["name"], set()).add(event["params"]["$ref"])
    assert len([event for event in events if event["name"] == "getPassword"]) >= 4
    several = {name: sorted(refs) for name, refs in schemas.items() if len(refs) > 1}
    assert not several, several


def test_the_signing_outcomes_codes_agree_in_spec_schema_and_status_list():
    """Issue 48.11: onAuthenticateUserAndSignData's status and error codes
    are the same in spec §19's table, its schema and status-codes.json."""
    import re
    with open(os.path.join(ROOT, "Protocol", "spec.md"), encoding="utf-8") as handle:
        section = handle.read().split("## 19. ", 1)[1].split("\n## ", 1)[0]
    table = section.split("| how it ended | statusCode | error | afterwards |", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| [^|]+ \| ([\d, ]+) \| ([\d, ]+) \|", table, re.M)
    spec_status = {int(code) for status, _ in rows for code in status.split(",")}
    spec_error = {int(code) for _, error in rows for code in error.split(",")}
    with open(os.path.join(ROOT, "Protocol", "status-codes.json"), encoding="utf-8") as handle:
        listed = json.load(handle)["events"]["onAuthenticateUserAndSignData"]
    with open(os.path.join(ROOT, "Protocol", "schemas", "data-signing.onAuthenticateUserAndSignData.params.schema.json"), encoding="utf-8") as handle:
        properties = json.load(handle)["properties"]
    assert len(rows) >= 9
    assert spec_status == set(listed["status"]) == set(properties["status"]["properties"]["statusCode"]["enum"])
    assert spec_error == set(listed["error"]) == set(properties["error"]["properties"]["longErrorCode"]["enum"])


@pytest.mark.parametrize("device, accepted", [
    ({"keyCustody": "platform"}, True), ({"keyCustody": "host"}, True), ({"keyCustody": "hsm"}, False),
    ({"deviceName": "n" * 64}, True), ({"deviceName": "n" * 65}, False),
    ({"deviceID": "d" * 128}, True), ({"deviceID": "d" * 129}, False)])
def test_initialize_schema_takes_exactly_what_the_host_takes(spawn, tmp_path, device, accepted):
    """Issue 48.11: initialize's schema names keyCustody, and its limits are
    the host's (64 scalars for a device name, 128 for a device id)."""
    from flowhost_client import RPCError
    from schemas import validator
    params = {"protocolVersion": "1.1", "clientInfo": {"name": "contract", "version": "1"}, "device": device}
    host = spawn("--store", str(tmp_path / "store.sqlite"))
    try:
        host.request("initialize", params)
        took = True
    except RPCError as refusal:
        assert refusal.code == -32602, refusal
        took = False
    assert took == accepted
    assert validator("initialize.params").is_valid(params) == accepted


def test_every_status_code_has_a_list_of_names():
    """Issue 48.11: x-flowhost-status-names mapped 153 to a list and every
    other code to a string; one shape for all, so a typed client needs one type."""
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        names = json.load(handle)["x-flowhost-status-names"]
    assert names["153"] == ["attemptsExhausted", "cancelledByUser"]
    assert all(isinstance(value, list) and value and all(isinstance(name, str) for name in value) for value in names.values()), names


def spec_text():
    with open(os.path.join(ROOT, "Protocol", "spec.md"), encoding="utf-8") as handle:
        return handle.read()


def test_the_spec_counts_the_countersigned_lines_and_names_the_key_id_as_made():
    """Issue 48.13: §19 said the countersignature is over "six lines" and
    listed five (five verify: test_data_signing builds them), and called the
    key id "the first 16 bytes of the BLAKE2b hash" where it is a 16-byte
    digest (outlen 16), which differs."""
    import re
    section = spec_text().split("## 19. ", 1)[1].split("\n## ", 1)[0]
    said, block = re.search(r"over these bytes, (\w+) lines joined by LF:\n\n```\n(.*?)\n```", section, re.S).groups()
    words = {"four": 4, "five": 5, "six": 6, "seven": 7}
    assert words[said] == len(block.splitlines()) == 5
    assert "first 16 bytes of the BLAKE2b" not in section and "`outlen` 16" in section


def test_the_spec_points_to_paths_that_exist_and_its_synopsis_names_every_option():
    """Issue 48.13: §1 pointed to `client/` (it is clients/), and §8's serve
    synopsis left out --store, --state-dir, --device-dir, --contract and --examples."""
    import re
    text = spec_text()
    opening = text.split("\n## 1.", 1)[0]
    for path in re.findall(r"`([\w/.-]+/)`", opening):
        assert os.path.isdir(os.path.join(ROOT, "Protocol", path)) or os.path.isdir(os.path.join(ROOT, path)), path
    assert "`clients/`" in opening
    synopsis = re.search(r"^`flowhost \[serve\] (.*)`$", text.split("## 8. ", 1)[1], re.M).group(1)
    with open(os.path.join(ROOT, "Sources", "FlowHostLaunch", "ServeArguments.swift"), encoding="utf-8") as handle:
        source = handle.read()
    options = set(re.findall(r'"(--[a-z-]+)"', source.split("Every option the serve command takes", 1)[1].split("public static func parse", 1)[0]))
    assert {"--store", "--state-dir", "--device-dir", "--contract", "--examples"} <= options
    missing = sorted(option for option in options if "[%s" % option not in synopsis)
    assert not missing, missing


def test_the_spec_says_what_attempts_left_and_session_info_mean_and_the_schema_holds_it():
    """Issue 48.13: what attemptsLeft means in the set modes (1, 4, 14) and
    which session sessionInfo describes during a step-up were not stated. The
    spec states them; getPassword's schema holds them on every frame the
    suite sees (attemptsLeft 0 in modes 1 and 14; the app session's sessionInfo)."""
    section = " ".join(spec_text().split("## 10. ", 1)[1].split("\n## ", 1)[0].split())
    assert "In the set modes 1 and 14 it is 0" in section and "In mode 4 it is 0 when asked" in section
    assert "a step-up's `getPassword` (modes 3, 5, 12, 15, 1000)" in section and "`sessionType` 0 and an empty `sessionID`" in section
    from schemas import validator
    base = {"userID": "alice", "attemptsLeft": 0, "error": {"longErrorCode": 0, "shortErrorCode": 0, "errorString": "Success"},
            "response": {"status": {"statusCode": 100, "statusMessage": "Success"}, "sessionInfo": {"sessionType": 0, "sessionID": ""},
                         "additionalInfo": {"currentWorkFlow": "NormalLogin"}, "info": []}}
    check = validator("getPassword.params")
    assert check.is_valid(dict(base, challengeMode=3)) and check.is_valid(dict(base, challengeMode=14))
    assert not check.is_valid(dict(base, challengeMode=14, attemptsLeft=2))
    in_session = json.loads(json.dumps(base))
    in_session["response"]["sessionInfo"] = {"sessionType": 1, "sessionID": "0" * 32}
    assert not check.is_valid(dict(in_session, challengeMode=3)) and not check.is_valid(dict(base, challengeMode=2))
    assert check.is_valid(dict(in_session, challengeMode=2))


def test_the_suites_frame_check_refuses_members_the_contract_does_not_describe():
    """Issue 48.10: the frame check every test runs is strict: an unknown
    member anywhere in an event, or an error whose data the contract does not
    describe, is a problem, as a wrong enum value is."""
    from conftest import contract_problems
    event = {"jsonrpc": "2.0", "method": "getPassword", "params": {
        "userID": "alice", "challengeMode": 0, "attemptsLeft": 3,
        "error": {"longErrorCode": 0, "shortErrorCode": 0, "errorString": "Success"},
        "response": {"status": {"statusCode": 100, "statusMessage": "Success"}, "sessionInfo": {"sessionType": 0, "sessionID": ""},
                     "additionalInfo": {"currentWorkFlow": "NormalLogin"}, "info": []}}}
    assert contract_problems([("<-", json.dumps(event))]) == []
    for place in (event["params"], event["params"]["response"], event["params"]["response"]["status"], event["params"]["error"]):
        place["x-unknown"] = 1
        assert contract_problems([("<-", json.dumps(event))]), place
        del place["x-unknown"]
    assert contract_problems([("<-", json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32003, "message": "m", "data": {"x": 1}}}))])
    assert contract_problems([("<-", json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "m", "data": {"method": "x", "y": 1}}}))])
    assert contract_problems([("<-", json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "m", "data": {"method": "x"}}}))]) == []
