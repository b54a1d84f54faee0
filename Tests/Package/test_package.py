"""The Debian package, as an operator installs and runs it, on this machine
itself (as root, no chroot: the test purges what it installed and removes
the state a purge keeps). In order: scripts/package.sh builds it; lintian finds no
error; apt-get installs it; `flowhost admin check` passes on the installed
config; a full activation and a login go through a host per connection
started by `systemd-socket-activate --accept` (systemd's own contract for a
socket unit with Accept=yes, without systemd as PID 1) on a Unix-domain
socket, running the installed unit's own command line as its user; each
host checks its peer; the same activation and login go through stunnel
over TLS with a certificate made here, behind the socket for TLS clients;
`systemd-analyze security` rates the installed unit; then apt-get purge
leaves nothing behind but /var/lib/flowhost when the operator chose to keep
it (keep-on-purge), and nothing at all when they did not. The users stay
on purge (Debian's practice); the test removes them itself.

The tests run in file order and share one installation (`installed`).
The test writes MARKER before it installs anything and removes it when it
has put everything back: a run that was killed leaves it, and the next run
then removes what that run left (the package, the state, the users) before
it starts. Anything of flowhost's found without it is not the test's to
remove, and the run fails instead.

Without root the tests are skipped; with CI set they fail instead, so that
CI cannot pass without running them."""

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

from flowhost_client import FlowHostClient  # noqa: E402

PACKAGE_FOLDER = os.path.join(ROOT, ".build-package")
UNIT = "/lib/systemd/system/flowhost@.service"
TLS_UNIT = "/lib/systemd/system/flowhost-tls@.service"
SOCKET_UNIT = "/lib/systemd/system/flowhost.socket"
TLS_SOCKET_UNIT = "/lib/systemd/system/flowhost-tls.socket"
STUNNEL_SAMPLE = "/usr/share/doc/flowhost/examples/stunnel.conf"
CLIENTS = "flowhost-clients"
CONFIG = "/etc/flowhost/config.json"
STATE = "/var/lib/flowhost"
STORE = STATE + "/flowhost.sqlite"
KEEP = STATE + "/keep-on-purge"
# Outside the listings below, so that writing it changes nothing they see.
MARKER = "/var/tmp/flowhost-package-test.marker"
# The systemd-analyze exposure (tenths) the unit may reach: it rates 0.5
# SAFE; a unit with a protection taken away rates more.
EXPOSURE_THRESHOLD = 5
PASSWORD = "Tr0ub4dor&Zebra"
# What the listings before and after cover, and what in them is not the
# package's: the package manager's own records, and the empty marker that
# util-linux's libmount leaves in /run when a mount runs while systemd
# reloads its units (seen on a freshly booted machine's first reload).
WATCHED = ["/etc", "/usr", "/var/lib", "/run"]
NOT_WATCHED = ("/var/lib/dpkg/", "/var/lib/apt/", "/etc/ld.so.cache", "/run/systemd/systemd-units-load")


@pytest.fixture(scope="module", autouse=True)
def as_root():
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("Tests/Package installs a package on this machine and needs root; CI is set, so this fails, not skips")
        pytest.skip("installs a package on this machine: run as root (CI does)")


def run(*argv, check=True, timeout=300, **kwargs):
    out = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and out.returncode != 0:
        raise AssertionError("%s: exit %d\n%s%s" % (" ".join(argv), out.returncode, out.stdout, out.stderr))
    return out


def apt_get(*argv, check=True):
    return run("apt-get", *argv, "-y", check=check, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def dpkg_status_word():
    """The last word of dpkg's status for flowhost ("installed",
    "config-files", "not-installed", …); "not-installed" when dpkg does not
    know the package at all."""
    out = run("dpkg-query", "-W", "-f=${Status}", "flowhost", check=False)
    words = out.stdout.split()
    return words[-1] if out.returncode == 0 and words else "not-installed"


def known(database, name):
    return run("getent", database, name, check=False).returncode == 0


def leftovers():
    """What of the package's is on this machine: its dpkg status, its state, its users."""
    found = []
    if dpkg_status_word() != "not-installed":
        found.append("the package (dpkg: %s)" % dpkg_status_word())
    if os.path.lexists(STATE):
        found.append(STATE)
    found += ["user " + name for name in ["flowhost"] if known("passwd", name)]
    found += ["group " + name for name in ["flowhost", CLIENTS] if known("group", name)]
    return found


def remove_leftovers():
    """The package, its state and its users, as the test leaves them."""
    if dpkg_status_word() != "not-installed":
        # dpkg itself, not apt: it purges even after a run killed inside dpkg.
        run("dpkg", "--purge", "flowhost", check=False)
    shutil.rmtree(STATE, ignore_errors=True)
    if known("passwd", "flowhost"):
        run("userdel", "flowhost", check=False)
    for name in ["flowhost", CLIENTS]:
        if known("group", name):
            run("groupdel", name, check=False)


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


def unit_setting(unit, name):
    """The value of setting NAME= in an installed unit file."""
    with open(unit, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(name + "="):
                return line[len(name) + 1:].strip()
    raise AssertionError("no %s= in %s" % (name, unit))


def unit_command(unit=UNIT):
    """ExecStart= of an installed template unit, as argv."""
    return shlex.split(unit_setting(unit, "ExecStart"))


def socket_activate(installed, path, unit, log):
    """A host per connection to PATH, as the socket unit starts UNIT: its
    ExecStart= as its User=/Group=, behind a socket with the unit's
    SocketUser=, SocketGroup= and SocketMode=."""
    process = subprocess.Popen(
        ["systemd-socket-activate", "--accept", "--inetd", "--listen=" + path,
         "setpriv", "--reuid=flowhost", "--regid=flowhost", "--init-groups", "--"] + unit_command(unit),
        stdout=subprocess.DEVNULL, stderr=open(log, "wb"))
    # The file appears at bind(), a moment before listen(): wait for the listening socket.
    wait_for(lambda: unix_listening(path), path)
    shutil.chown(path, "root", CLIENTS)
    os.chmod(path, 0o660)
    return process


def unix_listening(path):
    """Whether a Unix-domain socket listens at PATH (/proc/net/unix: the
    accepting flag, 00010000, on a socket bound there)."""
    with open("/proc/net/unix", encoding="utf-8", errors="replace") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) >= 8 and fields[-1] == path and fields[3] == "00010000":
                return True
    return False


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
        self.tls_socket = os.path.join(self.work, "tls.sock")
        self.activator = None
        self.tls_activator = None
        self.tunnel = None
        self.activator_log = os.path.join(self.work, "activator.log")

    def activator_text(self):
        with open(self.activator_log, encoding="utf-8", errors="replace") as handle:
            return handle.read()

    def stop_processes(self):
        for process in (self.tunnel, self.tls_activator, self.activator):
            if process is not None:
                stop(process)

    def remove(self):
        self.stop_processes()
        shutil.rmtree(self.work, ignore_errors=True)
        # The package, its state and its users were this test's own (MARKER).
        remove_leftovers()
        # Kept while anything is left, for the next run to remove.
        if not leftovers():
            os.unlink(MARKER)


@pytest.fixture(scope="module")
def package():
    out = run(os.path.join(ROOT, "scripts", "package.sh"), cwd=ROOT, timeout=900)
    debs = [name for name in os.listdir(PACKAGE_FOLDER) if name.startswith("flowhost_") and name.endswith(".deb")]
    assert len(debs) == 1, (debs, out.stdout)
    return os.path.join(PACKAGE_FOLDER, debs[0])


@pytest.fixture(scope="module")
def installed(package):
    found = leftovers()
    ours = os.path.exists(MARKER)
    if found and ours:
        print("removing what an earlier run of this test left: " + ", ".join(found))
        # A run killed inside dpkg leaves it interrupted, and apt then refuses to run.
        run("dpkg", "--configure", "-a", check=False)
        remove_leftovers()
        found = leftovers()
    if ours:
        # The earlier run's work folder, which the marker names.
        with open(MARKER, encoding="utf-8") as handle:
            for line in handle.read().splitlines()[1:]:
                if line.startswith(os.path.join(tempfile.gettempdir(), "flowhost-package-")):
                    shutil.rmtree(line, ignore_errors=True)
    assert not found, (
        "flowhost's %s are here, %s: remove them yourself "
        "(`dpkg --purge flowhost; rm -rf %s; userdel flowhost; groupdel %s`) if they are no one's; "
        "this test installs and purges the package itself"
        % (", ".join(found), "and remain after removing them" if ours else "not left by this test (no %s)" % MARKER,
           STATE, CLIENTS))
    before = listing()
    installation = Installation(package, before)
    with open(MARKER, "w", encoding="utf-8") as handle:
        handle.write("Tests/Package/test_package.py installed flowhost here; its next run removes what this one left\n")
        handle.write(installation.work + "\n")
    try:
        apt_get("install", package)
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
                 SOCKET_UNIT, UNIT, TLS_SOCKET_UNIT, TLS_UNIT, STUNNEL_SAMPLE]:
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
    # Clients connect as a group of their own, never the hosts' group, which
    # the hosts may share files with (a pgpass, a TLS key).
    assert known("group", CLIENTS) and known("group", "flowhost")
    assert run("id", "-nG", "flowhost").stdout.split() == ["flowhost"]
    for unit in (SOCKET_UNIT, TLS_SOCKET_UNIT):
        assert unit_setting(unit, "SocketGroup") == CLIENTS, unit
    for unit in (UNIT, TLS_UNIT):
        assert unit_setting(unit, "Group") == "flowhost"
        assert unit_command(unit)[-2:] == ["--peer-group", CLIENTS], unit
    pc = run("pkg-config", "--cflags", "flowhost-plugin").stdout
    assert "-I/usr/include/flowhost" in pc


def test_systemd_analyze_rates_the_installed_units_safe(installed):
    for unit in (UNIT, TLS_UNIT):
        out = run("systemd-analyze", "security", "--offline=true", "--threshold=%d" % EXPOSURE_THRESHOLD, unit, check=False)
        print(out.stdout.splitlines()[-1] if out.stdout else out.stderr)
        assert out.returncode == 0, out.stdout + out.stderr
    # The threshold tells: the same unit without its private network rates worse, and fails.
    weakened = os.path.join(installed.work, "weakened@.service")
    with open(UNIT, encoding="utf-8") as source, open(weakened, "w", encoding="utf-8") as target:
        target.writelines(line for line in source if not line.startswith(("PrivateNetwork=", "IPAddressDeny=")))
    out = run("systemd-analyze", "security", "--offline=true", "--threshold=%d" % EXPOSURE_THRESHOLD, weakened, check=False)
    assert out.returncode != 0, out.stdout


def test_admin_check_passes_on_the_installed_config(installed):
    run("systemctl", "enable", "flowhost.socket")
    installed.code = json.loads(as_flowhost("admin", "add-user", "alice", "--json").stdout)["activationCode"]
    out = as_flowhost("admin", "check", check=False)
    print(out.stdout + out.stderr)
    assert out.returncode == 0
    assert all(line.startswith("ok") for line in out.stdout.splitlines() if line.strip()), out.stdout


def test_activation_and_login_through_socket_activation(installed):
    installed.activator = socket_activate(installed, installed.socket, UNIT, installed.activator_log)
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
try:
    # A refusing host may close before the frame is even sent.
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1.1","clientInfo":{"name":"t","version":"1"},"device":{}}}\\n')
    print("answered" if s.recv(65536) else "closed")
except (ConnectionResetError, BrokenPipeError):  # closed with the frame unread
    print("closed")
"""


def peer(installed, *credentials):
    return run("setpriv", *credentials, "--", sys.executable, "-c", PEER, installed.socket).stdout.strip()


def test_who_may_connect(installed):
    nobody = ["--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    member = ["--reuid=nobody", "--regid=nogroup", "--groups=" + CLIENTS]
    # In the hosts' own group only: it shares the hosts' files, not their socket.
    hosts_group = ["--reuid=nobody", "--regid=nogroup", "--groups=flowhost"]
    # The socket's mode keeps others out; a member of flowhost-clients is served.
    assert peer(installed, *nobody) == "no access"
    assert peer(installed, *hosts_group) == "no access"
    assert peer(installed, *member) == "answered"
    # With the mode widened by mistake, each host still refuses a stranger.
    os.chmod(installed.socket, 0o666)
    try:
        assert peer(installed, *nobody) == "closed"
        assert peer(installed, *hosts_group) == "closed"
        assert peer(installed, *member) == "answered"
    finally:
        os.chmod(installed.socket, 0o660)
    log = installed.activator_text()
    assert "not root, this host's user or a member of %s; refused" % CLIENTS in log
    assert "died with code 77" in log


def test_activation_and_login_over_tls_through_stunnel(installed):
    certificate = os.path.join(installed.work, "host.crt")
    key = os.path.join(installed.work, "host.key")
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", certificate)
    port = free_port()
    # Remote clients have a socket of their own, with fewer slots than the
    # local clients', which they cannot take.
    assert int(unit_setting(TLS_SOCKET_UNIT, "MaxConnections")) < int(unit_setting(SOCKET_UNIT, "MaxConnections"))
    assert unit_setting(TLS_SOCKET_UNIT, "ListenStream") != unit_setting(SOCKET_UNIT, "ListenStream")
    activator_log = os.path.join(installed.work, "tls-activator.log")
    installed.tls_activator = socket_activate(installed, installed.tls_socket, TLS_UNIT, activator_log)
    # The installed sample itself, on throw-away paths.
    paths = {"accept": "127.0.0.1:%d" % port, "connect": installed.tls_socket, "cert": certificate, "key": key}
    settings = {}
    lines = []
    with open(STUNNEL_SAMPLE, encoding="utf-8") as handle:
        for line in handle:
            name, equals, value = line.partition("=")
            if equals and not line.startswith(";"):
                settings[name.strip()] = value.strip()
                if name.strip() in paths:
                    line = "%s = %s\n" % (name.strip(), paths[name.strip()])
            lines.append(line)
    assert settings["setgid"] == CLIENTS and settings["connect"] == unit_setting(TLS_SOCKET_UNIT, "ListenStream")
    # A client that connects and waits holds its slot for minutes at most.
    assert int(settings["TIMEOUTidle"]) <= 300
    config = os.path.join(installed.work, "stunnel.conf")
    with open(config, "w", encoding="utf-8") as handle:
        handle.writelines(lines)
    installed.tunnel = subprocess.Popen(["stunnel4", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def listening():
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0
    wait_for(listening, "stunnel")

    trusting = ssl.create_default_context(cafile=certificate)
    code = json.loads(as_flowhost("admin", "add-user", "bob", "--json").stdout)["activationCode"]
    try:
        with FlowHostClient.connect(("127.0.0.1", port), ssl_context=trusting, server_hostname="localhost") as host:
            activate(host, "bob", code, "phone-1")
        with FlowHostClient.connect(("127.0.0.1", port), ssl_context=trusting, server_hostname="localhost") as host:
            log_in(host, "bob", "phone-1")
    except TimeoutError as error:
        # What the hosts behind the tunnel said, for a host that never answered.
        with open(activator_log, encoding="utf-8", errors="replace") as handle:
            raise AssertionError("%s; the activated hosts' stderr ends:\n%s" % (error, handle.read()[-4000:])) from error
    # A client that does not trust the certificate never reaches a host.
    with pytest.raises(ssl.SSLCertVerificationError):
        FlowHostClient.connect(("127.0.0.1", port), ssl_context=ssl.create_default_context(), server_hostname="localhost")
    audit = as_flowhost("admin", "audit", "--user", "bob", "--json").stdout
    assert "bob" in audit


def changes_since(installed):
    after = listing()
    added = sorted(after - installed.before)
    removed = sorted(installed.before - after)
    print("left after purge, not there before:\n  " + "\n  ".join(added))
    print("gone after purge, there before:\n  " + "\n  ".join(removed))
    return added, removed


def test_purge_keeps_the_state_when_the_operator_chose_to(installed):
    installed.stop_processes()
    open(KEEP, "w").close()
    apt_get("purge", "flowhost")
    added, removed = changes_since(installed)
    assert not removed
    assert all(path == STATE or path.startswith(STATE + "/") for path in added), added
    assert os.path.exists(STORE) and os.path.exists(KEEP)
    assert dpkg_status_word() == "not-installed"


def test_purge_removes_the_state_by_default(installed):
    shutil.rmtree(STATE)
    apt_get("install", installed.deb)
    as_flowhost("admin", "add-user", "carol", "--json")
    assert os.path.exists(STORE)
    apt_get("purge", "flowhost")
    added, removed = changes_since(installed)
    assert not removed
    assert not added, added
    assert not os.path.lexists(STATE)
    assert dpkg_status_word() == "not-installed"
