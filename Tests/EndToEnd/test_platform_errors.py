"""A client's error answer to a host request (spec §7): its code is the
client's choice, whatever its sign, and its `data.reason` reaches the flow;
it never reads as an SDK refusal or as the host's own timeout or
cancellation. Each host request kind, answered with code 1 and with -1."""

import json

import pytest

from conftest import DEVICE, activate, status_of, through_device_name
from flowhost_client import RPCError
from test_data_signing import logged_in, outcome, sign, signed
from test_devices import Keystore, platform_host

# Codes a client may choose: positive (once read as an SDK refusal, its data
# dropped), negative, and the host's own cancellation code.
CODES = [1, -1]


def refuse(code, reason, **extra):
    data = dict(extra, reason=reason)

    def answer(params):
        raise RPCError({"code": code, "message": "the platform could not", "data": data})
    return answer


@pytest.mark.parametrize("code", CODES + [141])
@pytest.mark.parametrize("reason, error", [("cancelled", 153), ("unavailable", 214), ("failed", 102)])
def test_verify_server_biometric_keeps_the_reason_whatever_the_code(deployment, code, reason, error):
    """Seed 000's level 4: cancelled is 153, unavailable 214, failed 102,
    with any code; 141 with the SDK refusal's own data is still the client's."""
    host = logged_in(deployment)
    host.on_request("platform/verifyServerBiometric", refuse(code, reason, longErrorCode=code, shortErrorCode=code))
    sign(host, level=4, kind=1)
    result = signed(host)
    assert outcome(result) == (100, error) and result["dataSignatureID"] == ""


@pytest.mark.parametrize("code", CODES + [-32800, -32000])
def test_authenticate_lda_refused_at_login_is_a_failed_check(deployment, code):
    """A refused LDA check is a failed check whatever its code: a client's
    -32800 or -32000 is not the host giving up (the flow would say nothing)."""
    code_text = deployment.add_user("alice")
    host = deployment.host("device-1", lda=[1])
    activate(host, "alice", code_text, lda=True)
    host.request("logOff", ["alice"])
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")
    host.on_request("platform/authenticateLDA", refuse(code, "cancelled"))
    host.request("setUser", ["alice"])
    again = host.wait_event("getUser", timeout=10)
    assert status_of(again) == 102
    assert not [event for event in host.events if event["method"] == "onUserLoggedIn"][1:]


@pytest.mark.parametrize("code", CODES)
def test_create_device_key_refused_ends_the_activation_step(deployment, code):
    """Platform custody: a keystore that cannot make a key is the step's 114, with any code."""
    activation_code = deployment.add_user("pat")
    keystore = Keystore()
    host = platform_host(deployment, keystore)
    host.on_request("platform/createDeviceKey", refuse(code, "unavailable"))
    event = through_device_name(host, "pat", activation_code)
    if event["method"] == "getPassword":
        host.request("setPassword", ["Tr0ub4dor&Zebra", 1])
        event = host.wait_event("getUser")
    assert event["method"] == "getUser" and status_of(event) == 114
    assert deployment.admin("devices", "pat") == []


@pytest.mark.parametrize("code", CODES)
def test_sign_device_challenge_refused_signs_nothing(deployment, code):
    """Platform custody: a keystore that refuses to sign is a failed signature (153), with any code."""
    activation_code = deployment.add_user("pat")
    keystore = Keystore()
    host = platform_host(deployment, keystore)
    activate(host, "pat", activation_code)
    host.on_request("platform/signDeviceChallenge", refuse(code, "cancelled"))
    sign(host)
    result = signed(host)
    assert outcome(result) == (100, 153) and result["dataSignatureID"] == ""


@pytest.mark.parametrize("code", CODES + [-32800])
def test_a_c_flow_tells_the_clients_answer_from_the_hosts(spawn, echo_dir, test_plugins, code):
    """The C view: the client's answer keeps its code and data and is marked
    as the client's (short_code); the host's own timeout is not."""
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["c_full"])
    host.initialize(device=DEVICE)
    host.on_request("platform/confirm", refuse(code, "cancelled", shortErrorCode=7))
    host.request("cfull.ask", {"question": "sure?"})
    answered = host.wait_event("onAnswered")["params"]
    assert answered == {"error": code, "fromClient": True, "data": {"reason": "cancelled", "shortErrorCode": 7}}
    del host._handlers["platform/confirm"]
    host.request("cfull.ask", {"question": "anyone?", "timeoutMs": 200})
    timed_out = host.wait_event("onAnswered", timeout=5)["params"]
    assert timed_out == {"error": -32000, "fromClient": False, "data": {"method": "platform/confirm"}}
