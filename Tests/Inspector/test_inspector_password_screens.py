"""The getPassword screen says what each mode FlowHost sends asks for (the
vocabulary's modes): 2 is a change the user asked for, 4 an expired password."""

from conftest import GOOD_PASSWORD, Inspector
from page_driver import Page
from test_inspector_forgot_password import activated_and_at_password


def test_mode_2_is_a_change_the_user_asked_for_not_an_expiry(tmp_path, flowhost_bin, browser, screenshots):
    inspector = Inspector(str(tmp_path), flowhost_bin)
    try:
        page = Page(browser, screenshots)
        activated_and_at_password(inspector, page)
        page.answer(1, "getPassword", {"password": GOOD_PASSWORD})
        page.call(1, "initiateUpdateFlowForCredential", {"credentialType": "Password"})
        form = page.within(page.panel(1), "event-form-getPassword")
        page.wait.until(lambda driver: "challengeMode 2" in form.text)
        assert "expired" not in form.text, form.text
        assert "Change your password" in form.text, form.text
    finally:
        inspector.stop()
