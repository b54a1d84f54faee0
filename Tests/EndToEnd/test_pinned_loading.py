"""A pinned flow runs the bytes whose hash was checked, and nothing else
(spec §8, "Pinning"): the host hashes and loads one open descriptor, in
process and in a flow's own process, at its start and at every restart.
The impostor is the crashing flow built again with a constructor that
leaves a mark: same flow, same manifest, other bytes."""

import hashlib
import os
import shutil
import subprocess
import threading
import time

import pytest
from flowhost_client import RPCError

from conftest import DEVICE, ROOT, _cflags, plugin_copy, wait_until

LIBRARY = "libtest_crashing.so"
FLOW_FAILED = -32017


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.fixture
def pinned(tmp_path, test_plugins):
    """A folder holding the pinned crashing flow; the impostor beside it (not in it)."""
    folder = tmp_path / "flows"
    plugin_copy(test_plugins, "crashing", folder)
    marker = tmp_path / "impostor-ran"
    impostor = tmp_path / "impostor.keep"
    source_dir = os.path.join(os.path.dirname(__file__), "plugins")
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-Wall", "-Werror", "-fvisibility=hidden",
         "-I", os.path.join(ROOT, "Sources", "CFlowHostABI", "include"), "-I", source_dir,
         '-DIMPOSTOR_MARKER="%s"' % marker, os.path.join(source_dir, "crashing.c"), "-o", str(impostor)] + _cflags(),
        check=True)
    assert sha256(impostor) != sha256(folder / LIBRARY)
    return {"folder": folder, "pin": "%s=%s" % (LIBRARY, sha256(folder / LIBRARY)), "impostor": impostor, "marker": marker}


def pinned_host(spawn, pinned):
    host = spawn("--no-default-plugins", "--plugins", str(pinned["folder"]), "--pin", pinned["pin"], "--isolate", "crashing",
                 env={"FLOWHOST_LOG_LEVEL": "info"})
    host.initialize(device=DEVICE)
    return host


def fail_the_flow(host):
    first = host.request("crash.ok")
    assert "impostor" not in first
    with pytest.raises(RPCError) as caught:
        host.request("crash.exit")
    assert caught.value.code == FLOW_FAILED
    return first["pid"]


def test_a_restart_after_the_pinned_file_was_renamed_over_runs_what_was_pinned(spawn, pinned):
    host = pinned_host(spawn, pinned)
    first = fail_the_flow(host)
    # An upgrade's way: a new file renamed over the old one's name.
    staged = pinned["folder"] / "staged.tmp"
    shutil.copy(str(pinned["impostor"]), str(staged))
    os.rename(str(staged), str(pinned["folder"] / LIBRARY))
    answers = []

    def restarted():
        try:
            answers.append(host.request("crash.ok"))
        except RPCError as error:
            assert error.code == FLOW_FAILED, error
            return False
        return answers[-1]["pid"] != first
    wait_until(restarted)
    assert "impostor" not in answers[-1], "the bytes pinned at start run again, not the file now at the path"
    assert not pinned["marker"].exists()


def test_a_restart_after_the_pinned_file_was_written_in_place_is_refused(spawn, pinned):
    host = pinned_host(spawn, pinned)
    fail_the_flow(host)
    # `cp` over it: the same file (the descriptor the host holds), new bytes.
    with open(str(pinned["folder"] / LIBRARY), "r+b") as handle:
        handle.write(pinned["impostor"].read_bytes())
        handle.truncate()
    lines = []

    def refused():
        lines[:] = [line for line in host.stderr_text().splitlines() if "could not be restarted" in line]
        if lines:
            return True
        with pytest.raises(RPCError) as caught:
            host.request("crash.ok")
        assert caught.value.code == FLOW_FAILED
        return False
    wait_until(refused)
    assert "SHA-256 is now %s, not the %s it was checked with" % (sha256(pinned["impostor"]), pinned["pin"].split("=")[1]) in lines[0], lines
    with pytest.raises(RPCError) as caught:
        host.request("crash.ok")
    assert caught.value.code == FLOW_FAILED
    assert not pinned["marker"].exists()


def test_a_pinned_library_swapped_while_hosts_start_never_runs_unpinned(flowhost_bin, pinned, tmp_path):
    # The pinned file and the impostor take turns at the library's name, by
    # rename, while hosts start: the hash may see either, but only what it
    # saw may be loaded, in the host, in the child that learns flow names
    # and in the flow's own process.
    folder = pinned["folder"]
    original = tmp_path / "pinned.keep"
    shutil.copy(str(folder / LIBRARY), str(original))
    stop = threading.Event()

    def swap():
        turn = 0
        while not stop.is_set():
            staged = str(folder / ".swap")
            os.link(str(original if turn % 2 == 0 else pinned["impostor"]), staged)
            os.rename(staged, str(folder / LIBRARY))
            turn += 1

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    environment = dict(os.environ, FLOWHOST_STORE=str(tmp_path / "store.sqlite"))
    environment.pop("FLOWHOST_PLUGIN_PATH", None)
    tries, deadline = 0, time.monotonic() + 15
    try:
        while tries < 60 and time.monotonic() < deadline and not pinned["marker"].exists():
            isolate = ["--isolate", "crashing"] if tries % 3 else []
            subprocess.run([flowhost_bin, "plugins", "--json", "--no-default-plugins", "--plugins", str(folder),
                            "--pin", pinned["pin"]] + isolate, capture_output=True, env=environment, timeout=60)
            tries += 1
    finally:
        stop.set()
        swapper.join()
    assert not pinned["marker"].exists(), "unpinned code ran, within %d starts" % tries
    assert tries >= 20
