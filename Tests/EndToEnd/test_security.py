"""The host tried as a hostile client, a careless operator and a malicious
plugin author would try it. Each test reproduces an attack that worked on
the host before these defences, and checks that it no longer does."""

import json
import os
import shutil
import stat
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from conftest import CHEAP_CONFIG, DEVICE, GOOD_PASSWORD, Deployment, activate, status_of, through_device_name, wait_until
from flowhost_client import FlowHostClient, RPCError


def config_with(**sections):
    config = json.loads(json.dumps(CHEAP_CONFIG))
    for section, values in sections.items():
        config.setdefault(section, {}).update(values)
    return config


def log_off(host, user_id):
    host.request("logOff", [user_id])
    host.wait_event("onUserLoggedOff")
    host.wait_event("getUser")


# -- Operator actions and store state are checked at every step ---------------

def test_a_block_after_the_code_stops_activation_with_a_password(deployment):
    code = deployment.add_user("alice")
    host = deployment.host()
    assert through_device_name(host, "alice", code)["method"] == "getPassword"
    deployment.admin("block", "alice")
    host.request("setPassword", [GOOD_PASSWORD, 1])
    assert status_of(host.wait_event("getUser")) == 138
    assert not [event for event in host.events if event["method"] == "onUserLoggedIn"]
    user = deployment.admin("show-user", "alice")
    assert user["status"] == "pending" and user["devices"] == 0 and user["openSessions"] == 0


def test_a_block_while_the_platform_confirms_lda_stops_activation(deployment):
    code = deployment.add_user("alice")
    host = deployment.host(lda=[1], lda_answer=None)

    def block_then_approve(params):
        deployment.admin("block", "alice")
        return {"authenticated": True}

    host.on_request("platform/authenticateLDA", block_then_approve)
    assert through_device_name(host, "alice", code)["method"] == "getUserConsentForLDA"
    host.request("setUserConsentForLDA", [True, 1, 1])
    assert status_of(host.wait_event("getUser")) == 138
    assert deployment.admin("show-user", "alice")["devices"] == 0


def test_a_block_while_the_platform_confirms_lda_stops_the_login(deployment):
    code = deployment.add_user("alice")
    host = deployment.host(lda=[1])
    activate(host, "alice", code, lda=True)
    log_off(host, "alice")

    def block_then_approve(params):
        deployment.admin("block", "alice")
        return {"authenticated": True}

    host.on_request("platform/authenticateLDA", block_then_approve)
    host.request("setUser", ["alice"])
    assert status_of(host.wait_event("getUser")) == 138
    assert len([event for event in host.events if event["method"] == "onUserLoggedIn"]) == 1, "only the activation's"
    assert deployment.admin("show-user", "alice")["openSessions"] == 0


def test_an_operator_block_is_reported_as_138_not_141(deployment):
    code = deployment.add_user("alice")
    host = deployment.host()
    activate(host, "alice", code)
    log_off(host, "alice")
    host.request("setUser", ["alice"])
    host.wait_event("getPassword")
    deployment.admin("block", "alice")
    host.request("setPassword", [GOOD_PASSWORD, 0])
    assert status_of(host.wait_event("getUser")) == 138


def test_a_stale_activation_dialogue_cannot_touch_a_user_activated_elsewhere(deployment):
    code = deployment.add_user("alice")
    stale = deployment.host("device-a")
    stale.wait_event("getUser")
    stale.request("setUser", ["alice"])
    stale.wait_event("getActivationCode")
    resender = deployment.host("device-c")
    resender.wait_event("getUser")
    resender.request("setUser", ["alice"])
    resender.wait_event("getActivationCode")

    winner = deployment.host("device-b")
    activate(winner, "alice", code)

    stale.request("setActivationCode", ["WRONGCODE0"])
    assert status_of(stale.wait_event("getUser")) == 126
    with pytest.raises(RPCError):
        stale.request("setActivationCode", ["WRONGCODE1"])
    resender.request("resendActivationCode")
    assert status_of(resender.wait_event("getUser")) == 126

    user = deployment.admin("show-user", "alice")
    assert user["blocked"] is None and user["activationAttemptsLeft"] == 3 and user["devices"] == 1
    assert deployment.admin("outbox") == []
    log_off(winner, "alice")
    winner.request("setUser", ["alice"])
    winner.wait_event("getPassword")
    winner.request("setPassword", [GOOD_PASSWORD, 0])
    winner.wait_event("onUserLoggedIn")


@pytest.mark.sqlite_only
def test_blocking_ends_every_session_and_a_stopping_host_ends_its_own(deployment):
    code = deployment.add_user("alice")
    first = deployment.host("device-1")
    activate(first, "alice", code)
    assert deployment.admin("show-user", "alice")["openSessions"] == 1
    first.close()
    assert deployment.admin("show-user", "alice")["openSessions"] == 0, "the host ends its session when it stops"

    # Clients that die without logOff, their hosts killed: sessions stay open...
    for _ in range(12):
        host = deployment.host("device-1")
        host.wait_event("getUser")
        host.request("setUser", ["alice"])
        host.wait_event("getPassword")
        host.request("setPassword", [GOOD_PASSWORD, 0])
        host.wait_event("onUserLoggedIn")
        host.process.kill()
        host.process.wait()
    assert deployment.admin("show-user", "alice")["openSessions"] == 12
    # ...until the operator's block ends them all.
    deployment.admin("block", "alice")
    assert deployment.admin("show-user", "alice")["openSessions"] == 0
    closes = [entry for entry in deployment.admin("audit", "--user", "alice") if entry["action"] == "session.close"]
    assert any(entry["outcome"] == "blocked" and entry["detail"]["sessions"] == 12 for entry in closes)


# -- Input that costs nothing to send must not cost the store anything ----------

def store_bytes(deployment):
    data = b""
    for suffix in ("", "-wal"):
        if os.path.exists(deployment.store + suffix):
            with open(deployment.store + suffix, "rb") as handle:
                data += handle.read()
    return data


def checkpointed_size(deployment):
    connection = sqlite3.connect(deployment.store, timeout=10)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = connection.execute("PRAGMA page_count").fetchone()[0] - connection.execute("PRAGMA freelist_count").fetchone()[0]
    size = pages * connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    return size


def test_oversized_user_ids_are_refused_at_the_boundary(deployment):
    deployment.add_user("alice")
    host = deployment.host()
    host.wait_event("getUser")
    before = len(deployment.admin("audit", "--limit", "100000"))
    for bad in ["x" * 100_000, "a" + "\u0301" * 9_999, "bob\n", "\u202eevil"]:
        with pytest.raises(RPCError) as refused:
            host.request("setUser", [bad])
        assert refused.value.code == -32602 and refused.value.data["field"] == "userName"
    assert len(deployment.admin("audit", "--limit", "100000")) == before


def test_ten_thousand_unauthenticated_requests_cost_the_store_almost_nothing(deployment):
    deployment.add_user("alice")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["warm-up"])
    size_before = checkpointed_size(deployment)
    rows_before = len(deployment.admin("audit", "--limit", "100000"))
    typed_password = "Hunter2-typed-into-the-user-field"
    lines = []
    for index in range(5000):
        user = typed_password if index == 0 else "nobody-%d-%s" % (index, "x" * 100)
        lines.append(json.dumps({"jsonrpc": "2.0", "id": "u%d" % index, "method": "setUser", "params": [user]}))
        lines.append(json.dumps({"jsonrpc": "2.0", "id": "r%d" % index, "method": "resetAuthState"}))
    host.send_raw(("\n".join(lines) + "\n").encode())
    host.wait_reply("r4999", timeout=120)
    assert host.request("ping") == {}
    host.close()
    growth = checkpointed_size(deployment) - size_before
    assert growth <= 8192, "the store grew by %d bytes" % growth
    assert len(deployment.admin("audit", "--limit", "100000")) == rows_before
    counts = {}
    for row in deployment.admin("audit", "--counts"):  # one row per hour: a run across an hour's end has two
        counts[(row["action"], row["outcome"])] = counts.get((row["action"], row["outcome"]), 0) + row["count"]
    assert counts[("login.user", "unknown")] >= 5000 and counts[("flow.reset", "ok")] >= 5000
    assert typed_password.encode() not in store_bytes(deployment)


def test_the_admin_counts_user_ids_in_scalars_not_graphemes(deployment):
    out = deployment.admin("add-user", "a" + "\u0301" * 9_999, check=False)
    assert out.returncode == 1 and "512 bytes" in out.stderr
    out = deployment.admin("add-user", "a" + "\u0301" * 200, check=False)  # one grapheme, 401 bytes, 201 scalars
    assert out.returncode == 1 and "128 Unicode scalars" in out.stderr
    assert deployment.admin("add-user", "é" * 128)["userID"] == "é" * 128


# -- Errors and races ------------------------------------------------------------

def test_the_losers_of_a_race_for_one_code_get_106_not_an_internal_error(deployment):
    code = deployment.add_user("alice")
    hosts = []
    for index in range(8):
        host = deployment.host("device-race-%d" % index)
        host.wait_event("getUser")
        host.request("setUser", ["alice"])
        host.wait_event("getActivationCode")
        hosts.append(host)
    outcomes = [None] * len(hosts)
    start = threading.Barrier(len(hosts))

    def answer(index):
        start.wait()
        try:
            hosts[index].request("setActivationCode", [code], timeout=60)
            outcomes[index] = hosts[index].wait_event(timeout=60)
        except RPCError as error:
            outcomes[index] = error

    threads = [threading.Thread(target=answer, args=(index,)) for index in range(len(hosts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not [outcome for outcome in outcomes if isinstance(outcome, RPCError)], outcomes
    winners = [outcome for outcome in outcomes if outcome["method"] == "getDeviceName"]
    losers = [outcome for outcome in outcomes if outcome["method"] == "getActivationCode"]
    assert len(winners) == 1 and len(losers) == 7
    assert all(status_of(loser) == 106 and loser["params"]["attemptsLeft"] == 3 for loser in losers)
    assert deployment.admin("show-user", "alice")["activationAttemptsLeft"] == 3
    for host in hosts:
        assert "sqlite" not in host.stderr_text().lower() or "database is locked" not in host.stderr_text()


def test_a_stranger_resending_neither_burns_the_code_nor_costs_attempts(tmp_path, flowhost_bin, spawn):
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn,
                            config=config_with(activation={"resendIntervalSeconds": 0, "maxResendsPerCode": 3}))
    code = deployment.add_user("alice")
    attacker = deployment.host("device-attacker")
    attacker.wait_event("getUser")
    attacker.request("setUser", ["alice"])
    attacker.wait_event("getActivationCode")
    for _ in range(3):
        attacker.request("resendActivationCode")
        attacker.wait_event("getActivationCode")
    with pytest.raises(RPCError) as capped:
        attacker.request("resendActivationCode")
    assert capped.value.code == -32011 and capped.value.data["retryAfterSeconds"] > 0

    genuine = deployment.host("device-alice")
    genuine.wait_event("getUser")
    genuine.request("setUser", ["alice"])
    genuine.wait_event("getActivationCode")
    for _ in range(4):
        genuine.request("setActivationCode", [code])
        again = genuine.wait_event("getActivationCode")
        assert status_of(again) == 106 and again["params"]["attemptsLeft"] == 3
        assert "newer" in again["params"]["response"]["status"]["statusMessage"]
    assert deployment.admin("show-user", "alice")["blocked"] is None
    resends = [entry for entry in deployment.admin("audit", "--user", "alice") if entry["action"] == "activation.resend"]
    assert len(resends) == 3
    newest = deployment.admin("outbox")[-1]["activationCode"]
    genuine.request("setActivationCode", [newest])
    genuine.wait_event("getDeviceName")


# -- The outbox and the loop never wait on someone else -----------------------------

def test_a_hung_delivery_command_blocks_no_one(tmp_path, flowhost_bin, spawn):
    config = config_with(delivery={"command": ["/bin/sh", "-c", "sleep 30"], "timeoutSeconds": 1, "attempts": 1})
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    bob_code = deployment.add_user("bob")
    other = deployment.host("device-bob")
    activate(other, "bob", bob_code)
    log_off(other, "bob")
    deployment.add_user("alice")
    host = deployment.host("device-alice")
    host.wait_event("getUser")
    host.request("setUser", ["alice"])
    host.wait_event("getActivationCode")

    started = time.monotonic()
    host.request("resendActivationCode")
    host.wait_event("getActivationCode")
    assert time.monotonic() - started < 1.0, "the resend waited for the delivery command"
    other.request("setUser", ["bob"])
    other.wait_event("getPassword")
    other.request("setPassword", [GOOD_PASSWORD, 0])
    other.wait_event("onUserLoggedIn", timeout=5)
    assert time.monotonic() - started < 3.0, "a login on another host waited for the delivery command"
    assert host.request("ping") == {}

    def given_up():
        messages = deployment.admin("outbox", "--all")
        return messages and messages[-1].get("failedAt") is not None

    assert wait_until(given_up, timeout=15)
    message = deployment.admin("outbox", "--all")[-1]
    assert message["attempts"] == 1 and "timed out" in message["lastError"]
    assert any(entry["action"] == "delivery.command" and entry["outcome"] == "gave-up"
               for entry in deployment.admin("audit", "--user", "alice"))


def test_a_timed_out_delivery_command_is_killed_with_what_it_started(tmp_path, flowhost_bin, spawn):
    """The timeout kills the command's whole process group: a program it
    started (here a shell's background `sleep`) does not live on."""
    started_pid = tmp_path / "started.pid"
    command = ["/bin/sh", "-c", "sleep 30 & echo $! > '%s'; wait" % started_pid]
    config = config_with(delivery={"command": command, "timeoutSeconds": 1, "attempts": 1})
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    deployment.add_user("alice")
    host = deployment.host()
    host.wait_event("getUser")
    host.request("setUser", ["alice"])
    host.wait_event("getActivationCode")
    host.request("resendActivationCode")
    host.wait_event("getActivationCode")

    def given_up():
        messages = deployment.admin("outbox", "--all")
        return messages and messages[-1].get("failedAt") is not None

    assert wait_until(given_up, timeout=15)
    sleeper = int(started_pid.read_text())

    def ended():
        try:
            with open("/proc/%d/stat" % sleeper) as stat:
                return stat.read().split(") ")[1][0] in "ZX"  # a zombie waits only for its new parent
        except FileNotFoundError:
            return True

    assert wait_until(ended, timeout=5), "the delivery command's own child outlived its timeout"


def test_a_client_that_never_reads_stderr_cannot_stall_the_host(flowhost_bin, echo_dir, tmp_path):
    environment = dict(os.environ, FLOWHOST_STORE=str(tmp_path / "s.sqlite"))
    environment.pop("FLOWHOST_PLUGIN_PATH", None)
    host = FlowHostClient([flowhost_bin, "--no-default-plugins", "--plugins", echo_dir], env=environment,
                          stderr=subprocess.PIPE)
    try:
        host.initialize(device=DEVICE)
        frames = "".join(json.dumps({"jsonrpc": "2.0", "id": "stray-%d-%s" % (index, "y" * 3000), "result": {}}) + "\n"
                         for index in range(400))
        reply = {}

        def flood_then_ping():
            host.send_raw(frames.encode())  # blocks too if the host stops reading
            reply["result"] = host.request("ping", timeout=10)

        thread = threading.Thread(target=flood_then_ping, daemon=True)
        thread.start()
        thread.join(15)
        assert reply.get("result") == {}, "the host stopped answering while stderr was full"
    finally:
        host.process.kill()
        host.process.wait()


def test_logged_values_cannot_forge_log_lines(flowhost_bin, echo_dir, tmp_path):
    log = tmp_path / "stderr.log"
    environment = dict(os.environ, FLOWHOST_STORE=str(tmp_path / "s.sqlite"))
    environment.pop("FLOWHOST_PLUGIN_PATH", None)
    with open(log, "wb") as handle:
        host = FlowHostClient([flowhost_bin, "--no-default-plugins", "--plugins", echo_dir, "--log-level", "debug"],
                              env=environment, stderr=handle)
        host.initialize(device=DEVICE)
        host.notify("x\ncritical flowhost: forged line\r\u2028also forged")
        host.send_line(json.dumps({"jsonrpc": "2.0", "id": "z\ncritical flowhost: forged id", "result": 1}))
        for index in range(100):
            host.send_line(json.dumps({"jsonrpc": "2.0", "id": "stray-%d" % index, "result": 1}))
        assert host.request("ping") == {}
        host.shutdown()
    lines = log.read_text(errors="replace").splitlines()
    assert not [line for line in lines if line.startswith("critical")]
    assert any("\\ncritical flowhost: forged line" in line for line in lines)
    unknown = [line for line in lines if "response to unknown request id" in line]
    assert 1 <= len(unknown) <= 20, "repeated warnings are rate-limited"


def test_a_reset_cancels_the_pending_platform_request(deployment):
    code = deployment.add_user("alice")
    host = deployment.host(lda=[1])
    activate(host, "alice", code, lda=True)
    log_off(host, "alice")
    host.on_request("platform/authenticateLDA", lambda params: None)
    host._handlers.pop("platform/authenticateLDA")  # leave every LDA check unanswered
    rounds = 2000
    lines = []
    for index in range(rounds):
        lines.append(json.dumps({"jsonrpc": "2.0", "id": "u%d" % index, "method": "setUser", "params": ["alice"]}))
        lines.append(json.dumps({"jsonrpc": "2.0", "id": "r%d" % index, "method": "resetAuthState"}))
    host.send_raw(("\n".join(lines) + "\n").encode())
    host.wait_reply("r%d" % (rounds - 1), timeout=120)
    assert host.request("ping") == {}
    asked = [json.loads(line)["id"] for direction, line in host.transcript
             if direction == "<-" and '"platform/authenticateLDA"' in line]
    assert len(asked) == rounds + 1
    assert wait_until(lambda: set(asked[1:]) <= set(host.cancelled), timeout=5), "every abandoned check is cancelled"


def test_a_flow_in_c_cancels_its_requests_and_meets_the_cap(spawn, echo_dir, test_plugins):
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["c_full"])
    host.initialize(device=DEVICE)
    for index in range(16):
        host.request("cfull.ask", {"question": "q%d" % index})
    with pytest.raises(RPCError) as refused:
        host.request("cfull.ask", {"question": "one too many"})
    assert refused.value.code == -32000 and "in flight" in refused.value.message
    assert host.request("cfull.cancel") == {"cancelled": 16}
    answered = [host.wait_event("onAnswered") for _ in range(16)]
    assert all(event["params"] == {"error": -32800, "fromClient": False, "data": {"method": "platform/confirm"}} for event in answered)
    assert wait_until(lambda: len(host.cancelled) == 16)
    host.request("cfull.ask", {"question": "room again"})


# -- Plugins are code: load only what the operator meant -----------------------------

def unsafe_copy(tmp_path, source_folder, name, folder_mode=0o755, file_mode=0o644):
    folder = tmp_path / ("unsafe-%o-%o" % (folder_mode, file_mode))
    folder.mkdir()
    library = [entry for entry in os.listdir(source_folder) if entry.endswith(".so")][0]
    target = folder / name
    shutil.copy(os.path.join(source_folder, library), str(target))
    os.chmod(str(target), file_mode)
    os.chmod(str(folder), folder_mode)
    return folder, target


def run_plugins(flowhost_bin, *args, env=None, timeout=20):
    environment = dict(os.environ)
    environment.pop("FLOWHOST_PLUGIN_PATH", None)
    environment.update(env or {})
    return subprocess.run([flowhost_bin, "plugins", "--no-default-plugins"] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=environment)


def test_a_world_writable_folder_or_file_is_refused_before_loading(flowhost_bin, test_plugins, tmp_path):
    marker = tmp_path / "marker"
    folder, _ = unsafe_copy(tmp_path, test_plugins["constructor_marker"], "libmarker.so", folder_mode=0o777)
    out = run_plugins(flowhost_bin, "--plugins", str(folder), env={"FLOWHOST_TEST_MARKER": str(marker)})
    assert "refused %s: folder %s is writable by group or others" % (folder, folder) in out.stdout, out.stdout
    file_folder, library = unsafe_copy(tmp_path, test_plugins["constructor_marker"], "libmarker.so", file_mode=0o666)
    out = run_plugins(flowhost_bin, "--plugins", str(file_folder), env={"FLOWHOST_TEST_MARKER": str(marker)})
    assert "refused %s: file %s is writable by group or others" % (library, library) in out.stdout, out.stdout
    assert not marker.exists(), "a refused library's constructor ran"


def test_strict_refuses_before_any_library_runs(flowhost_bin, test_plugins, echo_dir, tmp_path):
    marker = tmp_path / "marker"
    folder, _ = unsafe_copy(tmp_path, test_plugins["constructor_marker"], "libmarker.so", file_mode=0o664)
    environment = dict(os.environ, FLOWHOST_TEST_MARKER=str(marker), FLOWHOST_STORE=str(tmp_path / "s.sqlite"))
    environment.pop("FLOWHOST_PLUGIN_PATH", None)
    out = subprocess.run([flowhost_bin, "--strict", "--no-default-plugins", "--plugins", echo_dir,
                          "--plugins", test_plugins["constructor_marker"], "--plugins", str(folder)],
                         input="", capture_output=True, text=True, timeout=20, env=environment)
    assert out.returncode == 3 and "writable by group or others" in out.stderr
    assert not marker.exists(), "with --strict no library may be opened once one is refused"


def test_relative_and_empty_plugin_path_entries_are_refused(flowhost_bin, test_plugins, tmp_path):
    marker = tmp_path / "marker"
    out = subprocess.run([flowhost_bin, "plugins", "--no-default-plugins"], capture_output=True, text=True, timeout=20,
                         cwd=test_plugins["constructor_marker"],
                         env=dict(os.environ, FLOWHOST_PLUGIN_PATH=".::relative/dir", FLOWHOST_TEST_MARKER=str(marker)))
    assert out.returncode == 0
    refused = [line for line in out.stdout.splitlines() if line.startswith("refused")]
    assert len(refused) == 3 and all("must be an absolute path" in line for line in refused), out.stdout
    assert not marker.exists()


def test_a_symlink_is_judged_by_its_target(flowhost_bin, test_plugins, tmp_path):
    marker = tmp_path / "marker"
    unsafe, library = unsafe_copy(tmp_path, test_plugins["constructor_marker"], "libmarker.so", folder_mode=0o777)
    links = tmp_path / "links"
    links.mkdir()
    os.symlink(str(library), str(links / "libmarker.so"))
    out = run_plugins(flowhost_bin, "--plugins", str(links), env={"FLOWHOST_TEST_MARKER": str(marker)})
    assert "folder %s is writable by group or others" % unsafe in out.stdout, out.stdout
    assert not marker.exists()


def test_every_link_into_an_unsafe_folder_is_refused(flowhost_bin, test_plugins, tmp_path):
    # One verdict per folder is remembered for the pass: the second library
    # of an unsafe folder must meet the same refusal as the first.
    marker = tmp_path / "marker"
    unsafe, library = unsafe_copy(tmp_path, test_plugins["constructor_marker"], "libmarker.so", folder_mode=0o777)
    shutil.copy(str(library), str(unsafe / "libmarker2.so"))
    links = tmp_path / "links"
    links.mkdir()
    os.symlink(str(library), str(links / "libmarker.so"))
    os.symlink(str(unsafe / "libmarker2.so"), str(links / "libmarker2.so"))
    out = run_plugins(flowhost_bin, "--plugins", str(links), env={"FLOWHOST_TEST_MARKER": str(marker)})
    for name in ("libmarker.so", "libmarker2.so"):
        assert "refused %s: folder %s is writable by group or others" % (links / name, unsafe) in out.stdout, out.stdout
    assert "loaded" not in out.stdout and not marker.exists()


def test_built_in_flows_are_found_beside_the_real_executable_not_a_link_to_it(flowhost_bin, tmp_path):
    # The folder is the executable's own (/proc/self/exe), not the folder of
    # a link that started it, where anyone who can write could add "flows".
    link = tmp_path / "flowhost"
    os.symlink(flowhost_bin, str(link))
    (tmp_path / "libFlowPluginFake.so").write_bytes(b"not a library")
    environment = dict(os.environ)
    environment.pop("FLOWHOST_PLUGIN_PATH", None)
    out = subprocess.run([str(link), "plugins"], capture_output=True, text=True, timeout=20, env=environment)
    assert out.returncode == 0, out.stderr
    assert "loaded  mfa" in out.stdout and "Fake" not in out.stdout, out.stdout


def test_a_fifo_posing_as_a_plugin_neither_hangs_nor_loads(flowhost_bin, echo_dir, tmp_path):
    folder = tmp_path / "fifo"
    folder.mkdir()
    os.mkfifo(str(folder / "libFlowPluginX.so"))
    out = run_plugins(flowhost_bin, "--plugins", echo_dir, "--plugins", str(folder), timeout=10)
    assert "is not a regular file (a FIFO)" in out.stdout and out.stdout.startswith("loaded  echo")


# -- Store and key files with a wrong mode ---------------------------------------------

@pytest.mark.sqlite_only
def test_the_wal_is_kept_between_starts_and_emptied_at_each_close(deployment):
    # The WAL and its index stay (no file made and deleted at each start), but
    # a closing host leaves nothing in the WAL: every page is in the store.
    code = deployment.add_user("alice")
    host = deployment.host()
    activate(host, "alice", code)
    host.shutdown()
    for suffix in ("-wal", "-shm"):
        info = os.stat(deployment.store + suffix)
        assert stat.S_IMODE(info.st_mode) == 0o600, suffix
    assert os.path.getsize(deployment.store + "-wal") == 0
    assert deployment.admin("show-user", "alice")["status"] == "active"


@pytest.mark.sqlite_only
@pytest.mark.parametrize("suffix", ["", ".key"])
def test_store_and_key_files_others_can_read_are_refused(deployment, suffix):
    deployment.add_user("alice")
    path = deployment.store + suffix
    os.chmod(path, 0o644)
    out = deployment.admin("show-user", "alice", check=False)
    assert out.returncode != 0
    assert path in out.stderr and "chmod 600 %s" % path in out.stderr
    environment = dict(os.environ)
    environment.pop("FLOWHOST_PLUGIN_PATH", None)
    served = subprocess.run([deployment.bin, "--store", deployment.store, "--config", deployment.config], input="",
                            capture_output=True, text=True, timeout=20, env=environment)
    assert served.returncode != 0 and "chmod 600 %s" % path in served.stderr


def test_a_store_file_made_beforehand_with_a_loose_mode_is_refused(tmp_path, flowhost_bin):
    store = tmp_path / "made-early.sqlite"
    store.touch(mode=0o644)
    os.chmod(str(store), 0o644)
    out = subprocess.run([flowhost_bin, "admin", "add-user", "alice", "--store", str(store)], capture_output=True,
                         text=True, timeout=20)
    assert out.returncode != 0 and "chmod 600" in out.stderr


# -- Smaller ------------------------------------------------------------------------------

def test_a_zombie_client_counts_as_gone(spawn, echo_dir):
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    wait_until(lambda: open("/proc/%d/stat" % zombie.pid).read().rsplit(")", 1)[1].split()[0] == "Z", timeout=5)
    try:
        host = spawn("--no-default-plugins", "--plugins", echo_dir)
        host.initialize(device=DEVICE, process_id=zombie.pid)
        assert host.process.wait(5) == 0
    finally:
        zombie.wait()
