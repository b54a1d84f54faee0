"""What an isolated flow cannot do (spec §8, "What is enforced"), tried one
escape at a time by the `escapes` test flow (plugins/escapes.c), run with
--isolate: it cannot signal, limit or reprioritise the host, change a file's
metadata, look at a path, open a socket, start a process or a program, or
debug the host; and its entry symbol already runs confined. After each
attempt the host is unharmed."""

import errno
import os
import stat

import pytest

from conftest import DEVICE

pytestmark = pytest.mark.skipif(os.environ.get("FLOWHOST_SANITIZER"),
                                reason="sanitizer builds run the child without filters (spec §8)")


def start(spawn, echo_dir, test_plugins):
    args = ["--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["escapes"], "--isolate", "escapes"]
    return spawn(*args, env={"FLOWHOST_LOG_LEVEL": "info"})


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


@pytest.mark.parametrize("what", ["kill", "tgkill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd"])
def test_no_signal_reaches_the_host(host, what):
    outcome = attempt(host, what)
    assert outcome["pid"] != host.process.pid
    assert outcome["done"] is False, outcome
    unharmed(host)


@pytest.mark.parametrize("what", ["socket", "fork", "execve", "ptrace"])
def test_no_socket_process_program_or_debugger(host, what):
    outcome = attempt(host, what)
    assert outcome["done"] is False and outcome["errno"] == errno.EPERM, outcome
    unharmed(host)


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


def test_no_file_changes_its_metadata_or_name(host, tmp_path):
    folder = tmp_path / "keys"
    folder.mkdir()
    target = folder / "key"
    target.write_text("a host-custody key")
    os.chmod(str(target), 0o600)
    os.utime(str(target), (1_700_000_000, 1_700_000_000))
    before = os.stat(str(target))
    for what in ["chmod", "fchmodat", "chown", "utimensat", "rename", "unlink", "link", "mkdir", "truncate", "access", "readlink"]:
        outcome = attempt(host, what, str(target))
        assert outcome["done"] is False, (what, outcome)
    after = os.stat(str(target))
    assert stat.S_IMODE(after.st_mode) == 0o600
    assert (after.st_uid, after.st_gid, after.st_mtime, after.st_ino, after.st_size) == (
        before.st_uid, before.st_gid, before.st_mtime, before.st_ino, before.st_size)
    assert os.listdir(str(folder)) == ["key"]
    unharmed(host)


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


def test_the_entry_symbol_already_runs_confined(host):
    entry = host.request("escape.entry")
    assert entry == {"opened": False, "errno": errno.EACCES, "pid": entry["pid"]}
