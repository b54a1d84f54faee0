"""The mfa flow end to end: every seed scenario and status code."""

import json
import os
import signal
import subprocess
import threading
import time

import pytest

from conftest import GOOD_PASSWORD, activate, contract_event_schema, status_of, through_device_name, wait_until
from flowhost_client import RPCError
from schemas import validate


def assert_logged_in(event, user_id, workflow):
    validate("mfa.onUserLoggedIn.params", event["params"])
    assert event["params"]["userID"] == user_id
    response = event["params"]["response"]
    assert response["status"]["statusCode"] == 100
    assert response["sessionInfo"]["sessionType"] == 1
    assert len(response["sessionInfo"]["sessionID"]) == 32
    assert response["additionalInfo"]["currentWorkFlow"] == workflow


# -- Scenario 1: activation with LDA ------------------------------------------

def test_scenario_1_activation_with_lda(deployment):
    code = deployment.add_user("alice")
    host = deployment.host(lda=[1])
    get_user = host.wait_event("getUser")
    validate("mfa.getUser.params", get_user["params"])
    assert get_user["params"]["userNames"] == []
    host.request("setUser", {"userName": "alice"})
    get_code = host.wait_event("getActivationCode")
    validate("getActivationCode.params", get_code["params"])
    assert get_code["params"]["attemptsLeft"] == 3
    assert len(get_code["params"]["verificationKey"]) == 6
    host.request("setActivationCode", [code])
    host.wait_event("getDeviceName")
    host.request("setDeviceName", ["Alice's phone"])
    consent = host.wait_event("getUserConsentForLDA")
    validate("getUserConsentForLDA.params", consent["params"])
    assert consent["params"]["authenticationType"] == 1
    host.request("setUserConsentForLDA", {"shouldEnrollLDA": True, "challengeMode": 1, "authenticationType": 1})
    assert_logged_in(host.wait_event("onUserLoggedIn"), "alice", "FirstTimeUserActivation")
    asked = [json.loads(line) for direction, line in host.transcript if direction == "<-" and '"platform/authenticateLDA"' in line]
    assert len(asked) == 1 and asked[0]["params"] == {"userID": "alice", "authenticationType": 1, "reason": "enroll"}
    devices = deployment.admin("devices", "alice")
    assert devices[0]["devName"] == "Alice's phone" and devices[0]["ldaType"] == 1


def test_activation_lda_cancel_offers_consent_again(deployment):
    code = deployment.add_user("alice")
    host = deployment.host(lda=[2], lda_answer=None)
    host.on_request("platform/authenticateLDA", lambda params: (_ for _ in ()).throw(RPCError({"code": -1, "message": "cancelled"})))
    assert through_device_name(host, "alice", code)["method"] == "getUserConsentForLDA"
    host.request("setUserConsentForLDA", [True, 1, 2])
    again = host.wait_event("getUserConsentForLDA")
    assert status_of(again) == 102
    host.request("setUserConsentForLDA", [False, 1, 2])
    assert host.wait_event("getPassword")["params"]["challengeMode"] == 1


# -- Scenario 1b: activation with a password -----------------------------------

def test_activation_with_password_after_declining_lda(deployment):
    code = deployment.add_user("bob")
    host = deployment.host(lda=[1, 2])
    assert through_device_name(host, "bob", code, "Bob's tablet")["method"] == "getUserConsentForLDA"
    host.request("setUserConsentForLDA", [False, 1, 1])
    get_password = host.wait_event("getPassword")
    validate("getPassword.params", get_password["params"])
    assert get_password["params"]["challengeMode"] == 1
    info = {item["key"]: item["value"] for item in get_password["params"]["response"]["info"]}
    policy = json.loads(info["RELID_PASSWORD_POLICY"])
    assert policy["minL"] == 8 and policy["UserIDcheck"] is True and policy["SeqCheck"] == "true"
    host.request("setPassword", [GOOD_PASSWORD, 1])
    assert_logged_in(host.wait_event("onUserLoggedIn"), "bob", "FirstTimeUserActivation")


def test_activation_without_lda_capabilities_goes_straight_to_password(deployment):
    code = deployment.add_user("carol")
    event = through_device_name(deployment.host(lda=[]), "carol", code)
    assert event["method"] == "getPassword" and event["params"]["challengeMode"] == 1


# -- Scenario 2: login with LDA ------------------------------------------------

def test_scenario_2_login_with_lda(deployment):
    code = deployment.add_user("alice")
    first = deployment.host(lda=[1])
    activate(first, "alice", code, lda=True)
    first.shutdown()
    host = deployment.host(lda=[1])
    get_user = host.wait_event("getUser")
    assert get_user["params"]["userNames"] == ["alice"]
    assert get_user["params"]["recentlyLoggedInUser"] == "alice"
    host.request("setUser", ["alice"])
    assert_logged_in(host.wait_event("onUserLoggedIn"), "alice", "NormalLogin")


def test_login_lda_failure_returns_to_get_user(deployment):
    code = deployment.add_user("alice")
    activate(deployment.host(lda=[1]), "alice", code, lda=True)
    host = deployment.host(lda=[1], lda_answer=False)
    host.wait_event("getUser")
    host.request("setUser", ["alice"])
    again = host.wait_event("getUser")
    assert status_of(again) == 102


# -- Scenario 3: login with a password -----------------------------------------

def test_scenario_3_login_with_password_and_status_102(deployment):
    code = deployment.add_user("dave")
    activate(deployment.host(), "dave", code)
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["dave"])
    verify = host.wait_event("getPassword")
    assert verify["params"]["challengeMode"] == 0 and verify["params"]["attemptsLeft"] == 3
    host.request("setPassword", ["Wrong&Passw0rd", 0])
    wrong = host.wait_event("getPassword")
    assert status_of(wrong) == 102 and wrong["params"]["attemptsLeft"] == 2
    host.request("setPassword", [GOOD_PASSWORD, 0])
    assert_logged_in(host.wait_event("onUserLoggedIn"), "dave", "NormalLogin")


# -- Scenario 4: logoff and re-login -------------------------------------------

def test_scenario_4_logout_and_relogin(deployment):
    code = deployment.add_user("erin")
    host = deployment.host()
    first = activate(host, "erin", code)
    host.request("logOff", ["erin"])
    off = host.wait_event("onUserLoggedOff")
    assert off["params"]["userID"] == "erin"
    assert host.wait_event("getUser")["params"]["userNames"] == ["erin"]
    host.request("setUser", ["erin"])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 0])
    second = host.wait_event("onUserLoggedIn")
    assert_logged_in(second, "erin", "NormalLogin")
    assert second["params"]["response"]["sessionInfo"]["sessionID"] != first["params"]["response"]["sessionInfo"]["sessionID"]
    with pytest.raises(RPCError) as refused:
        host.request("logOff", ["someone-else"])
    assert refused.value.code == -32006


# -- Status codes ----------------------------------------------------------------

def test_status_101_unknown_user(deployment):
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["nobody"])
    assert status_of(host.wait_event("getUser")) == 101


def test_status_106_then_138_when_codes_are_exhausted(deployment):
    code = deployment.add_user("frank")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["frank"])
    host.wait_event("getActivationCode")
    for left in (2, 1):
        host.request("setActivationCode", ["WRONGCODE1"])
        event = host.wait_event("getActivationCode")
        assert status_of(event) == 106 and event["params"]["attemptsLeft"] == left
    host.request("setActivationCode", ["WRONGCODE1"])
    assert status_of(host.wait_event("getUser")) == 138
    host.request("setUser", ["frank"])
    assert status_of(host.wait_event("getUser")) == 138, "still blocked, even with the right code"
    deployment.admin("unblock", "frank")
    host.request("setUser", ["frank"])
    host.wait_event("getActivationCode")
    host.request("setActivationCode", [code])
    host.wait_event("getDeviceName")


def test_status_138_blocked_by_admin(deployment):
    deployment.add_user("gina")
    deployment.admin("block", "gina")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["gina"])
    assert status_of(host.wait_event("getUser")) == 138


def test_status_141_when_passwords_are_exhausted(deployment):
    code = deployment.add_user("hank")
    activate(deployment.host(), "hank", code)
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["hank"])
    host.wait_event("getPassword")
    for _ in range(2):
        host.request("setPassword", ["Wrong&Passw0rd", 0])
        host.wait_event("getPassword")
    host.request("setPassword", ["Wrong&Passw0rd", 0])
    assert status_of(host.wait_event("getUser")) == 141
    host.request("setUser", ["hank"])
    assert status_of(host.wait_event("getUser")) == 141
    deployment.admin("unblock", "hank")
    host.request("setUser", ["hank"])
    assert host.wait_event("getPassword")["params"]["attemptsLeft"] == 3


def test_status_190_policy_violation(deployment):
    code = deployment.add_user("ivy")
    host = deployment.host()
    assert through_device_name(host, "ivy", code)["method"] == "getPassword"
    for bad in ["short1!", "ivy-Passw0rd!x", "Abcd1234!xy", "Password1!"]:
        host.request("setPassword", [bad, 1])
        event = host.wait_event("getPassword")
        assert status_of(event) == 190, bad
        assert event["params"]["challengeMode"] == 1
    host.request("setPassword", [GOOD_PASSWORD, 1])
    host.wait_event("onUserLoggedIn")


def test_password_expiry_and_status_164(deployment):
    code = deployment.add_user("jack")
    activate(deployment.host(), "jack", code)
    deployment.admin("expire-password", "jack")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["jack"])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 0])
    expired = host.wait_event("getPassword")
    assert expired["params"]["challengeMode"] == 4
    assert any(item["key"] == "RELID_PASSWORD_POLICY" for item in expired["params"]["response"]["info"])
    with pytest.raises(RPCError):
        host.request("setPassword", ["Another&Passw0rd", 4])
    host.request("updatePassword", [GOOD_PASSWORD, GOOD_PASSWORD, 4])
    reused = host.wait_event("getPassword")
    assert status_of(reused) == 164 and reused["params"]["challengeMode"] == 4
    host.request("updatePassword", [GOOD_PASSWORD, "weak", 4])
    assert status_of(host.wait_event("getPassword")) == 190
    host.request("updatePassword", ["Wrong&Passw0rd", "Fresh&Str0ngPass", 4])
    wrong = host.wait_event("getPassword")
    assert status_of(wrong) == 102 and wrong["params"]["attemptsLeft"] == 2
    host.request("updatePassword", {"currentPassword": GOOD_PASSWORD, "newPassword": "Fresh&Str0ngPass", "challengeMode": 4})
    assert_logged_in(host.wait_event("onUserLoggedIn"), "jack", "NormalLogin")
    host.request("logOff", ["jack"])
    host.wait_event("getUser")
    host.request("setUser", ["jack"])
    host.wait_event("getPassword")
    host.request("setPassword", ["Fresh&Str0ngPass", 0])
    host.wait_event("onUserLoggedIn")


def test_known_user_on_a_new_device_gets_a_clear_status_without_device_activation(deployment, mfa_dir):
    code = deployment.add_user("kim")
    activate(deployment.host(device_id="device-1"), "kim", code)
    host = deployment.host(device_id="device-2", extra=("--no-default-plugins", "--plugins", mfa_dir))
    host.wait_event("getUser")
    host.request("setUser", ["kim"])
    event = host.wait_event("getUser")
    assert status_of(event) == 126
    assert "another device" in event["params"]["response"]["status"]["statusMessage"]


def test_known_user_on_a_new_device_is_offered_approval(deployment):
    code = deployment.add_user("kim")
    activate(deployment.host(device_id="device-1"), "kim", code)
    host = deployment.host(device_id="device-2")
    host.wait_event("getUser")
    host.request("setUser", ["kim"])
    event = host.wait_event()
    assert event["method"] == "addNewDeviceOptions" and event["params"]["userID"] == "kim"


# -- Reset, resend, routing --------------------------------------------------------

def test_reset_auth_state_returns_to_get_user(deployment):
    deployment.add_user("lena")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["lena"])
    host.wait_event("getActivationCode")
    assert host.request("resetAuthState") is None
    assert host.wait_event("getUser")
    with pytest.raises(RPCError) as refused:
        host.request("setActivationCode", ["X"])
    assert refused.value.code == -32004


def test_resend_issues_a_fresh_code_rate_limited(deployment):
    first = deployment.add_user("mia")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["mia"])
    original = host.wait_event("getActivationCode")
    host.request("setActivationCode", ["WRONGCODE1"])
    host.wait_event("getActivationCode")
    host.request("resendActivationCode")
    fresh = host.wait_event("getActivationCode")
    assert fresh["params"]["attemptsLeft"] == 2, "resend does not restore attempts"
    assert fresh["params"]["verificationKey"] != original["params"]["verificationKey"]
    with pytest.raises(RPCError) as limited:
        host.request("resendActivationCode")
    assert limited.value.code == -32011 and limited.value.data["retryAfterSeconds"] > 0
    outbox = deployment.admin("outbox")
    assert len(outbox) == 1 and outbox[0]["userID"] == "mia"
    assert outbox[0]["verificationKey"] == fresh["params"]["verificationKey"]
    host.request("setActivationCode", [first])
    assert status_of(host.wait_event("getActivationCode")) == 106, "the old code was replaced"
    host.request("setActivationCode", [outbox[0]["activationCode"]])
    host.wait_event("getDeviceName")


def test_answers_are_checked_against_the_open_challenge(deployment):
    code = deployment.add_user("ned")
    host = deployment.host()
    host.wait_event("getUser")
    with pytest.raises(RPCError) as wrong_answer:
        host.request("setPassword", ["x", 0])
    assert wrong_answer.value.code == -32004
    assert wrong_answer.value.data["open"]["event"] == "getUser"
    host.request("setUser", ["ned"])
    host.wait_event("getActivationCode")
    host.request("setActivationCode", [code])
    host.wait_event("getDeviceName")
    host.request("setDeviceName", ["n"])
    assert host.wait_event("getPassword")["params"]["challengeMode"] == 1
    with pytest.raises(RPCError) as wrong_mode:
        host.request("setPassword", [GOOD_PASSWORD, 0])
    assert wrong_mode.value.code == -32004 and wrong_mode.value.data["open"]["challengeMode"] == 1
    host.request("setPassword", [GOOD_PASSWORD, 1])
    host.wait_event("onUserLoggedIn")
    with pytest.raises(RPCError) as closed:
        host.request("setUser", ["ned"])
    assert closed.value.code == -32003
    with pytest.raises(RPCError) as after_login:
        host.request("resetAuthState")
    assert after_login.value.code == -32006


# -- Persistence, concurrency, secrets ----------------------------------------------

def test_attempt_counter_survives_a_killed_host(deployment):
    code = deployment.add_user("olga")
    activate(deployment.host(), "olga", code)
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["olga"])
    host.wait_event("getPassword")
    host.request("setPassword", ["Wrong&Passw0rd", 0])
    assert host.wait_event("getPassword")["params"]["attemptsLeft"] == 2
    host.process.send_signal(signal.SIGKILL)
    host.process.wait(5)
    again = deployment.host()
    again.wait_event("getUser")
    again.request("setUser", ["olga"])
    assert again.wait_event("getPassword")["params"]["attemptsLeft"] == 2


def test_two_hosts_on_one_store_at_once(deployment):
    users = ["p1", "p2", "p3", "p4"]
    codes = {user: deployment.add_user(user) for user in users}
    hosts = [deployment.host(device_id="device-%d" % index) for index in range(2)]
    errors = []

    def run(host, mine):
        try:
            for user in mine:
                activate(host, user, codes[user])
                host.request("logOff", [user])
                host.wait_event("onUserLoggedOff")
                host.wait_event("getUser")
                host.request("setUser", [user])
                host.wait_event("getPassword")
                host.request("setPassword", [GOOD_PASSWORD, 0])
                host.wait_event("onUserLoggedIn")
                host.request("logOff", [user])
                host.wait_event("onUserLoggedOff")  # the getUser after it is left for the next activation
        except Exception as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(hosts[0], users[:2])), threading.Thread(target=run, args=(hosts[1], users[2:]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    for user in users:
        assert deployment.admin("show-user", user)["status"] == "active"


def test_no_secret_in_stderr_store_or_audit(deployment):
    code = deployment.add_user("quinn")
    host = deployment.host(extra=("--log-level", "trace"))
    activate(host, "quinn", code)
    host.request("logOff", ["quinn"])
    host.wait_event("getUser")
    host.request("setUser", ["quinn"])
    host.wait_event("getPassword")
    host.request("setPassword", ["Wrong&Passw0rd", 0])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 0])
    host.wait_event("onUserLoggedIn")
    host.request("logOff", ["quinn"])
    host.wait_event("getUser")
    host.request("setUser", ["quinn"])
    host.wait_event("getPassword")
    host.shutdown()
    secrets = [code, GOOD_PASSWORD, "Wrong&Passw0rd"]
    stderr = host.stderr_text()
    store_bytes = b""
    for suffix in ("", "-wal", "-shm"):
        path = deployment.store + suffix
        if os.path.exists(path):
            with open(path, "rb") as handle:
                store_bytes += handle.read()
    audit = json.dumps(deployment.admin("audit"))
    assert len(deployment.admin("audit", "--user", "quinn")) >= 6
    for secret in secrets:
        assert secret not in stderr
        assert secret.encode() not in store_bytes
        assert secret not in audit


@pytest.mark.sqlite_only
def test_store_is_private_and_env_selects_it(deployment, tmp_path):
    deployment.add_user("rita")
    assert oct(os.stat(deployment.store).st_mode & 0o777) == "0o600"
    other = str(tmp_path / "env-store.sqlite")
    out = subprocess.run([deployment.bin, "admin", "add-user", "sam", "--json"], capture_output=True, text=True,
                         env=dict(os.environ, FLOWHOST_STORE=other), timeout=60)
    assert out.returncode == 0, out.stderr
    assert os.path.exists(other) and oct(os.stat(other).st_mode & 0o777) == "0o600"


@pytest.mark.sqlite_only
def test_production_argon2_default_end_to_end(tmp_path, flowhost_bin, spawn):
    from conftest import Deployment
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config={})
    code = deployment.add_user("tess")
    activate(deployment.host(), "tess", code)
    import sqlite3
    with sqlite3.connect(deployment.store) as db:
        (hash_text,) = db.execute("SELECT hash FROM password").fetchone()
    assert hash_text.startswith("$argon2id$v=19$m=19456,t=2,p=1$")


def test_delivery_command_receives_the_code(tmp_path, flowhost_bin, spawn):
    from conftest import CHEAP_CONFIG, Deployment
    sink = tmp_path / "delivered.jsonl"
    script = tmp_path / "deliver.sh"
    script.write_text("#!/bin/sh\ncat >> '%s'\n" % sink)
    script.chmod(0o700)
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["delivery"] = {"command": [str(script)]}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    deployment.add_user("uma")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["uma"])
    host.wait_event("getActivationCode")
    host.request("resendActivationCode")
    fresh = host.wait_event("getActivationCode")
    # Delivery runs after the commit, on the host's delivery thread.
    assert wait_until(lambda: sink.exists() and sink.read_text().endswith("\n"))
    message = json.loads(sink.read_text().splitlines()[-1])
    assert message["userID"] == "uma" and message["verificationKey"] == fresh["params"]["verificationKey"]
    assert wait_until(lambda: deployment.admin("outbox") == [])
    host.request("setActivationCode", [message["activationCode"]])
    host.wait_event("getDeviceName")


def test_a_delivery_command_cannot_write_to_the_protocol(tmp_path, flowhost_bin, spawn):
    """The host's stdout is the client's protocol: what the command prints
    on its stdout (here a forged event) goes to the host's stderr, never to
    the client."""
    from conftest import CHEAP_CONFIG, Deployment
    sink = tmp_path / "delivered.jsonl"
    script = tmp_path / "deliver.sh"
    script.write_text("#!/bin/sh\n"
                      "echo '{\"jsonrpc\":\"2.0\",\"method\":\"onUserLoggedIn\",\"params\":{\"forged\":true}}'\n"
                      "cat >> '%s'\n" % sink)
    script.chmod(0o700)
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["delivery"] = {"command": [str(script)]}
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    deployment.add_user("uma")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["uma"])
    host.wait_event("getActivationCode")
    host.request("resendActivationCode")
    host.wait_event("getActivationCode")
    assert wait_until(lambda: sink.exists() and sink.read_text().endswith("\n"))
    assert wait_until(lambda: deployment.admin("outbox") == [])
    assert host.request("ping") == {}
    assert not [line for direction, line in host.transcript if direction == "<-" and "forged" in line]
    assert wait_until(lambda: '"forged":true' in host.stderr_text())


def test_invalid_credential_config_names_the_key(tmp_path, flowhost_bin):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"passwords": {"policy": {"minLen": 3}}}))
    out = subprocess.run([flowhost_bin, "--store", str(tmp_path / "s.sqlite"), "--config", str(config)],
                         input="", capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert "passwords.policy.minLen" in out.stderr


def test_admin_reports_unknown_users(deployment):
    out = deployment.admin("block", "ghost", check=False)
    assert out.returncode == 1 and "no such user" in out.stderr


def test_unanswered_lda_check_times_out_to_get_user(tmp_path, flowhost_bin, spawn):
    from conftest import CHEAP_CONFIG, Deployment
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["clientRequestTimeoutMs"] = 300
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    code = deployment.add_user("vera")
    activate(deployment.host(lda=[1]), "vera", code, lda=True)
    host = deployment.host(lda=[1], lda_answer=None)  # the client never answers
    host.wait_event("getUser")
    started = time.monotonic()
    host.request("setUser", ["vera"])
    again = host.wait_event("getUser", timeout=5)
    assert status_of(again) == 102
    assert 0.25 < time.monotonic() - started < 3


def test_every_request_the_tests_send_fits_the_published_schemas(deployment):
    """The schemas in Protocol/ describe what the host accepts: replay a full
    activation and login and check each request's params against them."""
    code = deployment.add_user("wes")
    host = deployment.host(lda=[1])
    activate(host, "wes", code)
    host.request("logOff", {"userID": "wes"})
    host.wait_event("getUser")
    host.request("setUser", {"userName": "wes"})
    host.wait_event("getPassword")
    host.request("setPassword", {"password": GOOD_PASSWORD, "challengeMode": 0})
    host.wait_event("onUserLoggedIn")
    checked = 0
    mfa_request_ids = set()
    for direction, line in host.transcript:
        message = json.loads(line)
        if direction == "->" and message.get("method") not in (None, "initialize") and "id" in message:
            mfa_request_ids.add(message["id"])
        if direction == "<-" and "method" not in message and message.get("id") in mfa_request_ids:
            validate("mfa.result", message["result"])
            checked += 1
        if direction == "->" and "method" in message and isinstance(message.get("params"), dict):
            name = "initialize.params" if message["method"] == "initialize" else "mfa.%s.params" % message["method"]
            validate(name, message["params"])
            checked += 1
        if direction == "<-" and message.get("method") in ("getUser", "getActivationCode", "getDeviceName", "getUserConsentForLDA",
                                                            "getPassword", "onUserLoggedIn", "onUserLoggedOff"):
            validate(contract_event_schema("mfa", message["method"]), message["params"])
            checked += 1
    assert checked >= 20
