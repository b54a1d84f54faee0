"""The inspector driven through a real headless Chromium, as a person
would: activate a user, log in, approve a second device from the first,
sign data. Each step saves a screenshot (FLOWHOST_SCREENSHOTS, else
.build-screenshots/)."""

import json
import os
import re
import subprocess
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import GOOD_PASSWORD
from page_driver import Page, by_testid


def test_activate_log_in_approve_a_second_device_and_sign(inspector, browser, screenshots):
    code = inspector.admin("add-user", "alice")["activationCode"]
    page = Page(browser, screenshots)
    browser.get(inspector.url)

    # The flows, from rpc.discover.
    flows = page.wait.until(EC.presence_of_element_located(by_testid("flow-list")))
    page.wait.until(lambda driver: "data-signing" in flows.text)
    for name in ("mfa", "step-up", "device-activation", "lda-toggle", "data-signing"):
        assert name in flows.text
    for method in ("authenticateUserAndSignData", "updateNotification", "getNotifications", "logOff"):
        page.within(page.panel(1), f"method-form-{method}")
    methods = browser.execute_script("return [...window.flowhostInspector.discovery.methods.keys()]")
    assert {"initialize", "setUser", "setPassword", "authenticateUserAndSignData", "rpc.discover"} <= set(methods)
    forms = {form.get_attribute("data-testid") for form in page.panel(1).find_elements(By.CSS_SELECTOR, "[data-testid^=method-form-]")}
    assert forms == {f"method-form-{method}" for method in methods}, "one form per method"

    # Activation: the user id, the code, the device name, consent (declined), a new password.
    page.answer(1, "getUser", {"userName": "alice"})
    code_field = page.within(page.panel(1), "event-form-getActivationCode").find_element(By.NAME, "activationCode")
    assert "code" in code_field.get_attribute("class"), "the code is shown as the seeds' screens show one"
    page.answer(1, "getActivationCode", {"activationCode": code})
    page.answer(1, "getDeviceName", {})
    consent = page.within(page.panel(1), "event-form-getUserConsentForLDA")
    consent.find_element(*by_testid("consent-deny")).click()
    password = page.within(page.panel(1), "event-form-getPassword").find_element(By.NAME, "password")
    assert password.get_attribute("type") == "password", "passwords are masked"
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    page.event(1, "onUserLoggedIn")
    page.in_timeline("onUserLoggedIn")
    page.shot("1-activated")

    # Log off, then log in with the password.
    page.call(1, "logOff", {"userID": "alice"})
    page.answer(1, "getUser", {"userName": "alice"})
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    page.wait.until(lambda driver: len(page.panel(1).find_elements(*by_testid("event-onUserLoggedIn"))) == 2)
    page.shot("2-logged-in")

    # A second device (a second host on the same store) asks to join; the
    # first sees the approval arrive, accepts it and confirms with its password.
    browser.find_element(*by_testid("second-device")).click()
    page.answer(2, "getUser", {"userName": "alice"})
    options = page.within(page.panel(2), "event-form-addNewDeviceOptions")
    key = options.find_element(*by_testid("verification-key")).text
    assert len(key) == 6
    options.find_element(By.NAME, "verifyAuthStatus").click()
    options.find_element(*by_testid("submit")).click()
    page.event(1, "onNotificationReceived")
    page.call(1, "getNotifications", {})
    notification = page.within(page.panel(1), "notification-action-accept")
    assert key in page.panel(1).find_element(By.CSS_SELECTOR, ".notifications").text, "both devices show the same key"
    page.shot("3-approval-arrived")
    notification.click()
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    page.event(1, "onUpdateNotification")
    # The new device enrolls its fingerprint: the host asks the platform, the page asks the person.
    consent = page.within(page.panel(2), "event-form-getUserConsentForLDA")
    consent.find_element(*by_testid("consent-allow")).click()
    prompt = page.within(page.panel(2), "host-request-platform/authenticateLDA")
    page.shot("4-second-device-lda-prompt")
    prompt.find_element(*by_testid("host-request-approve")).click()
    page.event(2, "onUserLoggedIn")
    devices = {device["devUUID"]: device for device in inspector.admin("devices", "alice")}
    assert len(devices) == 2 and all(device["status"] == "ACTIVE" for device in devices.values())
    page.shot("5-second-device-logged-in")

    # Sign data at level 1 on the first device: the password, then the signature.
    page.call(1, "authenticateUserAndSignData", {"payload": "Pay 100 to Bob", "authLevel": "1",
                                                 "authenticatorType": "0", "reason": "payment"})
    form = page.within(page.panel(1), "event-form-getPassword")
    assert "challengeMode 12" in form.text
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    signature = page.within(page.panel(1), "signature")
    assert len(signature.text) > 40
    page.shot("6-signed")

    timeline = browser.find_element(*by_testid("timeline")).get_attribute("textContent")
    for name in ("initialize", "setUser", "getActivationCode", "onUserLoggedIn", "performVerifyAuth",
                 "updateNotification", "platform/authenticateLDA", "onAuthenticateUserAndSignData"):
        assert name in timeline, name
    assert GOOD_PASSWORD not in timeline and code not in timeline, "secrets are masked in the timeline"
    transcript = browser.execute_script("return window.flowhostInspector.transcript(false)")
    assert GOOD_PASSWORD not in transcript and code not in transcript
    # The session token (a JWT: base64url of '{"alg"...') is a bearer credential, masked as the host's --trace masks it.
    assert re.search(r'"jwtJsonTokenInfo":\s*"•••"', timeline) and not re.search(r'"jwtJsonTokenInfo":\s*"eyJ', timeline)
    assert not re.search(r'"jwtJsonTokenInfo":\s*"eyJ', transcript)
    assert "# args: --store {store} --config {config}" in transcript
    assert "-> @B " in transcript and "<- @B " in transcript
    assert "# answer: platform/authenticateLDA {\"authenticated\":true}" in transcript

    # The export is a golden transcript: with its secrets and the user's
    # setup line, Tests/EndToEnd/test_golden.py replays it against fresh hosts.
    kept = browser.execute_script("return window.flowhostInspector.transcript(true)")
    golden = os.path.join(os.path.dirname(inspector.store), "golden")
    os.makedirs(golden)
    with open(os.path.join(golden, "inspector.transcript"), "w") as handle:
        handle.write("# setup: add-user alice\n" + kept)
    end_to_end = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "EndToEnd")
    replay = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_golden.py"],
                            cwd=end_to_end, env=dict(os.environ, FLOWHOST_GOLDEN_DIR=golden),
                            capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0 and "1 passed" in replay.stdout, replay.stdout[-4000:]


def test_platform_keys_made_by_the_page_and_a_denied_lda_prompt(inspector, browser, screenshots):
    code = inspector.admin("add-user", "bob")["activationCode"]
    page = Page(browser, screenshots)
    browser.get(inspector.url)
    page.within(page.panel(1), "event-form-getUser")
    # The device keeps its key in this page (keyCustody "platform"): the host restarts with it.
    settings = page.panel(1).find_element(By.CSS_SELECTOR, "details.settings")
    settings.find_element(By.TAG_NAME, "summary").click()
    settings.find_element(By.CSS_SELECTOR, 'select[name="keyCustody"] option[value="platform"]').click()
    settings.find_element(By.TAG_NAME, "button").click()
    page.wait.until(lambda driver: any('"keyCustody":"platform"' in line for line in driver.execute_script(
        "return window.flowhostInspector.timeline.map(f => f.line)")))
    page.answer(1, "getUser", {"userName": "bob"})
    page.answer(1, "getActivationCode", {"activationCode": code})
    page.answer(1, "getDeviceName", {})
    page.within(page.panel(1), "event-form-getUserConsentForLDA").find_element(*by_testid("consent-allow")).click()
    page.within(page.panel(1), "host-request-platform/authenticateLDA").find_element(*by_testid("host-request-approve")).click()
    page.event(1, "onUserLoggedIn")
    page.in_timeline("platform/createDeviceKey")
    device = inspector.admin("devices", "bob")[0]
    assert device["keyCustody"] == "platform" and device["keyID"].startswith("inspector-")

    # Log in again: the page signs the host's challenge with the key it keeps; the person denies the LDA prompt once.
    page.call(1, "logOff", {"userID": "bob"})
    page.answer(1, "getUser", {"userName": "bob"})
    page.within(page.panel(1), "host-request-platform/authenticateLDA").find_element(*by_testid("host-request-deny")).click()
    page.in_timeline("answer to platform/authenticateLDA")
    page.shot("7-lda-denied")
    replies = browser.execute_script("return window.flowhostInspector.timeline.filter(f => f.direction === '->').map(f => f.line)")
    assert any('"error"' in line and '"reason":"cancelled"' in line for line in replies), "Deny answers with an error, reason cancelled"
    # A denied check logs nobody in: the flow asks for a user again.
    page.within(page.panel(1), "event-form-getUser")
    assert len(page.panel(1).find_elements(*by_testid("event-onUserLoggedIn"))) == 1
    received = browser.execute_script("return window.flowhostInspector.timeline.filter(f => f.direction === '<-').map(f => f.line)")
    assert '"method":"getUser"' in received[-1] and "onUserLoggedIn" not in " ".join(received[-3:])


def test_a_host_that_dies_is_started_again_and_the_panel_goes_on(inspector, browser, screenshots):
    import signal

    page = Page(browser, screenshots)
    browser.get(inspector.url)
    page.within(page.panel(1), "event-form-getUser")
    started = lambda: [line for line in browser.execute_script(
        "return window.flowhostInspector.timeline.filter(f => f.direction === 'host').map(f => f.line)")
        if line.startswith("started:")]
    first = started()[-1]
    pid = int(first.rsplit("(pid ", 1)[1].rstrip(")"))
    os.kill(pid, signal.SIGKILL)
    page.wait.until(lambda driver: len(started()) == 2)
    page.in_timeline("exited: signal 9")
    assert started()[-1] != first, "a new process"
    # The new host initializes on its own and opens its resting challenge again.
    page.wait.until(lambda driver: "host ready" in page.panel(1).find_element(By.TAG_NAME, "h2").text)
    page.within(page.panel(1), "event-form-getUser")


def test_the_language_form_sets_french(inspector, browser, screenshots):
    page = Page(browser, screenshots)
    browser.get(inspector.url)
    page.within(page.panel(1), "event-form-getUser")
    flows = page.wait.until(EC.presence_of_element_located(by_testid("flow-mfa")))
    assert "setSDKLanguage" in flows.text and "onSetLanguageResponse" in flows.text
    page.call(1, "setSDKLanguage", {"localeCode": "fr", "languageDirection": "1"})
    answers = lambda: [frame["params"] for frame in map(json.loads, page.received(1)) if frame.get("method") == "onSetLanguageResponse"]
    page.wait.until(lambda driver: answers())
    assert answers()[0]["localeCode"] == "fr" and answers()[0]["localeName"] == "Français" and answers()[0]["languageDirection"] == 1


def test_my_devices_and_a_push_token_through_their_forms(inspector, browser, screenshots):
    """The SDK's device methods, each through the form the page makes from
    its schema: the list comes back as onGetRegistredDeviceDetails with this
    device marked current, and setDeviceToken (a void call) records the token."""
    code = inspector.admin("add-user", "dora")["activationCode"]
    page = Page(browser, screenshots)
    browser.get(inspector.url)
    page.answer(1, "getUser", {"userName": "dora"})
    page.answer(1, "getActivationCode", {"activationCode": code})
    page.answer(1, "getDeviceName", {})
    page.within(page.panel(1), "event-form-getUserConsentForLDA").find_element(*by_testid("consent-deny")).click()
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    page.event(1, "onUserLoggedIn")

    page.call(1, "getRegisteredDeviceDetails", {"userID": "dora"})
    listed = lambda: [frame["params"] for frame in map(json.loads, page.received(1)) if frame.get("method") == "onGetRegistredDeviceDetails"]
    page.wait.until(lambda driver: listed())
    devices = listed()[0]["pArgs"]["response"]["ResponseData"]["device"]
    assert [device["currentDevice"] for device in devices] == [True], devices
    page.in_timeline("onGetRegistredDeviceDetails")

    token = "cInspectorToken01234:APA91b" + "x" * 64
    page.call(1, "setDeviceToken", {"token": token})
    page.wait.until(lambda driver: inspector.admin("devices", "dora")[0].get("pushToken"))
    page.shot("my-devices")
