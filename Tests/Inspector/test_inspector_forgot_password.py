"""The inspector's getPassword form offers forgotPassword only where the
challenge does (mode 0, ENABLE_FORGOT_PASSWORD "true"), and its form runs
the reset: the code's form, then a new password."""

from conftest import CHEAP_CONFIG, GOOD_PASSWORD, Inspector
from page_driver import Page, by_testid
from selenium.webdriver.common.by import By

NEW_PASSWORD = "Another&Passw0rd1"


def activated_and_at_password(inspector, page):
    code = inspector.admin("add-user", "alice")["activationCode"]
    page.driver.get(inspector.url)
    page.answer(1, "getUser", {"userName": "alice"})
    page.answer(1, "getActivationCode", {"activationCode": code})
    page.answer(1, "getDeviceName", {})
    page.within(page.panel(1), "event-form-getUserConsentForLDA").find_element(*by_testid("consent-deny")).click()
    page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
    page.event(1, "onUserLoggedIn")
    page.call(1, "logOff", {"userID": "alice"})
    page.answer(1, "getUser", {"userName": "alice"})
    return page.within(page.panel(1), "event-form-getPassword")


def test_forgot_password_is_offered_only_when_the_challenge_says_so(tmp_path, flowhost_bin, browser, screenshots):
    (tmp_path / "off").mkdir()
    off = Inspector(str(tmp_path / "off"), flowhost_bin)
    try:
        form = activated_and_at_password(off, Page(browser, screenshots))
        assert not form.find_elements(*by_testid("answer-forgotPassword")), "not offered while passwords.forgotPassword is off"
    finally:
        off.stop()
    (tmp_path / "on").mkdir()
    config = dict(CHEAP_CONFIG, passwords=dict(CHEAP_CONFIG["passwords"], forgotPassword=True))
    on = Inspector(str(tmp_path / "on"), flowhost_bin, config=config)
    try:
        page = Page(browser, screenshots)
        form = activated_and_at_password(on, page)
        assert "Forgotten it?" in form.text
        forgot = form.find_element(*by_testid("answer-forgotPassword"))
        assert forgot.find_element(By.NAME, "userID").get_attribute("value") == "alice", "filled in from the challenge"
        forgot.find_element(*by_testid("submit")).click()
        page.within(page.panel(1), "event-form-getActivationCode")
        code = [row for row in on.admin("outbox") if row["userID"] == "alice"][-1]["activationCode"]
        page.answer(1, "getActivationCode", {"activationCode": code})
        page.within(page.panel(1), "event-form-getUserConsentForLDA").find_element(*by_testid("consent-deny")).click()
        page.answer(1, "getPassword", {"password": NEW_PASSWORD})
        page.wait.until(lambda driver: len(page.panel(1).find_elements(*by_testid("event-onUserLoggedIn"))) == 2)
        page.shot("forgot-password")
    finally:
        on.stop()
