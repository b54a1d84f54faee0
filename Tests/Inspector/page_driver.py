"""The inspector's page as the browser tests drive it: by each element's
data-testid, as a person would, with a screenshot of each step."""

import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


def by_testid(name):
    return (By.CSS_SELECTOR, f'[data-testid="{name}"]')


class Page:
    def __init__(self, driver, screenshots):
        self.driver = driver
        self.shots = screenshots
        self.wait = WebDriverWait(driver, 20)

    def panel(self, index):
        return self.wait.until(EC.presence_of_element_located(by_testid(f"device-panel-{index}")))

    def within(self, root, name):
        return WebDriverWait(root, 20).until(lambda scope: scope.find_element(*by_testid(name)))

    def answer(self, device, event, values, button="submit"):
        """Fills the open challenge's form for `event` on `device` and sends it."""
        form = self.within(self.panel(device), f"event-form-{event}")
        for name, value in values.items():
            field = form.find_element(By.CSS_SELECTOR, f'[name="{name}"]')
            field.clear()
            field.send_keys(value)
        form.find_element(*by_testid(button)).click()
        WebDriverWait(self.driver, 20).until(EC.staleness_of(form))

    def call(self, device, method, values):
        form = self.within(self.panel(device), f"method-form-{method}")
        for name, value in values.items():
            field = form.find_element(By.CSS_SELECTOR, f'[name="{name}"]')
            field.clear()
            field.send_keys(value)
        form.find_element(*by_testid("submit")).click()

    def event(self, device, name):
        return self.within(self.panel(device), f"event-{name}")

    def in_timeline(self, text):
        self.wait.until(lambda driver: text in driver.find_element(*by_testid("timeline")).get_attribute("textContent"))

    def shot(self, name):
        path = os.path.join(self.shots, f"{name}.png")
        assert self.driver.save_screenshot(path), path
        assert os.path.getsize(path) > 10_000, "a screenshot of the page, not of a blank window"

    def settle(self, device, **choices):
        """Sets the panel's device settings (each a select's option) and
        applies them: the host restarts, and its initialize carries them."""
        settings = self.panel(device).find_element(By.CSS_SELECTOR, "details.settings")
        if settings.get_attribute("open") is None:
            settings.find_element(By.TAG_NAME, "summary").click()
        for name, value in choices.items():
            settings.find_element(By.CSS_SELECTOR, f'select[name="{name}"] option[value="{value}"]').click()
        initialized = lambda: [line for line in self.sent(device) if '"method":"initialize"' in line]
        before = len(initialized())
        settings.find_element(By.TAG_NAME, "button").click()
        self.wait.until(lambda driver: len(initialized()) > before)
        last = initialized()[-1]
        for name, value in choices.items():
            if name in ("keyCustody",):
                assert f'"{name}":"{value}"' in last, last

    def sent(self, device):
        """Every frame the page sent to `device`'s current and earlier hosts."""
        return self.driver.execute_script(
            "return window.flowhostInspector.timeline.filter(f => f.device === arguments[0] && f.direction === '->')"
            ".map(f => f.line)", device)

    def received(self, device):
        return self.driver.execute_script(
            "return window.flowhostInspector.timeline.filter(f => f.device === arguments[0] && f.direction === '<-')"
            ".map(f => f.line)", device)
