"""P-256 (ES256) platform keys, end to end: a client whose keystore makes
only P-256 keys (the Secure Enclave, a TPM) activates, logs in, steps up and
signs data at levels 0, 1 and 4; a third party checks its receipt offline
exactly as spec §19 says, with the exported JWK and Python's `cryptography`,
and with the exported PEM and `openssl dgst`; a revoked device does none of it."""

import base64
import json
import shutil
import subprocess

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_public_key

from conftest import GOOD_PASSWORD, activate, status_of, store_execute, store_rows
from test_data_signing import attestation, canonical, sign, signed, step_up_and_sign_at_each_level
from test_device_activation import approval_on
from test_devices import Keystore, log_off, password_login, platform_host
from test_stepup import notify, update_status


def p256_host(deployment, keystore, user, lda=False):
    """A platform-custody host whose keystore makes P-256 keys, `user` activated on it."""
    code = deployment.add_user(user)
    host = deployment.spawn_host("--store", deployment.store, "--config", deployment.config)
    host.on_request("platform/createDeviceKey", keystore.create)
    host.on_request("platform/signDeviceChallenge", keystore.sign)
    host.on_request("platform/authenticateLDA", lambda params: {"authenticated": True})
    host.on_request("platform/verifyServerBiometric", lambda params: {"verified": True})
    host.initialize(device={"deviceID": "phone-1", "deviceName": "p", "ldaCapabilities": [1] if lda else [], "keyCustody": "platform"})
    activate(host, user, code, lda=lda)
    return host


def proofs_asked(host, reason):
    return [json.loads(line)["params"] for direction, line in host.transcript
            if direction == "<-" and "platform/signDeviceChallenge" in line and '"reason":"%s"' % reason in line]


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_offline(deployment, receipt, tmp_path, user):
    """Spec §19's check by a third party, from the receipt and the exported keys alone."""
    assert receipt["algorithm"] == "ES256"
    message = canonical(receipt)
    signature = base64.b64decode(receipt["payloadSignature"])
    jwk = json.loads(deployment.admin("export-key", user, "phone-1", "--format", "jwk", check=False).stdout)
    assert jwk["kty"] == "EC" and jwk["crv"] == "P-256" and set(jwk) == {"kty", "crv", "x", "y", "kid"}
    numbers = ec.EllipticCurvePublicNumbers(int.from_bytes(b64url(jwk["x"]), "big"), int.from_bytes(b64url(jwk["y"]), "big"), ec.SECP256R1())
    key = numbers.public_key()
    key.verify(signature, message, ec.ECDSA(hashes.SHA256()))
    assert base64.b64decode(receipt["publicKey"]) == b"\x04" + b64url(jwk["x"]) + b64url(jwk["y"])
    with pytest.raises(InvalidSignature):
        key.verify(signature, canonical(dict(receipt, dataPayload=receipt["dataPayload"] + ".")), ec.ECDSA(hashes.SHA256()))
    # The same with OpenSSL's command line, on the PEM.
    pem = deployment.admin("export-key", user, "phone-1")["pem"]
    assert load_pem_public_key(pem.encode()).public_numbers() == numbers
    (tmp_path / "device.pem").write_text(pem)
    (tmp_path / "message").write_bytes(message)
    (tmp_path / "signature.der").write_bytes(signature)
    verified = subprocess.run(
        [shutil.which("openssl"), "dgst", "-sha256", "-verify", str(tmp_path / "device.pem"), "-signature", str(tmp_path / "signature.der"),
         str(tmp_path / "message")], capture_output=True, text=True)
    assert verified.returncode == 0 and verified.stdout.strip() == "Verified OK", verified
    # The issuer's countersignature stays Ed25519, over the same five lines.
    issuer = load_pem_public_key(deployment.admin("export-key", "--issuer")["pem"].encode())
    issuer.verify(base64.b64decode(receipt["issuer"]["signature"]), attestation(receipt))


@pytest.mark.parametrize("key_form, signature_form", [("point", "der"), ("spki", "raw")])
def test_a_p256_key_activates_logs_in_steps_up_signs_and_is_revoked(deployment, tmp_path, key_form, signature_form):
    keystore = Keystore("ES256", key_form, signature_form)
    host = p256_host(deployment, keystore, "pat")
    device = deployment.admin("devices", "pat")[0]
    assert device["keyAlgorithm"] == "ES256" and device["keyCustody"] == "platform"

    log_off(host, "pat")
    assert password_login(host, "pat")["method"] == "onUserLoggedIn"
    assert proofs_asked(host, "login"), "the login proved the P-256 key"

    receipts = step_up_and_sign_at_each_level(deployment, host, "pat")
    assert all(base64.b64decode(receipt["payloadSignature"])[0] == 0x30 for receipt in receipts), "receipts keep DER"
    for receipt in receipts:
        assert host.request("verifyDataSignature", {"receipt": receipt}) == {"valid": True, "reason": "valid", "receipt": receipt}
        check_offline(deployment, receipt, tmp_path, "pat")
    changed = dict(receipts[0], algorithm="Ed25519")
    assert host.request("verifyDataSignature", {"receipt": changed})["fields"] == ["algorithm"]

    deployment.admin("revoke-device", "pat", "phone-1")
    host.wait_event("onUserLoggedOff", timeout=10)
    host.wait_event("getUser")
    # No login: a revoked device is a new device again, and must be approved.
    assert password_login(host, "pat")["method"] == "addNewDeviceOptions"
    assert deployment.admin("devices", "pat")[0]["keyRevokedTs"] is not None
    assert host.request("verifyDataSignature", {"dataSignatureID": receipts[0]["dataSignatureID"]})["valid"], "signed before the revocation"


def test_a_p256_key_proves_an_lda_login_and_an_lda_step_up(deployment):
    keystore = Keystore("ES256")
    host = p256_host(deployment, keystore, "lee", lda=True)
    log_off(host, "lee")
    host.request("setUser", ["lee"])
    assert host.wait_event("onUserLoggedIn")
    uuid = notify(deployment, user="lee")
    host.request("updateNotification", [uuid, "accept"])
    assert update_status(host.wait_event("onUpdateNotification")) == (100, 0)
    assert proofs_asked(host, "step-up-lda"), "the LDA step-up proved the P-256 key"
    keystore.mode = "high-s"
    uuid = notify(deployment, user="lee")
    host.request("updateNotification", [uuid, "accept"])
    event = host.wait_event("onUpdateNotification")
    assert update_status(event)[0] == 126, "a high-S proof is no proof"
    assert deployment.admin("notifications", "lee")[0]["status"] == "ACTIVE", "nothing was approved"


def test_keys_and_receipts_from_before_the_choice_of_algorithm_are_ed25519(deployment):
    """A store whose device keys and receipts were made before keys had an
    algorithm (the column and its migration taken away again): the
    migration runs at the next start, and every key and receipt is Ed25519."""
    code = deployment.add_user("alice")
    host = deployment.host("device-1")
    activate(host, "alice", code)
    sign(host)
    receipt = signed(host)["receipt"]
    host.close()
    for table in ("device_key", "signature_receipt"):
        store_execute(deployment.store, "ALTER TABLE %s DROP COLUMN algorithm" % table)
    store_execute(deployment.store, "DELETE FROM schema_migration WHERE name = ?", "devices/v2-key-algorithm")
    again = deployment.host("device-1")
    again.wait_event("getUser")
    assert password_login(again, "alice")["method"] == "onUserLoggedIn"
    assert deployment.admin("devices", "alice")[0]["keyAlgorithm"] == "Ed25519"
    assert store_rows(deployment.store, "SELECT algorithm FROM signature_receipt") == [("Ed25519",)]
    assert again.request("verifyDataSignature", {"receipt": receipt}) == {"valid": True, "reason": "valid", "receipt": receipt}


def point(keystore):
    """The uncompressed point of a keystore's one key."""
    (key,) = keystore.keys.values()
    return key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def test_a_p256_device_approves_a_second_p256_device_which_then_signs(deployment):
    """Seed 004 with keys a Secure Enclave makes: the first device approves
    the second (the approval's step-up proves the first device's key), the
    second registers its own P-256 key, and each device's proofs and
    receipts are its own key's."""
    first_keys, second_keys = Keystore("ES256"), Keystore("ES256", "spki", "raw")
    first = p256_host(deployment, first_keys, "ada")
    second = platform_host(deployment, second_keys, device_id="phone-2")
    second.wait_event("getUser")
    second.request("setUser", ["ada"])
    options = second.wait_event("addNewDeviceOptions")
    key = {item["key"]: item["value"] for item in options["params"]["challengeInfo"]}["VERIFICATION_KEY"]
    second.request("performVerifyAuth", [True])
    uuid = approval_on(first, key)
    first.request("updateNotification", [uuid, "accept"])
    first.wait_event("getPassword")
    first.request("setPassword", [GOOD_PASSWORD, 3])
    assert update_status(first.wait_event("onUpdateNotification")) == (100, 0)
    assert proofs_asked(first, "step-up"), "the approver proved its key"
    second.wait_event("getPassword", timeout=5)
    second.request("setPassword", [GOOD_PASSWORD, 0])
    logged_in = second.wait_event("onUserLoggedIn")
    assert logged_in["params"]["response"]["additionalInfo"]["currentWorkFlow"] == "AdditionalDeviceActivation"
    devices = {device["devUUID"]: device for device in deployment.admin("devices", "ada")}
    assert devices["phone-2"]["status"] == "ACTIVE" and devices["phone-2"]["keyAlgorithm"] == "ES256"

    log_off(second, "ada")
    assert password_login(second, "ada")["method"] == "onUserLoggedIn"
    assert proofs_asked(second, "login"), "the second device proves its own key"
    sign(second, payload="Pay 9 EUR to Dan", level=0, kind=0)
    receipt = signed(second)["receipt"]
    assert receipt["algorithm"] == "ES256" and receipt["deviceID"] == "phone-2"
    assert base64.b64decode(receipt["publicKey"]) == point(second_keys) != point(first_keys), "signed with the second device's own key"
    assert second.request("verifyDataSignature", {"receipt": receipt})["valid"]
    assert first.request("verifyDataSignature", {"receipt": receipt})["valid"], "any host checks it"
    # The first device's key (the same user's, the same algorithm) proves nothing for the second.
    first_key = next(iter(first_keys.keys.values()))
    second_keys.keys = {key_id: first_key for key_id in second_keys.keys}
    log_off(second, "ada")
    answer = password_login(second, "ada")
    assert answer["method"] == "getUser" and status_of(answer) == 126
