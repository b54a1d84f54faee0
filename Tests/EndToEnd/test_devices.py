"""A device is a key: every activation makes a key pair, every login proves
possession of it inside the host, a device id alone gets nothing."""

import base64
import json
import os
import shutil
import sqlite3

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from conftest import CHEAP_CONFIG, GOOD_PASSWORD, Deployment, activate, status_of, store_execute, wait_until
from flowhost_client import RPCError
from flowhost_client.platform_keys import P256_ORDER, PlatformKeystore
from schemas import validate


def counts(deployment):
    """The audit's counts, summed over the hourly rows (a test may run across an hour's end)."""
    summed = {}
    for row in deployment.admin("audit", "--counts"):
        summed[(row["action"], row["outcome"])] = summed.get((row["action"], row["outcome"]), 0) + row["count"]
    return summed


def log_off(host, user_id):
    host.request("logOff", [user_id])
    host.wait_event("onUserLoggedOff")
    return host.wait_event("getUser")


def attacker(deployment, device_id, tmp_path, lda=()):
    """A host that claims another device's id, with a key folder of its own."""
    folder = tmp_path / "attacker-keys"
    folder.mkdir(mode=0o700, exist_ok=True)
    return deployment.host(device_id, lda=lda, extra=("--device-dir", str(folder)))


def password_login(host, user_id, password=GOOD_PASSWORD):
    host.request("setUser", [user_id])
    asked = host.wait_event()
    if asked["method"] != "getPassword":
        return asked
    host.request("setPassword", [password, 0])
    return host.wait_event()


# -- The attack: a client claims a victim's device id --------------------------------

def test_a_claimed_device_id_gets_no_remembered_users_no_session_and_no_attempts(deployment, tmp_path):
    code = deployment.add_user("victim")
    victim = deployment.host("device-v")
    activate(victim, "victim", code)
    log_off(victim, "victim")
    thief = attacker(deployment, "device-v", tmp_path)
    offered = thief.wait_event("getUser")
    assert offered["params"]["userNames"] == [] and offered["params"]["recentlyLoggedInUser"] == ""
    answer = password_login(thief, "victim")
    assert answer["method"] == "getUser" and status_of(answer) == 126
    user = deployment.admin("show-user", "victim")
    assert user["openSessions"] == 0 and user["passwordAttemptsLeft"] == 3, "no attempt spent without the key"
    assert counts(deployment)[("device.prove", "bad-signature")] >= 1, "the attempt is audited"

    # The same machine and user, with the victim's key folder: it works, as it should.
    owner = deployment.host("device-v")
    assert owner.wait_event("getUser")["params"]["userNames"] == ["victim"]
    assert password_login(owner, "victim")["method"] == "onUserLoggedIn"


def test_a_claimed_device_id_cannot_log_in_with_its_own_lda_answer(deployment, tmp_path):
    code = deployment.add_user("victim")
    victim = deployment.host("device-v", lda=[1])
    activate(victim, "victim", code, lda=True)
    log_off(victim, "victim")
    thief = attacker(deployment, "device-v", tmp_path, lda=[1])  # answers its own LDA check with true
    thief.wait_event("getUser")
    thief.request("setUser", ["victim"])
    assert status_of(thief.wait_event("getUser")) == 126
    assert not [json.loads(line) for direction, line in thief.transcript if direction == "<-" and "authenticateLDA" in line]
    assert deployment.admin("show-user", "victim")["openSessions"] == 0


# -- Platform custody: the client's keystore holds the key ----------------------------

class Keystore:
    """A platform keystore in the test: real keys from `cryptography`. By
    default Ed25519, answered as a client before the choice of algorithms
    (no `algorithm`); `algorithm="ES256"` makes P-256 keys through the
    reference client's keystore (flowhost_client.platform_keys), in the key
    and signature forms given."""

    def __init__(self, algorithm=None, key_form="point", signature_form="der"):
        self.keys = {}
        self.signed = []
        self.mode = "sign"
        self.platform = PlatformKeystore(algorithm, key_form, signature_form) if algorithm else None

    def create(self, params):
        validate("platform.createDeviceKey.params", params)
        assert params["algorithms"] == ["Ed25519", "ES256"], "the host offers both, Ed25519 first"
        if self.platform:
            answer = self.platform.create(params)
            self.keys[answer["keyID"]] = self.platform.keys[answer["keyID"]][1]
            validate("platform.createDeviceKey.result", answer)
            return answer
        key = Ed25519PrivateKey.generate()
        key_id = "ks-%d" % (len(self.keys) + 1)
        self.keys[key_id] = key
        public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        answer = {"keyID": key_id, "publicKey": base64.b64encode(public).decode()}
        validate("platform.createDeviceKey.result", answer)
        return answer

    def other_key(self):
        """A key of the same algorithm that the host does not know."""
        if self.platform and self.platform.algorithm == "ES256":
            return ec.generate_private_key(ec.SECP256R1())
        return Ed25519PrivateKey.generate()

    def signature(self, key, message):
        if self.platform:
            return self.platform.signature(self.platform.algorithm, key, message)
        return key.sign(message)

    def sign(self, params):
        validate("platform.signDeviceChallenge.params", params)
        challenge = base64.b64decode(params["challenge"])
        if self.mode == "refuse":
            raise RPCError({"code": -1, "message": "user cancelled"})
        if self.mode == "replay":
            return {"signature": self.signed[-1]}
        if callable(self.mode):
            self.mode()  # something happens on the host's side while the platform signs
        key = self.other_key() if self.mode == "wrong-key" else self.keys[params["keyID"]]
        signature = self.signature(key, challenge)
        if self.mode in ("high-s", "ber"):
            # The right key's signature in a second form: (r, n − s), or DER with a long-form length.
            # The keystore's own form decides: a raw r‖s may begin with 0x30 too.
            r, s = decode_dss_signature(signature) if self.platform.signature_form == "der" else (
                int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            if self.mode == "high-s":
                signature = encode_dss_signature(r, P256_ORDER - s)
            else:
                der = encode_dss_signature(r, s)
                signature = bytes([0x30, 0x81, der[1]]) + der[2:]
        signature = base64.b64encode(signature).decode()
        self.signed.append(signature)
        return {"signature": signature}


def platform_host(deployment, keystore, device_id="device-p", answer=True, extra=()):
    host = deployment.spawn_host("--store", deployment.store, "--config", deployment.config, *extra)
    host.on_request("platform/createDeviceKey", keystore.create)
    if answer:
        host.on_request("platform/signDeviceChallenge", keystore.sign)
    host.initialize(device={"deviceID": device_id, "deviceName": "p", "ldaCapabilities": [], "keyCustody": "platform"})
    return host


# A client from before the choice of algorithms (a bare Ed25519 key), and P-256
# keys in each form a platform gives: the point or an SPKI, DER or r‖s signatures.
KEYSTORES = {
    "ed25519-bare": lambda: Keystore(),
    "es256-point-der": lambda: Keystore("ES256", "point", "der"),
    "es256-spki-raw": lambda: Keystore("ES256", "spki", "raw"),
}


@pytest.mark.parametrize("kind", sorted(KEYSTORES))
def test_platform_custody_with_real_signatures_and_each_way_to_fail(tmp_path, flowhost_bin, spawn, kind):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    config["clientRequestTimeoutMs"] = 500
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    code = deployment.add_user("pat")
    keystore = KEYSTORES[kind]()
    host = platform_host(deployment, keystore)
    activate(host, "pat", code)
    devices = deployment.admin("devices", "pat")
    assert devices[0]["keyID"] == "ks-1" and devices[0]["keyCustody"] == "platform"
    assert devices[0]["keyAlgorithm"] == ("Ed25519" if kind.startswith("ed25519") else "ES256")
    assert not os.path.exists(os.path.join(str(tmp_path), "devices", "ks-1.key")), "the host never holds a platform key"
    log_off(host, "pat")

    challenge_requests = lambda: [json.loads(line) for direction, line in host.transcript  # noqa: E731
                                  if direction == "<-" and "platform/signDeviceChallenge" in line]
    assert password_login(host, "pat")["method"] == "onUserLoggedIn"
    request = challenge_requests()[-1]["params"]
    assert request["keyID"] == "ks-1" and request["reason"] == "login"
    assert base64.b64decode(request["challenge"]).startswith(b"flowhost-device-proof-v1\npat\ndevice-p\n")
    log_off(host, "pat")

    modes = ("wrong-key", "refuse", "replay") + (("high-s", "ber") if keystore.platform else ())
    for mode in modes:
        keystore.mode = mode
        answer = password_login(host, "pat")
        assert answer["method"] == "getUser" and status_of(answer) == 126, mode
    # The key revoked, or another key registered, while the platform signs
    # with the key the challenge was issued for: the login's own transaction
    # reads the key again when it spends the proof.
    revoke = lambda: store_execute(deployment.store, "UPDATE device_key SET revoked_at = 1 WHERE user_id = ?", "pat")  # noqa: E731
    replace = lambda: store_execute(deployment.store, "UPDATE device_key SET key_id = 'ks-other' WHERE user_id = ?", "pat")  # noqa: E731
    for change, undo in ((revoke, "UPDATE device_key SET revoked_at = NULL WHERE user_id = ?"), (replace, "UPDATE device_key SET key_id = 'ks-1' WHERE user_id = ?")):
        keystore.mode = change
        answer = password_login(host, "pat")
        assert answer["method"] == "getUser" and status_of(answer) == 126
        store_execute(deployment.store, undo, "pat")
    keystore.mode = "sign"

    silent = platform_host(deployment, keystore, answer=False)  # never answers: a timeout
    silent.wait_event("getUser")
    silent.request("setUser", ["pat"])
    assert status_of(silent.wait_event("getUser", timeout=5)) == 126
    assert deployment.admin("show-user", "pat")["passwordAttemptsLeft"] == 3
    assert password_login(host, "pat")["method"] == "onUserLoggedIn", "the genuine device still gets in"


# -- Revocation, key files, earlier stores, secrets -------------------------------------

def test_a_revoked_device_can_no_longer_log_in(deployment):
    code = deployment.add_user("alice")
    host = deployment.host("device-1")
    activate(host, "alice", code)
    key_file = os.path.join(deployment.folder, "devices", deployment.admin("devices", "alice")[0]["keyID"] + ".key")
    assert os.path.exists(key_file)
    revoked = deployment.admin("revoke-device", "alice", "device-1")
    assert revoked["keyFileRemoved"] is True and not os.path.exists(key_file), "issue 21.14: the secret half goes too"
    assert not [name for name in os.listdir(os.path.dirname(key_file)) if ".tmp-" in name], "no temporary file left"
    off = host.wait_event("onUserLoggedOff", timeout=3)
    assert off["params"]["userID"] == "alice", "the revoked device's session ends at once"
    device = deployment.admin("devices", "alice")[0]
    assert device["status"] == "DELETE" and device["keyRevokedTs"] is not None
    again = deployment.host("device-1")
    assert again.wait_event("getUser")["params"]["userNames"] == []
    # No login: a revoked device is a new device again, and must be approved.
    assert password_login(again, "alice")["method"] == "addNewDeviceOptions"


def test_a_key_file_or_folder_others_can_reach_is_refused(deployment):
    code = deployment.add_user("alice")
    host = deployment.host("device-1")
    activate(host, "alice", code)
    log_off(host, "alice")
    key_id = deployment.admin("devices", "alice")[0]["keyID"]
    key_file = os.path.join(deployment.folder, "devices", key_id + ".key")
    assert oct(os.stat(key_file).st_mode & 0o777) == "0o600"
    assert oct(os.stat(os.path.dirname(key_file)).st_mode & 0o777) == "0o700"
    os.chmod(key_file, 0o644)
    assert status_of(password_login(host, "alice")) == 126
    assert wait_until(lambda: "chmod 600 %s" % key_file in host.stderr_text())
    os.chmod(key_file, 0o600)
    os.chmod(os.path.dirname(key_file), 0o755)
    out = deployment.spawn_host("--store", deployment.store, "--config", deployment.config)
    assert out.process.wait(10) != 0 and "chmod 700" in out.stderr_text()


@pytest.mark.sqlite_only
def test_a_store_from_the_build_before_device_keys(tmp_path, flowhost_bin, spawn):
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn)
    fixture = os.path.join(os.path.dirname(__file__), "fixtures", "store-before-device-keys.sqlite")
    shutil.copy(fixture, deployment.store)
    os.chmod(deployment.store, 0o600)
    # A password device binds a key at its next successful password login...
    laptop = deployment.host("legacy-laptop")
    assert laptop.wait_event("getUser")["params"]["userNames"] == [], "no key yet: not offered"
    assert password_login(laptop, "legacy-pw", "Wrong&Passw0rd9")["params"]["attemptsLeft"] == 2
    assert deployment.admin("devices", "legacy-pw")[0]["keyID"] is None, "a wrong password binds nothing"
    laptop.request("setPassword", [GOOD_PASSWORD, 0])
    assert laptop.wait_event()["method"] == "onUserLoggedIn"
    assert deployment.admin("devices", "legacy-pw")[0]["keyCustody"] == "host"
    assert log_off(laptop, "legacy-pw")["params"]["userNames"] == ["legacy-pw"]
    again = password_login(laptop, "legacy-pw")
    assert again["method"] == "onUserLoggedIn", ("then it proves with the key", again, laptop.stderr_text())
    # ...a device that only ever used LDA must be activated again.
    phone = deployment.host("legacy-phone", lda=[1])
    phone.wait_event("getUser")
    phone.request("setUser", ["legacy-lda"])
    refused = phone.wait_event("getUser")
    assert status_of(refused) == 126 and "activate it again" in refused["params"]["response"]["status"]["statusMessage"]
    connection = sqlite3.connect(deployment.store)
    assert "devices/v1-device-keys" in [row[0] for row in connection.execute("SELECT name FROM schema_migration")]
    connection.close()


def test_no_private_key_in_the_store_the_audit_stderr_or_admin_output(deployment):
    code = deployment.add_user("quinn")
    host = deployment.host("device-q", extra=("--log-level", "trace"))
    activate(host, "quinn", code)
    log_off(host, "quinn")
    assert password_login(host, "quinn")["method"] == "onUserLoggedIn"
    host.shutdown()
    folder = os.path.join(deployment.folder, "devices")
    secrets = []
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as handle:
            secret = handle.read()
        assert len(secret) == 64
        secrets += [secret[:32], secret.hex()[:64], base64.b64encode(secret[:32]).decode()]
    stored = b""
    for suffix in ("", "-wal"):
        if os.path.exists(deployment.store + suffix):
            with open(deployment.store + suffix, "rb") as handle:
                stored += handle.read()
    shown = json.dumps([deployment.admin("devices", "quinn"), deployment.admin("audit"), deployment.admin("show-user", "quinn")])
    for secret in secrets:
        if isinstance(secret, bytes):
            assert secret not in stored
        else:
            assert secret not in stored.decode("latin-1") and secret not in shown and secret not in host.stderr_text()


SMALL_ORDER_KEYS = {
    "identity": bytes([1]) + bytes(31),
    "all-zero": bytes(32),
    "order-8": bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
}


def off_curve_p256_point():
    point = bytearray(ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))
    point[-1] ^= 1
    return bytes(point)


# P-256 answers that are no key: a point off the curve, (0, 0), the point at
# infinity (SEC1's one zero byte), a compressed point, an Ed25519-sized key
# called ES256. (name: (publicKey, what stderr says))
BAD_P256_KEYS = {
    "off-curve": (off_curve_p256_point, "not a P-256 point on the curve"),
    "zero-point": (lambda: bytes([4]) + bytes(64), "not a P-256 point on the curve"),
    "infinity": (lambda: bytes(1), "no usable key"),
    "compressed": (lambda: bytes([2]) + bytes(range(32)), "no usable key"),
    "ed25519-size": (lambda: bytes(range(32)), "no usable key"),
}


@pytest.mark.parametrize("name", sorted(SMALL_ORDER_KEYS) + ["es256-" + name for name in sorted(BAD_P256_KEYS)])
def test_a_small_order_platform_key_is_refused_at_registration(deployment, name):
    """Issue 21.12: with the identity key registered, OpenSSL accepted a
    forged signature over any message under its exported PEM. A P-256 key
    is refused likewise unless it is an uncompressed point on the curve."""
    code = deployment.add_user("pat")
    bad = BAD_P256_KEYS.get(name[len("es256-"):]) if name.startswith("es256-") else None
    key = bad[0]() if bad else SMALL_ORDER_KEYS[name]

    def weak_key(params):
        answer = {"keyID": "weak-1", "publicKey": base64.b64encode(key).decode()}
        if bad:
            answer["algorithm"] = "ES256"
        return answer
    keystore = Keystore()
    keystore.create = weak_key
    host = platform_host(deployment, keystore)
    host.wait_event("getUser")
    host.request("setUser", ["pat"])
    host.wait_event("getActivationCode")
    host.request("setActivationCode", [code])
    host.wait_event("getDeviceName")
    host.request("setDeviceName", ["p"])
    event = host.wait_event()
    if event["method"] == "getPassword":
        host.request("setPassword", [GOOD_PASSWORD, 1])
        event = host.wait_event()
    assert event["method"] == "getUser" and status_of(event) != 100, event
    assert not [e for e in host.events if e["method"] == "onUserLoggedIn"]
    assert deployment.admin("devices", "pat") == []
    assert wait_until(lambda: (bad[1] if bad else "small order") in host.stderr_text(), timeout=5)
