"""A platform keystore in software, for a client with `keyCustody: "platform"`
(spec §7, §14): it answers `platform/createDeviceKey` and
`platform/signDeviceChallenge` with real keys from Python's `cryptography`
(`pip install flowhost-client[platform-keys]`; the rest of the client needs
only the standard library). A real client keeps its keys in the platform's
keystore (the Secure Enclave, a TPM, Android's keystore); this one shows the
answers the host takes:

    from flowhost_client.platform_keys import PlatformKeystore
    keystore = PlatformKeystore(algorithm="ES256")
    keystore.attach(host)

- `platform/createDeviceKey {userID, purpose, algorithms}`: a key of an
  algorithm the host offers (`algorithm` if given, else the host's first
  choice this keystore can make), answered as `{keyID, publicKey, algorithm}`.
  ES256's `publicKey` is the 65-byte uncompressed point (`key_form="point"`)
  or a SubjectPublicKeyInfo (`key_form="spki"`); Ed25519's its 32 bytes.
- `platform/signDeviceChallenge {keyID, challenge}`: the signature of the
  challenge bytes. ES256 signs with SHA-256 and answers DER
  (`signature_form="der"`) or r‖s (`"raw"`), with s in the low half: the
  host refuses a high s, and a platform's signer may give one, so the client
  turns s into n − s (the same signature's other form, no key needed).
"""

import base64

ALGORITHMS = ("Ed25519", "ES256")
# P-256's group order n.
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def low_s(r, s):
    """(r, s) with s in the low half, as the host accepts it."""
    return (r, P256_ORDER - s) if s > P256_ORDER // 2 else (r, s)


class PlatformKeystore:
    def __init__(self, algorithm=None, key_form="point", signature_form="der"):
        assert algorithm in (None,) + ALGORITHMS and key_form in ("point", "spki") and signature_form in ("der", "raw")
        self.algorithm = algorithm
        self.key_form = key_form
        self.signature_form = signature_form
        self.keys = {}

    def attach(self, host):
        host.on_request("platform/createDeviceKey", self.create)
        host.on_request("platform/signDeviceChallenge", self.sign)

    def choose(self, offered):
        """The algorithm to make: the one asked for, if the host offers it;
        else the host's first choice that this keystore makes. A host that
        offers none (before 1.x) takes Ed25519."""
        offered = offered or ["Ed25519"]
        if self.algorithm:
            if self.algorithm not in offered:
                raise ValueError("the host does not accept %s (it offers %s)" % (self.algorithm, offered))
            return self.algorithm
        return next(name for name in offered if name in ALGORITHMS)

    def create(self, params):
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        algorithm = self.choose(params.get("algorithms"))
        key_id = "ks-%d" % (len(self.keys) + 1)
        if algorithm == "ES256":
            key = ec.generate_private_key(ec.SECP256R1())
            public = key.public_key().public_bytes(
                *((Encoding.X962, PublicFormat.UncompressedPoint) if self.key_form == "point"
                  else (Encoding.DER, PublicFormat.SubjectPublicKeyInfo)))
        else:
            key = Ed25519PrivateKey.generate()
            public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.keys[key_id] = (algorithm, key)
        return {"keyID": key_id, "publicKey": base64.b64encode(public).decode(), "algorithm": algorithm}

    def sign(self, params):
        algorithm, key = self.keys[params["keyID"]]
        return {"signature": base64.b64encode(self.signature(algorithm, key, base64.b64decode(params["challenge"]))).decode()}

    def signature(self, algorithm, key, message):
        if algorithm == "Ed25519":
            return key.sign(message)
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

        r, s = low_s(*decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256()))))
        if self.signature_form == "raw":
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")
        return encode_dss_signature(r, s)
