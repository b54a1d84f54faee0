"""The TypeScript client's browser example of WebAuthn answers
(Protocol/clients/typescript/examples/webauthn-browser.js), in a real
headless Chromium with a virtual platform authenticator: it turns the
host's `platform/createCredential` and `platform/getAssertion` params into
`navigator.credentials` calls and answers with WebAuthn's JSON, with the
browser's JSON helpers and with its own conversion where a browser has none.
The answers are checked as a relying party checks them: the client data,
the RP id hash and flags, and the signature with the registered key. (Here
beside the inspector's tests, which have the browser.)"""

import base64
import functools
import hashlib
import http.server
import json
import os
import threading

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_der_public_key

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "Protocol", "clients", "typescript", "examples")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript"}

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/":
            body = b"<!doctype html><title>webauthn example</title>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


@pytest.fixture
def page(browser):
    """The example served from http://localhost (a secure context, and a
    valid RP id), with a virtual platform authenticator that verifies the user."""
    from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=EXAMPLES))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = "http://localhost:%d" % server.server_address[1]
    browser.get(origin + "/")
    browser.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True, has_user_verification=True,
        is_user_consenting=True, is_user_verified=True))
    yield browser, origin
    browser.remove_virtual_authenticator()
    server.shutdown()


def call(browser, name, params, without_json_helpers):
    script = """
    const [name, params, bare, done] = arguments;
    if (bare) {
      // A browser without WebAuthn's JSON helpers: the example converts itself.
      delete PublicKeyCredential.parseCreationOptionsFromJSON;
      delete PublicKeyCredential.parseRequestOptionsFromJSON;
      PublicKeyCredential.prototype.toJSON = undefined;
    }
    import("/webauthn-browser.js")
      .then((example) => example[name](params))
      .then((answer) => done({answer: JSON.parse(JSON.stringify(answer)),
                              helpers: [typeof PublicKeyCredential.parseRequestOptionsFromJSON, typeof PublicKeyCredential.prototype.toJSON]}),
            (error) => done({error: String(error)}));
    """
    browser.set_script_timeout(30)
    outcome = browser.execute_async_script(script, name, params, without_json_helpers)
    assert "answer" in outcome, outcome
    assert outcome["helpers"] == (["undefined"] * 2 if without_json_helpers else ["function"] * 2), outcome["helpers"]
    return outcome["answer"]


@pytest.mark.parametrize("without_json_helpers", [False, True], ids=["toJSON", "own-conversion"])
def test_the_browser_example_answers_a_credential_and_an_assertion_a_relying_party_accepts(page, without_json_helpers):
    browser, origin = page
    challenge = os.urandom(32)
    created = call(browser, "createCredential", {
        "challenge": b64url(challenge),
        "rp": {"id": "localhost", "name": "localhost"},
        "user": {"id": b64url(hashlib.sha256(b"alice").digest()), "name": "alice", "displayName": "alice"},
        "pubKeyCredParams": [{"type": "public-key", "alg": -7}, {"type": "public-key", "alg": -8}],
        "authenticatorSelection": {"residentKey": "discouraged", "requireResidentKey": False, "userVerification": "preferred"},
        "attestation": "none",
    }, without_json_helpers)
    assert created["type"] == "public-key" and unb64url(created["rawId"]) == unb64url(created["id"])
    assert {"clientDataJSON", "attestationObject", "transports"} <= set(created["response"])
    client_data = json.loads(unb64url(created["response"]["clientDataJSON"]))
    assert client_data["type"] == "webauthn.create" and unb64url(client_data["challenge"]) == challenge and client_data["origin"] == origin
    assert created["response"]["publicKeyAlgorithm"] == -7, "ES256, the host's first choice"
    key = load_der_public_key(unb64url(created["response"]["publicKey"]))
    assert isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name == "secp256r1"

    challenge = os.urandom(32)
    asserted = call(browser, "getAssertion", {
        "challenge": b64url(challenge), "rpId": "localhost",
        "allowCredentials": [{"type": "public-key", "id": created["id"]}], "userVerification": "required",
    }, without_json_helpers)
    assert asserted["id"] == created["id"] and asserted["type"] == "public-key"
    response = asserted["response"]
    client_json = unb64url(response["clientDataJSON"])
    client_data = json.loads(client_json)
    assert client_data["type"] == "webauthn.get" and unb64url(client_data["challenge"]) == challenge and client_data["origin"] == origin
    authenticator_data = unb64url(response["authenticatorData"])
    assert authenticator_data[:32] == hashlib.sha256(b"localhost").digest(), "the RP id's hash"
    assert authenticator_data[32] & 0x01 and authenticator_data[32] & 0x04, "user present and verified"
    # WebAuthn's signed bytes: authenticatorData ‖ SHA-256(clientDataJSON).
    key.verify(unb64url(response["signature"]), authenticator_data + hashlib.sha256(client_json).digest(), ec.ECDSA(hashes.SHA256()))
