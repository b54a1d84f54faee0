"""Forgot password (issue 53.1): forgotPassword(userID) answers getPassword 0
when the operator enabled it (passwords.forgotPassword; 170 when not). The
device proves its key, a code goes through the delivery channel
(getActivationCode, currentWorkFlow ForgotCredentials), then LDA consent or
getPassword 1, and onUserLoggedIn with ForgotCredentials. A completed reset
ends every session of the user (through the feed) and restores the password
attempts; a wrong code costs only the code's own tries."""

import json

import pytest

from conftest import CHEAP_CONFIG, GOOD_PASSWORD, Deployment, activate, register_secret, status_of
from flowhost_client import RPCError
from schemas import validate
from test_devices import Keystore, platform_host

NEW_PASSWORD = "Another&Passw0rd1"
WRONG = "Wrong&Passw0rd9"
ENABLED = dict(CHEAP_CONFIG, passwords=dict(CHEAP_CONFIG["passwords"], forgotPassword=True))


@pytest.fixture
def forgot_deployment(tmp_path, flowhost_bin, spawn):
    return Deployment(str(tmp_path), flowhost_bin, spawn, config=ENABLED)


def info(event):
    return {item["key"]: item["value"] for item in event["params"]["response"]["info"]}


def workflow(event):
    return event["params"]["response"]["additionalInfo"]["currentWorkFlow"]


def logged_off(host, user="alice"):
    host.request("logOff", [user])
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")


def at_password(host, user="alice"):
    """From an open getUser: setUser, and the login's getPassword 0."""
    host.request("setUser", [user])
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 0
    return ask


def outbox(deployment, user="alice"):
    return [row for row in deployment.admin("outbox") if row["userID"] == user]


def forgot(host, deployment):
    """forgotPassword from an open getPassword 0: the getActivationCode it asks, and the code delivered."""
    sent = len(outbox(deployment))
    host.request("forgotPassword", ["alice"])
    ask = host.wait_event("getActivationCode")
    validate("getActivationCode.params", ask["params"])
    delivered = outbox(deployment)
    assert len(delivered) == sent + 1 and delivered[-1]["verificationKey"] == ask["params"]["verificationKey"]
    return ask, delivered[-1]["activationCode"]


def test_a_reset_with_a_new_password_logs_in_with_forgot_credentials(forgot_deployment):
    deployment = forgot_deployment
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    ask = at_password(phone)
    assert info(ask)["ENABLE_FORGOT_PASSWORD"] == "true"
    validate("getPassword.params", ask["params"])
    code_ask, code = forgot(phone, deployment)
    assert workflow(code_ask) == "ForgotCredentials" and code_ask["params"]["attemptsLeft"] == 3
    phone.request("setActivationCode", [code])
    new = phone.wait_event("getPassword")
    assert new["params"]["challengeMode"] == 1 and workflow(new) == "ForgotCredentials"
    assert "RELID_PASSWORD_POLICY" in info(new)
    phone.request("setPassword", [GOOD_PASSWORD, 1])
    reused = phone.wait_event("getPassword")
    assert status_of(reused) == 164 and reused["params"]["challengeMode"] == 1, "the history holds: the forgotten password is not set again"
    phone.request("setPassword", ["short", 1])
    assert status_of(phone.wait_event("getPassword")) == 190, "the policy holds"
    phone.request("setPassword", [NEW_PASSWORD, 1])
    logged_in = phone.wait_event("onUserLoggedIn")
    validate("mfa.onUserLoggedIn.params", logged_in["params"])
    assert workflow(logged_in) == "ForgotCredentials"
    audit = [(row["action"], row["outcome"]) for row in deployment.admin("audit", "--user", "alice")]
    assert ("account.forgot-password", "sent") in audit and ("account.forgot-password", "reset") in audit
    logged_off(phone)
    at_password(phone)
    phone.request("setPassword", [GOOD_PASSWORD, 0])
    assert status_of(phone.wait_event("getPassword")) == 102, "the old password is gone"
    phone.request("setPassword", [NEW_PASSWORD, 0])
    assert workflow(phone.wait_event("onUserLoggedIn")) == "NormalLogin"


def test_a_reset_with_lda_consent_enrolls_lda_on_this_device(forgot_deployment):
    deployment = forgot_deployment
    phone = deployment.host("phone", lda=(1,))
    activate(phone, "alice", deployment.add_user("alice"))  # declines LDA: a password user
    logged_off(phone)
    at_password(phone)
    _, code = forgot(phone, deployment)
    phone.request("setActivationCode", [code])
    consent = phone.wait_event("getUserConsentForLDA")
    validate("getUserConsentForLDA.params", consent["params"])
    assert workflow(consent) == "ForgotCredentials" and consent["params"]["challengeMode"] == 1
    phone.request("setUserConsentForLDA", [True, 1, consent["params"]["authenticationType"]])
    assert workflow(phone.wait_event("onUserLoggedIn")) == "ForgotCredentials"
    logged_off(phone)
    phone.request("setUser", ["alice"])
    assert workflow(phone.wait_event("onUserLoggedIn")) == "NormalLogin", "the next login is LDA's"
    assert not [event for event in phone.events if event["method"] == "getPassword" and event["params"]["challengeMode"] == 0][1:]


def test_declining_lda_consent_asks_for_a_new_password(forgot_deployment):
    deployment = forgot_deployment
    phone = deployment.host("phone", lda=(1,))
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    at_password(phone)
    _, code = forgot(phone, deployment)
    phone.request("setActivationCode", [code])
    consent = phone.wait_event("getUserConsentForLDA")
    phone.request("setUserConsentForLDA", [False, 1, consent["params"]["authenticationType"]])
    assert phone.wait_event("getPassword")["params"]["challengeMode"] == 1
    phone.request("setPassword", [NEW_PASSWORD, 1])
    assert workflow(phone.wait_event("onUserLoggedIn")) == "ForgotCredentials"


def test_off_by_default_170_and_the_challenge_stays_open(deployment):
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    ask = at_password(phone)
    assert info(ask)["ENABLE_FORGOT_PASSWORD"] == "false"
    sent = len(outbox(deployment))
    with pytest.raises(RPCError) as refused:
        phone.request("forgotPassword", ["alice"])
    assert refused.value.code == 170 and refused.value.data["longErrorCode"] == 170
    assert len(outbox(deployment)) == sent, "no code"
    phone.request("setPassword", [GOOD_PASSWORD, 0])
    phone.wait_event("onUserLoggedIn")


def test_forgot_password_is_only_an_answer_to_a_logins_password(forgot_deployment):
    deployment = forgot_deployment
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    with pytest.raises(RPCError) as logged_in:
        phone.request("forgotPassword", ["alice"])
    assert logged_in.value.code in (-32003, -32004), "no getPassword 0 is open"
    logged_off(phone)
    with pytest.raises(RPCError) as at_user:
        phone.request("forgotPassword", ["alice"])
    assert at_user.value.code == -32004, "getUser is open, not getPassword"
    deployment.add_user("bob")
    at_password(phone)
    with pytest.raises(RPCError) as other:
        phone.request("forgotPassword", ["bob"])
    assert other.value.code == -32602, "only for the user getPassword asks for"
    assert outbox(deployment, "alice") == []


def test_no_reset_from_a_device_not_registered_to_the_user(forgot_deployment, tmp_path):
    deployment = forgot_deployment
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    # The same device id with another key folder: it cannot prove the key, so no getPassword 0 is ever open.
    folder = tmp_path / "thief-keys"
    folder.mkdir(mode=0o700)
    thief = deployment.host("phone", extra=("--device-dir", str(folder)))
    thief.wait_event("getUser")
    thief.request("setUser", ["alice"])
    assert status_of(thief.wait_event("getUser")) == 126
    with pytest.raises(RPCError):
        thief.request("forgotPassword", ["alice"])
    # Another device, not registered: it is offered the new-device options, never getPassword 0.
    laptop = deployment.host("laptop")
    laptop.wait_event("getUser")
    laptop.request("setUser", ["alice"])
    assert laptop.wait_event()["method"] in ("addNewDeviceOptions", "getUser")
    with pytest.raises(RPCError):
        laptop.request("forgotPassword", ["alice"])
    # A device revoked between getPassword 0 and forgotPassword: refused by the host, no code sent.
    at_password(phone)
    deployment.admin("revoke-device", "alice", "phone")
    phone.request("forgotPassword", ["alice"])
    assert status_of(phone.wait_event("getUser")) == 126
    assert outbox(deployment) == []
    user = deployment.admin("show-user", "alice")
    assert user["passwordAttemptsLeft"] == 3 and user["blocked"] is None


def test_a_device_that_cannot_prove_its_key_gets_no_code(tmp_path, flowhost_bin, spawn):
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=ENABLED)
    keystore = Keystore()
    host = platform_host(deployment, keystore)
    activate(host, "alice", deployment.add_user("alice"))
    logged_off(host)
    at_password(host)
    host.request("setPassword", [WRONG, 0])  # the login's proof is spent: forgotPassword proves again
    assert status_of(host.wait_event("getPassword")) == 102
    keystore.mode = "wrong-key"
    host.request("forgotPassword", ["alice"])
    assert status_of(host.wait_event("getUser")) == 126
    assert outbox(deployment) == [], "no code to a device that did not prove its key"
    signed = [json.loads(line) for direction, line in host.transcript if direction == "<-" and "platform/signDeviceChallenge" in line]
    assert signed, "the host asked the platform to sign"
    keystore.mode = "sign"
    at_password(host)
    host.request("forgotPassword", ["alice"])
    host.wait_event("getActivationCode")


def test_wrong_codes_cost_the_codes_tries_only_and_a_resend_gives_a_new_one(tmp_path, flowhost_bin, spawn):
    config = json.loads(json.dumps(ENABLED))
    config["activation"]["resendIntervalSeconds"] = 0
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    at_password(phone)
    _, code = forgot(phone, deployment)
    for left in (2, 1):
        phone.request("setActivationCode", ["WRONGCODE0"])
        wrong = phone.wait_event("getActivationCode")
        assert status_of(wrong) == 106 and wrong["params"]["attemptsLeft"] == left
    phone.request("setActivationCode", ["WRONGCODE0"])
    spent = phone.wait_event("getActivationCode")
    assert status_of(spent) == 106 and spent["params"]["attemptsLeft"] == 0, "the code's tries are spent"
    phone.request("setActivationCode", [code])
    assert status_of(phone.wait_event("getActivationCode")) == 106, "a spent code is refused, even the right one"
    user = deployment.admin("show-user", "alice")
    assert user["blocked"] is None and user["passwordAttemptsLeft"] == 3 and user["activationAttemptsLeft"] == 3, \
        "a stranger's guesses block no one"
    phone.request("resendActivationCode")
    again = phone.wait_event("getActivationCode")
    assert status_of(again) == 100 and again["params"]["attemptsLeft"] == 3
    fresh = outbox(deployment)[-1]
    assert fresh["verificationKey"] == again["params"]["verificationKey"] and fresh["activationCode"] != code
    phone.request("resendActivationCode")
    newest = phone.wait_event("getActivationCode")
    phone.request("setActivationCode", [fresh["activationCode"]])
    assert status_of(phone.wait_event("getActivationCode")) == 106, "a resend replaces the code"
    phone.request("setActivationCode", [outbox(deployment)[-1]["activationCode"]])
    assert phone.wait_event("getPassword")["params"]["challengeMode"] == 1
    assert newest["params"]["verificationKey"] == outbox(deployment)[-1]["verificationKey"]


def test_a_resend_too_soon_waits(forgot_deployment):
    deployment = forgot_deployment
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    at_password(phone)
    forgot(phone, deployment)
    sent = len(outbox(deployment))
    phone.request("resendActivationCode")
    waiting = phone.wait_event("getActivationCode")
    assert status_of(waiting) == 106 and "retry after" in waiting["params"]["response"]["status"]["statusMessage"]
    assert len(outbox(deployment)) == sent


def test_a_reset_ends_every_session_restores_the_attempts_and_keeps_the_other_devices(tmp_path, flowhost_bin, spawn):
    from test_my_devices import join
    config = json.loads(json.dumps(ENABLED))
    config["activation"]["resendIntervalSeconds"] = 0  # the laptop's code was just sent: one rate limit for every code of a user
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    laptop = join(deployment, "alice", "laptop")
    logged_off(phone)
    at_password(phone)
    phone.request("setPassword", [WRONG, 0])
    assert phone.wait_event("getPassword")["params"]["attemptsLeft"] == 2
    _, code = forgot(phone, deployment)
    phone.request("setActivationCode", [code])
    phone.wait_event("getPassword")
    user = deployment.admin("show-user", "alice")
    assert user["passwordAttemptsLeft"] == 2 and user["openSessions"] == 1, "nothing changes before the new secret is accepted"
    phone.request("setPassword", [NEW_PASSWORD, 1])
    phone.wait_event("onUserLoggedIn")
    assert laptop.wait_event("onUserLoggedOff", timeout=5)["params"]["userID"] == "alice", "the laptop's session ended through the feed"
    user = deployment.admin("show-user", "alice")
    assert user["passwordAttemptsLeft"] == 3 and user["openSessions"] == 1 and user["devices"] == 2, "the other device stays registered"
    laptop.wait_event("getUser")
    laptop.request("setUser", ["alice"])
    laptop.wait_event("getPassword")
    laptop.request("setPassword", [NEW_PASSWORD, 0])
    assert workflow(laptop.wait_event("onUserLoggedIn")) == "NormalLogin", "the other device logs in with the new password"


def test_an_operators_block_refuses_the_reset_after_the_code(forgot_deployment):
    deployment = forgot_deployment
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    at_password(phone)
    _, code = forgot(phone, deployment)
    phone.request("setActivationCode", [code])
    phone.wait_event("getPassword")
    deployment.admin("block", "alice")
    phone.request("setPassword", [NEW_PASSWORD, 1])
    assert status_of(phone.wait_event("getUser")) == 138
    deployment.admin("unblock", "alice")
    at_password(phone)
    phone.request("setPassword", [GOOD_PASSWORD, 0])
    assert workflow(phone.wait_event("onUserLoggedIn")) == "NormalLogin", "the password did not change"


def test_no_code_or_password_on_stderr(forgot_deployment):
    deployment = forgot_deployment
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    at_password(phone)
    _, code = forgot(phone, deployment)
    register_secret(code)
    phone.request("setActivationCode", [code])
    phone.wait_event("getPassword")
    phone.request("setPassword", [NEW_PASSWORD, 1])
    phone.wait_event("onUserLoggedIn")
    phone.close()
    text = phone.stderr_text()
    assert text, "the host logged at trace"
    for secret in (code, NEW_PASSWORD, GOOD_PASSWORD):
        assert secret not in text


def test_a_code_sent_to_unblock_the_account_resets_no_password(tmp_path, flowhost_bin, spawn):
    """A device code is bound to its purpose: the resetBlockedUserAccount code,
    typed into a forgot-password dialogue on the same device, is no code there
    (and spends none of its tries); it still unblocks, as it was sent to."""
    config = json.loads(json.dumps(ENABLED))
    config["activation"]["resendIntervalSeconds"] = 0
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    at_password(phone)
    forgot(phone, deployment)  # this dialogue now waits for a reset code
    other = deployment.host("phone")  # a second host of the same device: the user blocks herself there
    other.wait_event("getUser")
    other.request("setUser", ["alice"])
    for _ in range(3):
        other.wait_event("getPassword")
        other.request("setPassword", [WRONG, 0])
    assert status_of(other.wait_event("getUser")) == 141
    other.request("resetBlockedUserAccount")
    other.wait_event("getActivationCode")
    unblock_code = outbox(deployment)[-1]["activationCode"]
    phone.request("setActivationCode", [unblock_code])
    refused = phone.wait_event("getActivationCode")
    # A wrong code for the reset (its own code is still live: one try fewer), not a reset's next step.
    assert status_of(refused) == 106 and refused["params"]["attemptsLeft"] == 2, "an unblock code is no reset code"
    assert deployment.admin("show-user", "alice")["blocked"] is not None
    other.request("setActivationCode", [unblock_code])
    ask = other.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 0 and ask["params"]["attemptsLeft"] == 3, "the code kept its tries for its own purpose"
    other.request("setPassword", [GOOD_PASSWORD, 0])
    assert workflow(other.wait_event("onUserLoggedIn")) == "NormalLogin", "the password was not reset"


def test_the_host_services_refuse_a_flow_whose_device_did_not_prove_its_key(forgot_deployment, spawn, test_plugins):
    """The host's own check, whatever the calling flow does: a flow on the
    user's registered device that skips the key's proof (a forged proof) is
    sent no code, and cannot complete a reset with a grant it holds."""
    deployment = forgot_deployment
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    flow = spawn("--plugins", test_plugins["c_caller"], "--store", deployment.store, "--config", deployment.config)
    flow.initialize(device={"deviceID": "phone", "deviceName": "phone"})

    def call(service, **params):
        return flow.request("ccaller.call", {"service": service, "params": dict(userID="alice", deviceID="phone", **params)})
    assert call("account.sendForgotPasswordCode", proof="forged")["outcome"] == "refused"
    assert outbox(deployment) == [], "no code to a device that did not prove its key"
    # A real code (the MFA flow proves the key), accepted by the other flow: its grant still needs a proof at the reset.
    at_password(phone)
    _, code = forgot(phone, deployment)
    accepted = call("account.verifyForgotPasswordCode", code=code)
    assert accepted["outcome"] == "accepted" and accepted["grant"]
    for weak in ("short", GOOD_PASSWORD):
        with pytest.raises(RPCError) as unacceptable:
            call("account.completeForgotPassword", grant=accepted["grant"], proof="forged", password=weak)
        assert unacceptable.value.code == -32602, "the host holds the policy and the history, whatever the flow checked"
    completed = call("account.completeForgotPassword", grant=accepted["grant"], proof="forged", password=NEW_PASSWORD)
    assert completed["outcome"] == "refused", completed
    assert deployment.admin("show-user", "alice")["openSessions"] == 0
    phone.request("setActivationCode", [code])
    assert status_of(phone.wait_event("getActivationCode")) == 106, "the code was spent by the other flow"
    flow.close()
    logged_off_host = deployment.host("phone")
    logged_off_host.wait_event("getUser")
    at_password(logged_off_host)
    logged_off_host.request("setPassword", [GOOD_PASSWORD, 0])
    assert workflow(logged_off_host.wait_event("onUserLoggedIn")) == "NormalLogin", "the password did not change"


def test_an_unproven_device_learns_nothing_about_the_user(forgot_deployment, spawn, test_plugins):
    """Asked for a reset code with a proof that is no proof, the host answers
    the same for an unknown user, a user registered on other devices only,
    a user blocked by the operator and the device's own user: the device did
    not prove its key, and nothing else is said."""
    deployment = forgot_deployment
    phone = deployment.host("phone")
    activate(phone, "alice", deployment.add_user("alice"))
    activate(deployment.host("tablet"), "bob", deployment.add_user("bob"))
    deployment.add_user("carol")  # never activated
    deployment.add_user("erin")
    deployment.admin("block", "erin")
    flow = spawn("--plugins", test_plugins["c_caller"], "--store", deployment.store, "--config", deployment.config)
    flow.initialize(device={"deviceID": "phone", "deviceName": "phone"})

    def answer(user):
        try:
            return flow.request("ccaller.call", {"service": "account.sendForgotPasswordCode",
                                                 "params": {"userID": user, "deviceID": "phone", "proof": "forged"}})
        except RPCError as error:
            return {"error": error.code}
    answers = {user: answer(user) for user in ("alice", "bob", "carol", "erin", "nobody")}
    assert all(answers[user] == answers["alice"] for user in answers), answers
    assert answers["alice"]["outcome"] == "refused" and answers["alice"]["status"] == 126
    assert not [row for row in deployment.admin("outbox") if row["userID"] in answers], "no code to anyone"

    def guess(user):
        try:
            return flow.request("ccaller.call", {"service": "account.verifyForgotPasswordCode",
                                                 "params": {"userID": user, "deviceID": "phone", "code": "GUESSCODE0"}})
        except RPCError as error:
            return {"error": error.code}
    guesses = {user: guess(user) for user in answers}
    assert all(guesses[user] == {"outcome": "noCode"} for user in guesses), guesses


def test_the_frame_trace_masks_the_reset_code_and_the_new_password(forgot_deployment, tmp_path):
    deployment = forgot_deployment
    trace = tmp_path / "frames.trace"
    phone = deployment.host("phone", extra=("--trace", str(trace)))
    activate(phone, "alice", deployment.add_user("alice"))
    logged_off(phone)
    at_password(phone)
    _, code = forgot(phone, deployment)
    phone.request("setActivationCode", [code])
    phone.wait_event("getPassword")
    phone.request("setPassword", [NEW_PASSWORD, 1])
    phone.wait_event("onUserLoggedIn")
    phone.request("shutdown")
    phone.notify("exit")
    phone.process.wait(5)
    text = trace.read_text(encoding="utf-8")
    assert "forgotPassword" in text and "setActivationCode" in text
    for secret in (code, NEW_PASSWORD, GOOD_PASSWORD):
        assert secret not in text
