#!/usr/bin/env python3
"""Writes the fuzz seed corpus from the golden transcripts: for each one, its
client lines (after `initialize`, which the dispatch target sends itself)
as one input for fuzz-dispatch, and each client line alone for fuzz-frames
and (without its newline) for fuzz-json."""
import hashlib
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
golden = os.path.join(root, "Protocol", "golden")
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "Tests", "Fuzz", "Corpus")
for target in ("frames", "json", "dispatch"):
    os.makedirs(os.path.join(out, target), exist_ok=True)


def write(target, data):
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(out, target, name), "wb") as handle:
        handle.write(data)


for name in sorted(os.listdir(golden)):
    if not name.endswith(".transcript"):
        continue
    lines = []
    with open(os.path.join(golden, name), encoding="utf-8") as handle:
        for raw in handle.read().splitlines():
            if raw.startswith("-> "):
                text = raw[3:]
                if text.startswith("@"):
                    text = text.split(" ", 1)[1]
                if '"method":"initialize"' not in text:
                    lines.append(text)
    for line in lines:
        write("frames", (line + "\n").encode())
        write("json", line.encode())
    if lines:
        write("dispatch", ("\n".join(lines) + "\n").encode())


# fuzz-device-input: a valid input of each kind its first byte selects,
# made with the target's key (secret scalar 0x4242…42) for its relying party
# (rpID localhost, origin http://localhost:8080, challenge 32 bytes of 1,
# credential id 16 bytes of 7). Needs the client's `cryptography` package,
# which the end-to-end tests install.
sys.path.insert(0, os.path.join(root, "Protocol", "clients", "python"))
import struct  # noqa: E402

from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from flowhost_client.webauthn import SoftwareAuthenticator, b64url, cbor, unb64url  # noqa: E402

os.makedirs(os.path.join(out, "device-input"), exist_ok=True)
key = ec.derive_private_key(int("42" * 32, 16), ec.SECP256R1())
authenticator = SoftwareAuthenticator("http://localhost:8080")
credential_id = bytes([7] * 16)
challenge = b64url(bytes([1] * 32))
authenticator.credential_id = credential_id
created = authenticator.create({"challenge": challenge, "rp": {"id": "localhost"}, "user": {"id": b64url(b"fuzz")},
                                "pubKeyCredParams": [{"type": "public-key", "alg": -7}]})
authenticator.credentials[credential_id] = ("ES256", key, b"fuzz")
asserted = authenticator.assertion(credential_id, "localhost", challenge)


def parts(*chunks):
    """Every chunk but the last with its 2-byte length first."""
    return b"".join(struct.pack(">H", len(chunk)) + chunk for chunk in chunks[:-1]) + chunks[-1]


response = created["response"]
attestation = unb64url(response["attestationObject"])
auth_data = unb64url(asserted["response"]["authenticatorData"])
signature = unb64url(asserted["response"]["signature"])
write("device-input", b"\x00" + attestation)
write("device-input", b"\x00" + cbor({1: 2, 3: -7, -1: 1, -2: bytes(32), -3: bytes(32)}))
write("device-input", b"\x01" + auth_data)
write("device-input", b"\x02" + signature)
write("device-input", b"\x03" + parts(unb64url(response["clientDataJSON"]), attestation))
write("device-input", b"\x04" + parts(unb64url(asserted["response"]["clientDataJSON"]), auth_data, signature))
