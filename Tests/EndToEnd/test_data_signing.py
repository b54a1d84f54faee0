"""The data-signing flow (seed 000): authenticateUserAndSignData at levels
0, 1 and 4, its refusals, reset, and signatures that anyone can verify:
through the host, with `flowhost admin`, and with Python's `cryptography`
following only the encoding in Protocol/spec.md §19."""

import base64
import hashlib
import json
import os

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_public_key

from conftest import GOOD_PASSWORD, activate, status_of
from flowhost_client import RPCError
from schemas import validate
from test_devices import Keystore, platform_host
from test_stepup import notify, update_status

WRONG = "Wrong&Passw0rd9"


def logged_in(deployment, user="alice", device="device-1", lda=False, capabilities=(), lda_answer=True):
    code = deployment.add_user(user)
    host = deployment.host(device, lda=list(capabilities) or ([1] if lda else []), lda_answer=lda_answer)
    activate(host, user, code, lda=lda)
    return host


def with_both(deployment, user="alice", device="device-1"):
    """A user with a password who then enrolls LDA (lda-toggle)."""
    host = logged_in(deployment, user=user, device=device, capabilities=[1])
    host.on_request("platform/authenticateLDA", lambda params: {"authenticated": True})
    host.request("manageDeviceAuthenticationModes", [True, 1])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 5])
    host.wait_event("getUserConsentForLDA")
    host.request("setUserConsentForLDA", [True, 16, 1])
    assert host.wait_event("onDeviceAuthManagementStatus")["params"]["status"]["statusCode"] == 100
    return host


def signed(host):
    event = host.wait_event("onAuthenticateUserAndSignData")
    validate("data-signing.onAuthenticateUserAndSignData.params", event["params"])
    return event["params"]


def outcome(params):
    return params["status"]["statusCode"], params["error"]["longErrorCode"]


def lda_asks(host):
    return [line for direction, line in host.transcript if direction == "<-" and '"platform/authenticateLDA"' in line]


def sign(host, payload="Pay 20 EUR to Carol", level=0, kind=0, reason="Invoice 42"):
    host.request("authenticateUserAndSignData", [payload, level, kind, reason])


def step_up_and_sign_at_each_level(deployment, host, user):
    """A notification accepted with the password (a step-up), then a
    signature at levels 0, 1 (the password again) and 4 (the server
    biometric): the three receipts, each valid against its schema."""
    uuid = notify(deployment, user=user)
    host.request("updateNotification", [uuid, "accept"])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 3])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 0)
    receipts = []
    for level, kind, answer in ((0, 0, None), (1, 0, 12), (4, 1, None)):
        sign(host, payload="Pay %d EUR to Carol" % (level + 1), level=level, kind=kind)
        if answer:
            host.wait_event("getPassword")
            host.request("setPassword", [GOOD_PASSWORD, answer])
        result = signed(host)
        assert outcome(result) == (100, 0), (level, result)
        validate("data-signing.receipt", result["receipt"])
        assert result["payloadSignature"] == result["receipt"]["payloadSignature"]
        receipts.append(result["receipt"])
    assert [receipt["authLevel"] for receipt in receipts] == [0, 1, 4]
    return receipts


# -- The accepted pairs ----------------------------------------------------------

def test_level_0_signs_at_once_and_the_signature_verifies(deployment):
    host = logged_in(deployment)
    sign(host)
    result = signed(host)
    assert outcome(result) == (100, 0)
    assert result["dataPayload"] == "Pay 20 EUR to Carol" and result["dataPayloadLength"] == 19
    assert result["reason"] == "Invoice 42" and result["authLevel"] == 0 and result["authenticatorType"] == 0
    assert result["verifiedBy"] == "none"
    assert len(base64.b64decode(result["payloadSignature"])) == 64 and len(result["dataSignatureID"]) == 32
    assert not [event for event in host.events if event["method"] == "getPassword" and event["params"]["challengeMode"] == 12]
    check = host.request("verifyDataSignature", {"dataSignatureID": result["dataSignatureID"]})
    validate("data-signing.verifyDataSignature.result", check)
    assert check["valid"] and check["receipt"]["dataPayload"] == "Pay 20 EUR to Carol"


def test_level_1_with_a_password_asks_for_it_with_challenge_mode_12(deployment):
    host = logged_in(deployment)
    sign(host, level=1)
    ask = host.wait_event("getPassword")
    assert ask["params"]["challengeMode"] == 12 and ask["params"]["attemptsLeft"] == 3
    validate("getPassword.params", ask["params"])
    host.request("setPassword", [GOOD_PASSWORD, 12])
    result = signed(host)
    assert outcome(result) == (100, 0) and result["authLevel"] == 1
    assert result["verifiedBy"] == result["receipt"]["verifiedBy"] == "password"
    assert result["authenticatorType"] == result["receipt"]["authenticatorType"] == 2, "the type used (RDNA_AUTH_PASS), not the 0 asked for"


def test_level_1_uses_lda_first_and_the_password_as_the_fallback(deployment):
    host = logged_in(deployment, lda=True)
    before = len(lda_asks(host))
    sign(host, level=1)
    result = signed(host)
    assert outcome(result) == (100, 0) and result["verifiedBy"] == "lda", "LDA only: no password asked"
    assert result["authenticatorType"] == result["receipt"]["authenticatorType"] == 3, "RDNA_AUTH_LDA"
    assert len(lda_asks(host)) == before + 1
    host.close()
    both = with_both(deployment, user="bob", device="device-2")
    both.on_request("platform/authenticateLDA", lambda params: {"authenticated": False})
    sign(both, level=1)
    ask = both.wait_event("getPassword")
    assert status_of(ask) == 100 and ask["params"]["challengeMode"] == 12, "the seamless fallback: no error"
    both.request("setPassword", [GOOD_PASSWORD, 12])
    result = signed(both)
    assert outcome(result) == (100, 0) and result["verifiedBy"] == "password" and result["authenticatorType"] == 2


def biometric_asks(host):
    return [json.loads(line)["params"] for direction, line in host.transcript
            if direction == "<-" and '"platform/verifyServerBiometric"' in line]


@pytest.mark.parametrize("user", ["password-only", "password-and-lda"])
def test_level_4_is_the_server_biometric_and_nothing_else(deployment, user):
    """Seed 000's level 4 is the IDV server biometric: the client's
    platform/verifyServerBiometric, not the device's LDA, not the password;
    the event and the receipt say so."""
    host = logged_in(deployment) if user == "password-only" else with_both(deployment)
    host.on_request("platform/verifyServerBiometric", lambda params: {"verified": True})
    lda_before = len(lda_asks(host))
    sign(host, level=4, kind=1)
    result = signed(host)
    assert outcome(result) == (100, 0) and result["authLevel"] == 4 and result["authenticatorType"] == 1
    assert result["verifiedBy"] == result["receipt"]["verifiedBy"] == "serverBiometric"
    assert biometric_asks(host) == [{"userID": "alice", "reason": "data-signing"}]
    assert len(lda_asks(host)) == lda_before, "no device LDA"
    assert not [event for event in host.events if event["method"] == "getPassword" and event["params"]["challengeMode"] == 12]
    check = host.request("verifyDataSignature", {"receipt": result["receipt"]})
    assert check["valid"] and check["reason"] == "valid"


@pytest.mark.parametrize("answer, error, status", [
    ({"error": {"code": -32601, "message": "Method not found"}}, 214, 100),
    ({"error": {"code": -1, "message": "no IDV service", "data": {"reason": "unavailable"}}}, 214, 100),
    ({"error": {"code": -1, "message": "dismissed", "data": {"reason": "cancelled"}}}, 153, 100),
    ({"result": {"verified": False}}, 102, 100),
])
def test_level_4_without_a_verified_server_biometric_signs_nothing(deployment, answer, error, status):
    """No server biometric: the seed's 214; the capture dismissed: 153; no
    match: 102. No other factor stands in for it."""
    host = logged_in(deployment)

    def respond(params):
        if "error" in answer:
            raise RPCError(answer["error"])
        return answer["result"]
    host.on_request("platform/verifyServerBiometric", respond)
    sign(host, level=4, kind=1)
    result = signed(host)
    assert outcome(result) == (status, error) and result["payloadSignature"] == "" and result["dataSignatureID"] == ""
    assert result["verifiedBy"] == "none" and result["authenticatorType"] == 0 and "receipt" not in result
    assert not [event for event in host.events if event["method"] == "getPassword" and event["params"]["challengeMode"] == 12]
    assert not [row for row in deployment.admin("audit", "--user", "alice") if row["action"] == "data.sign"]


# -- Refusals ----------------------------------------------------------------------

@pytest.mark.parametrize("pair", [(2, 0), (3, 0), (0, 1), (1, 1), (4, 0), (4, 2), (1, 3), (5, 0), (-1, 0)])
def test_unsupported_pairs_are_refused_with_214(deployment, pair):
    host = logged_in(deployment)
    with pytest.raises(RPCError) as refused:
        sign(host, level=pair[0], kind=pair[1])
    assert refused.value.code == 214 and refused.value.data["shortErrorCode"] == 214
    host.drain(0.2)
    assert not [event for event in host.events if event["method"] == "onAuthenticateUserAndSignData"]
    assert not [event for event in host.events if event["method"] == "getPassword" and event["params"]["challengeMode"] == 12]


def test_length_limits_count_characters_not_bytes(deployment):
    host = logged_in(deployment)
    for payload in ["x" * 500, "é" * 500, "😀" * 500]:
        sign(host, payload=payload)
        result = signed(host)
        assert outcome(result) == (100, 0) and result["dataPayloadLength"] == 500 and result["dataPayload"] == payload
    for payload, reason in [("x" * 501, "r"), ("😀" * 501, "r"), ("", "r"), ("p", "r" * 101), ("p", ""), ("p", "ü" * 101)]:
        with pytest.raises(RPCError) as refused:
            sign(host, payload=payload, reason=reason)
        assert refused.value.code == -32602 and refused.value.data["field"] == ("payload" if len(payload) != 1 else "reason")
    sign(host, payload="p", reason="ü" * 100)
    assert outcome(signed(host)) == (100, 0)


def test_signing_needs_a_logged_in_user(deployment):
    deployment.add_user("alice")
    host = deployment.host("device-1")
    host.wait_event("getUser")
    with pytest.raises(RPCError) as refused:
        sign(host)
    assert refused.value.code == -32006


# -- Attempts, cancellation, reset ---------------------------------------------------

def test_a_wrong_password_asks_again_then_the_right_one_signs(deployment):
    host = logged_in(deployment)
    sign(host, level=1)
    host.wait_event("getPassword")
    host.request("setPassword", [WRONG, 12])
    again = host.wait_event("getPassword")
    assert status_of(again) == 102 and again["params"]["challengeMode"] == 12 and again["params"]["attemptsLeft"] == 2
    host.request("setPassword", [GOOD_PASSWORD, 12])
    assert outcome(signed(host)) == (100, 0)


def test_exhausted_attempts_sign_nothing_and_log_the_user_off(deployment):
    host = logged_in(deployment)
    sign(host, level=1)
    for _ in range(3):
        host.wait_event("getPassword")
        host.request("setPassword", [WRONG, 12])
    result = signed(host)
    assert outcome(result) == (153, 102) and result["dataSignatureID"] == ""
    host.wait_event("onUserLoggedOff")
    assert deployment.admin("show-user", "alice")["openSessions"] == 0
    assert not [row for row in deployment.admin("audit", "--user", "alice") if row["action"] == "data.sign"]


def test_lda_cancelled_without_a_password_is_cancelled(deployment):
    host = logged_in(deployment, lda=True)
    host.on_request("platform/authenticateLDA", lambda params: {"authenticated": False})
    sign(host, level=1)
    assert outcome(signed(host)) == (100, 153)


def test_a_reset_in_the_middle_signs_nothing_and_refuses_a_late_password(deployment):
    host = logged_in(deployment)
    host.request("resetAuthenticateUserAndSignDataState")  # nothing in progress: harmless
    sign(host, payload="dismissed", level=1)
    host.wait_event("getPassword")
    sign(host, payload="again", level=1)  # the user dismissed the prompt and tries again: the new signing replaces it
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 12])
    assert signed(host)["dataPayload"] == "again"
    assert [event["params"]["dataPayload"] for event in host.events if event["method"] == "onAuthenticateUserAndSignData"] == ["again"]
    sign(host, level=1)
    host.wait_event("getPassword")
    host.request("resetAuthenticateUserAndSignDataState")
    with pytest.raises(RPCError) as late:
        host.request("setPassword", [GOOD_PASSWORD, 12])
    assert late.value.code == -32003
    host.drain(0.3)
    assert len([event for event in host.events if event["method"] == "onAuthenticateUserAndSignData"]) == 1, "a reset says nothing"
    sign(host, payload="first")
    first = signed(host)
    sign(host, payload="second", level=1)
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 12])
    second = signed(host)
    assert outcome(first) == outcome(second) == (100, 0) and first["dataSignatureID"] != second["dataSignatureID"]


# -- Verification ----------------------------------------------------------------------

def canonical(receipt):
    """The signed bytes, built from the spec alone (§19)."""
    def text(value):
        return base64.b64encode(value.encode("utf-8")).decode("ascii")
    lines = [
        "flowhost-data-signature-v1",
        "dataSignatureID=" + receipt["dataSignatureID"],
        "userID=" + text(receipt["userID"]),
        "deviceID=" + text(receipt["deviceID"]),
        "keyID=" + text(receipt["keyID"]),
        "authLevel=%d" % receipt["authLevel"],
        "authenticatorType=%d" % receipt["authenticatorType"],
        "signedAt=%d" % receipt["signedAt"],
        "reason=" + text(receipt["reason"]),
        "payload=" + text(receipt["dataPayload"]),
    ]
    return "\n".join(lines).encode("utf-8")


def test_a_third_party_verifies_with_the_exported_key_and_any_change_fails(deployment, tmp_path):
    host = logged_in(deployment)
    sign(host, payload="Pay 20 EUR to Carol\nline two ✓", reason="Invoice 42 — März")
    receipt = signed(host)["receipt"]
    validate("data-signing.receipt", receipt)
    pem = deployment.admin("export-key", "alice", "device-1")["pem"]
    key = load_pem_public_key(pem.encode())
    key.verify(base64.b64decode(receipt["payloadSignature"]), canonical(receipt))
    jwk = json.loads(deployment.admin("export-key", "alice", "device-1", "--format", "jwk", check=False).stdout)
    raw = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
    assert jwk["kty"] == "OKP" and jwk["crv"] == "Ed25519" and base64.b64decode(receipt["publicKey"]) == raw
    changes = {"dataPayload": "Pay 2000 EUR to Carol", "reason": "Invoice 43", "authLevel": 1, "signedAt": receipt["signedAt"] + 1,
               "userID": "bob", "payloadSignature": base64.b64encode(bytes(64)).decode()}
    for field, value in changes.items():
        changed = dict(receipt, **{field: value})
        with pytest.raises(InvalidSignature):
            key.verify(base64.b64decode(changed["payloadSignature"]), canonical(changed))
        check = host.request("verifyDataSignature", {"receipt": changed})
        assert not check["valid"] and check["reason"] == "tampered" and check["fields"] == [field], (field, check)
        path = tmp_path / ("receipt-%s.json" % field)
        path.write_text(json.dumps(changed))
        out = deployment.admin("verify-signature", "--receipt", str(path), check=False)
        assert out.returncode == 1 and not json.loads(out.stdout)["valid"], field
    assert host.request("verifyDataSignature", {"receipt": receipt}) == {"valid": True, "reason": "valid", "receipt": receipt}
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(receipt))
    assert deployment.admin("verify-signature", "--receipt", str(path))["valid"]
    assert deployment.admin("verify-signature", receipt["dataSignatureID"])["valid"]
    unknown = deployment.admin("verify-signature", "0" * 32, check=False)
    assert unknown.returncode == 1 and json.loads(unknown.stdout)["reason"] == "unknown"


@pytest.mark.sqlite_only
def test_receipts_are_append_only_in_the_store(deployment):
    import sqlite3
    host = logged_in(deployment)
    sign(host)
    receipt = signed(host)["receipt"]
    host.close()
    database = sqlite3.connect(deployment.store)
    for statement in ["UPDATE signature_receipt SET payload = 'changed'", "DELETE FROM signature_receipt"]:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            database.execute(statement)
    database.close()
    assert deployment.admin("verify-signature", receipt["dataSignatureID"])["receipt"]["dataPayload"] == receipt["dataPayload"]


def test_a_signature_by_another_devices_key_fails(deployment):
    alice = logged_in(deployment, device="device-a")
    sign(alice, payload="same words")
    mine = signed(alice)["receipt"]
    other = logged_in(deployment, user="bob", device="device-b")
    sign(other, payload="same words")
    theirs = signed(other)["receipt"]
    forged = dict(mine, payloadSignature=theirs["payloadSignature"])
    assert not alice.request("verifyDataSignature", {"receipt": forged})["valid"]
    posing = dict(theirs, userID="alice", deviceID="device-a", keyID=mine["keyID"], dataSignatureID="f" * 32)
    assert alice.request("verifyDataSignature", {"receipt": posing})["reason"] == "unknown"
    carrying = dict(theirs, keyID="not-the-devices-key")
    assert alice.request("verifyDataSignature", {"receipt": carrying}) == {"valid": False, "reason": "tampered", "fields": ["keyID"],
                                                                         "receipt": theirs}


def test_a_held_key_file_that_is_not_the_registered_keys_signs_nothing(deployment):
    """Host custody signs as the registered key only when the held seed gives
    it (spec §19): a key file swapped after the login for another seed with
    the registered public half after it signs as it is, and that signature
    is checked, refused and audited; the genuine file back signs again."""
    host = logged_in(deployment)
    sign(host, payload="before")
    assert outcome(signed(host)) == (100, 0)
    folder = os.path.join(deployment.folder, "devices")
    [name] = [entry for entry in os.listdir(folder) if entry.endswith(".key")]
    path = os.path.join(folder, name)

    def hold(content):
        os.remove(path)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(descriptor, content)
        os.close(descriptor)

    with open(path, "rb") as held:
        genuine = held.read()
    hold(os.urandom(32) + genuine[32:])
    sign(host, payload="swapped")
    refused = signed(host)
    assert outcome(refused) == (100, 153) and not refused["payloadSignature"]
    audited = [(row["action"], row["outcome"]) for row in deployment.admin("audit", "--user", "alice")]
    assert audited.count(("data.sign", "bad-signature")) == 1 and audited.count(("data.sign", "ok")) == 1
    hold(genuine)
    sign(host, payload="after")
    accepted = signed(host)
    assert outcome(accepted) == (100, 0)
    assert host.request("verifyDataSignature", {"dataSignatureID": accepted["dataSignatureID"]})["valid"]


def test_platform_custody_signs_in_the_clients_keystore(deployment):
    keystore = Keystore()
    code = deployment.add_user("carol")
    host = platform_host(deployment, keystore)
    activate(host, "carol", code)
    sign(host, payload="signed by the platform")
    result = signed(host)
    assert outcome(result) == (100, 0)
    asked = [json.loads(line)["params"] for direction, line in host.transcript
             if direction == "<-" and "platform/signDeviceChallenge" in line and "data-signing" in line]
    assert asked and base64.b64decode(asked[-1]["challenge"]) == canonical(result["receipt"])
    assert host.request("verifyDataSignature", {"dataSignatureID": result["dataSignatureID"]})["valid"]
    keystore.mode = "wrong-key"
    sign(host, payload="a key that is not the device's")
    bad = signed(host)
    assert outcome(bad) == (100, 153) and bad["dataSignatureID"] == "", "a signature that does not verify is never stored"


def platform_signing_with(deployment, before_answer):
    """A platform-custody host for carol whose keystore runs `before_answer`
    just before it answers a data-signing request; the host, once it is set."""
    keystore = Keystore()
    code = deployment.add_user("carol")
    host = platform_host(deployment, keystore)
    activate(host, "carol", code)

    def answer(params):
        if params.get("reason") == "data-signing":
            before_answer()
        return keystore.sign(params)

    host.on_request("platform/signDeviceChallenge", answer)
    return host, keystore


def data_sign_audit(deployment):
    return [row["outcome"] for row in deployment.admin("audit", "--user", "carol") if row["action"] == "data.sign"]


@pytest.mark.sqlite_only
def test_a_platform_key_revoked_while_the_client_signs_stores_nothing(deployment):
    """The client signs outside any transaction (spec §19): a key revoked
    while the keystore signs (here behind the host's back, before any change
    feed could tell it) leaves the genuine signature that comes back
    unstored, and the refusal is audited as key-revoked."""
    import sqlite3

    def revoke():
        with sqlite3.connect(deployment.store) as db:
            db.execute("UPDATE device_key SET revoked_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE user_id = 'carol'")

    host, keystore = platform_signing_with(deployment, revoke)
    sign(host, payload="signed while revoked")
    refused = signed(host)
    assert outcome(refused) == (100, 153) and refused["dataSignatureID"] == "" and not refused["payloadSignature"]
    assert keystore.signed, "the keystore did sign"
    assert data_sign_audit(deployment) == ["key-revoked"]


def test_a_device_revoked_while_the_client_signs_gets_no_receipt(deployment):
    """Revoked the operator's way while the keystore signs: whichever the host
    learns first, the revocation (it logs the user off) or the answer (the
    key is checked again as the receipt is stored), no receipt is issued."""
    host, keystore = platform_signing_with(deployment, lambda: deployment.admin("revoke-device", "carol", "device-p"))
    sign(host, payload="signed while revoked")
    while True:
        event = host.wait_event()
        if event["method"] in ("onAuthenticateUserAndSignData", "onUserLoggedOff"):
            break
    if event["method"] == "onAuthenticateUserAndSignData":
        assert outcome(event["params"]) == (100, 153) and event["params"]["dataSignatureID"] == ""
        assert data_sign_audit(deployment) == ["key-revoked"]
    else:
        assert data_sign_audit(deployment) == []
    assert keystore.signed, "the keystore did sign"


# -- Issue 21.4: a receipt is valid only if FlowHost issued it, unchanged -----------------

def attestation(receipt):
    """The bytes the issuer countersigns, built from the spec alone (§19)."""
    def text(value):
        return base64.b64encode(value.encode("utf-8")).decode("ascii")
    lines = [
        "flowhost-receipt-v1",
        "message=" + base64.b64encode(canonical(receipt)).decode("ascii"),
        "verifiedBy=" + text(receipt["verifiedBy"]),
        "publicKey=" + base64.b64decode(receipt["publicKey"]).hex(),
        "payloadSignature=" + receipt["payloadSignature"],
    ]
    if "webauthn" in receipt:  # a WebAuthn device's: what its signature covers besides the message
        lines += ["authenticatorData=" + receipt["webauthn"]["authenticatorData"], "clientDataJSON=" + receipt["webauthn"]["clientDataJSON"]]
    return "\n".join(lines).encode("utf-8")


def test_a_third_party_checks_the_issuers_word_on_how_the_user_was_verified(deployment):
    host = logged_in(deployment)
    sign(host)
    receipt = signed(host)["receipt"]
    issuer = deployment.admin("export-key", "--issuer")
    assert issuer["keyID"] == receipt["issuer"]["keyID"]
    key = load_pem_public_key(issuer["pem"].encode())
    key.verify(base64.b64decode(receipt["issuer"]["signature"]), attestation(receipt))
    # The key id as §19 says (issue 48.13): a 16-byte BLAKE2b digest, which is
    # not the first 16 bytes of the 64-byte one.
    raw = key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert receipt["issuer"]["keyID"] == hashlib.blake2b(raw, digest_size=16).hexdigest() != hashlib.blake2b(raw).digest()[:16].hex()
    device = load_pem_public_key(deployment.admin("export-key", "alice", "device-1")["pem"].encode())
    device.verify(base64.b64decode(receipt["payloadSignature"]), canonical(receipt))
    upgraded = dict(receipt, verifiedBy="lda+password")  # the device's signature does not cover it; the issuer's does
    device.verify(base64.b64decode(upgraded["payloadSignature"]), canonical(upgraded))
    with pytest.raises(InvalidSignature):
        key.verify(base64.b64decode(upgraded["issuer"]["signature"]), attestation(upgraded))
    assert host.request("verifyDataSignature", {"receipt": upgraded})["fields"] == ["verifiedBy"]


def test_a_platform_key_holder_cannot_make_a_receipt_the_host_never_issued(deployment, tmp_path):
    keystore = Keystore()
    code = deployment.add_user("carol")
    host = platform_host(deployment, keystore)
    activate(host, "carol", code)
    sign(host, payload="genuine")
    genuine = signed(host)["receipt"]
    # Whoever holds the platform key writes a level-4 receipt of their own, signed by that key.
    forged = dict(genuine, dataSignatureID="e" * 32, authLevel=4, authenticatorType=1, verifiedBy="lda+password",
                  dataPayload="Pay 9000 EUR to Mallory")
    forged["payloadSignature"] = base64.b64encode(keystore.keys[genuine["keyID"]].sign(canonical(forged))).decode()
    load_pem_public_key(deployment.admin("export-key", "carol", "device-p")["pem"].encode()).verify(
        base64.b64decode(forged["payloadSignature"]), canonical(forged))  # the device's signature alone would pass
    assert host.request("verifyDataSignature", {"receipt": forged}) == {"valid": False, "reason": "unknown"}
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    out = deployment.admin("verify-signature", "--receipt", str(path), check=False)
    assert out.returncode == 1 and json.loads(out.stdout)["reason"] == "unknown"
    # After the device is revoked: a receipt dated later is no more believed, the genuine one still holds.
    deployment.admin("revoke-device", "carol", "device-p")
    late = dict(forged, dataSignatureID="d" * 32, signedAt=genuine["signedAt"] + 3600)
    late["payloadSignature"] = base64.b64encode(keystore.keys[genuine["keyID"]].sign(canonical(late))).decode()
    path.write_text(json.dumps(late))
    out = deployment.admin("verify-signature", "--receipt", str(path), check=False)
    assert out.returncode == 1 and json.loads(out.stdout)["reason"] == "unknown"
    path.write_text(json.dumps(genuine))
    assert deployment.admin("verify-signature", "--receipt", str(path))["reason"] == "valid", "signed before the revocation"


@pytest.mark.sqlite_only
def test_a_stored_receipt_changed_behind_the_hosts_back_is_tampered(deployment):
    import sqlite3
    host = logged_in(deployment)
    sign(host)
    receipt = signed(host)["receipt"]
    assert receipt["verifiedBy"] == "none"
    host.close()
    database = sqlite3.connect(deployment.store)
    database.execute("DROP TRIGGER signature_receipt_no_update")  # an attacker with the database file
    database.execute("UPDATE signature_receipt SET verified_by = 'lda+password'")
    database.commit()
    database.close()
    out = deployment.admin("verify-signature", receipt["dataSignatureID"], check=False)
    verdict = json.loads(out.stdout)
    assert out.returncode == 1 and verdict["reason"] == "tampered" and verdict["fields"] == ["issuer"]
