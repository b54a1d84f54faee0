"""What a manifest declares beyond names and types, as a C flow uses it:
a secret param or event member (masked whatever its name), a method's
errors (held to them), an event's params schema (enforced)."""

import json
import subprocess

import pytest
from flowhost_client import RPCError

from conftest import DEVICE


@pytest.fixture
def declares(spawn, test_plugins, tmp_path):
    trace = tmp_path / "frames.trace"
    host = spawn("--no-default-plugins", "--plugins", test_plugins["declares"], "--trace", str(trace))
    host.initialize(device=DEVICE)
    host.trace = trace
    return host


def stop(host):
    host.request("shutdown")
    host.notify("exit")
    assert host.process.wait(5) == 0


def test_a_declared_secret_is_masked_whatever_its_name(declares):
    assert declares.request("declares.unlock", {"answer": "tangerine-42", "note": "plain"}) == {"unlocked": True, "status": 0}
    assert declares.request("declares.unlock", ["tangerine-43", "plain"]) == {"unlocked": True, "status": 0}
    assert declares.wait_event("onUnlocked")["params"] == {"pin": "5150-flow-pin", "count": 1}, "the client gets the value"
    stop(declares)
    text = declares.trace.read_text(encoding="utf-8")
    assert "tangerine-4" not in text and "5150-flow-pin" not in text, text
    frames = [json.loads(line.split(" ", 2)[2]) for line in text.splitlines()]
    by_method = {}
    for frame in frames:
        if isinstance(frame, dict) and frame.get("method"):
            by_method.setdefault(frame["method"], []).append(frame.get("params"))
    assert by_method["declares.unlock"] == [{"answer": "•••", "note": "plain"}, ["•••", "plain"]], "by name and by position"
    assert by_method["onUnlocked"] == [{"pin": "•••", "count": 1}] * 2


def test_rpc_discover_and_plugins_json_show_the_declarations(declares, flowhost_bin, test_plugins):
    methods = {method["name"]: method for method in declares.request("rpc.discover")["methods"]}
    assert methods["declares.check"]["errors"] == [
        {"code": -32050, "message": "Locked", "x-flowhost-description": "Too many tries; wait an hour."},
        {"code": 4001, "message": "Refused"}]
    assert "errors" not in methods["declares.any"], "nothing declared: nothing listed"
    assert [param.get("x-flowhost-secret", False) for param in methods["declares.unlock"]["params"]] == [True, False]
    stop(declares)
    out = subprocess.run([flowhost_bin, "plugins", "--json", "--no-default-plugins", "--plugins", test_plugins["declares"]],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    manifest = json.loads(out.stdout)["flows"][0]["manifest"]
    assert [m.get("errors") for m in manifest["methods"] if m["name"] == "declares.check"][0][0]["code"] == -32050


def test_a_method_is_held_to_the_errors_it_declares(declares):
    assert declares.request("declares.check", {"fail": 0}) == {}
    with pytest.raises(RPCError) as declared:
        declares.request("declares.check", {"fail": -32050})
    assert declared.value.code == -32050 and declared.value.message == "failed with -32050 on purpose"
    with pytest.raises(RPCError) as positive:
        declares.request("declares.check", {"fail": 4001})
    assert positive.value.code == 4001
    with pytest.raises(RPCError) as broken:
        declares.request("declares.check", {"fail": -32051})
    assert broken.value.code == -32603
    assert broken.value.data == {"reason": "undeclaredError", "flow": "declares", "method": "declares.check", "code": -32051}
    assert "on purpose" not in broken.value.message, "the flow's own message is not passed on"
    # A method that declares nothing: its errors pass as they are.
    with pytest.raises(RPCError) as free:
        declares.request("declares.any", {"fail": -32051})
    assert free.value.code == -32051 and free.value.message == "failed with -32051 on purpose"
    stop(declares)
    log = declares.stderr_text()
    assert "flow declares returned error -32051 from declares.check, which does not declare it" in log
    assert "declares.any" not in log


@pytest.mark.parametrize("params,why", [
    ({"pin": "1"}, "params.count: required"),
    ({"pin": 1, "count": 1}, "params.pin: must be string"),
    ({"pin": "1", "count": 0}, "params.count: less than 1"),
    ({"pin": "1", "count": 1, "extra": True}, "params.extra: not allowed"),
])
def test_an_event_its_schema_refuses_is_not_sent(declares, params, why):
    assert declares.request("declares.emit", {"event": "onUnlocked", "params": params}) == {"status": -5}, "FLOWHOST_ERR_INVALID_ARGUMENT"
    # The next, well-formed event is the first the client sees.
    assert declares.request("declares.emit", {"event": "onUnlocked", "params": {"pin": "2", "count": 2}}) == {"status": 0}
    assert declares.wait_event("onUnlocked")["params"] == {"pin": "2", "count": 2}
    assert declares.request("declares.emit", {"event": "onFree", "params": {"anything": [1]}}) == {"status": 0}, "no schema: not checked"
    stop(declares)
    assert [event["method"] for event in declares.events] == ["onUnlocked", "onFree"]
    assert "flow declares emitted event onUnlocked that its declared schema refuses (%s); not sent" % why in declares.stderr_text()


def test_an_event_whose_schema_cannot_be_enforced_is_never_sent(declares):
    assert declares.request("declares.emit", {"event": "onPatterned", "params": {"tag": "abc"}}) == {"status": -5}
    stop(declares)
    assert not [event for event in declares.events if event["method"] == "onPatterned"]
    assert 'schema.properties.tag: the host does not enforce "pattern"' in declares.stderr_text()
