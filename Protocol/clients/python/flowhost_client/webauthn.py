"""A WebAuthn authenticator in software, for a client with
`keyCustody: "webauthn"` (spec §7, §14): it answers
`platform/createCredential` and `platform/getAssertion` in exactly the shape
`PublicKeyCredential.toJSON()` gives (binary members base64url without
padding), with real keys from Python's `cryptography`
(`pip install flowhost-client[platform-keys]`). A browser client passes
`navigator.credentials.create()` / `.get()` results through instead:

    from flowhost_client.webauthn import SoftwareAuthenticator
    authenticator = SoftwareAuthenticator(origin="https://login.example.com")
    authenticator.attach(host)

Its knobs let a test make every answer a host must refuse: the flags
(`user_present`, `user_verified`, `backup_eligible`, `backed_up`), the
counter (`counter`, the next value it says; `counter_step`), the `origin`,
the `rp_id` it hashes (None: the host's), `cross_origin`, `attestation`
("none" or "packed", self attestation), `algorithm` ("ES256" or
"EdDSA"), `replay` (answer with the last assertion again),
`use_credential` (answer with this credential id, whatever the host
allows), `credential_id` (the id the next credential gets), `signature`
(bytes to send instead of the real signature) and `s_form` ("low" or
"high": ES256's s made so; None: as the signer gave it).
"""

import base64
import hashlib
import json
import os
import struct

ES256, EDDSA = -7, -8


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor(value):
    """CBOR (RFC 8949) of ints, bytes, str, lists and dicts, definite lengths, shortest arguments."""
    def head(major, argument):
        if argument < 24:
            return bytes([major << 5 | argument])
        for info, fmt in ((24, ">B"), (25, ">H"), (26, ">I"), (27, ">Q")):
            if argument < 1 << (8 * struct.calcsize(fmt)):
                return bytes([major << 5 | info]) + struct.pack(fmt, argument)
        raise ValueError("too large")
    if isinstance(value, bool):
        return bytes([0xF5 if value else 0xF4])
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        data = value.encode("utf-8")
        return head(3, len(data)) + data
    if isinstance(value, list):
        return head(4, len(value)) + b"".join(cbor(item) for item in value)
    if isinstance(value, dict):
        return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(type(value))


class SoftwareAuthenticator:
    def __init__(self, origin, algorithm="ES256", rp_id=None, attestation="none", aaguid=bytes(16)):
        assert algorithm in ("ES256", "EdDSA") and attestation in ("none", "packed")
        self.origin = origin
        self.algorithm = algorithm
        self.rp_id = rp_id
        self.attestation = attestation
        self.aaguid = aaguid
        self.user_present = True
        self.user_verified = True
        self.backup_eligible = False
        self.backed_up = False
        self.cross_origin = None
        self.counter = 1
        self.counter_step = 1
        self.replay = False
        self.use_credential = None
        self.credential_id = None
        self.signature_override = None
        self.s_form = None
        self.credentials = {}  # credential id → (algorithm, private key, user handle)
        self.created = []  # the params of every platform/createCredential
        self.asked = []  # the params of every platform/getAssertion
        self.last = None

    def attach(self, host):
        host.on_request("platform/createCredential", self.create)
        host.on_request("platform/getAssertion", self.get)

    def flags(self, attested=False):
        return ((0x01 if self.user_present else 0) | (0x04 if self.user_verified else 0) | (0x08 if self.backup_eligible else 0)
                | (0x10 if self.backed_up else 0) | (0x40 if attested else 0))

    def auth_data(self, rp_id, attested=b""):
        data = hashlib.sha256((self.rp_id or rp_id).encode()).digest() + bytes([self.flags(bool(attested))]) + struct.pack(">I", self.counter)
        self.counter += self.counter_step
        return data + attested

    def client_data(self, kind, challenge):
        data = {"type": kind, "challenge": challenge, "origin": self.origin}
        if self.cross_origin is not None:
            data["crossOrigin"] = self.cross_origin
        return json.dumps(data, separators=(",", ":")).encode()

    def create(self, params):
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self.created.append(params)
        wanted = ES256 if self.algorithm == "ES256" else EDDSA
        assert wanted in [item["alg"] for item in params["pubKeyCredParams"]], "the host offers this algorithm"
        credential_id = self.credential_id or os.urandom(32)
        if self.algorithm == "ES256":
            key = ec.generate_private_key(ec.SECP256R1())
            point = key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
            cose = {1: 2, 3: ES256, -1: 1, -2: point[1:33], -3: point[33:]}
        else:
            key = Ed25519PrivateKey.generate()
            cose = {1: 1, 3: EDDSA, -1: 6, -2: key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)}
        self.credentials[credential_id] = (self.algorithm, key, unb64url(params["user"]["id"]))
        attested = self.aaguid + struct.pack(">H", len(credential_id)) + credential_id + cbor(cose)
        auth_data = self.auth_data(params["rp"]["id"], attested)
        client_data = self.client_data("webauthn.create", params["challenge"])
        statement = {}
        if self.attestation == "packed":
            statement = {"alg": wanted, "sig": self.signature(self.algorithm, key, auth_data + hashlib.sha256(client_data).digest())}
        attestation = cbor({"fmt": self.attestation, "attStmt": statement, "authData": auth_data})
        return {"id": b64url(credential_id), "rawId": b64url(credential_id), "type": "public-key", "authenticatorAttachment": "platform",
                "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation), "transports": ["internal"]},
                "clientExtensionResults": {}}

    def get(self, params):
        self.asked.append(params)
        if self.replay and self.last:
            return self.last
        allowed = [unb64url(item["id"]) for item in params.get("allowCredentials", [])]
        credential_id = self.use_credential or next(cid for cid in allowed if cid in self.credentials)
        self.last = self.assertion(credential_id, params["rpId"], params["challenge"], self.signature_override)
        return self.last

    def assertion(self, credential_id, rp_id, challenge, signature=None):
        """An assertion by `credential_id` (any this authenticator holds) over `challenge`; `signature` replaces the real one."""
        algorithm, key, handle = self.credentials[credential_id]
        auth_data = self.auth_data(rp_id)
        client_data = self.client_data("webauthn.get", challenge)
        if signature is None:
            signature = self.signature(algorithm, key, auth_data + hashlib.sha256(client_data).digest(), self.s_form)
        return {"id": b64url(credential_id), "rawId": b64url(credential_id), "type": "public-key", "authenticatorAttachment": "platform",
                "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data), "signature": b64url(signature),
                             "userHandle": b64url(handle)},
                "clientExtensionResults": {}}

    @staticmethod
    def signature(algorithm, key, message, s_form=None):
        if algorithm == "EdDSA":
            return key.sign(message)
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

        from .platform_keys import P256_ORDER

        # DER, with s as the signer gives it (high or low, as authenticators do) unless asked for one form.
        der = key.sign(message, ec.ECDSA(hashes.SHA256()))
        if s_form is None:
            return der
        r, s = decode_dss_signature(der)
        high = s > P256_ORDER // 2
        if (s_form == "high") != high:
            s = P256_ORDER - s
        return encode_dss_signature(r, s)
