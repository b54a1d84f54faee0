"""Push tokens (issue 53.3): setDeviceToken in the step-up flow records the
logged-in device's token (one per device, replaced when sent again, removed
when the device is revoked or deleted), and push.command runs after the
commit, through the delivery runner, for each notification made for a device
that has a token and no live host; on SQLite and on PostgreSQL
(FLOWHOST_TEST_BACKEND=postgresql)."""

import json
import os
import time
import uuid

import pytest

import conftest
from conftest import CHEAP_CONFIG, GOOD_PASSWORD, Deployment, activate, join_with_operator_code as join, store_location, store_environment, store_rows, wait_until
from flowhost_client import RPCError

TOKENS = []


def new_token():
    """A token shaped as FCM's: an instance id, a colon, a long base64url tail."""
    token = "c%s:APA91b%s_%s" % (uuid.uuid4().hex[:21], uuid.uuid4().hex, uuid.uuid4().hex)
    TOKENS.append(token)
    return token


@pytest.fixture(autouse=True)
def tokens_never_shown():
    """No test's host writes a token it was given to its stderr (logged at
    the most verbose level), and no admin command shows one: the store and
    push.command alone hold them."""
    TOKENS.clear()
    yield
    leaks = []
    for client in conftest.SPAWNED:
        client.close()
        leaks += ["stderr" for token in TOKENS if token in client.stderr_text()]
    leaks += ["admin output" for output in conftest.ADMIN_OUTPUTS for token in TOKENS if token in output]
    assert not leaks, "a push token where it must never be: %s" % sorted(set(leaks))


class Pushes:
    """A deployment whose push.command is a real shell script that appends its stdin to a file."""

    def __init__(self, tmp_path, flowhost_bin, spawn, script="cat >> \"$PUSHED\"\n", **push):
        self.pushed = tmp_path / "pushed.jsonl"
        command = tmp_path / "push.sh"
        command.write_text("#!/bin/sh\nPUSHED='%s'\n%s" % (self.pushed, script))
        command.chmod(0o755)
        config = dict(CHEAP_CONFIG, devices={"coolingPeriodSeconds": 0}, push=dict({"command": [str(command)]}, **push))
        self.deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)

    def sent(self):
        if not self.pushed.exists():
            return []
        return [json.loads(line) for line in self.pushed.read_text().splitlines()]

    def notify(self, user="alice", subject="Your order shipped", message="Parcel 1234 left the depot."):
        return self.deployment.admin("notify", user, "--subject", subject, "--message", message, "--action", "OK=ok")["notification_uuid"]

    def tokens(self):
        return store_rows(self.deployment.store, "SELECT user_id, device_id, token FROM push_token ORDER BY user_id, device_id")

    def runs(self):
        return [(row[0], json.loads(row[1])) for row in store_rows(
            self.deployment.store, "SELECT outcome, detail FROM audit WHERE action = 'push.command' ORDER BY id")]

    def messages(self):
        return [item for item in self.deployment.admin("outbox", "--all") if item["kind"] == "push"]

    def admin_text(self, *args):
        """An admin command's output for a terminal (no --json), kept for the check that no token shows."""
        import subprocess
        deployment = self.deployment
        out = subprocess.run([deployment.bin, "admin"] + list(args) + ["--store", store_location(deployment.store), "--config", deployment.config],
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, **store_environment(deployment.store)))
        assert out.returncode == 0, out.stderr
        conftest.ADMIN_OUTPUTS.append(out.stdout + out.stderr)
        return out.stdout


@pytest.fixture
def pushes(tmp_path, flowhost_bin, spawn):
    return Pushes(tmp_path, flowhost_bin, spawn)


def logged_in(deployment, user="alice", device="phone"):
    host = deployment.host(device)
    activate(host, user, deployment.add_user(user))
    return host


def with_token(deployment, user="alice", device="phone"):
    """A device of `user` with a token, its host gone (so no live host): returns the token."""
    host = logged_in(deployment, user, device)
    token = new_token()
    assert host.request("setDeviceToken", [token]) is None
    host.close()
    return token, host


def test_a_token_is_recorded_for_the_logged_in_device_and_replaced_when_sent_again(pushes):
    phone = logged_in(pushes.deployment)
    first, second = new_token(), new_token()
    assert phone.request("setDeviceToken", [first]) is None, "the SDK's call is void: null, and no event"
    assert pushes.tokens() == [("alice", "phone", first)]
    assert phone.request("setDeviceToken", {"token": second}) is None
    assert pushes.tokens() == [("alice", "phone", second)], "one token per device: the new one replaces the old"
    assert phone.request("setDeviceToken", [second]) is None
    audit = store_rows(pushes.deployment.store, "SELECT outcome, detail FROM audit WHERE action = 'push.token' ORDER BY id")
    assert [outcome for outcome, _ in audit] == ["set", "replaced"], "the same token again changes nothing"
    for _, detail in audit:
        assert first not in detail and second not in detail and len(json.loads(detail)["token"]) == 12
    assert not any(event["method"].startswith("onSet") for event in phone.events)
    # The operator sees that the device has one, by its fingerprint.
    [device] = pushes.deployment.admin("devices", "alice")
    assert device["pushToken"] == json.loads(audit[-1][1])["token"]
    phone.close()
    # Never logged in full (the host logs at trace here), nor shown in the audit.
    for text in [phone.stderr_text(), json.dumps(pushes.deployment.admin("audit"))]:
        assert first not in text and second not in text


def test_a_frame_trace_masks_the_token(pushes, tmp_path):
    """The token is a declared secret of setDeviceToken: --trace writes the mask, by name and by position."""
    trace = tmp_path / "frames.trace"
    phone = pushes.deployment.host("phone", extra=("--trace", str(trace)))
    activate(phone, "alice", pushes.deployment.add_user("alice"))
    first, second = new_token(), new_token()
    phone.request("setDeviceToken", [first])
    phone.request("setDeviceToken", {"token": second})
    phone.close()
    text = trace.read_text()
    assert text.count('"method":"setDeviceToken"') == 2 and first not in text and second not in text


def test_set_device_token_before_login_is_refused(pushes):
    pushes.deployment.add_user("alice")
    host = pushes.deployment.host("phone")
    host.wait_event("getUser")
    with pytest.raises(RPCError) as refused:
        host.request("setDeviceToken", [new_token()])
    assert refused.value.code == -32006
    assert pushes.tokens() == []


def test_a_token_that_breaks_the_rules_is_refused_naming_it(pushes):
    phone = logged_in(pushes.deployment)
    for bad in ["short", "x" * 4097, "spaces are not in tokens at all", "fcm:APA91b<script>alert(1)</script>", "tok\u00e9n-0123456789abcdef",
                "line\nbreak-0123456789abcdef", "$(touch pwned)-0123456789abcdef", "`id`;rm-0123456789abcdef",
                "'quoted'|0123456789abcdef&"]:
        with pytest.raises(RPCError) as refused:
            phone.request("setDeviceToken", [bad])
        assert refused.value.code == -32602 and refused.value.data["field"] == "token", bad
        assert bad not in refused.value.message and bad not in json.dumps(refused.value.data)
    with pytest.raises(RPCError) as refused:
        phone.request("setDeviceToken", [42])
    assert refused.value.code == -32602
    assert pushes.tokens() == []


def test_a_device_with_a_token_and_no_live_host_is_pushed_the_id_and_subject_only(pushes):
    token, _ = with_token(pushes.deployment)
    uuid_ = pushes.notify()
    # An admin command runs its own pushes before it exits.
    assert pushes.sent() == [{"token": token, "notificationID": uuid_, "subject": "Your order shipped"}]
    assert "Parcel" not in pushes.pushed.read_text(), "the message body goes only when the operator opts in"
    assert pushes.runs() == [("ok", {"outboxID": pushes.messages()[0]["id"]})]
    [message] = pushes.messages()
    assert "deliveredAt" in message
    # For a terminal, the operator sees the push as one: its device and notification.
    assert "#%d push: phone notification %s" % (message["id"], uuid_) in pushes.admin_text("outbox", "--all")
    assert "phone" in pushes.admin_text("devices", "alice")


def test_an_approval_request_is_pushed_without_its_verification_key(pushes):
    """A device-approval request made by a new device's host: the registered
    device, whose host is not running, learns of it by a push (the host that
    made it runs the command, after the commit)."""
    token, _ = with_token(pushes.deployment)
    tablet = pushes.deployment.host("tablet")
    tablet.wait_event("getUser")
    tablet.request("setUser", ["alice"])
    options = tablet.wait_event("addNewDeviceOptions")
    key = {item["key"]: item["value"] for item in options["params"]["challengeInfo"]}["VERIFICATION_KEY"]
    tablet.request("performVerifyAuth", [True])
    assert wait_until(lambda: len(pushes.sent()) == 1, timeout=15)
    [push] = pushes.sent()
    assert push["token"] == token and push["subject"] == "Approve a new device?"
    assert key not in pushes.pushed.read_text(), "the verification key is in the message, which is not pushed"
    [(uuid_,)] = store_rows(pushes.deployment.store, "SELECT uuid FROM notification WHERE kind = 'device-approval'")
    assert push["notificationID"] == uuid_


def test_a_device_with_a_live_host_or_without_a_token_is_not_pushed(pushes):
    phone = logged_in(pushes.deployment)
    phone.request("setDeviceToken", [new_token()])
    laptop = join(pushes.deployment, "alice", "laptop")  # no token
    laptop.close()
    pushes.notify()
    # The phone's host heard it through the feed; nothing was pushed, to either device: the
    # phone's push, postponed, found the host still live when it ran (the admin command waited for it).
    phone.wait_event("onNotificationReceived", timeout=5)
    assert pushes.sent() == []
    message = max(pushes.messages(), key=lambda item: item["id"])
    assert message["lastError"].startswith("withdrawn") and ("withdrawn", {"outboxID": message["id"]}) in pushes.runs()
    assert all(outcome == "withdrawn" for outcome, _ in pushes.runs())
    # Once its host is gone, the phone is pushed; the laptop, with no token, never.
    phone.close()
    pushes.notify(subject="Second")
    assert [push["subject"] for push in pushes.sent()] == ["Second"]


def test_a_device_whose_host_exits_as_its_notification_is_made_is_pushed(pushes):
    """The phone's host is live when the tablet's login makes the "new device
    added" notice, then exits at once (its client left): it may never have
    passed the notice on, so the push, postponed while the host was live, is
    checked again when it runs and goes to the phone."""
    phone = logged_in(pushes.deployment)
    token = new_token()
    phone.request("setDeviceToken", [token])
    tablet = join(pushes.deployment, "alice", "tablet")
    phone.close()
    assert wait_until(lambda: len(pushes.sent()) == 1, timeout=20), "the device whose host went was never told"
    [push] = pushes.sent()
    assert push["token"] == token and push["subject"] == "A new device was added"
    tablet.close()


def test_a_host_that_exits_runs_its_postponed_pushes_first(pushes):
    """As above, but the host that made the notice (the tablet's) exits as
    well, before the push is due: it waits for it rather than leaving it
    to a later host's worker."""
    phone = logged_in(pushes.deployment)
    token = new_token()
    phone.request("setDeviceToken", [token])
    tablet = join(pushes.deployment, "alice", "tablet")
    phone.close()
    tablet.close()
    assert tablet.process.returncode == 0, "the tablet's host was killed while it drained"
    assert [push["token"] for push in pushes.sent()] == [token], "the push was left behind"


def test_a_message_is_pushed_when_the_operator_opts_in(tmp_path, flowhost_bin, spawn):
    pushes = Pushes(tmp_path, flowhost_bin, spawn, includeMessage=True)
    token, _ = with_token(pushes.deployment)
    uuid_ = pushes.notify()
    assert pushes.sent() == [{"token": token, "notificationID": uuid_, "subject": "Your order shipped",
                              "message": "Parcel 1234 left the depot."}]


def test_a_hanging_push_command_is_killed_retried_and_recorded_and_a_login_never_waits(tmp_path, flowhost_bin, spawn):
    """The new device's login makes the "a new device was added" notice for
    the phone, whose push command hangs: the login is prompt; each run is
    killed at the timeout, retried after the back-off, and recorded."""
    pushes = Pushes(tmp_path, flowhost_bin, spawn, script="cat >> \"$PUSHED\"\nsleep 60\n", timeoutSeconds=1, attempts=2)
    with_token(pushes.deployment)
    started = time.time()
    laptop = join(pushes.deployment, "alice", "laptop")
    assert time.time() - started < 5, "the login waited for the push command"
    assert wait_until(lambda: len(pushes.runs()) == 2, timeout=30)
    assert [(outcome, detail["attempt"]) for outcome, detail in pushes.runs()] == [("failed", 1), ("gave-up", 2)]
    [message] = pushes.messages()
    assert message["attempts"] == 2 and message["lastError"] == "timed out after 1 s and was killed" and "failedAt" in message
    sent = pushes.sent()
    assert len(sent) == 2 and sent[0] == sent[1] and sent[0]["subject"] == "A new device was added"
    laptop.close()


def test_a_failing_push_command_is_recorded_and_retried(tmp_path, flowhost_bin, spawn):
    pushes = Pushes(tmp_path, flowhost_bin, spawn, script="cat >> \"$PUSHED\"\nexit 3\n", timeoutSeconds=2, attempts=2)
    with_token(pushes.deployment)
    laptop = join(pushes.deployment, "alice", "laptop")
    assert wait_until(lambda: len(pushes.runs()) == 2, timeout=30)
    assert [(outcome, detail["attempt"]) for outcome, detail in pushes.runs()] == [("failed", 1), ("gave-up", 2)]
    [message] = pushes.messages()
    assert message["lastError"] == "exited with status 3"
    laptop.close()


def test_a_revoked_devices_token_is_removed_and_a_pending_push_is_never_sent(tmp_path, flowhost_bin, spawn):
    """The first run fails; the device is revoked before the retry, which
    then finds no token and sends nothing (recorded as withdrawn)."""
    pushes = Pushes(tmp_path, flowhost_bin, spawn, script="cat >> \"$PUSHED\"\nexit 3\n", timeoutSeconds=2, attempts=3)
    with_token(pushes.deployment)
    laptop = join(pushes.deployment, "alice", "laptop")
    assert wait_until(lambda: len(pushes.sent()) == 1, timeout=15)
    pushes.deployment.admin("revoke-device", "alice", "phone")
    assert pushes.tokens() == []
    assert wait_until(lambda: [outcome for outcome, _ in pushes.runs()] == ["failed", "withdrawn"], timeout=30), pushes.runs()
    assert len(pushes.sent()) == 1, "a revoked device was pushed"
    [message] = pushes.messages()
    assert message["lastError"].startswith("withdrawn") and "failedAt" in message
    # A new notification pushes nothing either.
    pushes.notify()
    assert len(pushes.sent()) == 1
    laptop.close()


def test_a_push_whose_notification_was_answered_before_its_retry_is_withdrawn(tmp_path, flowhost_bin, spawn):
    """The first run for the "new device added" notice fails; the user
    answers the notice on the new device before the retry, which then sends
    nothing: a push would announce what the app can no longer show."""
    pushes = Pushes(tmp_path, flowhost_bin, spawn, script="cat >> \"$PUSHED\"\nexit 3\n", timeoutSeconds=2, attempts=3)
    with_token(pushes.deployment)
    laptop = join(pushes.deployment, "alice", "laptop")
    assert wait_until(lambda: len(pushes.runs()) == 1, timeout=15)
    laptop.request("getNotifications", [0, "", 1, "", ""])
    [item] = laptop.wait_event("onGetNotifications")["params"]["notificationResponse"]["notifications"]
    laptop.request("updateNotification", [item["notification_uuid"], "ok"])
    laptop.wait_event("onUpdateNotification")
    assert wait_until(lambda: len(pushes.runs()) == 2, timeout=30), pushes.runs()
    assert [outcome for outcome, _ in pushes.runs()] == ["failed", "withdrawn"]
    assert len(pushes.sent()) == 1, "the answered notification was pushed again"
    laptop.close()


def test_a_deleted_devices_token_is_removed_and_never_pushed(pushes):
    """The user's own deletion (updateDeviceDetails Delete, after step-up) removes the token as the operator's revocation does."""
    token, _ = with_token(pushes.deployment)
    laptop = join(pushes.deployment, "alice", "laptop")
    # The phone's push of the "new device added" notice has run (before the deletion, not racing it).
    assert wait_until(lambda: len(pushes.runs()) == 1, timeout=15)
    laptop_token = new_token()
    laptop.request("setDeviceToken", [laptop_token])
    laptop.request("getRegisteredDeviceDetails", ["alice"])
    data = laptop.wait_event("onGetRegistredDeviceDetails")["params"]["pArgs"]["response"]["ResponseData"]
    items = [dict(device, status="Delete") if device["devUUID"] == "phone" else device for device in data["device"]]
    laptop.request("updateDeviceDetails", ["alice", json.dumps({"device": items})])
    laptop.wait_event("getPassword")
    laptop.request("setPassword", [GOOD_PASSWORD, 3])
    assert laptop.wait_event("onUpdateDeviceDetails")["params"]["pArgs"]["response"]["ResponseData"]["status_code"] == 100
    assert pushes.tokens() == [("alice", "laptop", laptop_token)]
    before = len(pushes.sent())
    laptop.close()
    pushes.notify(subject="After the deletion")
    after = pushes.sent()[before:]
    assert [push["token"] for push in after] == [laptop_token] and token not in json.dumps(after)


def test_push_settings_are_checked(tmp_path, flowhost_bin):
    import subprocess
    for push, named in (({"includeMessage": True}, "push.command"), ({"command": []}, "push.command"),
                        ({"command": ["/bin/true"], "includeMessage": "yes"}, "push.includeMessage"),
                        ({"command": ["/bin/true"], "attempts": 0}, "push.attempts"), ({"command": ["/bin/true"], "other": 1}, "push.other")):
        config = tmp_path / "config.json"
        config.write_text(json.dumps(dict(CHEAP_CONFIG, push=push)))
        out = subprocess.run([flowhost_bin, "admin", "audit", "--store", str(tmp_path / "s.sqlite"), "--config", str(config)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode != 0 and named in out.stderr, (push, out.stderr)
