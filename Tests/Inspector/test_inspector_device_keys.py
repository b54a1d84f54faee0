"""Keys a real device holds, made by the page in a headless Chromium: a
P-256 key in WebCrypto (keyCustody "platform", the page's default
algorithm). Activation, a login, a second device approved from the first,
and a data signature that verifies offline, with no human. Screenshots in
FLOWHOST_SCREENSHOTS, else .build-screenshots/."""

import base64
import json

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from selenium.webdriver.common.by import By

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


def approve_a_second_device(page, browser, user, shots, custody):
    """Device 2 (a second host on the same store, its own keys) asks to
    join; device 1 sees the approval in getNotifications, accepts it and
    confirms with its password; device 2 enrolls its fingerprint."""
    browser.find_element(*by_testid("second-device")).click()
    page.within(page.panel(2), "event-form-getUser")
    page.settle(2, keyCustody=custody)
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
