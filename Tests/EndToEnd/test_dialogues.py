"""One dialogue at a time: a request that would start a second dialogue
while another flow's is in progress is refused and names what is open (a
flow's new dialogue replaces its own); reads are always answered; a
session that ends mid-dialogue ends the dialogue."""

import json

import pytest

from conftest import CHEAP_CONFIG, GOOD_PASSWORD, Deployment, activate, status_of, wait_until
from flowhost_client import RPCError


def mixed_host(deployment, test_plugins, config=None, device="device-1"):
    """The mfa flow (default plugins) with the C caller and its C step-up provider."""
    host = deployment.spawn_host("--plugins", test_plugins["c_caller"], "--plugins", test_plugins["c_stepup"],
                                 "--store", deployment.store, "--config", config or deployment.config)
    host.initialize(device={"deviceID": device, "deviceName": "d", "ldaCapabilities": []})
    return host


def refused_start(host):
    with pytest.raises(RPCError) as refused:
        host.request("ccaller.start", {"purpose": "second"})
    assert refused.value.code == -32007
    return refused.value.data["open"]


def test_a_flows_new_dialogue_replaces_its_own_stale_one(deployment, test_plugins):
    """The seeds' apps dismiss a step-up or toggle prompt and let the user
    try again: the same flow's new dialogue cancels its old one (the flow
    hears -32800, the old challenge closes) instead of -32007."""
    host = mixed_host(deployment, test_plugins)
    host.wait_event("getUser")
    host.request("ccaller.start", {"purpose": "first"})
    host.wait_event("getSecret")
    assert host.request("ccaller.start", {"purpose": "again"})["rc"] == 0
    assert host.wait_event("onCallerDone")["params"]["error"] == -32800, "the old dialogue's flow is told"
    host.wait_event("getSecret")
    host.request("setSecret", ["right", 3])
    assert host.wait_event("onCallerDone")["params"] == {"result": {"verified": True}}
    assert not host.stderr_text().count("error"), "an ordinary replacement logs no error"
    assert host.request("ccaller.start", {"purpose": "third"})["rc"] == 0, "allowed again once the second ended"


def test_an_mfa_dialogue_blocks_another_flows_start_until_it_ends(deployment, test_plugins):
    code = deployment.add_user("alice")
    host = mixed_host(deployment, test_plugins)
    host.wait_event("getUser")
    host.request("setUser", ["alice"])
    host.wait_event("getActivationCode")
    assert refused_start(host) == {"flow": "mfa", "event": "getActivationCode", "challengeMode": None}
    host.request("setActivationCode", [code])
    host.wait_event("getDeviceName")
    host.request("setDeviceName", ["d"])
    host.wait_event("getPassword")
    assert refused_start(host)["event"] == "getPassword"
    host.request("setPassword", [GOOD_PASSWORD, 1])
    host.wait_event("onUserLoggedIn")
    assert host.request("ccaller.start", {"purpose": "after"})["rc"] == 0, "getUser rests; a logged-in host is idle"


def test_another_flows_dialogue_blocks_mfa_answers_and_reset_abandons_it(deployment, test_plugins):
    host = mixed_host(deployment, test_plugins)
    host.wait_event("getUser")
    host.request("ccaller.start", {"purpose": "first"})
    host.wait_event("getSecret")
    with pytest.raises(RPCError) as mismatch:
        host.request("setUser", ["alice"])
    assert mismatch.value.code == -32004 and mismatch.value.data["open"]["flow"] == "cstep"
    assert host.request("ccaller.reset") == {"cancelled": 1}
    assert host.wait_event("onCallerDone")["params"]["error"] == -32800
    assert host.request("ccaller.start", {"purpose": "again"})["rc"] == 0


def test_reads_in_the_middle_of_a_dialogue_are_answered_and_change_nothing(deployment, test_plugins):
    host = mixed_host(deployment, test_plugins)
    host.wait_event("getUser")
    host.request("ccaller.start", {"purpose": "first"})
    host.wait_event("getSecret")
    before = len(host.events)
    assert host.request("ping") == {}
    assert host.request("rpc.discover")["openrpc"] == "1.3.2"
    assert host.request("ccaller.session") is None
    host.drain(0.2)
    assert len(host.events) == before, "no event from a read"
    host.request("setSecret", ["right", 3])
    assert host.wait_event("onCallerDone")["params"]["result"] == {"verified": True}


def test_a_session_that_ends_mid_step_up_ends_the_step_up(tmp_path, flowhost_bin, spawn, test_plugins):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["sessions"] = {"idleTimeoutSeconds": 60, "lifetimeSeconds": 3}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    code = deployment.add_user("alice")
    host = mixed_host(deployment, test_plugins)
    activate(host, "alice", code)
    rows_before = len(deployment.admin("audit", "--limit", "1000"))
    host.request("ccaller.start", {"purpose": "approve"})
    host.wait_event("getSecret")
    host.wait_event("onSessionTimeout", timeout=6)
    done = host.wait_event("onCallerDone")
    assert done["params"]["error"] == -32800, "the caller hears its step-up was cancelled"
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    pending = [json.loads(line)["id"] for direction, line in host.transcript if direction == "<-" and "platform/confirm" in line]
    assert wait_until(lambda: set(pending) <= set(host.cancelled)), "the client is told to drop the platform prompt"
    with pytest.raises(RPCError) as late:
        host.request("setSecret", ["right", 3])
    assert late.value.code in (-32003, -32004)
    rows = deployment.admin("audit", "--limit", "1000")
    assert [row["action"] for row in rows[: len(rows) - rows_before]] == ["session.close"], "nothing else is recorded"


def test_discovery_marks_the_methods_that_start_a_dialogue(deployment, test_plugins):
    host = mixed_host(deployment, test_plugins)
    methods = {method["name"]: method for method in host.request("rpc.discover")["methods"]}
    assert methods["ccaller.start"].get("x-flowhost-startsDialogue") is True
    assert "x-flowhost-startsDialogue" not in methods["ping"] and "x-flowhost-startsDialogue" not in methods["ccaller.session"]


def test_events_from_other_hosts_arrive_while_a_dialogue_is_open(deployment, test_plugins):
    listener = mixed_host(deployment, test_plugins, device="device-a")
    listener.wait_event("getUser")
    assert listener.request("ccaller.subscribe", {"topic": "ccaller.news"}) == {"rc": 0}
    listener.request("ccaller.start", {"purpose": "approve"})
    listener.wait_event("getSecret")
    publisher = mixed_host(deployment, test_plugins, device="device-b")
    publisher.request("ccaller.publish", {"topic": "ccaller.news", "payload": {"n": 1}})
    assert listener.wait_event("onFeed", timeout=5)["params"]["payload"] == {"n": 1}
    listener.request("setSecret", ["right", 3])
    assert listener.wait_event("onCallerDone")["params"]["result"] == {"verified": True}, "the dialogue went on"


def test_only_a_retry_of_the_action_that_started_a_dialogue_replaces_it(deployment):
    """mfa's activation dialogue started from getUser (an answer): mfa's own
    initiateUpdateFlowForCredential does not cut it short, it is -32007."""
    code = deployment.add_user("alice")
    host = deployment.host("device-1")
    host.wait_event("getUser")
    host.request("setUser", ["alice"])
    host.wait_event("getActivationCode")
    with pytest.raises(RPCError) as refused:
        host.request("initiateUpdateFlowForCredential", ["Password"])
    assert refused.value.code == -32007 and refused.value.data["open"]["event"] == "getActivationCode"
    host.request("setActivationCode", [code])
    assert host.wait_event()["method"] == "getDeviceName", "the activation went on"
