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
