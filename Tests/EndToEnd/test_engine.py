"""The engine for five flows, proven with flows written in C: asynchronous
services with a dialogue of their own and cancellation down the chain,
timers, challenge expiry, the host-owned session, the change feed between
hosts, flow-owned records, and an ABI that grows (a 1.0 plugin still works)."""

import json
import os
import sqlite3
import subprocess
import time

import pytest

from conftest import CHEAP_CONFIG, DEVICE, GOOD_PASSWORD, Deployment, activate, status_of, wait_until
from flowhost_client import RPCError
from schemas import validate


def engine_host(spawn, test_plugins, deployment, *extra, device="device-engine"):
    host = spawn("--no-default-plugins", "--plugins", test_plugins["c_caller"], "--plugins", test_plugins["c_stepup"],
                 "--store", deployment.store, "--config", deployment.config, *extra)
    host.initialize(device=dict(DEVICE, deviceID=device))
    return host


def host_requests(host, method):
    return [json.loads(line) for direction, line in host.transcript
            if direction == "<-" and '"id":"fh-' in line and '"method":"%s"' % method in line]


# -- Asynchronous services that talk to the client ------------------------------

def test_an_async_service_runs_its_own_dialogue_then_answers_its_caller(spawn, test_plugins, deployment):
    host = engine_host(spawn, test_plugins, deployment)
    started = host.request("ccaller.start", {"purpose": "approve"})
    assert started["rc"] == 0 and started["call"] > 0
    challenge = host.wait_event("getSecret")
    assert challenge["params"]["challengeMode"] == 3
    assert host_requests(host, "platform/confirm")[0]["params"] == {"purpose": "approve"}
    with pytest.raises(RPCError) as mismatch:
        host.request("setSecret", ["right", 0])
    assert mismatch.value.code == -32004, "the provider's challengeMode is checked"
    host.request("setSecret", ["wrong", 3])
    assert host.wait_event("getSecret")["params"]["status"] == 102
    host.request("setSecret", ["right", 3])
    assert host.wait_event("onCallerDone")["params"] == {"result": {"verified": True}}
    with pytest.raises(RPCError) as closed:
        host.request("setSecret", ["right", 3])
    assert closed.value.code == -32003, "the provider's challenge ended with its call"
    pending = host_requests(host, "platform/confirm")[0]["id"]
    assert wait_until(lambda: pending in host.cancelled), "the call's host request ends with it"


def test_a_provider_error_reaches_the_caller(spawn, test_plugins, deployment):
    host = engine_host(spawn, test_plugins, deployment)
    host.request("ccaller.start", {"purpose": "x"})
    for _ in range(3):
        host.wait_event("getSecret")
        host.request("setSecret", ["wrong", 3])
    done = host.wait_event("onCallerDone")
    assert done["params"]["error"] == 153 and done["params"]["message"] == "attempts exhausted"


def test_cancelling_a_chain_ends_the_provider_dialogue_and_refuses_late_answers(spawn, test_plugins, deployment):
    host = engine_host(spawn, test_plugins, deployment)
    host.request("ccaller.start", {"purpose": "approve"})
    host.wait_event("getSecret")
    assert host.request("ccaller.reset") == {"cancelled": 1}
    # The provider hears first, then the caller, once.
    assert host.wait_event()["method"] == "onStepCancelled"
    assert host.wait_event("onCallerDone")["params"]["error"] == -32800
    pending = host_requests(host, "platform/confirm")[0]["id"]
    assert wait_until(lambda: pending in host.cancelled)
    with pytest.raises(RPCError) as late:
        host.request("setSecret", ["right", 3])
    assert late.value.code == -32003
    host.send({"jsonrpc": "2.0", "id": pending, "result": {"confirmed": True}})  # a late platform answer: ignored
    assert host.request("ping") == {}
    assert host.request("ccaller.reset") == {"cancelled": 0}
    assert not [event for event in host.events if event["method"] == "onCallerDone"][1:], "the caller heard once"


def test_a_flow_that_did_not_open_the_session_cannot_abandon_what_another_flow_runs(spawn, test_plugins, deployment):
    """ABI 1.2's abandon_dialogues, from C: ending another flow's dialogue
    is the session owner's right. ccaller opened no session, so it is
    refused (FLOWHOST_ERR_NOT_PERMITTED) and cstep's dialogue goes on
    unharmed. (mfa's resetAuthState after login is the owner's call: see
    test_dialogues.)"""
    host = engine_host(spawn, test_plugins, deployment)
    assert host.request("ccaller.abandonAll") == {"abandoned": -9}
    host.request("ccaller.start", {"purpose": "approve"})
    host.wait_event("getSecret")
    assert host.request("ccaller.abandonAll") == {"abandoned": -9}
    host.request("setSecret", ["right", 3])
    assert host.wait_event("onCallerDone")["params"] == {"result": {"verified": True}}, "the dialogue was not touched"


# -- Timers and challenge expiry ------------------------------------------------------

def test_a_timer_fires_once_and_a_cancelled_one_never(spawn, test_plugins, deployment):
    host = engine_host(spawn, test_plugins, deployment)
    # The cancelled timer is long, so a slow machine cannot let it fire before it is cancelled.
    drop = host.request("ccaller.timer", {"ms": 1500})["id"]
    assert host.request("ccaller.cancelTimer", {"id": drop}) == {"rc": 0}
    keep = host.request("ccaller.timer", {"ms": 50})["id"]
    assert host.wait_event("onTimer", timeout=5)["params"] == {"fired": True}
    time.sleep(2.0)
    host.drain(0.1)
    assert len([event for event in host.events if event["method"] == "onTimer"]) == 1
    assert host.request("ccaller.cancelTimer", {"id": keep}) == {"rc": -8}, "FLOWHOST_ERR_UNKNOWN_ID after it fired"


def test_an_unanswered_challenge_expires_but_the_resting_one_never(tmp_path, flowhost_bin, spawn):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["challengeTimeoutMs"] = 400
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    deployment.add_user("alice")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["alice"])
    host.wait_event("getActivationCode")
    expired = host.wait_event("getUser", timeout=5)
    assert status_of(expired) == 121
    time.sleep(0.8)
    host.drain(0.1)
    assert [event["method"] for event in host.events].count("getUser") == 2, "getUser rests without expiring"
    with pytest.raises(RPCError) as closed:
        host.request("setActivationCode", ["ABCDEFGHJK"])
    assert closed.value.code == -32004


# -- The host-owned session -----------------------------------------------------------

def mfa_and_caller(spawn, test_plugins, deployment, device="device-1", config=None):
    host = spawn("--plugins", test_plugins["c_caller"], "--plugins", test_plugins["c_stepup"], "--store", deployment.store,
                 "--config", config or deployment.config)
    host.initialize(device={"deviceID": device, "deviceName": "d", "ldaCapabilities": []})
    return host


def test_a_flow_other_than_mfa_reads_and_ends_the_session(spawn, test_plugins, deployment):
    code = deployment.add_user("alice")
    host = mfa_and_caller(spawn, test_plugins, deployment)
    assert host.request("ccaller.session") is None
    logged_in = activate(host, "alice", code)
    session = host.request("ccaller.session")
    assert session["userID"] == "alice" and session["factors"] == ["password"]
    assert session["sessionID"] == logged_in["params"]["response"]["sessionInfo"]["sessionID"]
    opened = host.wait_event("onSessionNotice")
    assert opened["params"]["payload"]["event"] == "opened"

    before = len(host.events)
    assert host.request("ccaller.endSession", {"reason": "step-up-failed"}) == {"rc": 0}
    host.wait_event("getUser")
    host.drain(0.3)
    after = host.events[before:]
    # Every flow hears it (the C flow, the mfa flow); the client gets
    # onUserLoggedOff then getUser exactly once.
    notices = [event["params"]["payload"] for event in after if event["method"] == "onSessionNotice"]
    assert len(notices) == 1 and notices[0]["event"] == "ended" and notices[0]["reason"] == "step-up-failed"
    assert [event["method"] for event in after if event["method"] != "onSessionNotice"] == ["onUserLoggedOff", "getUser"]
    assert after[[event["method"] for event in after].index("onUserLoggedOff")]["params"]["userID"] == "alice"
    assert host.request("ccaller.session") is None
    assert host.request("ccaller.endSession", {"reason": "again"}) == {"rc": -1}
    assert deployment.admin("show-user", "alice")["openSessions"] == 0


def test_an_operator_block_logs_off_the_host_at_once(deployment, spawn, test_plugins):
    code = deployment.add_user("alice")
    host = deployment.host()
    activate(host, "alice", code)
    deployment.admin("block", "alice")
    off = host.wait_event("onUserLoggedOff", timeout=3)
    assert off["params"]["userID"] == "alice"
    assert status_of(host.wait_event("getUser")) == 100
    with pytest.raises(RPCError):
        host.request("logOff", ["alice"])


def test_the_idle_session_is_warned_extended_then_timed_out(tmp_path, flowhost_bin, spawn):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["sessions"] = {"idleTimeoutSeconds": 4, "lifetimeSeconds": 3600}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    code = deployment.add_user("alice")
    host = deployment.host()
    activate(host, "alice", code)
    warning = host.wait_event("onSessionTimeOutNotification", timeout=6)
    validate("mfa.onSessionTimeOutNotification.params", warning["params"])
    assert warning["params"]["userID"] == "alice" and warning["params"]["sessionCanBeExtended"] == 1
    assert 0 < warning["params"]["timeLeftInSeconds"] <= 1
    assert host.request("extendSessionIdleTimeout") is None
    extension = host.wait_event("onSessionExtensionResponse")
    validate("mfa.onSessionExtensionResponse.params", extension["params"])
    assert extension["params"]["status"]["statusCode"] == 100
    extended_at = time.monotonic()
    timeout = host.wait_event("onSessionTimeout", timeout=8)
    validate("mfa.onSessionTimeout.params", timeout["params"])
    assert time.monotonic() - extended_at >= 3.0, "the extension restarted the idle clock"
    assert "activity" in timeout["params"]["message"]
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    assert deployment.admin("show-user", "alice")["openSessions"] == 0
    with pytest.raises(RPCError) as nobody:
        host.request("extendSessionIdleTimeout")
    assert nobody.value.code == -32006


def test_the_session_ends_at_its_lifetime_however_busy(tmp_path, flowhost_bin, spawn):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["sessions"] = {"idleTimeoutSeconds": 60, "lifetimeSeconds": 2}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    code = deployment.add_user("alice")
    host = deployment.host()
    activate(host, "alice", code)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not [e for e in host.events if e["method"] == "onSessionTimeout"]:
        try:
            host.request("extendSessionIdleTimeout")
        except RPCError as ended:
            # The lifetime can end between the look at the events and the
            # request: the event then comes just before this refusal.
            assert ended.code == -32006
            break
        time.sleep(0.2)
    assert "maximum lifetime" in host.wait_event("onSessionTimeout", timeout=1)["params"]["message"]
    host.wait_event("onUserLoggedOff")


# -- The change feed between hosts -----------------------------------------------------

def test_an_event_published_on_one_host_reaches_another_once_and_in_order(spawn, test_plugins, deployment):
    publisher = engine_host(spawn, test_plugins, deployment, device="device-a")
    listener = engine_host(spawn, test_plugins, deployment, device="device-b")
    assert publisher.request("ccaller.publish", {"topic": "ccaller.topic", "payload": {"n": 0}}) == {"rc": 0}
    assert listener.request("ccaller.subscribe", {"topic": "ccaller.topic"}) == {"rc": 0}
    started = time.monotonic()
    for n in range(1, 6):
        publisher.request("ccaller.publish", {"topic": "ccaller.topic", "payload": {"n": n}})
    publisher.request("ccaller.publish", {"topic": "ccaller.other", "payload": {"n": 99}})
    received = [listener.wait_event("onFeed", timeout=5)["params"] for _ in range(5)]
    assert time.monotonic() - started < 2.0
    assert [item["payload"]["n"] for item in received] == [1, 2, 3, 4, 5], "nothing from before the subscription"
    listener.drain(1.5)
    assert len([event for event in listener.events if event["method"] == "onFeed"]) == 5
    assert publisher.request("ccaller.publish", {"topic": "bad topic!", "payload": {}}) == {"rc": -5}, "INVALID_ARGUMENT"
    assert publisher.request("ccaller.publish", {"topic": "echo.topic", "payload": {}}) == {"rc": -9}, "NOT_PERMITTED: echo's topic"
    assert listener.request("ccaller.subscribe", {"topic": "notifications.updated"}) == {"rc": -9}, "NOT_PERMITTED: not in reads"


def test_an_unsubscribed_topic_is_not_delivered_and_a_new_subscription_starts_afresh(spawn, test_plugins, deployment):
    publisher = engine_host(spawn, test_plugins, deployment, device="device-a")
    listener = engine_host(spawn, test_plugins, deployment, device="device-b")
    assert listener.request("ccaller.subscribe", {"topic": "ccaller.topic"}) == {"rc": 0}
    publisher.request("ccaller.publish", {"topic": "ccaller.topic", "payload": {"n": 1}})
    assert listener.wait_event("onFeed", timeout=5)["params"]["payload"] == {"n": 1}
    assert listener.request("ccaller.unsubscribe", {"topic": "ccaller.topic"}) == {"rc": 0}
    publisher.request("ccaller.publish", {"topic": "ccaller.topic", "payload": {"n": 2}})
    listener.drain(2.5)  # longer than the safety poll
    assert [e["params"]["payload"]["n"] for e in listener.events if e["method"] == "onFeed"] == [1]
    assert listener.request("ccaller.subscribe", {"topic": "ccaller.topic"}) == {"rc": 0}
    publisher.request("ccaller.publish", {"topic": "ccaller.topic", "payload": {"n": 3}})
    assert listener.wait_event("onFeed", timeout=5)["params"]["payload"] == {"n": 3}, "nothing replayed"
    assert [e["params"]["payload"]["n"] for e in listener.events if e["method"] == "onFeed"] == [1, 3]


def test_a_flow_unsubscribing_does_not_end_the_hosts_own_interest(deployment, spawn, test_plugins):
    code = deployment.add_user("alice")
    host = mfa_and_caller(spawn, test_plugins, deployment)
    activate(host, "alice", code)
    assert host.request("ccaller.subscribe", {"topic": "sessions.ended"}) == {"rc": 0}
    assert host.request("ccaller.unsubscribe", {"topic": "sessions.ended"}) == {"rc": 0}
    deployment.admin("block", "alice")
    assert host.wait_event("onUserLoggedOff", timeout=3)["params"]["userID"] == "alice", "the host still watches its session"


@pytest.mark.sqlite_only
def test_a_c_flow_keeps_durable_state_of_its_own(spawn, test_plugins, deployment):
    host = engine_host(spawn, test_plugins, deployment)

    def records(service, params):
        return host.request("ccaller.call", {"service": service, "params": params})

    put = {"op": "put", "collection": "approvals", "key": "req-1", "value": {"state": "pending"}, "expectVersion": 0}
    assert records("records.apply", {"operations": [put]}) == {"versions": [1]}
    with pytest.raises(RPCError) as conflict:
        records("records.apply", {"operations": [put]})
    assert conflict.value.code == -32012 and conflict.value.data["currentVersion"] == 1
    both = [dict(put, value={"state": "approved"}, expectVersion=1), {"op": "put", "collection": "approvals", "key": "req-2",
                                                                         "value": {"state": "new"}, "expectVersion": 1}]
    with pytest.raises(RPCError):
        records("records.apply", {"operations": both})  # the second fails: the first is not kept either
    host.close()

    again = engine_host(spawn, test_plugins, deployment)
    kept = again.request("ccaller.call", {"service": "records.get", "params": {"collection": "approvals", "key": "req-1"}})
    assert kept == {"collection": "approvals", "key": "req-1", "value": {"state": "pending"}, "version": 1}
    listed = again.request("ccaller.call", {"service": "records.list", "params": {"collection": "approvals"}})
    assert [item["key"] for item in listed["records"]] == ["req-1"]
    connection = sqlite3.connect(deployment.store)
    assert connection.execute("SELECT DISTINCT namespace FROM flow_record").fetchall() == [("ccaller",)]
    connection.close()


# -- An ABI that grows ---------------------------------------------------------------

def test_a_plugin_built_against_the_1_0_header_loads_and_works(spawn, echo_dir, test_plugins, flowhost_bin):
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["legacy_1_0"])
    host.on_request("platform/confirm", lambda params: {"confirmed": True})
    flows = {flow["name"]: flow for flow in host.initialize(device=DEVICE)["flows"]}
    assert flows["legacy"]["abiVersion"] == 1
    assert host.request("legacy.upper", {"text": "old"}) == {"text": "OLD"}
    assert host.request("legacy.ask")["hostTableSize"] > 56, "it sees the longer 1.1 table and ignores the rest"
    assert host.wait_event("onLegacy")["params"] == {"answer": {"confirmed": True}}
    listing = subprocess.run([flowhost_bin, "plugins", "--no-default-plugins", "--plugins", test_plugins["legacy_1_0"]],
                             capture_output=True, text=True, timeout=20)
    assert "loaded  legacy 1.0.0 abi=1.0 " in listing.stdout


def test_a_plugin_with_its_own_jansson_is_refused(flowhost_bin, test_plugins):
    out = subprocess.run([flowhost_bin, "plugins", "--no-default-plugins", "--plugins", test_plugins["static_jansson"]],
                         capture_output=True, text=True, timeout=20)
    assert "uses its own copy of jansson" in out.stdout, out.stdout


def test_discovery_shows_who_offers_and_who_uses_each_service(spawn, test_plugins, deployment):
    host = engine_host(spawn, test_plugins, deployment)
    document = host.request("rpc.discover")
    validate("rpc.discover.result", document)
    services = {service["name"]: service for service in document["x-flowhost-services"]}
    assert services["cstep.verify"]["provider"] == "cstep" and services["cstep.verify"]["usedBy"] == ["ccaller"]
    assert services["cstep.verify"]["params"][0]["name"] == "purpose"
    assert services["records.apply"]["provider"] == "host" and services["records.apply"]["usedBy"] == ["ccaller"]
    host_events = {event["name"] for event in document["x-flowhost-events"] if event["flow"] == "host"}
    assert host_events == {"$/cancelRequest"}, "the host speaks no flow's vocabulary"
    sdk_session_events = {"onSessionTimeOutNotification", "onSessionExtensionResponse", "onSessionTimeout"}
    declaring = {event["flow"] for event in document["x-flowhost-events"] if event["name"] in sdk_session_events}
    assert declaring <= {"mfa"}, "the session's SDK events are the mfa flow's"


def test_cancel_notifications_fit_their_schema(spawn, test_plugins, deployment):
    host = engine_host(spawn, test_plugins, deployment)
    host.request("ccaller.start", {"purpose": "x"})
    host.wait_event("getSecret")
    host.request("ccaller.reset")
    notices = [json.loads(line) for direction, line in host.transcript if direction == "<-" and "$/cancelRequest" in line]
    assert notices
    for notice in notices:
        validate("host.cancelRequest.params", notice["params"])
