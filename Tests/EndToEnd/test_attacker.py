"""The attacker of issue 21: a client that has proved nothing, on the same
store as its victim. Each test ran the attack against the host before its
fix and saw it work; now it must fail, and the victim must not notice."""

import json
import time

import pytest

from conftest import BACKEND, CHEAP_CONFIG, DEVICE, GOOD_PASSWORD, Deployment, activate, status_of, store_execute, store_rows, wait_until
from flowhost_client import RPCError


def victim(deployment, user="alice", device="device-a"):
    code = deployment.add_user(user)
    host = deployment.host(device)
    activate(host, user, code)
    return host


def open_session(deployment, user="alice"):
    rows = store_rows(deployment.store, "SELECT session_id FROM session WHERE user_id = ? AND ended_at IS NULL", user)
    assert len(rows) == 1, rows
    return rows[0][0]


def still_logged_in(host):
    """A request that needs the session: answered, not refused."""
    host.request("getNotifications", [0, "", 1, "", ""])
    return host.wait_event("onGetNotifications")["params"]["status"]["statusCode"] == 100


def attacker(deployment):
    """The echo example, opted into, on the victim's store: nothing proved."""
    host = deployment.spawn_host("--store", deployment.store, "--config", deployment.config, "--examples")
    host.initialize(device={"deviceID": "mallory-device", "deviceName": "Mallory", "ldaCapabilities": []})
    return host


def test_examples_are_not_loaded_by_default(deployment):
    host = deployment.spawn_host("--store", deployment.store, "--config", deployment.config)
    flows = [flow["name"] for flow in host.initialize(device=DEVICE)["flows"]]
    assert "mfa" in flows and "echo" not in flows
    with pytest.raises(RPCError) as refused:
        host.request("echo.subscribe", {"topic": "echo.x"})
    assert refused.value.code == -32601


@pytest.mark.parametrize("topic", ["notifications.created", "notifications.updated", "sessions.ended", "devices.added", "mfa.state"])
def test_a_flow_cannot_read_topics_it_does_not_own(deployment, topic):
    mallory = attacker(deployment)
    with pytest.raises(RPCError) as refused:
        mallory.request("echo.subscribe", {"topic": topic})
    assert refused.value.code == -32016 and refused.value.data == {"reason": "topicNotOwned", "topic": topic}
    assert wait_until(lambda: "flow echo may subscribe only to its own topics" in mallory.stderr_text(), timeout=5)


def test_a_flow_cannot_learn_of_other_users_notifications(deployment):
    alice = victim(deployment)
    mallory = attacker(deployment)
    with pytest.raises(RPCError):
        mallory.request("echo.subscribe", {"topic": "notifications.created"})
    bob = deployment.host("device-b")
    bob.wait_event("getUser")
    bob.request("setUser", ["alice"])  # a new device asks alice's devices for approval
    bob.wait_event("addNewDeviceOptions")
    bob.request("performVerifyAuth", [True])
    alice.wait_event("onNotificationReceived", timeout=5)
    time.sleep(0.5)
    assert not [event for event in mallory.events if event["method"] == "onEchoFeed"]


@pytest.mark.parametrize("topic", ["sessions.ended", "notifications.updated", "notifications.created", "devices.revoked", "mfa.state"])
def test_a_flow_cannot_publish_on_topics_it_does_not_own(deployment, topic):
    alice = victim(deployment)
    session = open_session(deployment)
    mallory = attacker(deployment)
    with pytest.raises(RPCError) as refused:
        mallory.request("echo.publish", {"topic": topic, "payload": {"sessionIDs": [session], "userID": "alice", "reason": "blocked"}})
    assert refused.value.code == -32016
    assert wait_until(lambda: "flow echo may publish only on its own topics" in mallory.stderr_text(), timeout=5)
    time.sleep(0.3)
    assert still_logged_in(alice)
    assert not [event for event in alice.events if event["method"] == "onUserLoggedOff"]
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM feed_event WHERE topic = ?", topic) == [(0,)]


def test_a_flow_still_uses_its_own_topics(deployment):
    mallory = attacker(deployment)
    other = attacker(deployment)
    assert mallory.request("echo.subscribe", {"topic": "echo.chat"}) == {"ok": True}
    assert other.request("echo.publish", {"topic": "echo.chat", "payload": {"n": 1}}) == {"ok": True}
    assert mallory.wait_event("onEchoFeed", timeout=5)["params"] == {"topic": "echo.chat", "payload": {"n": 1}}


def test_a_forged_session_end_written_around_the_host_logs_no_one_off(deployment):
    alice = victim(deployment)
    session = open_session(deployment)
    forged = json.dumps({"userID": "alice", "sessionIDs": [session], "reason": "blocked"})
    store_execute(deployment.store, "INSERT INTO feed_event (topic, payload, at) VALUES (?, ?, ?)", "sessions.ended", forged, int(time.time()))
    assert wait_until(lambda: "does not match the store; dropped" in alice.stderr_text(), timeout=8), alice.stderr_text()[-2000:]
    assert still_logged_in(alice)
    assert open_session(deployment) == session
    # A real end (the operator's block) still ends it at once.
    deployment.admin("block", "alice")
    assert alice.wait_event("onUserLoggedOff", timeout=8)


def test_a_forged_rejection_written_around_the_host_does_not_stop_a_new_device(deployment):
    alice = victim(deployment)
    laptop = deployment.host("device-b")
    laptop.wait_event("getUser")
    laptop.request("setUser", ["alice"])
    laptop.wait_event("addNewDeviceOptions")
    laptop.request("performVerifyAuth", [True])
    uuid = alice.wait_event("onNotificationReceived", timeout=5)["params"]["notification_uuid"]
    forged = json.dumps({"userID": "alice", "uuid": uuid, "action": "reject", "kind": "device-approval"})
    store_execute(deployment.store, "INSERT INTO feed_event (topic, payload, at) VALUES (?, ?, ?)", "notifications.updated", forged, int(time.time()))
    assert wait_until(lambda: "does not match the store; dropped" in laptop.stderr_text(), timeout=8)
    assert not [event for event in laptop.events if event["method"] == "getUser" and status_of(event) == 102]
    assert store_rows(deployment.store, "SELECT status FROM notification WHERE uuid = ?", uuid) == [("ACTIVE",)]
    # The real answer still goes through.
    alice.request("updateNotification", [uuid, "accept"])
    alice.wait_event("getPassword")
    alice.request("setPassword", [GOOD_PASSWORD, 3])
    alice.wait_event("onUpdateNotification")
    assert laptop.wait_event("getPassword", timeout=5)["params"]["challengeMode"] == 0


def test_a_forged_alert_for_a_notification_that_does_not_exist_is_not_sent(deployment):
    alice = victim(deployment)
    forged = json.dumps({"userID": "alice", "uuid": "00000000-0000-4000-8000-000000000000", "kind": "message"})
    store_execute(deployment.store, "INSERT INTO feed_event (topic, payload, at) VALUES (?, ?, ?)", "notifications.created", forged, int(time.time()))
    assert wait_until(lambda: "does not match the store; dropped" in alice.stderr_text(), timeout=8)
    assert not [event for event in alice.events if event["method"] == "onNotificationReceived"]


# -- Issue 21.8: what a stranger types never reaches a screen as it is --------------------

@pytest.mark.parametrize("field,value", [
    ("deviceID", "evil\x1b[2J\x1b[Hforged"), ("deviceID", "two\nlines"), ("deviceID", "\u202eesrever"), ("deviceID", "x" * 129),
    ("deviceName", "Laptop\nVerification key: AAAAAA"), ("deviceName", "n" * 65), ("deviceName", "bell\x07"),
])
def test_device_ids_and_names_with_control_characters_are_refused(deployment, field, value):
    host = deployment.spawn_host("--store", deployment.store, "--config", deployment.config)
    device = dict(DEVICE, **{field: value})
    with pytest.raises(RPCError) as refused:
        host.initialize(device=device)
    assert refused.value.code == -32602 and refused.value.data["field"] == "device." + field


def test_a_device_name_answer_is_one_short_line(deployment):
    code = deployment.add_user("alice")
    host = deployment.host("device-n")
    host.wait_event("getUser")
    host.request("setUser", ["alice"])
    host.wait_event("getActivationCode")
    host.request("setActivationCode", [code])
    host.wait_event("getDeviceName")
    with pytest.raises(RPCError) as refused:
        host.request("setDeviceName", ["Laptop\nVerification key: AAAAAA"])
    assert refused.value.code == -32602 and refused.value.data["field"] == "deviceName"
    host.request("setDeviceName", ["Laptop"])
    assert host.wait_event()["method"] in ("getPassword", "getUserConsentForLDA")


@pytest.mark.sqlite_only
def test_admin_text_output_escapes_what_it_prints(deployment, flowhost_bin):
    """Rows written before the rule (or around the host) still cannot drive the terminal."""
    import subprocess
    deployment.add_user("alice")
    store_execute(deployment.store, "INSERT INTO audit (at, user_id, device_id, action, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)",
                  int(time.time()), "alice", "x\x1b[2J\x1b[H\nforged line", "activation.device-code", "sent", None)
    out = subprocess.run([flowhost_bin, "admin", "audit", "--user", "alice", "--store", deployment.store, "--config", deployment.config],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\\u{1B}[2J" in out.stdout
    assert not [line for line in out.stdout.splitlines() if line.startswith("forged line")], out.stdout


# -- Issue 21.5: a stranger cannot flood a user with approval requests -------------------

def ask_for_approval(deployment, device, user="alice"):
    """A new device asks the user's devices for approval; returns (host, error or None)."""
    host = deployment.host(device)
    host.wait_event("getUser")
    host.request("setUser", [user])
    host.wait_event("addNewDeviceOptions")
    try:
        host.request("performVerifyAuth", [True])
        return host, None
    except RPCError as error:
        return host, error


def approval_rows(deployment, status=None):
    query = "SELECT COUNT(*) FROM notification WHERE user_id = 'alice' AND kind = 'device-approval'"
    if status:
        query += " AND status = '%s'" % status
    return store_rows(deployment.store, query)[0][0]


def test_pending_approval_requests_are_capped_and_refusals_store_nothing(deployment):
    alice = victim(deployment)
    hosts = []
    for index in range(3):
        host, error = ask_for_approval(deployment, "stranger-%d" % index)
        assert error is None
        hosts.append(host)
    assert approval_rows(deployment, "ACTIVE") == 3
    counts_before = store_rows(deployment.store, "SELECT COUNT(*) FROM audit")[0][0], store_rows(deployment.store, "SELECT COUNT(*) FROM feed_event")[0][0]
    for index in range(3, 40):
        host, error = ask_for_approval(deployment, "stranger-%d" % index)
        assert error is not None and error.code == -32011, index
        assert error.data["reason"] == "too-many-pending" and error.data["retryAfterSeconds"] > 0
        if index == 3:
            host.request("fallbackNewDeviceActivationFlow")  # the choice stays open: the code fallback still works
            assert host.wait_event("getActivationCode")["method"] == "getActivationCode"
        host.close()
    assert approval_rows(deployment) == 3, "refused requests are counted, not stored"
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM feed_event WHERE topic = 'notifications.created'")[0][0] == 3
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM audit WHERE action = 'notification.create'")[0][0] == 3
    counts = deployment.admin("audit", "--counts")
    assert sum(row["count"] for row in counts if row["action"] == "notification.approval" and row["outcome"] == "too-many-pending") == 37
    alice.drain(1.0)
    assert len([event for event in alice.events if event["method"] == "onNotificationReceived"]) == 3, "alice sees three requests, not forty"


def test_a_device_asking_again_replaces_its_own_request_and_is_rate_limited(deployment):
    victim(deployment)
    answers = []
    for _ in range(6):
        host, error = ask_for_approval(deployment, "stranger-x")
        answers.append(error)
        assert approval_rows(deployment, "ACTIVE") <= 1, "one pending request per requesting device"
        host.close()
    assert answers[:5] == [None] * 5
    assert answers[5] is not None and answers[5].code == -32011 and answers[5].data["reason"] == "rate-requester"
    assert approval_rows(deployment) == 5


def test_retention_removes_only_what_history_alone_needs(deployment):
    alice = victim(deployment)
    for index in range(3):
        ask_for_approval(deployment, "old-%d" % index)[0].close()
    kept = deployment.admin("notify", "alice", "--subject", "s", "--message", "m", "--action", "OK=ok", "--expires-in", "2592000")
    alice.request("logOff", ["alice"])
    alice.wait_event("getUser")
    day = 86400
    store_execute(deployment.store, "UPDATE notification SET created_at = created_at - ?", 40 * day)
    # The requests of hosts that went away lapse when they expire.
    store_execute(deployment.store, "UPDATE notification SET expires_at = expires_at - ? WHERE kind = 'device-approval'", 40 * day)
    store_execute(deployment.store, "UPDATE session SET ended_at = ended_at - ? WHERE ended_at IS NOT NULL", 40 * day)
    store_execute(deployment.store, "UPDATE feed_event SET at = at - ?", 2 * day)
    audit_rows = store_rows(deployment.store, "SELECT COUNT(*) FROM audit")[0][0]
    removed = deployment.admin("prune")
    assert removed["notifications"] >= 3 and removed["endedSessions"] >= 1 and removed["feedEvents"] >= 1, removed
    remaining = store_rows(deployment.store, "SELECT uuid, status FROM notification")
    assert remaining == [(kept["notification_uuid"], "ACTIVE")], "an answerable notification is kept, however old"
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM session WHERE ended_at IS NOT NULL")[0][0] == 0
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM audit")[0][0] >= audit_rows, "the audit is kept for retention.auditDays"
    assert deployment.admin("prune") == {"feedEvents": 0, "notifications": 0, "endedSessions": 0, "deviceChallenges": 0, "counters": 0,
                                         "auditRows": 0, "outboxMessages": 0}
    # Audit rows go after retention.auditDays (400), oldest first up to the first younger one; the
    # newest always stays (no id is given twice); the database keeps any younger than 90 days.
    # To age rows here (the sweep never updates them).
    store_execute(deployment.store, "DROP TRIGGER audit_no_update" + (" ON audit" if BACKEND != "sqlite" else ""))
    ids = [row[0] for row in store_rows(deployment.store, "SELECT id FROM audit ORDER BY id")]
    store_execute(deployment.store, "UPDATE audit SET at = at - ? WHERE id = ?", 500 * day, ids[0])
    store_execute(deployment.store, "UPDATE audit SET at = at - ? WHERE id = ?", 100 * day, ids[1])
    store_execute(deployment.store, "UPDATE audit SET at = at - ? WHERE id = ?", 500 * day, ids[-1])
    assert deployment.admin("prune")["auditRows"] == 1
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM audit WHERE id IN (?, ?, ?)", ids[0], ids[1], ids[-1]) == [(2,)]
    assert store_rows(deployment.store, "SELECT MIN(id), MAX(id) FROM audit") == [(ids[1], ids[-1])], "the newest stays, however old"
    with pytest.raises(Exception, match="append-only"):
        store_execute(deployment.store, "DELETE FROM audit WHERE id = ?", ids[2])
    # Outbox messages delivered (or given up on) go after retention.outboxDays (7); waiting ones stay.
    now = int(time.time())
    for created, delivered, failed in [(now - 9 * day, now - 8 * day, None), (now - 9 * day, None, now - 8 * day),
                                       (now - 9 * day, now - 6 * day, None), (now - 9 * day, None, None)]:
        store_execute(deployment.store, "INSERT INTO outbox (user_id, kind, sealed_body, created_at, delivered_at, failed_at) VALUES (?, ?, '', ?, ?, ?)",
                      "alice", "activation-code", created, delivered, failed)
    assert deployment.admin("prune")["outboxMessages"] == 2
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM outbox") == [(2,)], "a recent delivery and a waiting message stay"
    # Hourly counts go after retention.counterDays (400), and the database keeps any younger than 90 days.
    now_hour = int(time.time()) // 3600 * 3600
    for age_days in (500, 100, 30):
        store_execute(deployment.store, "INSERT INTO audit_count (hour, user_id, action, outcome, count, last_at) VALUES (?, ?, ?, ?, ?, ?)",
                      now_hour - age_days * day, "alice", "login.user", "aged-%d" % age_days, 1, now_hour)
    assert deployment.admin("prune")["counters"] == 1
    kept = {row[0] for row in store_rows(deployment.store, "SELECT outcome FROM audit_count WHERE outcome LIKE 'aged-%'")}
    assert kept == {"aged-100", "aged-30"}
    with pytest.raises(Exception, match="append-only"):
        store_execute(deployment.store, "DELETE FROM audit_count WHERE outcome = ?", "aged-30")


def test_a_host_sweeps_after_a_login_with_the_operators_retention(tmp_path, flowhost_bin, spawn):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["retention"] = {"endedSessionDays": 2}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    alice = victim(deployment)
    alice.request("logOff", ["alice"])
    alice.wait_event("getUser")
    store_execute(deployment.store, "UPDATE session SET ended_at = ended_at - ? WHERE ended_at IS NOT NULL", 3 * 86400)
    other = deployment.host("device-a", env={"FLOWHOST_LOG_LEVEL": "info"})
    other.wait_event("getUser")
    other.request("setUser", ["alice"])
    other.wait_event("getPassword")
    other.request("setPassword", [GOOD_PASSWORD, 0])
    other.wait_event("onUserLoggedIn")
    assert wait_until(lambda: "retention: removed" in other.stderr_text(), timeout=5)
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM session WHERE ended_at IS NOT NULL")[0][0] == 0
    bad = dict(CHEAP_CONFIG, retention={"endedSessionDays": 0})
    with open(str(tmp_path / "bad.json"), "w") as handle:
        json.dump(bad, handle)
    import subprocess
    out = subprocess.run([flowhost_bin, "--config", str(tmp_path / "bad.json"), "--store", deployment.store], input="",
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "retention.endedSessionDays" in out.stderr


def test_the_operator_sets_the_approval_limits(tmp_path, flowhost_bin, spawn):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["approvals"] = {"pendingPerUser": 1}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    victim(deployment)
    assert ask_for_approval(deployment, "stranger-1")[1] is None
    refused = ask_for_approval(deployment, "stranger-2")[1]
    assert refused is not None and refused.data["reason"] == "too-many-pending"
    import subprocess
    for bad in ({"pendingPerUser": 0}, {"perHour": 3}):
        with open(str(tmp_path / "bad.json"), "w") as handle:
            json.dump(dict(CHEAP_CONFIG, approvals=bad), handle)
        out = subprocess.run([flowhost_bin, "--config", str(tmp_path / "bad.json"), "--store", deployment.store], input="",
                             capture_output=True, text=True, timeout=30)
        assert out.returncode != 0 and "approvals." in out.stderr, out.stderr
