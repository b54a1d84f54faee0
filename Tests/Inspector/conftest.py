"""The inspector's tests: `flowhost inspect` started as a user starts it,
on a store and config of the test's own, and a real headless Chromium."""

import json
import os
import re
import shutil
import subprocess

import pytest

CHEAP_CONFIG = {
    "passwords": {"argon2": {"memoryKiB": 1024, "iterations": 1, "parallelism": 1}, "maxAttempts": 3},
    "activation": {"maxAttempts": 3, "resendIntervalSeconds": 30},
}
GOOD_PASSWORD = "Tr0ub4dor&Zebra"


def _bin_dir():
    folder = os.environ.get("FLOWHOST_BIN_DIR")
    if not folder:
        folder = subprocess.run(["swift", "build", "--show-bin-path"], capture_output=True, text=True,
                                check=True).stdout.strip()
    return folder


@pytest.fixture(scope="session")
def flowhost_bin():
    path = os.path.join(_bin_dir(), "flowhost")
    assert os.access(path, os.X_OK), f"build first: {path}"
    assert os.access(os.path.join(_bin_dir(), "flowhost-inspector"), os.X_OK), "build the flowhost-inspector product"
    return path


class Inspector:
    """A running `flowhost inspect`: its address, and the store it was given."""

    def __init__(self, folder, flowhost_bin, extra=(), env=None, preexec_fn=None, config=None):
        self.bin = flowhost_bin
        self.store = os.path.join(folder, "store.sqlite")
        self.config = os.path.join(folder, "config.json")
        with open(self.config, "w") as handle:
            json.dump(config or CHEAP_CONFIG, handle)
        self.process = subprocess.Popen(
            [flowhost_bin, "inspect", "--store", self.store, "--config", self.config, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=None if env is None else {**os.environ, **env}, preexec_fn=preexec_fn)
        first = self.process.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+))", first)
        assert match, f"no address in {first!r}; stderr: {self.process.stderr.read() if self.process.poll() is not None else ''}"
        self.url, self.port, self.token = match.group(1), int(match.group(2)), match.group(3)

    def admin(self, *args):
        out = subprocess.run([self.bin, "admin", *args, "--store", self.store, "--config", self.config, "--json"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.process.stdout.close()
        self.process.stderr.close()


@pytest.fixture
def inspector(tmp_path, flowhost_bin):
    running = Inspector(str(tmp_path), flowhost_bin)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def screenshots():
    folder = os.environ.get("FLOWHOST_SCREENSHOTS") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", ".build-screenshots")
    folder = os.path.abspath(folder)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return folder


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1600,1000",
                     "--disable-gpu", "--no-first-run"):
        options.add_argument(argument)
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary:
        options.binary_location = binary
    driver_path = shutil.which("chromedriver")
    driver = webdriver.Chrome(options=options, service=Service(driver_path) if driver_path else None)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()
