"""The lda-toggle flow (seed 003): listing the device's LDA types, turning
one on (verify 5, consent 16) or off (verify 15, then a new password 14;
LDA verifies a user without a password), and what the next login and
step-up then use."""

import json

import pytest

from conftest import GOOD_PASSWORD, activate, status_of, wait_until
from flowhost_client import RPCError
from schemas import validate

WRONG = "Wrong&Passw0rd9"


def logged_in(deployment, lda=False, capabilities=(1,), device="device-1", lda_answer=True):
    code = deployment.add_user("alice")
    host = deployment.host(device, lda=list(capabilities), lda_answer=lda_answer)
    activate(host, "alice", code, lda=lda)
    return host


NEW_PASSWORD = "Correct-Horse-9-Battery"


def details(host):
    result = host.request("getDeviceAuthenticationDetails")
    validate("lda-toggle.getDeviceAuthenticationDetails.result", result)
    return {item["authenticationType"]: item["isEnabled"] for item in result}


def toggle_status(host):
    event = host.wait_event("onDeviceAuthManagementStatus")
    validate("lda-toggle.onDeviceAuthManagementStatus.params", event["params"])
    params = event["params"]
    return params["isEnabled"], params["authenticationType"], params["status"]["statusCode"], params["error"]["longErrorCode"]


def enable(host, password=GOOD_PASSWORD):
    host.request("manageDeviceAuthenticationModes", [True, 1])
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 5
    host.request("setPassword", [password, 5])
    consent = host.wait_event("getUserConsentForLDA")
    assert consent["params"]["challengeMode"] == 16 and consent["params"]["authenticationType"] == 1
    validate("getUserConsentForLDA.params", consent["params"])
    host.request("setUserConsentForLDA", [True, 16, 1])
    return toggle_status(host)


def log_off_and_in(host, password=GOOD_PASSWORD):
    host.request("logOff", ["alice"])
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    before = len(lda_requests(host))
    host.request("setUser", ["alice"])
    event = host.wait_event()
    if event["method"] == "getPassword":
        assert event["params"]["challengeMode"] == 0
        host.request("setPassword", [password, 0])
        host.wait_event("onUserLoggedIn")
        return "password"
    assert event["method"] == "onUserLoggedIn"
    assert len(lda_requests(host)) == before + 1
    return "lda"


def lda_requests(host):
    return [json.loads(line) for direction, line in host.transcript if direction == "<-" and '"platform/authenticateLDA"' in line]


def step_up_method(deployment, host, lda_answers=None, password=GOOD_PASSWORD):
    """Answers a notification with authlevel 1; returns how step-up verified ("password", "lda", "lda+password")."""
    uuid = deployment.admin("notify", "alice", "--subject", "Pay?", "--message", "m", "--action", "Accept=accept:1")["notification_uuid"]
    before = len(lda_requests(host))
    host.request("updateNotification", [uuid, "accept"])
    event = host.wait_event()
    while event["method"] == "onNotificationReceived":
        event = host.wait_event()
    used_lda = len(lda_requests(host)) > before
    if event["method"] == "getPassword":
        assert event["params"]["challengeMode"] == 3
        host.request("setPassword", [password, 3])
        event = host.wait_event("onUpdateNotification")
        method = "lda+password" if used_lda else "password"
    else:
        method = "lda"
    assert event["method"] == "onUpdateNotification" and event["params"]["status"]["statusCode"] == 100
    return method


def test_scenario_1_enable_then_log_off_and_log_in_with_lda(deployment):
    host = logged_in(deployment)
    assert details(host) == {1: 0}
    assert enable(host) == (1, 1, 100, 0)
    assert details(host) == {1: 1}
    assert deployment.admin("show-user", "alice")["passwordAttemptsLeft"] == 3
    assert step_up_method(deployment, host) == "password", "logged in with the password: step-up asks for it (seed 001's table)"
    assert log_off_and_in(host) == "lda"
    assert step_up_method(deployment, host) == "lda", "logged in with LDA, both enrolled: LDA"
    host.on_request("platform/authenticateLDA", lambda params: {"authenticated": False})
    assert step_up_method(deployment, host) == "lda+password", "LDA cancelled: the password, without an error"


def test_scenario_2_disable_then_log_in_with_the_password(deployment):
    host = logged_in(deployment)
    enable(host)
    assert log_off_and_in(host) == "lda"
    host.request("manageDeviceAuthenticationModes", [False, 1])
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 15, "the user has a password: it is the verification, even after an LDA login"
    host.request("setPassword", [GOOD_PASSWORD, 15])
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 14, "seed 003: verify (15), then set a new password (14), then the status"
    validate("getPassword.params", ask["params"])
    host.request("setPassword", [GOOD_PASSWORD, 14])
    again = host.wait_event("getPassword")
    assert status_of(again) == 164 and again["params"]["challengeMode"] == 14, "the history applies"
    assert details(host) == {1: 1}, "nothing changed yet"
    host.request("setPassword", [NEW_PASSWORD, 14])
    assert toggle_status(host) == (0, 1, 100, 0)
    assert details(host) == {1: 0}
    assert step_up_method(deployment, host, password=NEW_PASSWORD) == "password", "LDA is gone: step-up asks for the new password"
    assert log_off_and_in(host, NEW_PASSWORD) == "password"


def test_scenario_3_a_device_with_no_lda(deployment):
    host = logged_in(deployment, capabilities=())
    assert details(host) == {}
    with pytest.raises(RPCError) as refused:
        host.request("manageDeviceAuthenticationModes", [True, 1])
    assert refused.value.code == -32014 and refused.value.data["reason"] == "notSupported"
    assert not [event for event in host.events if event["method"] == "getPassword" and event["params"]["challengeMode"] == 5]


def test_scenario_4_errors_are_refused_at_once_and_change_nothing(deployment):
    host = deployment.host("device-1", lda=[1])
    host.wait_event("getUser")
    for method, params in [("getDeviceAuthenticationDetails", []), ("manageDeviceAuthenticationModes", [True, 1])]:
        with pytest.raises(RPCError) as refused:
            host.request(method, params)
        assert refused.value.code == -32006, "no user is logged in"
    host.close()
    host = logged_in(deployment, capabilities=(1, 2))

    def refusal(enable, ldaType):
        with pytest.raises(RPCError) as refused:
            host.request("manageDeviceAuthenticationModes", [enable, ldaType])
        assert refused.value.code == -32014
        return refused.value.data["reason"]
    assert refusal(False, 1) == "alreadyDisabled"
    assert refusal(True, 9) == "notSupported"
    enable(host)
    assert refusal(True, 1) == "alreadyEnabled"
    assert refusal(True, 2) == "anotherTypeEnabled"
    with pytest.raises(RPCError) as refused:
        host.request("manageDeviceAuthenticationModes", ["yes", 1])
    assert refused.value.code == -32602


def test_disabling_for_an_lda_only_user_sets_a_password_through_the_policy(deployment):
    host = logged_in(deployment, lda=True)
    assert details(host) == {1: 1}
    before = len(lda_requests(host))
    host.request("manageDeviceAuthenticationModes", [False, 1])
    ask = host.wait_event("getPassword")
    assert len(lda_requests(host)) == before + 1, "no password to verify: LDA verifies instead"
    assert ask["params"]["challengeMode"] == 14
    validate("getPassword.params", ask["params"])
    info = {item["key"]: item["value"] for item in ask["params"]["response"]["info"]}
    assert "RELID_PASSWORD_POLICY" in info
    host.request("setPassword", ["short", 14])
    again = host.wait_event("getPassword")
    assert status_of(again) == 190 and again["params"]["challengeMode"] == 14
    assert details(host) == {1: 1}, "nothing changed yet"
    host.request("setPassword", [GOOD_PASSWORD, 14])
    assert toggle_status(host) == (0, 1, 100, 0)
    assert details(host) == {1: 0}
    assert step_up_method(deployment, host) == "password"
    assert log_off_and_in(host) == "password"
    audit = deployment.admin("audit", "--user", "alice")
    assert [row for row in audit if row["action"] == "lda.disable" and row["outcome"] == "ok"]
    assert GOOD_PASSWORD not in json.dumps(audit) and GOOD_PASSWORD not in host.stderr_text()


def test_consent_declined_or_the_lda_check_cancelled_is_217_and_changes_nothing(deployment):
    host = logged_in(deployment, lda_answer=False)
    host.request("manageDeviceAuthenticationModes", [True, 1])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 5])
    host.wait_event("getUserConsentForLDA")
    host.request("setUserConsentForLDA", [False, 16, 1])
    assert toggle_status(host) == (1, 1, 100, 217)
    assert details(host) == {1: 0}
    assert enable(host) == (1, 1, 100, 217), "the platform's check failed: cancelled, nothing enrolled"
    assert details(host) == {1: 0}


def test_a_wrong_password_asks_again_then_the_right_one_enables(deployment):
    host = logged_in(deployment)
    host.request("manageDeviceAuthenticationModes", [True, 1])
    assert host.wait_event("getPassword")["params"]["attemptsLeft"] == 3
    host.request("setPassword", [WRONG, 5])
    again = host.wait_event("getPassword")
    assert status_of(again) == 102 and again["params"]["challengeMode"] == 5 and again["params"]["attemptsLeft"] == 2
    host.request("setPassword", [GOOD_PASSWORD, 5])
    host.wait_event("getUserConsentForLDA")
    host.request("setUserConsentForLDA", [True, 16, 1])
    assert toggle_status(host) == (1, 1, 100, 0)
    assert deployment.admin("show-user", "alice")["passwordAttemptsLeft"] == 3


def test_exhausted_attempts_log_the_user_off_and_change_nothing(deployment):
    host = logged_in(deployment)
    enable(host)
    host.request("manageDeviceAuthenticationModes", [False, 1])
    for _ in range(3):
        host.wait_event("getPassword")
        host.request("setPassword", [WRONG, 15])
    assert toggle_status(host)[2] == 153
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    assert deployment.admin("show-user", "alice")["openSessions"] == 0
    devices = {device["devUUID"]: device for device in deployment.admin("devices", "alice")}
    assert devices["device-1"]["ldaType"] == 1, "still enabled"


def test_a_dismissed_toggle_is_replaced_by_the_next_and_a_reset_cancels_it(deployment):
    """Seed 003's app dismisses the prompt and lets the user try again: the
    next toggle replaces the stale one, whose flow is told (no status for it)."""
    host = logged_in(deployment)
    host.request("manageDeviceAuthenticationModes", [True, 1])
    host.wait_event("getPassword")
    assert enable(host) == (1, 1, 100, 0), "the retry replaced the dismissed toggle"
    assert len([event for event in host.events if event["method"] == "onDeviceAuthManagementStatus"]) == 1
    assert "error" not in host.stderr_text().lower()
    host.request("manageDeviceAuthenticationModes", [False, 1])
    host.wait_event("getPassword")
    host.request("resetAuthState")
    with pytest.raises(RPCError) as late:
        host.request("setPassword", [GOOD_PASSWORD, 5])
    assert late.value.code == -32003, "the challenge closed"
    assert len([event for event in host.events if event["method"] == "onDeviceAuthManagementStatus"]) == 1
    assert details(host) == {1: 1}, "the reset changed nothing"


def test_a_reset_during_the_consent_or_the_lda_check_cancels_it(deployment):
    host = logged_in(deployment, lda_answer=None)  # the platform's check stays unanswered
    host.request("manageDeviceAuthenticationModes", [True, 1])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 5])
    host.wait_event("getUserConsentForLDA")
    host.request("setUserConsentForLDA", [True, 16, 1])
    assert wait_until(lambda: lda_requests(host))
    asked = lda_requests(host)[-1]["id"]
    host.request("resetAuthState")
    assert wait_until(lambda: asked in host.cancelled), "the client is told to close its prompt"
    assert details(host) == {1: 0}
    assert not [event for event in host.events if event["method"] == "onDeviceAuthManagementStatus"]
    with pytest.raises(RPCError) as nothing:
        host.request("resetAuthState")
    assert nothing.value.code == -32006, "nothing in progress: resetAuthState after login is refused as before"


def test_a_toggle_on_one_host_is_seen_by_another_host_of_the_same_device(deployment):
    host = logged_in(deployment, device="device-1")
    other = deployment.host("device-1", lda=[1])
    other.wait_event("getUser")
    other.request("setUser", ["alice"])
    other.wait_event("getPassword")
    other.request("setPassword", [GOOD_PASSWORD, 0])
    other.wait_event("onUserLoggedIn")
    enable(host)
    assert details(other) == {1: 1}
    assert log_off_and_in(other) == "lda"


def test_the_change_services_need_the_user_logged_in_here(deployment, spawn, test_plugins):
    """A flow cannot change how a user authenticates without that user's
    session on this host (and a recent verification): the authenticators
    domain checks the host's session, whatever the calling flow does."""
    bob_code = deployment.add_user("bob")
    activate(deployment.host("device-b"), "bob", bob_code)
    code = deployment.add_user("alice")
    host = spawn("--plugins", test_plugins["c_caller"], "--store", deployment.store, "--config", deployment.config)
    host.initialize(device={"deviceID": "device-1", "deviceName": "d", "ldaCapabilities": [1]})

    def enable_for(user, device="device-1"):
        return host.request("ccaller.call", {"service": "authenticators.enableLDA",
                                             "params": {"userID": user, "deviceID": device, "ldaType": 1}})
    with pytest.raises(RPCError) as refused:
        enable_for("alice")
    assert refused.value.code == -32006, "no one is logged in"
    activate(host, "alice", code)
    for user, device in [("bob", "device-b"), ("alice", "device-b")]:
        with pytest.raises(RPCError) as refused:
            enable_for(user, device)
        assert refused.value.code == -32006, "another user, or another device, than the session's"
    for user in ["alice", "bob"]:
        assert all(device.get("ldaType") is None for device in deployment.admin("devices", user)), "nothing changed"
    assert enable_for("alice") == {"outcome": "changed"}, "just logged in: the login is the verification"
