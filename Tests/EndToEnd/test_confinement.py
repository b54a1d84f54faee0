"""What an isolated flow cannot do (spec §8, "What is enforced"), tried one
escape at a time by the `escapes` test flow (plugins/escapes.c), run with
--isolate: it cannot fake the operator's terminal input, signal, limit or
reprioritise the host, change a file's metadata, look at a path, read the
host's environment, or reach the host's stderr with a raw byte; its entry
symbol already runs confined, and no thread its constructor started
outlives the confinement. After each attempt the host is unharmed."""

import errno
import os
import pty
import stat
import subprocess
import sys
import threading
import time
import tty

import pytest
from flowhost_client import FlowHostClient

from conftest import DEVICE, plugin_copy, wait_until

# Sanitizer builds run the child without filters or Landlock (spec §8); its
# terminal, its output and its environment are the same there.
FILTERED = pytest.mark.skipif(bool(os.environ.get("FLOWHOST_SANITIZER")),
                              reason="sanitizer builds run the child without filters (spec §8)")

SECRET = "host-only-secret-7Qx2"


def start(spawn, echo_dir, test_plugins):
    args = ["--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["escapes"], "--isolate", "escapes"]
    return spawn(*args, env={"FLOWHOST_LOG_LEVEL": "info", "FLOWHOST_TEST_SECRET": SECRET})


@pytest.fixture
def host(spawn, echo_dir, test_plugins):
    started = start(spawn, echo_dir, test_plugins)
    started.initialize(device=DEVICE)
    return started


def attempt(host, what, target=None):
    params = {"what": what}
    if target is not None:
        params["target"] = target
    return host.request("escape.try", params)


def unharmed(host):
    assert host.process.poll() is None
    assert host.request("echo", {"text": "still here"}) == {"text": "still here"}


def host_limit(pid, name):
    with open("/proc/%d/limits" % pid) as handle:
        for line in handle.read().splitlines()[1:]:
            if line.startswith(name):
                return line[26:].split()[:2]
    raise AssertionError(name)


def nice_of(pid):
    with open("/proc/%d/stat" % pid) as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[16])


@FILTERED
@pytest.mark.parametrize("what", ["kill", "tgkill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd"])
def test_no_signal_reaches_the_host(host, what):
    outcome = attempt(host, what)
    assert outcome["pid"] != host.process.pid
    assert outcome["done"] is False, outcome
    unharmed(host)


@FILTERED
@pytest.mark.parametrize("what", ["socket", "fork", "execve", "ptrace", "process_vm_readv", "fchmod"])
def test_no_socket_process_program_debugger_or_descriptor_mode(host, what):
    outcome = attempt(host, what)
    assert outcome["done"] is False and outcome["errno"] == errno.EPERM, outcome
    unharmed(host)


@FILTERED
def test_the_hosts_limits_and_priority_and_its_own_ceiling_are_left_alone(host):
    pid = host.process.pid
    files, nice = host_limit(pid, "Max open files"), nice_of(pid)
    for what in ["prlimit", "setpriority", "raise_own_limit"]:
        outcome = attempt(host, what)
        assert outcome["done"] is False, (what, outcome)
    assert host_limit(pid, "Max open files") == files
    assert nice_of(pid) == nice
    assert host_limit(outcome["pid"], "Max open files") == ["64", "64"]
    unharmed(host)


@FILTERED
def test_no_file_changes_its_metadata_or_name(host, tmp_path):
    folder = tmp_path / "keys"
    folder.mkdir()
    target = folder / "key"
    target.write_text("a host-custody key")
    os.chmod(str(target), 0o600)
    os.utime(str(target), (1_700_000_000, 1_700_000_000))
    before = os.stat(str(target))
    for what in ["chmod", "fchmodat", "chown", "utimensat", "utimes", "rename", "unlink", "link", "mkdir", "mknod", "truncate",
                 "access", "readlink"]:
        outcome = attempt(host, what, str(target))
        assert outcome["done"] is False, (what, outcome)
    after = os.stat(str(target))
    assert stat.S_IMODE(after.st_mode) == 0o600
    assert (after.st_uid, after.st_gid, after.st_mtime, after.st_ino, after.st_size) == (
        before.st_uid, before.st_gid, before.st_mtime, before.st_ino, before.st_size)
    assert os.listdir(str(folder)) == ["key"]
    unharmed(host)


@FILTERED
def test_no_path_can_be_looked_at_and_a_missing_file_looks_like_a_present_one(host, tmp_path):
    present = tmp_path / "store.sqlite"
    present.write_text("x")
    for what in ["stat", "name_to_handle_at", "open"]:
        seen = attempt(host, what, str(present))
        missing = attempt(host, what, str(tmp_path / "nothing-here"))
        assert seen["done"] is False and missing["done"] is False, (what, seen, missing)
        assert seen["errno"] == missing["errno"], (what, seen, missing)
    assert attempt(host, "open", str(present))["errno"] == errno.EACCES
    unharmed(host)


@FILTERED
def test_glibcs_fstat_is_refused_with_stat_by_path(host):
    # glibc's fstat() is newfstatat(fd, "", AT_EMPTY_PATH), which could as
    # well name an absolute path: the second step refuses it.
    assert attempt(host, "fstat")["errno"] == errno.EPERM


@FILTERED
def test_the_entry_symbol_already_runs_confined(spawn, echo_dir, test_plugins, tmp_path):
    # In the flow's child and, with --isolate NAME, in the child that learns
    # the flows' names: the entry symbol of each tries to write beside its library.
    folder = tmp_path / "escapes"
    plugin_copy(test_plugins, "escapes", folder, "write-here")
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", str(folder), "--isolate", "escapes",
                 env={"FLOWHOST_LOG_LEVEL": "info"})
    host.initialize(device=DEVICE)
    entry = host.request("escape.entry")
    assert entry == {"opened": False, "errno": errno.EACCES, "pid": entry["pid"]}
    assert not (folder / "entry-wrote").exists()
    assert "flow names learnt in one child process: 2 of 2 libraries" in host.stderr_text() or \
        os.environ.get("FLOWHOST_TEST_ISOLATE") == "all"


def test_the_child_has_none_of_the_hosts_environment(host):
    outcome = attempt(host, "getenv", "FLOWHOST_TEST_SECRET")
    assert outcome["done"] is False, outcome
    with open("/proc/%d/environ" % outcome["pid"], "rb") as handle:
        environment = handle.read()
    assert SECRET.encode() not in environment
    assert b"FLOWHOST_STORE" not in environment and b"FLOWHOST_LOG_LEVEL" not in environment


def test_what_the_flow_writes_reaches_the_hosts_stderr_escaped_one_line_at_a_time(host):
    pid = attempt(host, "getenv", "HOME")["pid"]
    for fd in (1, 2):
        assert os.readlink("/proc/%d/fd/%d" % (pid, fd)).startswith("pipe:")
    forged = "\x1b]0;owned\x07\x1b[2J2026-01-01T00:00:00Z error flowhost: forged\rline\n" + "x" * 5000 + "\n"
    assert host.request("escape.write", {"text": forged})["wrote"] == len(forged.encode())
    wait_until(lambda: "flow escapes wrote: " + "x" * 100 in host.stderr_text())
    text = host.stderr_text()
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    relayed = [line for line in text.splitlines() if "flow escapes wrote:" in line]
    assert relayed[0].endswith(r"flow escapes wrote: \u{1b}]0;owned\u{7}\u{1b}[2J2026-01-01T00:00:00Z error flowhost: forged\rline")
    assert [line for line in text.splitlines() if "error flowhost: forged" in line] == relayed[:1]
    assert len(relayed[1]) < 1200 and relayed[1].endswith("…(cut)")
    unharmed(host)


# The host on a terminal: its stderr is a pseudo-terminal that is also its
# controlling terminal, as when an operator runs it from a shell.
ON_A_TERMINAL = """
import os, sys
os.setsid()
terminal = os.open(sys.argv[1], os.O_RDWR)   # a session leader's first terminal becomes its controlling one
os.dup2(terminal, 2)
os.close(terminal)
os.execv(sys.argv[2], sys.argv[2:])
"""


def test_the_flow_cannot_fake_input_on_the_operators_terminal(flowhost_bin, echo_dir, test_plugins, tmp_path):
    master, slave = pty.openpty()
    slave_path = os.ttyname(slave)
    # Raw, so anything pushed into the terminal's input is there to read as it came.
    tty.setraw(slave)
    os.set_blocking(slave, False)
    written = []

    def drain():
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                return
            if not chunk:
                return
            written.append(chunk)

    threading.Thread(target=drain, daemon=True).start()
    environment = dict(os.environ, FLOWHOST_LOG_LEVEL="info", FLOWHOST_STORE=str(tmp_path / "s.sqlite"))
    environment.pop("FLOWHOST_PLUGIN_PATH", None)
    arguments = [flowhost_bin, "--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["escapes"],
                 "--isolate", "escapes"]
    if os.environ.get("FLOWHOST_TEST_ISOLATE") == "all":
        arguments.append("--isolate-all")
    host = FlowHostClient([sys.executable, "-c", ON_A_TERMINAL, slave_path] + arguments, env=environment,
                          stderr=subprocess.DEVNULL)
    try:
        host.initialize(device=DEVICE)
        with open("/proc/%d/stat" % host.process.pid) as handle:
            assert int(handle.read().rsplit(")", 1)[1].split()[4]) != 0, "the host has the terminal"
        for what in ["tiocsti:0", "tiocsti:1", "tiocsti:2", "tiocsti:tty"]:
            outcome = attempt(host, what)
            assert outcome["done"] is False, (what, outcome)
        with open("/proc/%d/stat" % outcome["pid"]) as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        assert int(fields[4]) == 0, "the child has no controlling terminal"
        assert int(fields[3]) == outcome["pid"], "the child leads a session of its own"
        time.sleep(0.2)
        try:
            pushed = os.read(slave, 4096)
        except BlockingIOError:
            pushed = b""
        assert pushed == b"", "the terminal's input holds %r" % pushed
        unharmed(host)
    finally:
        host.close()
        os.close(slave)
        os.close(master)


@FILTERED
def test_a_thread_a_constructor_started_does_not_outlive_the_confinement(spawn, echo_dir, test_plugins, tmp_path):
    # Landlock and a filter bind the thread that applies them: a thread the
    # library's constructor started would keep only the first step and open
    # any file the host's user can. The child refuses to run such a flow.
    secret = tmp_path / "secret"
    secret.write_text("host-only")
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["constructor_thread"],
                 "--isolate-all", env={"FLOWHOST_LOG_LEVEL": "info"})
    host.initialize(device=DEVICE)
    try:
        answer = host.request("threaded.read", {"path": str(secret)})
    except Exception as refused:  # the flow never loaded: its method is unknown
        answer = {"refused": str(refused)}
    assert answer.get("opened") is not True, answer
    wait_until(lambda: "started a thread while it was loaded" in host.stderr_text())
    unharmed(host)
