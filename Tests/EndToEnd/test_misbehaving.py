"""Plugins that break the rules, loaded beside good ones: each misdeed is
refused or reported with one clear line, and the other flows keep serving.
(What the host cannot defend against in-process is in Protocol/spec.md §20.)"""

import pytest

from flowhost_client import RPCError


@pytest.fixture
def host(spawn, echo_dir, test_plugins, tmp_path):
    client = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["misbehaving"],
                   "--plugins", test_plugins["create_fails"], "--plugins", test_plugins["noisy"],
                   "--store", str(tmp_path / "store.sqlite"))
    result = client.initialize(device={"deviceID": "d", "deviceName": "d", "ldaCapabilities": []})
    assert {flow["name"] for flow in result["flows"]} == {"echo", "misbehaving", "noisy"}, "the one that failed in create is refused"
    return client


def echo_still_serves(host):
    assert host.request("echo", {"text": "still here"}) == {"text": "still here"}


def test_each_misdeed_is_reported_and_the_others_keep_serving(host):
    assert host.request("bad.undeclaredEvent") == {"rc": -4}
    echo_still_serves(host)
    assert host.request("bad.eventNotObject") == {"rc": -5}
    with pytest.raises(RPCError) as empty:
        host.request("bad.errorWithoutMessage")
    assert empty.value.code == 7 and empty.value.message == "the flow gave no message"
    with pytest.raises(RPCError) as unterminated:
        host.request("bad.errorUnterminated")
    assert unterminated.value.code == 8 and set(unterminated.value.message) == {"x"} and len(unterminated.value.message) < 1024, \
        "a message without its NUL is read only up to the buffer's size"
    with pytest.raises(RPCError) as silent:
        host.request("bad.failWithoutError")
    assert silent.value.code == -32603
    assert host.request("bad.fromAnotherThread") == {"emit": -2, "call": -2}, "FLOWHOST_ERR_WRONG_THREAD, nothing done"
    assert host.request("noisy.shout") == {"shouted": True}
    echo_still_serves(host)
    host.drain(0.3)
    assert not [event for event in host.events if event["method"] in ("onNeverDeclared", "onBad")], "nothing undeclared or malformed reaches the client"
    host.request("shutdown")
    host.notify("exit")
    assert host.process.wait(5) == 0
    log = host.stderr_text()
    for line in ["create failed: no database configured", "emitted undeclared event onNeverDeclared",
                 "with params that are not an object", "failed (status -99, error code 0) without saying why",
                 "called the host from a thread other than the loop"]:
        assert line in log, line
