"""Each seed's main path and the test scenarios it lists, replayed in the
seed's order with the seed's iOS names (issue 22): the fields a ported app
reads (`response.sessionInfo.sessionID`, `status.notificationResponse.
notifications`, `isEnabled`, …), the calls it makes by name
(`setUserConsentForLDA(shouldEnrollLDA:…)`, `updateNotification(
notificationID:response:)`), and the flows' order. A scenario that is only
about screens (keyboard, loading states, a poor network) has nothing to
replay against a host; the spec's mapping table (§22) says so."""

import base64
import json

import pytest
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from conftest import GOOD_PASSWORD, register_secret, status_of
from flowhost_client import RPCError
from schemas import validate

WRONG = "Wrong&Passw0rd9"
NEW_PASSWORD = "Correct-Horse-9-Battery"
register_secret(NEW_PASSWORD)


def code_status(event):
    return event["params"]["response"]["status"]["statusCode"]


def activate_with_password(deployment, user="alice", device="device-1", lda=()):
    code = deployment.add_user(user)
    host = deployment.host(device, lda=list(lda))
    host.wait_event("getUser")
    host.request("setUser", {"userName": user})
    host.wait_event("getActivationCode")
    host.request("setActivationCode", {"activationCode": code})
    host.wait_event("getDeviceName")
    host.request("setDeviceName", {"deviceName": "Phone"})
    if lda:
        host.wait_event("getUserConsentForLDA")
        host.request("setUserConsentForLDA", {"shouldEnrollLDA": False, "challengeMode": 1, "authenticationType": lda[0]})
    host.wait_event("getPassword")
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 1})
    host.wait_event("onUserLoggedIn")
    return host


def log_in_with_password(host, user="alice", password=GOOD_PASSWORD):
    host.request("setUser", {"userName": user})
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 0
    host.request("setPassword", {"password": password, "challengeMode": 0})
    return host.wait_event("onUserLoggedIn")


def decode(segment):
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


# -- Seed 002, MFA: the four end-to-end scenarios, then 141 ------------------------------


def test_seed_002_scenarios_1_to_4_activation_login_with_biometric_and_password_logout(deployment):
    code = deployment.add_user("alice")
    phone = deployment.host("phone", lda=[1])
    # Scenario 1: getUser → setUser → getActivationCode → setActivationCode → (getDeviceName, §22) → getUserConsentForLDA → onUserLoggedIn.
    get_user = phone.wait_event("getUser")
    assert get_user["params"]["userNames"] == [] and get_user["params"]["recentlyLoggedInUser"] == ""
    phone.request("setUser", {"userName": "alice"})
    phone.wait_event("getActivationCode")
    phone.request("setActivationCode", {"activationCode": code})
    phone.wait_event("getDeviceName")
    phone.request("setDeviceName", {"deviceName": "Alice's phone"})
    consent = phone.wait_event("getUserConsentForLDA")
    assert consent["params"]["authenticationType"] == 1
    phone.request("setUserConsentForLDA", {"shouldEnrollLDA": True, "challengeMode": 1, "authenticationType": 1})
    logged_in = phone.wait_event("onUserLoggedIn")["params"]
    validate("mfa.onUserLoggedIn.params", logged_in)
    response = logged_in["response"]
    assert response["sessionInfo"]["sessionType"] == 1 and len(response["sessionInfo"]["sessionID"]) == 32
    assert response["additionalInfo"]["currentWorkFlow"] == "FirstTimeUserActivation"
    # Seeds 003 and 004 pass additionalInfo.jwtJsonTokenInfo on: a token a third party checks with the issuer's key.
    token = response["additionalInfo"]["jwtJsonTokenInfo"]
    header, claims, signature = token.split(".")
    issuer = deployment.admin("export-key", "--issuer")
    assert json.loads(decode(header)) == {"alg": "EdDSA", "typ": "JWT", "kid": issuer["keyID"]}
    load_pem_public_key(issuer["pem"].encode()).verify(decode(signature), (header + "." + claims).encode())
    claims = json.loads(decode(claims))
    assert (claims["sub"], claims["sid"], claims["dev"], claims["amr"]) == ("alice", response["sessionInfo"]["sessionID"], "phone", ["bio"])
    assert claims["exp"] > claims["iat"]
    # Scenario 4 first half: logOff → onUserLoggedOff → getUser.
    phone.request("logOff", {"userID": "alice"})
    phone.wait_event("onUserLoggedOff")
    # Scenario 2: getUser (the user remembered) → setUser → [the biometric] → onUserLoggedIn, no getPassword.
    again = phone.wait_event("getUser")["params"]
    assert again["userNames"] == ["alice"] and again["recentlyLoggedInUser"] == "alice"
    phone.request("setUser", {"userName": "alice"})
    second = phone.wait_event("onUserLoggedIn")["params"]
    assert second["response"]["sessionInfo"]["sessionID"] != response["sessionInfo"]["sessionID"]
    assert second["response"]["additionalInfo"]["currentWorkFlow"] == "NormalLogin"
    assert not [event for event in phone.events if event["method"] == "getPassword"]
    phone.close()
    # Scenario 3: a password user: getPassword (challengeMode 0) → setPassword → onUserLoggedIn; Scenario 4: out and in again.
    laptop = activate_with_password(deployment, user="bob", device="laptop")
    laptop.request("logOff", {"userID": "bob"})
    laptop.wait_event("onUserLoggedOff")
    laptop.wait_event("getUser")
    assert log_in_with_password(laptop, "bob")["params"]["response"]["additionalInfo"]["currentWorkFlow"] == "NormalLogin"


def test_seed_002_blocked_141_unblocks_with_reset_blocked_user_account(deployment):
    host = activate_with_password(deployment)
    host.request("logOff", {"userID": "alice"})
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    with pytest.raises(RPCError) as early:
        host.request("resetBlockedUserAccount")
    assert early.value.code == -32006, "only after getUser with 141"
    host.request("setUser", {"userName": "alice"})
    for _ in range(3):
        host.wait_event("getPassword")
        host.request("setPassword", {"password": WRONG, "challengeMode": 0})
    blocked = host.wait_event("getUser")
    assert code_status(blocked) == 141
    assert "resetBlockedUserAccount" in blocked["params"]["response"]["status"]["statusMessage"], "the message names the way out"
    sent_before = len(deployment.admin("outbox"))
    host.request("resetBlockedUserAccount")
    ask = host.wait_event("getActivationCode")
    validate("getActivationCode.params", ask["params"])
    assert ask["params"]["userID"] == "alice" and ask["params"]["attemptsLeft"] == 3
    delivered = deployment.admin("outbox")
    assert len(delivered) == sent_before + 1 and delivered[-1]["verificationKey"] == ask["params"]["verificationKey"]
    host.request("setActivationCode", {"activationCode": "WRONGCODE0"})
    wrong = host.wait_event("getActivationCode")
    assert code_status(wrong) == 106 and wrong["params"]["attemptsLeft"] == 2
    assert deployment.admin("show-user", "alice")["blocked"] is not None, "still blocked"
    host.request("setActivationCode", {"activationCode": delivered[-1]["activationCode"]})
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 0 and ask["params"]["attemptsLeft"] == 3, "unblocked: the password login, all attempts back"
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 0})
    host.wait_event("onUserLoggedIn")
    user = deployment.admin("show-user", "alice")
    assert user["blocked"] is None and user["passwordAttemptsLeft"] == 3
    outcomes = [row["outcome"] for row in deployment.admin("audit", "--user", "alice") if row["action"] == "account.recovery"]
    assert "sent" in outcomes and "ok" in outcomes


def test_seed_002_a_deployment_that_sets_nothing_gives_the_seeds_3_password_attempts(tmp_path, flowhost_bin, spawn):
    """The seeds' apps start `attemptsLeft` at 3 (seed 001's step-up, seed 000's
    signing); so does a config without `passwords.maxAttempts`."""
    from conftest import Deployment
    config = {"passwords": {"argon2": {"memoryKiB": 1024, "iterations": 1, "parallelism": 1}}}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    host = activate_with_password(deployment)
    assert deployment.admin("show-user", "alice")["passwordAttemptsLeft"] == 3
    host.request("logOff", {"userID": "alice"})
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    host.request("setUser", {"userName": "alice"})
    assert host.wait_event("getPassword")["params"]["attemptsLeft"] == 3


def test_seed_002_reset_blocked_user_account_does_not_lift_an_operators_block(deployment):
    host = activate_with_password(deployment)
    host.request("logOff", {"userID": "alice"})
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    deployment.admin("block", "alice")
    host.request("setUser", {"userName": "alice"})
    assert code_status(host.wait_event("getUser")) == 138
    with pytest.raises(RPCError) as refused:
        host.request("resetBlockedUserAccount")
    assert refused.value.code == -32006, "138 is the operator's to lift (admin unblock)"


# -- Seed 001, step-up: scenarios 1 to 5 -------------------------------------------------


def notification(deployment, authlevel="1"):
    return deployment.admin("notify", "alice", "--subject", "Approve payment?", "--message", "Pay 20 EUR to Carol",
                            "--action", "Approve=approve:%s" % authlevel, "--action", "Reject=reject")["notification_uuid"]


def listed(host):
    host.request("getNotifications", {"recordCount": 0, "enterpriseID": "", "startIndex": 1, "startDate": "", "endDate": ""})
    status = host.wait_event("onGetNotifications")["params"]
    validate("step-up.onGetNotifications.params", status)
    return status["notificationResponse"]["notifications"]


def updated(host):
    """The outcome as both seeds' handlers read it, which must agree: seed
    004's `status.statusCode` / `statusMessage`, seed 001's
    `status.status.statusCode` / `.message`."""
    status = host.wait_event("onUpdateNotification")["params"]
    validate("step-up.onUpdateNotification.params", status)
    seed_004 = (status["statusCode"], status["statusMessage"])
    seed_001 = (status["status"]["statusCode"], status["status"]["message"])
    assert seed_004 == seed_001 and status["status"]["statusMessage"] == seed_001[1]
    return seed_001[0], status["error"]["longErrorCode"]


def test_seed_001_scenario_1_password_step_up(deployment):
    host = activate_with_password(deployment)
    uuid = notification(deployment)
    assert [item["notification_uuid"] for item in listed(host)] == [uuid]
    host.request("updateNotification", {"notificationID": uuid, "response": "approve"})
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 3 and ask["params"]["attemptsLeft"] == 3
    host.request("setPassword", {"password": WRONG, "challengeMode": 3})
    again = host.wait_event("getPassword")
    assert code_status(again) == 102 and again["params"]["attemptsLeft"] == 2
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 3})
    assert updated(host) == (100, 0)
    assert listed(host) == [], "the list refreshed: answered"


def test_seed_001_scenarios_2_and_3_lda_step_up_and_the_password_fallback(deployment):
    host = activate_with_password(deployment, lda=[1])
    host.on_request("platform/authenticateLDA", lambda params: {"authenticated": True})
    host.request("manageDeviceAuthenticationModes", {"isEnabled": True, "authenticationType": 1})
    host.wait_event("getPassword")
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 5})
    host.wait_event("getUserConsentForLDA")
    host.request("setUserConsentForLDA", {"shouldEnrollLDA": True, "challengeMode": 16, "authenticationType": 1})
    host.wait_event("onDeviceAuthManagementStatus")
    host.request("logOff", {"userID": "alice"})
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    host.request("setUser", {"userName": "alice"})
    host.wait_event("onUserLoggedIn")  # logged in with LDA
    # Scenario 2: the biometric prompt, no getPassword.
    host.request("updateNotification", {"notificationID": notification(deployment), "response": "approve"})
    assert updated(host) == (100, 0)
    assert not [event for event in host.events if event["method"] == "getPassword" and event["params"]["challengeMode"] == 3]
    # Scenario 3: the prompt cancelled: getPassword (3) with no error, then success.
    host.on_request("platform/authenticateLDA", lambda params: {"authenticated": False})
    host.request("updateNotification", {"notificationID": notification(deployment), "response": "approve"})
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 3 and code_status(ask) == 100, "a seamless fallback"
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 3})
    assert updated(host) == (100, 0)


def test_seed_001_scenario_4_password_expired_is_110_then_logoff(deployment):
    host = activate_with_password(deployment)
    uuid = notification(deployment)
    deployment.admin("expire-password", "alice")
    host.request("updateNotification", {"notificationID": uuid, "response": "approve"})
    host.wait_event("getPassword")
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 3})
    assert updated(host) == (110, 0)
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")


def test_seed_001_scenario_5_attempts_exhausted_is_153_then_logoff(deployment):
    host = activate_with_password(deployment)
    host.request("updateNotification", {"notificationID": notification(deployment), "response": "approve"})
    for left in (3, 2, 1):
        ask = host.wait_event("getPassword")
        assert ask["params"]["attemptsLeft"] == left
        host.request("setPassword", {"password": WRONG, "challengeMode": 3})
    assert updated(host) == (153, 0)
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")


def test_seed_001_challenge_mode_2_a_user_changes_the_password_they_know(deployment):
    host = activate_with_password(deployment)
    host.request("getAllChallenges", {"userName": "alice"})
    available = host.wait_event("onCredentialsAvailableForUpdate")["params"]
    validate("mfa.onCredentialsAvailableForUpdate.params", available)
    assert available["options"] == ["Password"]
    host.request("initiateUpdateFlowForCredential", {"credentialType": "Password"})
    ask = host.wait_event("getPassword")
    validate("getPassword.params", ask["params"])
    info = {item["key"]: item["value"] for item in ask["params"]["response"]["info"]}
    assert ask["params"]["challengeMode"] == 2 and "RELID_PASSWORD_POLICY" in info
    host.request("updatePassword", {"currentPassword": WRONG, "newPassword": NEW_PASSWORD, "challengeMode": 2})
    again = host.wait_event("getPassword")
    assert code_status(again) == 102 and again["params"]["attemptsLeft"] == 2
    host.request("updatePassword", {"currentPassword": GOOD_PASSWORD, "newPassword": "short", "challengeMode": 2})
    assert code_status(host.wait_event("getPassword")) == 190, "mode 1's policy"
    host.request("updatePassword", {"currentPassword": GOOD_PASSWORD, "newPassword": GOOD_PASSWORD, "challengeMode": 2})
    assert code_status(host.wait_event("getPassword")) == 164, "mode 1's history"
    host.request("updatePassword", {"currentPassword": GOOD_PASSWORD, "newPassword": NEW_PASSWORD, "challengeMode": 2})
    done = host.wait_event("onUpdateCredentialResponse")["params"]
    validate("mfa.onUpdateCredentialResponse.params", done)
    assert done["status"]["statusCode"] == 100 and done["credType"] == "Password"
    host.wait_event("onUserLoggedOff")  # the SDK logs the user off after a change
    host.wait_event("getUser")
    host.request("setUser", {"userName": "alice"})
    host.wait_event("getPassword")
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 0})
    assert code_status(host.wait_event("getPassword")) == 102, "the old password is gone"
    host.request("setPassword", {"password": NEW_PASSWORD, "challengeMode": 0})
    host.wait_event("onUserLoggedIn")
    assert GOOD_PASSWORD not in host.stderr_text() and NEW_PASSWORD not in host.stderr_text()


def test_seed_001_challenge_mode_2_exhausted_is_153_then_logoff(deployment):
    host = activate_with_password(deployment)
    host.request("initiateUpdateFlowForCredential", {"credentialType": "Password"})
    for _ in range(3):
        host.wait_event("getPassword")
        host.request("updatePassword", {"currentPassword": WRONG, "newPassword": NEW_PASSWORD, "challengeMode": 2})
    assert host.wait_event("onUpdateCredentialResponse")["params"]["status"]["statusCode"] == 153
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    assert deployment.admin("show-user", "alice")["blocked"] is not None
    with pytest.raises(RPCError) as refused:
        host.request("initiateUpdateFlowForCredential", {"credentialType": "PIN"})
    assert refused.value.code in (-32006, -32602)


# -- Seed 003, LDA toggling: scenarios 1 to 4 --------------------------------------------


def details(host):
    result = host.request("getDeviceAuthenticationDetails")
    validate("lda-toggle.getDeviceAuthenticationDetails.result", result)
    return result


def toggled(host):
    status = host.wait_event("onDeviceAuthManagementStatus")["params"]
    validate("lda-toggle.onDeviceAuthManagementStatus.params", status)
    return status["userID"], status["isEnabled"], status["authenticationType"], status["status"]["statusCode"], status["error"]["longErrorCode"]


def test_seed_003_scenarios_1_and_2_enable_then_disable(deployment):
    host = activate_with_password(deployment, lda=[1])
    host.on_request("platform/authenticateLDA", lambda params: {"authenticated": True})
    assert details(host) == [{"authenticationType": 1, "isEnabled": False}]
    # Scenario 1: toggle on → password verification (5) → consent (16) → enabled.
    host.request("manageDeviceAuthenticationModes", {"isEnabled": True, "authenticationType": 1})
    assert host.wait_event("getPassword")["params"]["challengeMode"] == 5
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 5})
    assert host.wait_event("getUserConsentForLDA")["params"]["challengeMode"] == 16
    host.request("setUserConsentForLDA", {"shouldEnrollLDA": True, "challengeMode": 16, "authenticationType": 1})
    assert toggled(host) == ("alice", True, 1, 100, 0)
    assert details(host) == [{"authenticationType": 1, "isEnabled": True}]
    # Scenario 2 (the flow chart's order): toggle off → verify the password (15) → a new password (14) → disabled.
    host.request("manageDeviceAuthenticationModes", {"isEnabled": False, "authenticationType": 1})
    assert host.wait_event("getPassword")["params"]["challengeMode"] == 15
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 15})
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 14
    assert "RELID_PASSWORD_POLICY" in {item["key"] for item in ask["params"]["response"]["info"]}
    host.request("setPassword", {"password": NEW_PASSWORD, "challengeMode": 14})
    assert toggled(host) == ("alice", False, 1, 100, 0)
    assert details(host) == [{"authenticationType": 1, "isEnabled": False}]
    host.request("logOff", {"userID": "alice"})
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    log_in_with_password(host, password=NEW_PASSWORD)


def test_seed_003_scenario_2_an_lda_only_user_gets_14_alone(deployment):
    code = deployment.add_user("alice")
    host = deployment.host("device-1", lda=[1])
    host.wait_event("getUser")
    host.request("setUser", {"userName": "alice"})
    host.wait_event("getActivationCode")
    host.request("setActivationCode", {"activationCode": code})
    host.wait_event("getDeviceName")
    host.request("setDeviceName", {"deviceName": "Phone"})
    host.wait_event("getUserConsentForLDA")
    host.request("setUserConsentForLDA", {"shouldEnrollLDA": True, "challengeMode": 1, "authenticationType": 1})
    host.wait_event("onUserLoggedIn")
    host.request("getAllChallenges", {"userName": "alice"})
    assert host.wait_event("onCredentialsAvailableForUpdate")["params"]["options"] == [], "no password to update"
    with pytest.raises(RPCError) as refused:
        host.request("initiateUpdateFlowForCredential", {"credentialType": "Password"})
    assert refused.value.code == -32014 and refused.value.data["reason"] == "noPassword"
    host.request("manageDeviceAuthenticationModes", {"isEnabled": False, "authenticationType": 1})
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 14, "no password to verify: the platform's LDA check verifies, then 14"
    host.request("setPassword", {"password": NEW_PASSWORD, "challengeMode": 14})
    assert toggled(host) == ("alice", False, 1, 100, 0)
    assert [event["params"]["challengeMode"] for event in host.events if event["method"] == "getPassword"] == [14]


def test_seed_003_scenarios_3_and_4_no_lda_and_consent_cancelled(deployment):
    host = activate_with_password(deployment)
    assert details(host) == [], "scenario 3: the empty state"
    with pytest.raises(RPCError) as refused:
        host.request("manageDeviceAuthenticationModes", {"isEnabled": True, "authenticationType": 1})
    assert refused.value.code == -32014
    host.close()
    other = activate_with_password(deployment, user="bob", device="device-2", lda=[1])
    other.request("manageDeviceAuthenticationModes", {"isEnabled": True, "authenticationType": 1})
    other.wait_event("getPassword")
    other.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 5})
    other.wait_event("getUserConsentForLDA")
    other.request("setUserConsentForLDA", {"shouldEnrollLDA": False, "challengeMode": 16, "authenticationType": 1})
    assert toggled(other) == ("bob", True, 1, 100, 217), "scenario 4: consent cancelled is error 217, nothing changed"
    assert details(other) == [{"authenticationType": 1, "isEnabled": False}]


# -- Seed 004, additional device activation ----------------------------------------------


def test_seed_004_approval_from_a_registered_device_and_the_fallback(deployment):
    device_a = activate_with_password(deployment, device="device-a")
    device_b = deployment.host("device-b")
    device_b.wait_event("getUser")
    device_b.request("setUser", {"userName": "alice"})
    options = device_b.wait_event("addNewDeviceOptions")["params"]
    validate("device-activation.addNewDeviceOptions.params", options)
    assert set(options) == {"userID", "newDeviceOptions", "challengeInfo"}, "the seed's delegate: userID, newDeviceOptions, challengeInfo"
    key = {item["key"]: item["value"] for item in options["challengeInfo"]}["VERIFICATION_KEY"]
    device_b.request("performVerifyAuth", {"verifyAuthStatus": True})
    device_a.wait_event("onNotificationReceived", timeout=5)
    items = listed(device_a)
    assert len(items) == 1 and key in items[0]["body"][0]["message"]
    device_a.request("updateNotification", {"notificationID": items[0]["notification_uuid"], "response": "accept"})
    device_a.wait_event("getPassword")
    device_a.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 3})
    assert updated(device_a) == (100, 0)
    device_b.wait_event("getPassword", timeout=5)
    device_b.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 0})
    joined = device_b.wait_event("onUserLoggedIn")["params"]
    assert joined["response"]["additionalInfo"]["currentWorkFlow"] == "AdditionalDeviceActivation"
    device_b.close()
    # The fallback: fallbackNewDeviceActivationFlow() → getActivationCode → the code through the delivery channel.
    device_c = deployment.host("device-c")
    device_c.wait_event("getUser")
    device_c.request("setUser", {"userName": "alice"})
    device_c.wait_event("addNewDeviceOptions")
    device_c.request("fallbackNewDeviceActivationFlow")
    device_c.wait_event("getActivationCode")
    device_c.request("setActivationCode", {"activationCode": deployment.admin("outbox")[-1]["activationCode"]})
    device_c.wait_event("getPassword", timeout=5)
    device_c.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 0})
    assert device_c.wait_event("onUserLoggedIn")["params"]["response"]["additionalInfo"]["currentWorkFlow"] == "AdditionalDeviceActivation"


# -- Seed 000, data signing: test cases 1, 2, 4, 5 and 6 ---------------------------------


def sign(host, payload, level, kind, reason):
    host.request("authenticateUserAndSignData", {"payload": payload, "authLevel": level, "authenticatorType": kind, "reason": reason})


def signing_result(host):
    details = host.wait_event("onAuthenticateUserAndSignData")["params"]
    validate("data-signing.onAuthenticateUserAndSignData.params", details)
    return details


def test_seed_000_test_case_1_the_samples_defaults_then_the_supported_pairs(deployment):
    host = activate_with_password(deployment)
    host.on_request("platform/verifyServerBiometric", lambda params: {"verified": True})
    # The sample's defaults (level 4, Manual Password 2) break the seed's own table: 214, as its error map says.
    with pytest.raises(RPCError) as refused:
        sign(host, "Test document for signing", 4, 2, "Document authorization test")
    assert refused.value.data["longErrorCode"] == 214
    # Level 4 with the IDV server biometric (1): the biometric, and nothing else.
    sign(host, "Test document for signing", 4, 1, "Document authorization test")
    details = signing_result(host)
    assert (details["status"]["statusCode"], details["error"]["longErrorCode"]) == (100, 0)
    assert (details["authLevel"], details["authenticatorType"], details["verifiedBy"]) == (4, 1, "serverBiometric")
    assert details["payloadSignature"] and details["dataSignatureID"] and details["dataPayloadLength"] == 25
    # Level 1: the password challenge (12) "if triggered".
    sign(host, "Test document for signing", 1, 0, "Document authorization test")
    assert host.wait_event("getPassword")["params"]["challengeMode"] == 12
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 12})
    details = signing_result(host)
    assert (details["authLevel"], details["authenticatorType"], details["verifiedBy"]) == (1, 2, "password"), "the type used"
    host.request("resetAuthenticateUserAndSignDataState")  # "Sign Another Document": a clean state


def test_seed_000_test_cases_2_and_4_failures_and_cancel(deployment):
    host = activate_with_password(deployment)
    sign(host, "Pay 20 EUR", 1, 0, "Invoice 42")
    host.wait_event("getPassword")
    host.request("setPassword", {"password": WRONG, "challengeMode": 12})
    assert code_status(host.wait_event("getPassword")) == 102, "test case 2: invalid credentials, asked again"
    host.request("resetAuthenticateUserAndSignDataState")  # test case 4: the password modal cancelled
    host.request("resetAuthenticateUserAndSignDataState")  # called again: harmless
    host.on_request("platform/verifyServerBiometric", lambda params: (_ for _ in ()).throw(
        RPCError({"code": -1, "message": "dismissed", "data": {"reason": "cancelled"}})))
    sign(host, "Pay 20 EUR", 4, 1, "Invoice 42")
    assert signing_result(host)["error"]["longErrorCode"] == 153, "operation cancelled by user"
    host.on_request("platform/verifyServerBiometric", lambda params: (_ for _ in ()).throw(
        RPCError({"code": -1, "message": "no IDV", "data": {"reason": "unavailable"}})))
    sign(host, "Pay 20 EUR", 4, 1, "Invoice 42")
    assert signing_result(host)["error"]["longErrorCode"] == 214, "authentication method not supported"


def test_seed_000_test_cases_5_and_6_limits_and_the_level_4_biometric(deployment):
    host = activate_with_password(deployment)
    for payload, reason, field in [("x" * 501, "r", "payload"), ("p", "y" * 101, "reason"), ("", "r", "payload")]:
        with pytest.raises(RPCError) as refused:
            sign(host, payload, 0, 0, reason)
        assert refused.value.code == -32602 and refused.value.data["field"] == field
    asked = []
    host.on_request("platform/verifyServerBiometric", lambda params: asked.append(params) or {"verified": True})
    sign(host, "Highest assurance", 4, 1, "Test case 6")
    assert signing_result(host)["verifiedBy"] == "serverBiometric" and asked == [{"userID": "alice", "reason": "data-signing"}]


def test_seed_002_reset_after_the_operator_unblocked_meanwhile_goes_on_to_the_login(deployment):
    host = activate_with_password(deployment)
    host.request("logOff", {"userID": "alice"})
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    host.request("setUser", {"userName": "alice"})
    for _ in range(3):
        host.wait_event("getPassword")
        host.request("setPassword", {"password": WRONG, "challengeMode": 0})
    assert code_status(host.wait_event("getUser")) == 141
    deployment.admin("unblock", "alice")
    host.request("resetBlockedUserAccount")
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 0 and ask["params"]["attemptsLeft"] == 3, "nothing to lift: no code, the login"
    assert len([event for event in host.events if event["method"] == "getActivationCode"]) == 1, "only the activation's"
