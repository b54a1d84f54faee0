"""The notifications domain (the ground the step-up and device-activation
flows stand on): an operator's notification reaches every host of the user
through the change feed, and no other host; answers are checked, exactly
one answer wins."""

import threading
import time

import pytest

from conftest import DEVICE, activate
from flowhost_client import RPCError


def caller_host(spawn, test_plugins, deployment, device):
    host = spawn("--no-default-plugins", "--plugins", test_plugins["c_caller"], "--plugins", test_plugins["c_stepup"],
                 "--store", deployment.store, "--config", deployment.config)
    host.initialize(device=dict(DEVICE, deviceID=device))
    return host


def call(host, service, **params):
    return host.request("ccaller.call", {"service": service, "params": params})


def test_an_operators_notification_reaches_the_users_hosts_and_is_answered_once(spawn, test_plugins, deployment):
    code = deployment.add_user("alice")
    # Alice is logged in on the first host; no one is on the second, which
    # must not hear of her notifications (issue 24: no other users' ids).
    first = deployment.host("device-a", extra=("--plugins", test_plugins["c_caller"], "--plugins", test_plugins["c_stepup"]))
    activate(first, "alice", code)
    second = caller_host(spawn, test_plugins, deployment, "device-b")
    for host in (first, second):
        assert host.request("ccaller.subscribe", {"topic": "notifications.created"}) == {"rc": 0}
    sent = deployment.admin("notify", "alice", "--subject", "Pay 20 EUR to Carol?", "--message", "Invoice 42",
                            "--action", "Accept=accept:1", "--action", "Reject=reject")
    uuid = sent["notification_uuid"]
    news = first.wait_event("onFeed", timeout=5)["params"]["payload"]
    assert news == {"userID": "alice", "uuid": uuid, "kind": "message"}, "pushed to the user's host, no polling"
    time.sleep(0.5)
    assert not [event for event in second.events if event["method"] == "onFeed"], "another host hears nothing of alice"

    listed = call(first, "notifications.list", userID="alice")
    assert listed["total"] == "1" and listed["count"] == "1" and listed["start"] == "1"
    item = listed["notifications"][0]
    assert item["notification_uuid"] == uuid and item["body"][0]["subject"] == "Pay 20 EUR to Carol?"
    assert item["actions"] == [{"label": "Accept", "action": "accept", "authlevel": "1"},
                               {"label": "Reject", "action": "reject", "authlevel": "0"}]
    assert set(item) >= {"create_ts", "create_ts_epoch", "expiry_timestamp", "expiry_timestamp_epoch", "action_performed", "ds_required"}

    for wrong, outcome in [({"uuid": "no-such"}, "unknown"), ({"action": "maybe"}, "actionNotOffered")]:
        params = dict({"userID": "alice", "uuid": uuid, "action": "accept", "deviceID": "device-a"}, **wrong)
        assert call(first, "notifications.answer", **params) == {"outcome": outcome}

    results = {}
    start = threading.Barrier(2)

    def answer(host, name, action):
        start.wait()
        results[name] = call(host, "notifications.answer", userID="alice", uuid=uuid, action=action, deviceID=name)

    threads = [threading.Thread(target=answer, args=(first, "device-a", "accept")),
               threading.Thread(target=answer, args=(second, "device-b", "reject"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(result["outcome"] for result in results.values()) == ["alreadyAnswered", "updated"], results
    history = deployment.admin("notifications", "alice")
    assert len(history) == 1 and history[0]["status"] == "UPDATED" and history[0]["action_performed"] in ("accept", "reject")
    assert call(first, "notifications.list", userID="alice")["total"] == "0"


def test_bad_notifications_are_refused_with_the_reason(spawn, test_plugins, deployment):
    deployment.add_user("alice")
    out = deployment.admin("notify", "alice", "--subject", "", "--message", "m", "--action", "OK=ok", check=False)
    assert out.returncode == 1 and "subject" in out.stderr
    out = deployment.admin("notify", "nobody", "--subject", "s", "--message", "m", "--action", "OK=ok", check=False)
    assert out.returncode == 1 and "no such user" in out.stderr
    host = caller_host(spawn, test_plugins, deployment, "device-a")
    with pytest.raises(RPCError) as refused:
        call(host, "notifications.create", userID="alice", subject="s", message="m", actions=[], expiresInSeconds=60)
    assert refused.value.code == -32602


@pytest.mark.parametrize("action,field", [
    ({"label": "Accept", "action": "accept", "authlevel": 1}, "actions[0].authlevel"),
    ({"label": "Accept", "action": 7}, "actions[0].action"),
    ({"label": "Accept", "action": "accept", "authLevel": "1"}, "actions[0].authLevel"),
    ("accept", "actions[0]"),
])
def test_a_mistyped_or_unknown_member_is_refused_never_read_as_a_default(spawn, test_plugins, deployment, action, field):
    """Issue 21.7: authlevel 1 (a number) was stored as "0", and Accept was
    then recorded with no step-up."""
    deployment.add_user("alice")
    host = caller_host(spawn, test_plugins, deployment, "device-a")
    with pytest.raises(RPCError) as refused:
        call(host, "notifications.create", userID="alice", subject="s", message="m", actions=[action], expiresInSeconds=60)
    assert refused.value.code == -32602 and refused.value.data["field"] == field, refused.value.data
    assert deployment.admin("notifications", "alice") == [], "nothing stored"


@pytest.mark.parametrize("operation,field", [
    ({"op": "put", "collection": "c", "key": "k", "value": 1, "expectVersion": "0"}, "operations[0].expectVersion"),
    ({"op": "put", "collection": "c", "key": "k", "value": 1, "expect": 0}, "operations[0].expect"),
    ({"op": 1, "collection": "c", "key": "k"}, "operations[0].op"),
])
def test_records_refuse_mistyped_and_unknown_members(spawn, test_plugins, deployment, operation, field):
    host = caller_host(spawn, test_plugins, deployment, "device-a")
    with pytest.raises(RPCError) as refused:
        call(host, "records.apply", operations=[operation])
    assert refused.value.code == -32602 and refused.value.data["field"] == field, refused.value.data
