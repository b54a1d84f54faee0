"""The Debian package, as an operator installs and runs it, on this machine
itself (as root, no chroot: the test purges what it installed and removes
the state a purge keeps). In order: scripts/package.sh builds it; lintian finds no
error; apt-get installs it; `flowhost admin check` passes on the installed
config; a full activation and a login go through a host per connection
started by `systemd-socket-activate --accept` (systemd's own contract for a
socket unit with Accept=yes, without systemd as PID 1) on a Unix-domain
socket, running the installed unit's own command line as its user; each
host checks its peer; the same activation and login go through stunnel
over TLS with a certificate made here; then apt-get purge leaves nothing
behind but the state the package keeps on purge (/var/lib/flowhost, with
the flowhost user that owns it), which the test then removes itself.

The tests run in file order and share one installation (`installed`)."""

import json
import os
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Protocol", "clients", "python"))

from flowhost_client import FlowHostClient, HostExited  # noqa: E402

PACKAGE_FOLDER = os.path.join(ROOT, ".build-package")
UNIT = "/lib/systemd/system/flowhost@.service"
CONFIG = "/etc/flowhost/config.json"
STATE = "/var/lib/flowhost"
STORE = STATE + "/flowhost.sqlite"
PASSWORD = "Tr0ub4dor&Zebra"
# What the listings before and after cover, and what in them is not the
# package's (the package manager's own records).
WATCHED = ["/etc", "/usr", "/var/lib", "/run"]
NOT_WATCHED = ("/var/lib/dpkg/", "/var/lib/apt/", "/etc/ld.so.cache")
# Left on purge on purpose: the hosts' store and keys (receipts verify only
# with the issuer's keys), for the operator to remove when they mean it.
KEPT_ON_PURGE = STATE

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="installs a package on this machine: run as root (CI does)")


def run(*argv, check=True, timeout=300, **kwargs):
    out = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and out.returncode != 0:
        raise AssertionError("%s: exit %d\n%s%s" % (" ".join(argv), out.returncode, out.stdout, out.stderr))
    return out


def as_flowhost(*argv, check=True):
    """An admin command as the hosts' user, on the installed config and store."""
    return run("runuser", "-u", "flowhost", "--", "flowhost", *argv, "--config", CONFIG, "--store", STORE, "--state-dir", STATE,
               check=check)


def listing():
    paths = set()
    for top in WATCHED:
        for folder, folders, files in os.walk(top):
            for name in folders + files:
                path = os.path.join(folder, name)
                if not path.startswith(NOT_WATCHED):
                    paths.add(path)
    return paths


def unit_command():
    """ExecStart= of the installed template unit, as argv."""
    with open(UNIT, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("ExecStart="):
                return shlex.split(line[len("ExecStart="):])
    raise AssertionError("no ExecStart= in " + UNIT)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(predicate, what, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def stop(process):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def activate(host, user, code, device):
    host.initialize(device={"deviceID": device, "deviceName": device, "ldaCapabilities": []})
    host.wait_event("getUser")
    host.request("setUser", {"userName": user})
    host.wait_event("getActivationCode")
    host.request("setActivationCode", {"activationCode": code})
    name = host.wait_event("getDeviceName")
    host.request("setDeviceName", {"deviceName": name["params"]["deviceName"]})
    event = host.wait_event()
    if event["method"] == "getUserConsentForLDA":
        host.request("setUserConsentForLDA", [False, event["params"]["challengeMode"], event["params"]["authenticationType"]])
        event = host.wait_event("getPassword")
    assert event["method"] == "getPassword" and event["params"]["challengeMode"] == 1
    host.request("setPassword", [PASSWORD, 1])
    assert host.wait_event("onUserLoggedIn")["params"]["userID"] == user
    assert host.shutdown() is None  # no exit status crosses a socket


def log_in(host, user, device):
    host.initialize(device={"deviceID": device, "deviceName": device, "ldaCapabilities": []})
    host.wait_event("getUser")
    host.request("setUser", {"userName": user})
    event = host.wait_event("getPassword")
    assert event["params"]["challengeMode"] == 0
    host.request("setPassword", [PASSWORD, 0])
    assert host.wait_event("onUserLoggedIn")["params"]["userID"] == user
    host.shutdown()


class Installation:
    def __init__(self, deb, before):
        self.deb = deb
        self.before = before
        self.work = tempfile.mkdtemp(prefix="flowhost-package-")
        # stunnel, once it is the stunnel4 user, reaches the socket through here.
        os.chmod(self.work, 0o755)
        self.socket = os.path.join(self.work, "flowhost.sock")
        self.activator = None
        self.activator_log = os.path.join(self.work, "activator.log")
        self.purged = False

    def activator_text(self):
        with open(self.activator_log, encoding="utf-8", errors="replace") as handle:
            return handle.read()

    def remove(self):
        for process in (getattr(self, "tunnel", None), self.activator):
            if process is not None:
                stop(process)
        shutil.rmtree(self.work, ignore_errors=True)
        if not self.purged:
            run("apt-get", "purge", "-y", "flowhost", check=False, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        # The state the package keeps on purge, and its user, were this test's own.
        shutil.rmtree(KEPT_ON_PURGE, ignore_errors=True)
        if run("getent", "passwd", "flowhost", check=False).returncode == 0:
            run("userdel", "flowhost", check=False)
        if run("getent", "group", "flowhost", check=False).returncode == 0:
            run("groupdel", "flowhost", check=False)


@pytest.fixture(scope="module")
def package():
    out = run(os.path.join(ROOT, "scripts", "package.sh"), cwd=ROOT, timeout=900)
    debs = [name for name in os.listdir(PACKAGE_FOLDER) if name.startswith("flowhost_") and name.endswith(".deb")]
    assert len(debs) == 1, (debs, out.stdout)
    return os.path.join(PACKAGE_FOLDER, debs[0])


@pytest.fixture(scope="module")
def installed(package):
    already = run("dpkg-query", "-W", "-f=${Status}", "flowhost", check=False).stdout
    assert "installed" not in already and not os.path.exists(STATE), (
        "flowhost is installed here already, or %s is left from an earlier run: `apt-get purge -y flowhost; rm -rf %s; "
        "userdel flowhost` first (this test installs and purges the package itself)" % (STATE, STATE))
    before = listing()
    installation = Installation(package, before)
    try:
        run("apt-get", "install", "-y", package, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        yield installation
    finally:
        installation.remove()


def test_lintian_finds_no_error(package):
    out = run("lintian", "--fail-on", "error", "--pedantic", package, check=False)
    print(out.stdout + out.stderr)
    assert out.returncode == 0
    assert not [line for line in out.stdout.splitlines() if line.startswith("E:")]


def test_the_package_installs_the_host_its_flows_units_and_config(installed):
    for path in ["/usr/bin/flowhost", "/usr/bin/flowhost-cli", "/usr/include/flowhost/flowhost_plugin.h",
                 "/usr/share/pkgconfig/flowhost-plugin.pc", "/usr/share/man/man1/flowhost.1.gz", CONFIG,
                 "/lib/systemd/system/flowhost.socket", UNIT]:
        assert os.path.exists(path), path
    conffiles = run("dpkg-query", "--showformat=${Conffiles}", "--show", "flowhost").stdout
    assert CONFIG in conffiles
    # Debian's C libraries, as Depends, never a copy; the Swift runtime privately.
    depends = run("dpkg-query", "--showformat=${Depends}", "--show", "flowhost").stdout
    for library in ["libsqlite3-0", "libsodium23", "libjansson4", "libargon2-1"]:
        assert library in depends, depends
    for image in ["/usr/bin/flowhost", "/usr/bin/flowhost-cli"]:
        loaded = run("ldd", image).stdout
        assert "/opt/swift" not in loaded and "/usr/lib/flowhost/swift/libswiftCore.so" in loaded, loaded
    # The built-in flows load from their root-owned folder as they are.
    plugins = json.loads(run("runuser", "-u", "flowhost", "--", "flowhost", "plugins", "--json").stdout)
    print(json.dumps(plugins, indent=1)[:2000])
    text = json.dumps(plugins)
    for flow in ["mfa", "step-up", "device-activation", "lda-toggle", "data-signing"]:
        assert '"%s"' % flow in text, flow
    assert "/usr/lib/flowhost/plugins" in text
    assert os.stat(STATE).st_mode & 0o777 == 0o700
    pc = run("pkg-config", "--cflags", "flowhost-plugin").stdout
    assert "-I/usr/include/flowhost" in pc


def test_admin_check_passes_on_the_installed_config(installed):
    run("systemctl", "enable", "flowhost.socket")
    installed.code = json.loads(as_flowhost("admin", "add-user", "alice", "--json").stdout)["activationCode"]
    out = as_flowhost("admin", "check", check=False)
    print(out.stdout + out.stderr)
    assert out.returncode == 0
    assert all(line.startswith("ok") for line in out.stdout.splitlines() if line.strip()), out.stdout


def test_activation_and_login_through_socket_activation(installed):
    installed.activator = subprocess.Popen(
        ["systemd-socket-activate", "--accept", "--inetd", "--listen=" + installed.socket,
         "setpriv", "--reuid=flowhost", "--regid=flowhost", "--init-groups", "--"] + unit_command(),
        stdout=subprocess.DEVNULL, stderr=open(installed.activator_log, "wb"))
    wait_for(lambda: os.path.exists(installed.socket), "the socket")
    # flowhost.socket's SocketUser=, SocketGroup= and SocketMode=.
    shutil.chown(installed.socket, "root", "flowhost")
    os.chmod(installed.socket, 0o660)
    with FlowHostClient.connect(installed.socket) as host:
        activate(host, "alice", installed.code, "laptop-1")
    with FlowHostClient.connect(installed.socket) as host:
        log_in(host, "alice", "laptop-1")
    assert "died with code 0" in installed.activator_text()


PEER = """
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except PermissionError:
    print("no access"); sys.exit(0)
s.settimeout(10)
s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1.1","clientInfo":{"name":"t","version":"1"},"device":{}}}\\n')
try:
    print("answered" if s.recv(65536) else "closed")
except ConnectionResetError:  # closed with the frame unread
    print("closed")
"""


def peer(installed, *credentials):
    return run("setpriv", *credentials, "--", sys.executable, "-c", PEER, installed.socket).stdout.strip()


def test_who_may_connect(installed):
    nobody = ["--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    member = ["--reuid=nobody", "--regid=nogroup", "--groups=flowhost"]
    # The socket's mode keeps others out; a member of flowhost is served.
    assert peer(installed, *nobody) == "no access"
    assert peer(installed, *member) == "answered"
    # With the mode widened by mistake, each host still refuses a stranger.
    os.chmod(installed.socket, 0o666)
    try:
        assert peer(installed, *nobody) == "closed"
        assert peer(installed, *member) == "answered"
    finally:
        os.chmod(installed.socket, 0o660)
    log = installed.activator_text()
    assert "not root, this host's user or a member of flowhost; refused" in log
    assert "died with code 77" in log


def test_activation_and_login_over_tls_through_stunnel(installed):
    certificate = os.path.join(installed.work, "host.crt")
    key = os.path.join(installed.work, "host.key")
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", certificate)
    port = free_port()
    config = os.path.join(installed.work, "stunnel.conf")
    # packaging/stunnel.conf's settings, on throw-away paths, in the foreground.
    with open(config, "w", encoding="utf-8") as handle:
        handle.write("foreground = yes\nsetuid = stunnel4\nsetgid = flowhost\npid =\n\n[flowhost]\n"
                     "accept = 127.0.0.1:%d\nconnect = %s\ncert = %s\nkey = %s\nsslVersionMin = TLSv1.2\n"
                     % (port, installed.socket, certificate, key))
    installed.tunnel = subprocess.Popen(["stunnel4", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def listening():
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0
    wait_for(listening, "stunnel")

    trusting = ssl.create_default_context(cafile=certificate)
    code = json.loads(as_flowhost("admin", "add-user", "bob", "--json").stdout)["activationCode"]
    with FlowHostClient.connect(("127.0.0.1", port), ssl_context=trusting, server_hostname="localhost") as host:
        activate(host, "bob", code, "phone-1")
    with FlowHostClient.connect(("127.0.0.1", port), ssl_context=trusting, server_hostname="localhost") as host:
        log_in(host, "bob", "phone-1")
    # A client that does not trust the certificate never reaches a host.
    with pytest.raises(ssl.SSLCertVerificationError):
        FlowHostClient.connect(("127.0.0.1", port), ssl_context=ssl.create_default_context(), server_hostname="localhost")
    audit = as_flowhost("admin", "audit", "--user", "bob", "--json").stdout
    assert "bob" in audit


def test_purge_leaves_only_the_kept_state(installed):
    for process in (installed.tunnel, installed.activator):
        stop(process)
    run("apt-get", "purge", "-y", "flowhost", env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    installed.purged = True
    after = listing()
    added = sorted(after - installed.before)
    removed = sorted(installed.before - after)
    print("left after purge, not there before:\n  " + "\n  ".join(added))
    print("gone after purge, there before:\n  " + "\n  ".join(removed))
    assert not removed
    assert all(path == KEPT_ON_PURGE or path.startswith(KEPT_ON_PURGE + "/") for path in added), added
    assert os.path.exists(STORE)
    assert run("dpkg-query", "-W", "flowhost", check=False).returncode != 0 or \
        "not-installed" in run("dpkg-query", "-W", "-f=${Status}", "flowhost", check=False).stdout
