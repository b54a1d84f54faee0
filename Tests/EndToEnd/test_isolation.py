"""Flows in a process of their own (--isolate, spec §8): a crash, a hang,
a memory blow-up, an exit or a write to fd 1 ends only that flow's
dialogue. The client gets flowFailed, the operator one line, every other
flow goes on, and the flow starts again on its next use, after a back-off."""

import json
import os
import time

import pytest
from flowhost_client import RPCError

from conftest import DEVICE, plugin_copy, wait_until

FLOW_FAILED = -32017
NO_OPEN_CHALLENGE = -32003
WATCHDOG_MS = 1500
CALL_BUDGET_MS = 2000
# The names child serves `--isolate NAME` only; the suite's --isolate-all run has none.
WITH_NAMES_ONLY = pytest.mark.skipif(os.environ.get("FLOWHOST_TEST_ISOLATE") == "all",
                                     reason="spawn adds --isolate-all, which needs no names child")
ADDRESS_SPACE_MIB = 512


def isolated_host(spawn, echo_dir, test_plugins, tmp_path, watchdog_ms, **isolation):
    config = tmp_path / "isolation.json"
    config.write_text(json.dumps({"isolation": dict(watchdogMs=watchdog_ms, addressSpaceMiB=ADDRESS_SPACE_MIB, **isolation)}))
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["crashing"],
                 "--isolate", "crashing", "--config", str(config), env={"FLOWHOST_LOG_LEVEL": "info"})
    host.initialize(device=DEVICE)
    return host


@pytest.fixture
def isolated(spawn, echo_dir, test_plugins, tmp_path):
    return isolated_host(spawn, echo_dir, test_plugins, tmp_path, WATCHDOG_MS)


@pytest.fixture
def isolated_patiently(spawn, echo_dir, test_plugins, tmp_path):
    """A watchdog far past what touching the address space takes on a loaded
    machine: only the address-space limit can end the allocation."""
    return isolated_host(spawn, echo_dir, test_plugins, tmp_path, 60000)


def flow_failed(host, method, params=None, timeout=10.0):
    with pytest.raises(RPCError) as caught:
        host.request(method, params or {}, timeout=timeout)
    assert caught.value.code == FLOW_FAILED, caught.value
    return caught.value.message


def failure_lines(host):
    return [line for line in host.stderr_text().splitlines() if "flow crashing failed" in line]


def restarted(host, before):
    """crash.ok once the back-off has passed: a new process."""
    def answered():
        try:
            return host.request("crash.ok")["pid"] != before
        except RPCError as error:
            assert error.code == FLOW_FAILED, error
            return False
    wait_until(answered)


def others_still_work(host):
    assert host.request("echo", {"text": "still here"}) == {"text": "still here"}
    assert not [line for direction, line in host.transcript if direction == "<-" and not line.startswith("{")]


def test_a_segfault_mid_dialogue_ends_that_dialogue_only(isolated):
    first = isolated.request("crash.ok")["pid"]
    assert first != isolated.process.pid
    assert isolated.request("crash.begin") == {"started": True}
    isolated.wait_event("getCrash")
    message = flow_failed(isolated, "crash.answer", {"challengeMode": 1})
    assert "killed by signal 11 (SIGSEGV)" in message and "restarts on its next use" in message
    others_still_work(isolated)
    # Its challenge closed with it: no one is left to read the answer.
    with pytest.raises(RPCError) as caught:
        isolated.request("crash.answer", {"challengeMode": 1})
    assert caught.value.code == NO_OPEN_CHALLENGE
    wait_until(lambda: len(failure_lines(isolated)) == 1)
    assert "SIGSEGV" in failure_lines(isolated)[0]
    restarted(isolated, first)
    assert len(failure_lines(isolated)) == 1, "one line per failure"


def test_a_flow_that_loops_for_ever_is_stopped_by_the_watchdog(isolated):
    first = isolated.request("crash.ok")["pid"]
    message = flow_failed(isolated, "crash.loop", timeout=WATCHDOG_MS / 1000 + 10)
    assert "did not answer for %d ms (watchdog)" % WATCHDOG_MS in message
    others_still_work(isolated)
    restarted(isolated, first)


def test_a_flow_busy_with_host_table_calls_is_stopped_by_its_call_budget(spawn, echo_dir, test_plugins, tmp_path):
    # crash.busy asks the host for the time, again and again: never silent,
    # so the watchdog alone would let it hold the host for minutes.
    host = isolated_host(spawn, echo_dir, test_plugins, tmp_path, WATCHDOG_MS, callBudgetMs=CALL_BUDGET_MS)
    first = host.request("crash.ok")["pid"]
    started = time.monotonic()
    host.send({"jsonrpc": "2.0", "id": "busy", "method": "crash.busy"})
    host.send({"jsonrpc": "2.0", "id": "echo", "method": "echo", "params": {"text": "still here"}})
    # The host takes the next request as soon as the budget has stopped the flow.
    replies = {}
    while len(replies) < 2:
        message = host.read_message(timeout=CALL_BUDGET_MS / 1000 + 10)
        if isinstance(message, dict) and message.get("id") in ("busy", "echo"):
            replies[message["id"]] = message
    assert time.monotonic() - started >= CALL_BUDGET_MS / 1000
    assert replies["echo"]["result"] == {"text": "still here"}
    reply = replies["busy"]
    assert reply["error"]["code"] == FLOW_FAILED, reply
    assert "took longer than its call budget of %d ms and was killed" % CALL_BUDGET_MS in reply["error"]["message"]
    wait_until(lambda: len(failure_lines(host)) == 1)
    restarted(host, first)


def test_waiting_for_the_client_is_not_inside_a_call_budget(spawn, echo_dir, test_plugins, tmp_path):
    # cfull.ask sends platform/confirm and returns; the client answers long
    # after the budget, and the answer reaches the flow in a call of its own.
    # cfull.upper calls echo's service through the host, within its budget.
    budget_ms = 300
    config = tmp_path / "isolation.json"
    config.write_text(json.dumps({"isolation": {"callBudgetMs": budget_ms}}))
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["c_full"],
                 "--isolate", "cfull", "--config", str(config), env={"FLOWHOST_LOG_LEVEL": "info"})
    host.initialize(device=DEVICE)
    assert host.request("cfull.upper", {"text": "abc"}) == {"text": "ABC"}
    assert host.request("cfull.ask", {"question": "sure?"}) is None
    asked = host.read_message()
    while asked.get("method") != "platform/confirm":
        asked = host.read_message()
    time.sleep(budget_ms * 4 / 1000)
    host.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"confirmed": True}})
    assert host.wait_event("onAnswered")["params"] == {"answer": {"confirmed": True}}
    assert host.request("cfull.upper", {"text": "still"}) == {"text": "STILL"}
    assert "flow cfull failed" not in host.stderr_text()


def test_a_flow_that_allocates_without_end_meets_its_address_space_limit(isolated_patiently):
    host = isolated_patiently
    first = host.request("crash.ok")["pid"]
    message = flow_failed(host, "crash.allocate", timeout=60)
    assert "killed by signal 6 (SIGABRT)" in message, message
    others_still_work(host)
    restarted(host, first)


def test_a_flow_that_exits_is_reported_with_its_status(isolated):
    first = isolated.request("crash.ok")["pid"]
    assert "exited with status 3" in flow_failed(isolated, "crash.exit")
    restarted(isolated, first)


def test_writing_to_fd_1_never_reaches_the_protocol_stream(isolated):
    assert isolated.request("crash.stdout") == {"wrote": 20}
    others_still_work(isolated)
    wait_until(lambda: "this is not a frame" in isolated.stderr_text())


def test_the_back_off_grows_with_each_failure(isolated):
    pid = isolated.request("crash.ok")["pid"]
    for _ in range(2):
        flow_failed(isolated, "crash.exit")
        restarted(isolated, pid)
        pid = isolated.request("crash.ok")["pid"]
    wait_until(lambda: len(failure_lines(isolated)) == 2)
    lines = failure_lines(isolated)
    assert "in 100 ms at the earliest" in lines[0] and "in 200 ms at the earliest" in lines[1], lines


def test_the_child_runs_under_its_limits_and_confinement(isolated):
    pid = isolated.request("crash.ok")["pid"]
    with open("/proc/%d/limits" % pid) as handle:
        limits = {line[:26].strip(): line[26:].split() for line in handle.read().splitlines()[1:]}
    assert limits["Max core file size"][0] == "0"
    assert limits["Max open files"][0] == "64"
    assert limits["Max cpu time"][0] == "3600"
    sanitized = os.environ.get("FLOWHOST_SANITIZER")
    if not sanitized:
        assert limits["Max address space"][0] == str(ADDRESS_SPACE_MIB << 20)
    with open("/proc/%d/status" % pid) as handle:
        status = dict(line.split(":", 1) for line in handle.read().splitlines() if ":" in line)
    # Its parent is the host; it holds none of the host's files (the store).
    assert int(status["PPid"]) == isolated.process.pid
    assert sorted(os.listdir("/proc/%d/fd" % pid)) == ["0", "1", "2", "3"]
    if sanitized:
        return
    assert status["NoNewPrivs"].strip() == "1"
    assert status["Seccomp"].strip() == "2"
    started = [line for line in isolated.stderr_text().splitlines() if "flow crashing runs in process" in line]
    assert started, isolated.stderr_text()
    if "landlock" in started[0]:
        assert isolated.request("crash.files") == {"opened": False, "errno": 13}


@pytest.mark.parametrize("isolate", [False, True], ids=["in-process", "isolated"])
def test_a_flow_reads_the_hosts_wall_clock_through_the_table(spawn, test_plugins, isolate):
    # ABI 1.5's wall_clock_ms: the same answer in the host's process and
    # through an isolated child's pipe, where the child forwards the call.
    host = spawn("--no-default-plugins", "--plugins", test_plugins["c_caller"], *(("--isolate", "ccaller") if isolate else ()),
                 env={"FLOWHOST_LOG_LEVEL": "info"})
    host.initialize(device=DEVICE)
    before = int(time.time() * 1000)
    clocks = host.request("ccaller.clocks")
    after = int(time.time() * 1000)
    assert clocks["minor"] == 6
    assert before - 5 <= clocks["wall"] <= after + 5, clocks
    if isolate or os.environ.get("FLOWHOST_TEST_ISOLATE") == "all":
        wait_until(lambda: "flow ccaller runs in process" in host.stderr_text())


def test_a_name_no_flow_has_stops_the_host(spawn, echo_dir):
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--isolate", "nosuch")
    host.process.wait(timeout=30)
    assert host.process.returncode == 64
    assert "--isolate nosuch: no flow of that name" in host.stderr_text()


def test_isolate_all_runs_every_flow_in_a_process_of_its_own(spawn, echo_dir, test_plugins):
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["crashing"], "--isolate-all",
                 env={"FLOWHOST_LOG_LEVEL": "info"})
    host.initialize(device=DEVICE)
    assert host.request("echo", {"text": "hi"}) == {"text": "hi"}
    assert host.request("crash.ok")["pid"] != host.process.pid
    wait_until(lambda: "flow echo runs in process" in host.stderr_text())


@WITH_NAMES_ONLY
def test_with_a_name_one_child_tells_every_librarys_flow(spawn, echo_dir, test_plugins):
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["crashing"], "--isolate", "crashing",
                 env={"FLOWHOST_LOG_LEVEL": "info"})
    host.initialize(device=DEVICE)
    wait_until(lambda: "flow crashing runs in process" in host.stderr_text())
    assert "flow names learnt in one child process: 2 of 2 libraries" in host.stderr_text()
    assert host.request("crash.ok")["pid"] != host.process.pid, "the named flow is isolated"
    assert host.request("echo", {"text": "hi"}) == {"text": "hi"}
    assert "flow echo runs in process" not in host.stderr_text(), "the other flow runs in the host, never in a child"


@WITH_NAMES_ONLY
def test_when_the_names_child_dies_each_library_is_probed_on_its_own(spawn, echo_dir, test_plugins, tmp_path):
    # A library whose constructor aborts in the one child that learns every
    # name: each library is then opened in a child of its own, as before
    # that child existed, and every flow still loads where it should.
    marker = tmp_path / "marker"
    plugin_copy(test_plugins, "constructor_marker", marker, "abort-in-names")
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["crashing"],
                 "--plugins", str(marker), "--isolate", "crashing", env={"FLOWHOST_LOG_LEVEL": "info"})
    host.initialize(device=DEVICE)
    wait_until(lambda: "flow crashing runs in process" in host.stderr_text())
    assert "flow names learnt in one child process: 0 of 3 libraries" in host.stderr_text()
    assert host.request("crash.ok")["pid"] != host.process.pid
    assert host.request("echo", {"text": "hi"}) == {"text": "hi"}
    host.request("marker.ping")
    assert "refused plugin" not in host.stderr_text()


def test_flowhost_plugins_shows_which_flows_run_isolated(flowhost_bin, echo_dir, test_plugins):
    import subprocess
    listed = subprocess.run([flowhost_bin, "plugins", "--json", "--no-default-plugins", "--plugins", echo_dir,
                             "--plugins", test_plugins["crashing"], "--isolate", "crashing"],
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    flows = {flow["name"]: flow for flow in json.loads(listed.stdout)["flows"]}
    assert flows["crashing"]["isolated"] is True and flows["crashing"]["confinement"] is not None
    assert flows["echo"]["isolated"] is False and flows["echo"]["confinement"] is None
    text = subprocess.run([flowhost_bin, "plugins", "--no-default-plugins", "--plugins", echo_dir,
                           "--plugins", test_plugins["crashing"], "--isolate", "crashing"],
                          capture_output=True, text=True, timeout=60).stdout
    assert [line for line in text.splitlines() if line.startswith("loaded  crashing") and " isolated(" in line]
    assert not [line for line in text.splitlines() if line.startswith("loaded  echo") and " isolated(" in line]
