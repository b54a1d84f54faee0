"""A known user on a new device, approved from a registered one: two and
three host processes on one store (seed 004)."""

import json
import threading

import pytest

from conftest import GOOD_PASSWORD, activate, contract_event_schema, register_secret, status_of, store_rows, wait_until
from flowhost_client import RPCError
from schemas import validate


def registered(deployment, user="alice", device="device-a"):
    """A logged-in host on a registered device."""
    code = deployment.add_user(user)
    host = deployment.host(device)
    activate(host, user, code)
    return host


def ask_to_join(deployment, user="alice", device="device-b", lda=(), lda_answer=True):
    host = deployment.host(device, lda=lda, lda_answer=lda_answer)
    host.wait_event("getUser")
    host.request("setUser", [user])
    options = host.wait_event("addNewDeviceOptions")
    validate("device-activation.addNewDeviceOptions.params", options["params"])
    key = {item["key"]: item["value"] for item in options["params"]["challengeInfo"]}["VERIFICATION_KEY"]
    assert options["params"]["newDeviceOptions"] == ["ApproveFromRegisteredDevice", "ActivationCode"] and len(key) == 6
    host.request("performVerifyAuth", [True])
    return host, key


def approval_on(host, key):
    """The approval request as the registered device sees it (pushed, then listed)."""
    pushed = host.wait_event("onNotificationReceived", timeout=5)["params"]["notification_uuid"]
    host.request("getNotifications", [0, "", 1, "", ""])
    items = host.wait_event("onGetNotifications")["params"]["notificationResponse"]["notifications"]
    item = next(item for item in items if item["notification_uuid"] == pushed)
    assert key in item["body"][0]["message"], "both devices show the same verification key"
    return pushed


def step_up(host):
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 3])
    update = host.wait_event("onUpdateNotification")
    assert update["params"]["pArgs"]["response"]["StatusCode"] == 100


def test_a_new_device_approved_from_a_registered_one(deployment):
    first = registered(deployment)
    second, key = ask_to_join(deployment)
    uuid = approval_on(first, key)
    first.request("updateNotification", [uuid, "accept"])
    step_up(first)  # approving a device asks the approver to prove it is the user
    ask = second.wait_event("getPassword", timeout=5)
    validate("getPassword.params", ask["params"])
    assert ask["params"]["challengeMode"] == 0
    assert ask["params"]["response"]["additionalInfo"]["currentWorkFlow"] == "AdditionalDeviceActivation"
    second.request("setPassword", [GOOD_PASSWORD, 0])
    logged_in = second.wait_event("onUserLoggedIn")
    assert logged_in["params"]["response"]["additionalInfo"]["currentWorkFlow"] == "AdditionalDeviceActivation"
    devices = {device["devUUID"]: device for device in deployment.admin("devices", "alice")}
    assert devices["device-b"]["status"] == "ACTIVE" and devices["device-b"]["keyID"], "its own key is bound"
    info = first.wait_event("onNotificationReceived", timeout=5)["params"]["notification_uuid"]
    assert info != uuid, "the other devices are told a device was added"
    history = {item["notification_uuid"]: item for item in deployment.admin("notifications", "alice")}
    assert history[uuid]["action_performed"] == "accept" and history[info]["status"] == "ACTIVE"


def test_a_new_device_with_lda_enrolls_it_after_the_approval(deployment):
    first = registered(deployment)
    second, key = ask_to_join(deployment, lda=[1])
    first.request("updateNotification", [approval_on(first, key), "accept"])
    step_up(first)
    consent = second.wait_event("getUserConsentForLDA", timeout=5)
    validate("getUserConsentForLDA.params", consent["params"])
    second.request("setUserConsentForLDA", [True, consent["params"]["challengeMode"], 1])
    assert second.wait_event("onUserLoggedIn")["params"]["response"]["additionalInfo"]["currentWorkFlow"] == \
        "AdditionalDeviceActivation"
    assert {device["devUUID"]: device for device in deployment.admin("devices", "alice")}["device-b"]["ldaType"] == 1


def test_a_rejection_ends_the_attempt(deployment):
    first = registered(deployment)
    second, key = ask_to_join(deployment)
    first.request("updateNotification", [approval_on(first, key), "reject"])
    first.wait_event("onUpdateNotification")
    refused = second.wait_event("getUser", timeout=5)
    assert status_of(refused) == 102 and "rejected" in refused["params"]["response"]["status"]["statusMessage"]
    assert "device-b" not in [device["devUUID"] for device in deployment.admin("devices", "alice")]


def test_cancelling_or_resetting_while_waiting_withdraws_the_request(deployment):
    first = registered(deployment)
    host = deployment.host("device-b")
    host.wait_event("getUser")
    host.request("setUser", ["alice"])
    host.wait_event("addNewDeviceOptions")
    host.request("performVerifyAuth", [False])
    assert status_of(host.wait_event("getUser")) == 100
    second, key = ask_to_join(deployment, device="device-c")
    uuid = approval_on(first, key)
    second.request("resetAuthState")
    second.wait_event("getUser")
    assert wait_until(lambda: {item["notification_uuid"]: item for item in deployment.admin("notifications", "alice")}[uuid]["status"]
                      == "DISCARDED")
    with pytest.raises(RPCError) as late:
        first.request("updateNotification", [uuid, "accept"])
    assert late.value.data["reason"] == "alreadyAnswered"


def test_the_new_device_cannot_approve_itself(deployment):
    registered(deployment)
    second, key = ask_to_join(deployment)
    with pytest.raises(RPCError) as refused:
        second.request("getNotifications", [0, "", 1, "", ""])
    assert refused.value.code == -32006, "not logged in: nothing to approve with"


def test_two_approvers_race_and_one_wins(deployment):
    first = registered(deployment)
    # The user's second registered device, itself approved from the first.
    second, key = ask_to_join(deployment, device="device-x")
    first.request("updateNotification", [approval_on(first, key), "accept"])
    step_up(first)
    second.wait_event("getPassword", timeout=5)
    second.request("setPassword", [GOOD_PASSWORD, 0])
    second.wait_event("onUserLoggedIn")
    first.wait_event("onNotificationReceived", timeout=5)  # the informational one
    seen_by_second = len(second.events)
    # Now device-c asks; both registered devices answer at once.
    third, key = ask_to_join(deployment, device="device-c")
    uuid = approval_on(first, key)
    assert wait_until(lambda: any(event["method"] == "onNotificationReceived" and event["params"]["notification_uuid"] == uuid
                                  for event in second.events[seen_by_second:]))
    results = {}
    start = threading.Barrier(2)

    def answer(host, name, action):
        start.wait()
        try:
            host.request("updateNotification", [uuid, action])
            results[name] = "sent"
        except RPCError as error:
            results[name] = error.data["reason"]

    threads = [threading.Thread(target=answer, args=(first, "a", "reject")),
               threading.Thread(target=answer, args=(second, "x", "reject"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    third_outcome = third.wait_event("getUser", timeout=5)
    assert status_of(third_outcome) == 102
    history = {item["notification_uuid"]: item for item in deployment.admin("notifications", "alice")}
    assert history[uuid]["status"] == "UPDATED" and history[uuid]["action_performed"] == "reject"


def test_the_fallback_with_a_code_sent_for_this_device(deployment):
    first = registered(deployment)
    second = deployment.host("device-b")
    second.wait_event("getUser")
    second.request("setUser", ["alice"])
    options = second.wait_event("addNewDeviceOptions")
    assert "ActivationCode" in options["params"]["newDeviceOptions"]
    second.request("fallbackNewDeviceActivationFlow")
    ask = second.wait_event("getActivationCode")
    validate("getActivationCode.params", ask["params"])
    assert ask["params"]["response"]["additionalInfo"]["currentWorkFlow"] == "AdditionalDeviceActivation"
    code = deployment.admin("outbox")[-1]["activationCode"]  # delivered through the outbox
    second.request("setActivationCode", ["WRONGCODE0"])
    again = second.wait_event("getActivationCode")
    assert status_of(again) == 106 and again["params"]["attemptsLeft"] == 2
    assert deployment.admin("show-user", "alice")["activationAttemptsLeft"] == 3, "the code's tries, not the user's"
    second.request("setActivationCode", [code])
    second.wait_event("getPassword")
    second.request("setPassword", [GOOD_PASSWORD, 0])
    joined = second.wait_event("onUserLoggedIn")
    assert joined["params"]["response"]["additionalInfo"]["currentWorkFlow"] == "AdditionalDeviceActivation"
    assert "device-b" in [device["devUUID"] for device in deployment.admin("devices", "alice")]
    assert first.wait_event("onNotificationReceived", timeout=5), "the other devices are told"


def test_a_stranger_asking_for_codes_cannot_block_the_user(deployment):
    registered(deployment)
    stranger = deployment.host("device-s")
    stranger.wait_event("getUser")
    stranger.request("setUser", ["alice"])
    stranger.wait_event("addNewDeviceOptions")
    stranger.request("fallbackNewDeviceActivationFlow")
    stranger.wait_event("getActivationCode")
    for _ in range(2):
        stranger.request("setActivationCode", ["WRONGCODE0"])
        stranger.wait_event("getActivationCode")
    stranger.request("setActivationCode", ["WRONGCODE0"])
    assert status_of(stranger.wait_event("getUser")) == 106, "the code dies after its own tries"
    user = deployment.admin("show-user", "alice")
    assert user["blocked"] is None and user["activationAttemptsLeft"] == 3 and user["passwordAttemptsLeft"] == 3


def test_an_approval_nobody_answers_expires(tmp_path, flowhost_bin, spawn):
    from conftest import CHEAP_CONFIG, Deployment
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["flows"] = {"device-activation": {"approvalSeconds": 2}}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    first = registered(deployment)
    second, key = ask_to_join(deployment)
    uuid = approval_on(first, key)
    expired = second.wait_event("getUser", timeout=6)
    assert status_of(expired) == 121
    assert wait_until(lambda: {item["notification_uuid"]: item for item in deployment.admin("notifications", "alice")}[uuid]["status"]
                      == "DISCARDED"), "the request is withdrawn"
    with pytest.raises(RPCError) as late:
        first.request("updateNotification", [uuid, "accept"])
    assert late.value.code == -32013


def test_reads_while_an_approval_is_pending_are_answered_and_change_nothing(deployment):
    first = registered(deployment)
    second, key = ask_to_join(deployment)
    uuid = approval_on(first, key)
    assert second.request("ping") == {}
    assert "methods" in second.request("rpc.discover")
    with pytest.raises(RPCError) as nobody:
        second.request("getNotifications", [0, "", 1, "", ""])
    assert nobody.value.code == -32006, "no user is logged in on the waiting device"
    with pytest.raises(RPCError) as busy:
        second.request("setUser", ["alice"])
    assert busy.value.code == -32003, "getUser is not open: the device cannot start over without resetAuthState"
    first.request("updateNotification", [uuid, "accept"])
    step_up(first)
    second.wait_event("getPassword", timeout=5)
    second.request("setPassword", [GOOD_PASSWORD, 0])
    assert second.wait_event("onUserLoggedIn")["params"]["userID"] == "alice", "the pending approval completed as before"


def test_a_reset_after_the_approval_cancels_what_the_new_device_was_asked(deployment):
    """What the new device is asked after an approval heard through the feed
    (consent, then the platform's LDA check) belongs to its join: a reset
    cancels the check at the client and registers nothing."""
    first = registered(deployment)
    second, key = ask_to_join(deployment, device="device-b", lda=[1], lda_answer=None)  # the check stays unanswered
    first.request("updateNotification", [approval_on(first, key), "accept"])
    step_up(first)
    consent = second.wait_event("getUserConsentForLDA", timeout=5)
    second.request("setUserConsentForLDA", [True, consent["params"]["challengeMode"], 1])
    assert wait_until(lambda: any('"platform/authenticateLDA"' in line for direction, line in second.transcript if direction == "<-"))
    asked = next(json.loads(line)["id"] for direction, line in second.transcript
                 if direction == "<-" and '"platform/authenticateLDA"' in line)
    second.request("resetAuthState")
    assert status_of(second.wait_event("getUser")) == 100
    assert wait_until(lambda: asked in second.cancelled), "the client is told to close its prompt"
    with pytest.raises(RPCError) as late:
        second.request("setUserConsentForLDA", [True, 16, 1])
    assert late.value.code == -32004, "the open challenge is getUser again"
    devices = {device["devUUID"]: device for device in deployment.admin("devices", "alice")}
    assert "device-b" not in devices or devices["device-b"]["status"] != "ACTIVE"


# -- Issue 21.2 and 21.6: a new device goes on with what the user has --------------------

NEW_PASSWORD = "N3w&Different-Pw"


def lda_only(deployment, user="bob"):
    """A user activated with the biometric only, logged in on their phone."""
    code = deployment.add_user(user)
    phone = deployment.host("phone", lda=[1])
    activate(phone, user, code, lda=True)
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM password WHERE user_id = ?", user) == [(0,)]
    return phone


def join_by_code(deployment, user, device="laptop", lda=()):
    laptop = deployment.host(device, lda=lda)
    laptop.wait_event("getUser")
    laptop.request("setUser", [user])
    laptop.wait_event("addNewDeviceOptions")
    laptop.request("fallbackNewDeviceActivationFlow")
    laptop.wait_event("getActivationCode")
    laptop.request("setActivationCode", [deployment.admin("outbox")[-1]["activationCode"]])
    return laptop


def first_password_on(laptop):
    ask = laptop.wait_event("getPassword", timeout=5)
    assert ask["params"]["challengeMode"] == 1, "a first password, never a check of one that does not exist"
    # Issue 48.11: the schema the contract gives this flow's getPassword takes mode 1.
    validate(contract_event_schema("device-activation", "getPassword"), ask["params"])
    info = {item["key"]: item["value"] for item in ask["params"]["response"]["info"]}
    assert "RELID_PASSWORD_POLICY" in info
    register_secret(NEW_PASSWORD)
    laptop.request("setPassword", ["short", 1])
    again = laptop.wait_event("getPassword")
    assert status_of(again) == 190 and again["params"]["challengeMode"] == 1, "the policy, with the reason"
    laptop.request("setPassword", [NEW_PASSWORD, 1])
    laptop.wait_event("onUserLoggedIn")


@pytest.mark.parametrize("how", ["approval", "code", "lda-declined"])
def test_a_user_without_a_password_sets_one_on_a_new_device_and_spends_no_attempt(deployment, how):
    phone = lda_only(deployment)
    if how == "approval":
        laptop, key = ask_to_join(deployment, user="bob", device="laptop")
        phone.request("updateNotification", [approval_on(phone, key), "accept"])
        phone.wait_event("onUpdateNotification", timeout=10)
    elif how == "code":
        laptop = join_by_code(deployment, "bob")
    else:
        laptop = join_by_code(deployment, "bob", lda=[1])
        consent = laptop.wait_event("getUserConsentForLDA", timeout=5)
        laptop.request("setUserConsentForLDA", [False, consent["params"]["challengeMode"], 1])
    first_password_on(laptop)
    user = deployment.admin("show-user", "bob")
    assert user["blocked"] is None and user["passwordAttemptsLeft"] == 3
    assert store_rows(deployment.store, "SELECT COUNT(*) FROM password WHERE user_id = ?", "bob") == [(1,)]
    assert {device["devUUID"] for device in deployment.admin("devices", "bob")} == {"phone", "laptop"}
    # The phone still logs in with its biometric.
    phone.request("logOff", ["bob"])
    phone.wait_event("getUser")
    phone.request("setUser", ["bob"])
    assert phone.wait_event("onUserLoggedIn", timeout=10)["params"]["userID"] == "bob"


def test_an_expired_password_must_be_replaced_on_a_new_device_too(deployment):
    registered(deployment)
    deployment.admin("expire-password", "alice")
    laptop = join_by_code(deployment, "alice")
    laptop.wait_event("getPassword", timeout=5)
    laptop.request("setPassword", [GOOD_PASSWORD, 0])
    ask = laptop.wait_event("getPassword", timeout=5)
    assert ask["params"]["challengeMode"] == 4, "the old password alone does not log in"
    assert not [event for event in laptop.events if event["method"] == "onUserLoggedIn"]
    assert "laptop" not in [device["devUUID"] for device in deployment.admin("devices", "alice")]
    with pytest.raises(RPCError) as refused:
        laptop.request("setPassword", [GOOD_PASSWORD, 4])
    assert refused.value.code == 4
    register_secret(NEW_PASSWORD)
    laptop.request("updatePassword", [GOOD_PASSWORD, GOOD_PASSWORD, 4])
    assert status_of(laptop.wait_event("getPassword")) == 164, "the history applies as at login"
    laptop.request("updatePassword", [GOOD_PASSWORD, NEW_PASSWORD, 4])
    laptop.wait_event("onUserLoggedIn")
    user = deployment.admin("show-user", "alice")
    assert not user.get("passwordExpired") and user["passwordAttemptsLeft"] == 3
    assert "laptop" in [device["devUUID"] for device in deployment.admin("devices", "alice")]
