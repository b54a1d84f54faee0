"""Protocol/openrpc.json is the built host's rpc.discover document, linked to
the schemas; it must be regenerated (scripts/contract.py) when a flow
changes, and every schema it names must exist."""

import json
import os
import subprocess
import sys

from conftest import BIN_DIR, ROOT


def test_the_committed_contract_is_current():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "contract.py"), "--check", BIN_DIR],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr + out.stdout


def test_every_reference_in_the_contract_names_a_schema():
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        text = handle.read()
    document = json.loads(text)
    refs = set()

    def walk(value):
        if isinstance(value, dict):
            if "$ref" in value:
                refs.add(value["$ref"])
            for member in value.values():
                walk(member)
        elif isinstance(value, list):
            for member in value:
                walk(member)
    walk(document)
    assert refs and all(os.path.exists(os.path.join(ROOT, "Protocol", ref)) for ref in refs), sorted(refs)
    assert {request["name"] for request in document["x-flowhost-host-requests"]} == {
        "platform/authenticateLDA", "platform/createDeviceKey", "platform/signDeviceChallenge"}
    assert -32007 in {error["code"] for error in document["x-flowhost-errors"]}


def test_every_request_in_the_golden_transcripts_fits_its_schema():
    """The client lines of every transcript that the host accepted (by name,
    or by position in the contract's param order) fit the method's params
    schema where it has one. (Lines the host refused, sent on purpose by the
    errors transcript, are left out.)"""
    from schemas import validate
    with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as handle:
        methods = {method["name"]: method for method in json.load(handle)["methods"]}
    golden = os.path.join(ROOT, "Protocol", "golden")
    checked = 0
    for name in sorted(os.listdir(golden)):
        sent, accepted = [], set()
        with open(os.path.join(golden, name), encoding="utf-8") as handle:
            for raw in handle.read().splitlines():
                if raw[:3] not in ("-> ", "<- "):
                    continue
                text = raw[3:].split(" ", 1)[1] if raw[3:].startswith("@") else raw[3:]
                try:
                    message = json.loads(text)
                except ValueError:
                    continue  # the errors transcript sends broken lines on purpose
                if not isinstance(message, dict):
                    continue
                if raw.startswith("-> "):
                    sent.append((raw[3:].startswith("@B"), message))
                elif "result" in message:
                    accepted.add((raw[3:].startswith("@B"), json.dumps(message.get("id"))))
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
