"""Keys a real device holds, made by the page in a headless Chromium: a
P-256 key in WebCrypto (keyCustody "platform", the page's default
algorithm), and a WebAuthn credential of Chromium's virtual authenticator
(keyCustody "webauthn"). Activation, a login, a second device approved
from the first, and a data signature, with no human. Screenshots in
FLOWHOST_SCREENSHOTS, else .build-screenshots/."""

import base64
import json
import os

import pytest

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import load_der_public_key
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions

from conftest import GOOD_PASSWORD
from page_driver import Page, by_testid

P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def answers_to(page, device, method):
    """The page's results for `method`'s host requests, in order."""
    ids = {json.loads(line)["id"] for line in page.received(device) if f'"method":"{method}"' in line}
    results = []
    for line in page.sent(device):
        message = json.loads(line)
        if message.get("id") in ids and "method" not in message:
            assert "result" in message, f"{method} answered with an error: {line}"
            results.append(message["result"])
    return results


def event_params(page, device, name):
    return [json.loads(line)["params"] for line in page.received(device) if f'"method":"{name}"' in line]


def activate_and_log_in_again(page, inspector, user, code, shots):
    page.answer(1, "getUser", {"userName": user})
    page.answer(1, "getActivationCode", {"activationCode": code})
    page.answer(1, "getDeviceName", {})
    page.within(page.panel(1), "event-form-getUserConsentForLDA").find_element(*by_testid("consent-deny")).click()
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    page.event(1, "onUserLoggedIn")
    page.shot(f"{shots}-1-activated")
    page.call(1, "logOff", {"userID": user})
    page.answer(1, "getUser", {"userName": user})
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    page.wait.until(lambda driver: len(page.panel(1).find_elements(*by_testid("event-onUserLoggedIn"))) == 2)
    page.shot(f"{shots}-2-logged-in")


def wait_until_ready(page, device):
    """The panel's current host answered initialize: None, or the host's error."""
    def answered(driver):
        frames = driver.execute_script(
            "return window.flowhostInspector.timeline.filter(f => f.device === arguments[0]).map(f => [f.direction, f.line])", device)
        sent = [index for index, (direction, line) in enumerate(frames) if direction == "->" and '"method":"initialize"' in line]
        if not sent:
            return False
        request = json.loads(frames[sent[-1]][1])["id"]
        for direction, line in frames[sent[-1]:]:
            message = json.loads(line) if direction == "<-" else {}
            if message.get("id") == request and "method" not in message:
                return message
        return False
    return page.wait.until(answered).get("error")


def approve_a_second_device(page, browser, user, shots, custody):
    """Device 2 (a second host on the same store, its own keys) asks to
    join; device 1 sees the approval in getNotifications, accepts it and
    confirms with its password; device 2 enrolls its fingerprint."""
    browser.find_element(*by_testid("second-device")).click()
    page.within(page.panel(2), "event-form-getUser")
    page.settle(2, keyCustody=custody)
    assert wait_until_ready(page, 2) is None
    page.answer(2, "getUser", {"userName": user})
    options = page.within(page.panel(2), "event-form-addNewDeviceOptions")
    key = options.find_element(*by_testid("verification-key")).text
    options.find_element(By.NAME, "verifyAuthStatus").click()
    options.find_element(*by_testid("submit")).click()
    page.event(1, "onNotificationReceived")
    page.call(1, "getNotifications", {})
    accept = page.within(page.panel(1), "notification-action-accept")
    assert key in page.panel(1).find_element(By.CSS_SELECTOR, ".notifications").text
    page.shot(f"{shots}-3-approval-arrived")
    accept.click()
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    page.event(1, "onUpdateNotification")
    page.within(page.panel(2), "event-form-getUserConsentForLDA").find_element(*by_testid("consent-allow")).click()
    page.within(page.panel(2), "host-request-platform/authenticateLDA").find_element(*by_testid("host-request-approve")).click()
    page.event(2, "onUserLoggedIn")
    page.shot(f"{shots}-4-second-device-logged-in")


def sign_at_level_1(page, user, shots):
    page.call(1, "authenticateUserAndSignData", {"payload": "Pay 100 to Bob", "authLevel": "1",
                                                 "authenticatorType": "0", "reason": "payment"})
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    page.within(page.panel(1), "signature")
    page.shot(f"{shots}-5-signed")
    (signed,) = event_params(page, 1, "onAuthenticateUserAndSignData")
    assert signed["status"]["statusCode"] == 100 and signed["dataSignatureID"], signed
    return signed["receipt"]


def signed_message(receipt):
    """The device's signed message, from the receipt's fields (spec §19)."""
    text = lambda value: base64.b64encode(str(value).encode()).decode()
    return "\n".join([
        "flowhost-data-signature-v1",
        f"dataSignatureID={receipt['dataSignatureID']}",
        f"userID={text(receipt['userID'])}",
        f"deviceID={text(receipt['deviceID'])}",
        f"keyID={text(receipt['keyID'])}",
        f"authLevel={receipt['authLevel']}",
        f"authenticatorType={receipt['authenticatorType']}",
        f"signedAt={receipt['signedAt']}",
        f"reason={text(receipt['reason'])}",
        f"payload={text(receipt['dataPayload'])}",
    ]).encode()


def test_p256_platform_keys_activate_log_in_approve_a_second_device_and_sign(inspector, browser, screenshots):
    code = inspector.admin("add-user", "carol")["activationCode"]
    page = Page(browser, screenshots)
    browser.get(inspector.url)
    page.within(page.panel(1), "event-form-getUser")
    # keyCustody "platform"; the key's algorithm is the page's default, ES256.
    page.settle(1, keyCustody="platform")
    activate_and_log_in_again(page, inspector, "carol", code, "p256")

    # The host offered both; the page chose P-256 and answered its 65-byte uncompressed point.
    (request,) = [json.loads(line)["params"] for line in page.received(1) if '"method":"platform/createDeviceKey"' in line]
    assert set(request["algorithms"]) == {"ES256", "Ed25519"}, request
    (made,) = answers_to(page, 1, "platform/createDeviceKey")
    point = base64.b64decode(made["publicKey"])
    assert made["algorithm"] == "ES256" and len(point) == 65 and point[0] == 4, made
    # The login proved possession: the host's challenge signed by the page and accepted.
    assert len(answers_to(page, 1, "platform/signDeviceChallenge")) >= 1

    approve_a_second_device(page, browser, "carol", "p256", "platform")
    devices = inspector.admin("devices", "carol")
    assert len(devices) == 2, devices
    for device in devices:
        assert (device["status"], device["keyCustody"], device["keyAlgorithm"]) == ("ACTIVE", "platform", "ES256"), device
    assert len({device["keyID"] for device in devices}) == 2, "each device a key of its own"

    receipt = sign_at_level_1(page, "carol", "p256")
    assert receipt["algorithm"] == "ES256" and base64.b64decode(receipt["publicKey"]) == point
    assert inspector.admin("verify-signature", receipt["dataSignatureID"])["valid"] is True
    # Offline, as a third party: the exported JWK and the receipt alone.
    device_id = browser.execute_script("return window.flowhostInspector.devices[0].settings.deviceID")
    jwk = inspector.admin("export-key", "carol", device_id, "--format", "jwk")
    assert (jwk["kty"], jwk["crv"]) == ("EC", "P-256")
    key = ec.EllipticCurvePublicNumbers(int.from_bytes(b64url(jwk["x"]), "big"), int.from_bytes(b64url(jwk["y"]), "big"),
                                        ec.SECP256R1()).public_key()
    key.verify(base64.b64decode(receipt["payloadSignature"]), signed_message(receipt), ec.ECDSA(hashes.SHA256()))


def test_the_page_answers_p256_signatures_with_a_low_s(inspector, browser):
    """WebCrypto's ECDSA gives either s; the host takes only s ≤ n/2 (spec
    §7). Sixteen signatures of the page's own keystore: each verifies and
    has a low s (with WebCrypto's s as it comes, one in 2^16 runs passes)."""
    browser.get(inspector.url)
    Page(browser, None).within(Page(browser, None).panel(1), "event-form-getUser")
    browser.set_script_timeout(30)
    made, signatures = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          const made = await createDeviceKey({ algorithms: ["Ed25519", "ES256"] }, "ES256");
          const signatures = [];
          for (let index = 0; index < 16; index += 1) {
            signatures.push((await signDeviceChallenge({ keyID: made.keyID, challenge: btoa("challenge " + index) })).signature);
          }
          return [made, signatures];
        })().then(done, (error) => done([String(error), []]));
    """)
    assert made["algorithm"] == "ES256", made
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), base64.b64decode(made["publicKey"]))
    for index, signature in enumerate(signatures):
        raw = base64.b64decode(signature)
        assert len(raw) == 64
        r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
        assert 1 <= s <= P256_ORDER // 2, f"signature {index} has a high s"
        key.verify(encode_dss_signature(r, s), f"challenge {index}".encode(), ec.ECDSA(hashes.SHA256()))


def test_an_ed25519_platform_key_when_the_device_asks_for_one(inspector, browser):
    """keyAlgorithm Ed25519 stays possible; a host that names no
    algorithms gets Ed25519 (spec §7)."""
    browser.get(inspector.url)
    page = Page(browser, None)
    page.within(page.panel(1), "event-form-getUser")
    browser.set_script_timeout(30)
    chosen = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => [
          (await createDeviceKey({ algorithms: ["ES256", "Ed25519"] }, "Ed25519")).algorithm,
          (await createDeviceKey({}, "ES256")).algorithm,
          (await createDeviceKey({ algorithms: ["Ed25519"] }, "ES256")).algorithm,
          await createDeviceKey({ algorithms: ["RS256"] }, "ES256").then(() => "made", (error) => error.data.reason),
        ])().then(done, (error) => done(String(error)));
    """)
    assert chosen == ["Ed25519", "Ed25519", "Ed25519", "unavailable"], chosen


def test_webauthn_credentials_activate_log_in_approve_a_second_device_and_sign(inspector, browser, screenshots):
    """keyCustody "webauthn": the host's platform/createCredential and
    platform/getAssertion go to navigator.credentials, answered by
    Chromium's virtual authenticator (internal, with user verification:
    a platform authenticator such as Touch ID or Windows Hello)."""
    code = inspector.admin("add-user", "dave")["activationCode"]
    page = Page(browser, screenshots)
    # A WebAuthn RP id is a domain: the page at localhost, the origin its hosts are told (webauthn.origins).
    browser.get(inspector.url.replace("://127.0.0.1:", "://localhost:"))
    browser.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True,
        has_user_verification=True, is_user_verified=True))
    page.within(page.panel(1), "event-form-getUser")
    page.settle(1, keyCustody="webauthn")
    refused = wait_until_ready(page, 1)
    if refused and "keyCustody" in json.dumps(refused):
        pytest.skip(f"this host does not know keyCustody webauthn: {refused}")
    assert refused is None, refused
    activate_and_log_in_again(page, inspector, "dave", code, "webauthn")

    # Activation registered a credential: the host asked for it as WebAuthn's JSON, the page answered toJSON().
    (request,) = [json.loads(line)["params"] for line in page.received(1) if '"method":"platform/createCredential"' in line]
    assert request["rp"]["id"] == "localhost", request
    (made,) = answers_to(page, 1, "platform/createCredential")
    assert made["type"] == "public-key" and made["response"]["attestationObject"] and "=" not in made["rawId"], made
    client_data = json.loads(b64url(made["response"]["clientDataJSON"]))
    assert (client_data["type"], client_data["origin"]) == ("webauthn.create", inspector.url.split("/?")[0].replace("127.0.0.1", "localhost"))
    # The login proved possession with an assertion of that credential.
    assertions = answers_to(page, 1, "platform/getAssertion")
    assert assertions and all(answer["id"] == made["id"] for answer in assertions)
    assert json.loads(b64url(assertions[-1]["response"]["clientDataJSON"]))["type"] == "webauthn.get"

    approve_a_second_device(page, browser, "dave", "webauthn", "webauthn")
    devices = inspector.admin("devices", "dave")
    assert len(devices) == 2 and all((device["status"], device["keyCustody"]) == ("ACTIVE", "webauthn") for device in devices), devices
    credentials = browser.get_credentials()
    assert len(credentials) == 2, "each device a credential of its own"

    # Device 2 enrolled its fingerprint: logging in again is one assertion with UV, the LDA check and the proof at once.
    prompts = lambda: len([line for line in page.received(2) if '"method":"platform/authenticateLDA"' in line])
    before = prompts()
    page.call(2, "logOff", {"userID": "dave"})
    page.answer(2, "getUser", {"userName": "dave"})
    page.wait.until(lambda driver: len(page.panel(2).find_elements(*by_testid("event-onUserLoggedIn"))) == 2)
    assert prompts() == before, "no separate LDA prompt"
    requests = [json.loads(line)["params"] for line in page.received(2) if '"method":"platform/getAssertion"' in line]
    assert requests[-1]["userVerification"] == "required", requests[-1]
    page.shot("webauthn-6-second-device-logged-in-with-uv")

    receipt = sign_at_level_1(page, "dave", "webauthn")
    assert inspector.admin("verify-signature", receipt["dataSignatureID"])["valid"] is True
    assert len(answers_to(page, 1, "platform/getAssertion")) > len(assertions), "the signature is an assertion too"


def test_the_page_answers_webauthn_requests_with_what_the_authenticator_made(inspector, browser):
    """The page's side alone, whatever the host: a request shaped as the
    host sends it (spec §7) goes to navigator.credentials, and the answer
    is toJSON()'s, which a relying party checks (here with `cryptography`)."""
    browser.get(inspector.url.replace("://127.0.0.1:", "://localhost:"))
    browser.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True,
        has_user_verification=True, is_user_verified=True))
    page = Page(browser, None)
    page.within(page.panel(1), "event-form-getUser")
    encode = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    created_challenge, asserted_challenge = os.urandom(32), os.urandom(32)
    browser.set_script_timeout(30)
    made, asserted = browser.execute_async_script("""
        const [create, get, done] = arguments;
        (async () => {
          const made = await createCredential(create);
          get.allowCredentials = [{ type: "public-key", id: made.rawId }];
          return [made, await getAssertion(get)];
        })().then(done, (error) => done([JSON.stringify(error), null]));
    """, {"challenge": encode(created_challenge), "rp": {"id": "localhost", "name": "localhost"},
          "user": {"id": encode(b"dave-handle"), "name": "dave", "displayName": "dave"},
          "pubKeyCredParams": [{"type": "public-key", "alg": -7}, {"type": "public-key", "alg": -8}],
          "authenticatorSelection": {"residentKey": "discouraged", "requireResidentKey": False, "userVerification": "preferred"},
          "attestation": "none"},
        {"challenge": encode(asserted_challenge), "rpId": "localhost", "userVerification": "required"})
    assert asserted is not None, made
    origin = inspector.url.split("/?")[0].replace("127.0.0.1", "localhost")
    created_data = json.loads(b64url(made["response"]["clientDataJSON"]))
    assert (created_data["type"], created_data["challenge"], created_data["origin"]) == ("webauthn.create", encode(created_challenge), origin)
    assert made["response"]["publicKeyAlgorithm"] == -7, "ES256, the host's first choice"
    client_data = b64url(asserted["response"]["clientDataJSON"])
    assert json.loads(client_data)["challenge"] == encode(asserted_challenge)
    authenticator_data = b64url(asserted["response"]["authenticatorData"])
    assert authenticator_data[32] & 0x05 == 0x05, "user present and verified"
    key = load_der_public_key(b64url(made["response"]["publicKey"]))
    digest = hashes.Hash(hashes.SHA256())
    digest.update(client_data)
    key.verify(b64url(asserted["response"]["signature"]), authenticator_data + digest.finalize(), ec.ECDSA(hashes.SHA256()))
    # No credential answers (WebAuthn tells a page that apart from a person who
    # refused by neither): an error with reason cancelled, never a result.
    browser.remove_all_credentials()
    refusal = browser.execute_async_script("""
        const [get, done] = arguments;
        getAssertion(get).then((result) => done(result), (error) => done(error));
    """, {"challenge": encode(asserted_challenge), "rpId": "localhost", "userVerification": "required",
          "allowCredentials": [{"type": "public-key", "id": made["rawId"]}]})
    assert refusal.get("data", {}).get("reason") == "cancelled", refusal
