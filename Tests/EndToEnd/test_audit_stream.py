"""The audit as a stream (`flowhost admin audit --jsonl [--follow] [--after SEQ]`)
and `events.command`: every row once, in order, from a cursor a reader can
resume at, on SQLite and on PostgreSQL (FLOWHOST_TEST_BACKEND=postgresql); and
a command run for chosen rows after their commit that never delays a login."""

import json
import os
import signal
import subprocess
import threading
import time

import pytest

from conftest import (CHEAP_CONFIG, ON_POSTGRES, STORE_MAP, Deployment, activate, postgres_cluster, store_environment,
                      store_location, wait_until)


@pytest.fixture
def deployment(tmp_path, flowhost_bin, spawn):
    return Deployment(str(tmp_path), flowhost_bin, spawn)


def stream_command(deployment, *args):
    return [deployment.bin, "admin", "audit", "--jsonl", "--store", store_location(deployment.store), "--config", deployment.config] + list(args)


def stream_environment(deployment):
    return dict(os.environ, **store_environment(deployment.store))


def everything(deployment):
    """The whole log as the stream prints it without --follow."""
    out = subprocess.run(stream_command(deployment), capture_output=True, text=True, timeout=60, env=stream_environment(deployment))
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


class Follower:
    """`admin audit --jsonl --follow`, its lines read on a thread as they come."""

    def __init__(self, deployment, after=None):
        args = ["--follow"] + (["--after", str(after)] if after is not None else [])
        self.process = subprocess.Popen(stream_command(deployment, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=stream_environment(deployment))
        self.rows = []
        self.partial = b""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            if line.endswith(b"\n"):
                self.rows.append(json.loads(line))
            else:
                self.partial = line  # cut by a kill: a reader drops it and resumes before it

    def seqs(self):
        return [row["seq"] for row in list(self.rows)]

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.reader.join(timeout=10)

    def stop(self):
        if self.process.poll() is None:
            self.kill()


def writers(deployment, prefix, count, parallel=3):
    """`parallel` admin processes at once, each adding users one at a time
    (each user its own transaction): commits interleave, and on PostgreSQL
    they commit in another order than they drew their ids."""
    def write(worker):
        for index in range(count):
            deployment.admin("add-user", "%s-%d-%d" % (prefix, worker, index))
    threads = [threading.Thread(target=write, args=(worker,)) for worker in range(parallel)]
    for thread in threads:
        thread.start()
    return threads


def assert_once_in_order(seqs, expected):
    assert len(seqs) == len(set(seqs)), "a row twice: %s" % sorted(seq for seq in set(seqs) if seqs.count(seq) > 1)
    assert seqs == sorted(seqs), "out of order: %s" % seqs
    assert seqs == expected, "missing: %s; extra: %s" % (sorted(set(expected) - set(seqs)), sorted(set(seqs) - set(expected)))


def test_jsonl_prints_every_row_oldest_first_and_after_a_seq_only_what_follows(deployment):
    for user in ("ada", "bob", "cy"):
        deployment.add_user(user)
    deployment.admin("block", "bob")
    rows = everything(deployment)
    assert [(row["action"], row["userID"]) for row in rows] == [
        ("user.create", "ada"), ("user.create", "bob"), ("user.create", "cy"), ("user.block", "bob")]
    assert [row["seq"] for row in rows] == sorted(row["seq"] for row in rows)
    assert set(rows[0]) == {"seq", "at", "action", "outcome", "userID", "deviceID", "detail"}
    out = subprocess.run(stream_command(deployment, "--after", str(rows[1]["seq"])), capture_output=True, text=True, timeout=60,
                         env=stream_environment(deployment))
    assert out.returncode == 0, out.stderr
    assert [json.loads(line) for line in out.stdout.splitlines()] == rows[2:]
    # The newest-first view names the same rows by the same number.
    assert [row["id"] for row in deployment.admin("audit")] == [row["seq"] for row in reversed(rows)]


def test_stream_options_are_checked(deployment):
    for args in (["--follow"], ["--after", "3"]):
        out = subprocess.run([deployment.bin, "admin", "audit", "--store", store_location(deployment.store)] + args,
                             capture_output=True, text=True, timeout=60, env=stream_environment(deployment))
        assert out.returncode != 0 and "--jsonl" in out.stderr
    out = subprocess.run(stream_command(deployment, "--counts"), capture_output=True, text=True, timeout=60, env=stream_environment(deployment))
    assert out.returncode != 0


def test_a_killed_follower_resumes_from_its_last_seq_with_no_row_twice_and_none_missing(deployment):
    deployment.add_user("first")
    follower = Follower(deployment)
    try:
        threads = writers(deployment, "before", 6)
        assert wait_until(lambda: len(follower.rows) >= 8, timeout=60), follower.seqs()
        follower.kill()  # mid-stream: the writers go on
        first = follower.seqs()
        resumed = Follower(deployment, after=first[-1])
        for thread in threads:
            thread.join()
        more = writers(deployment, "after", 4)
        for thread in more:
            thread.join()
        expected = [row["seq"] for row in everything(deployment)]
        assert len(expected) == 1 + 3 * 6 + 3 * 4
        assert wait_until(lambda: resumed.seqs()[-1:] == expected[-1:], timeout=30), (resumed.seqs(), expected)
        assert_once_in_order(first + resumed.seqs(), expected)
    finally:
        follower.stop()
        if "resumed" in locals():
            resumed.stop()


def test_a_follower_sees_each_new_row_promptly(deployment):
    """On SQLite a commit wakes the follower (its WAL file changes): far
    sooner than its once-a-second look, every time. On PostgreSQL a row that
    rings nothing waits for that look."""
    deployment.add_user("first")
    follower = Follower(deployment)
    bound = 1.5 if ON_POSTGRES else 0.5
    try:
        assert wait_until(lambda: len(follower.rows) == 1, timeout=30)
        for index in range(5):
            time.sleep(0.2)
            deployment.admin("expire-password" if index % 2 else "block", "first")
            written = time.time()
            assert wait_until(lambda: len(follower.rows) == 2 + index, timeout=30)
            assert time.time() - written < bound, "row %d took %.2f s" % (index, time.time() - written)
    finally:
        follower.stop()


def held_audit_row(deployment):
    """A psql session that inserts an audit row and keeps its transaction
    open (COMMIT on its stdin ends it); the session and the row's id."""
    cluster = postgres_cluster()
    held = subprocess.Popen(
        [os.path.join(cluster.bin, "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
         "-d", "dbname=%s host=%s user=%s" % (STORE_MAP[deployment.store], cluster.folder, cluster.USER)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ, PGPASSFILE=cluster.passfile))
    held.stdin.write("BEGIN;\nINSERT INTO audit (at, action, outcome) VALUES (EXTRACT(EPOCH FROM now())::BIGINT, 'test.held', 'ok') RETURNING id;\n")
    held.stdin.flush()
    return held, int(held.stdout.readline())


@pytest.mark.skipif(not ON_POSTGRES, reason="transactions commit out of id order only on PostgreSQL (SQLite has one writer at a time)")
def test_a_row_whose_transaction_is_held_open_is_not_skipped_once_it_commits(deployment):
    deployment.add_user("first")
    follower = Follower(deployment)
    held = None
    try:
        assert wait_until(lambda: len(follower.rows) == 1, timeout=30)
        held, held_seq = held_audit_row(deployment)
        # Rows drawn after the held one commit first.
        deployment.add_user("second")
        deployment.add_user("third")
        later = sorted(row["id"] for row in deployment.admin("audit") if row["userID"] in ("second", "third"))
        assert len(later) == 2 and min(later) > held_seq
        time.sleep(2)  # the follower looks at least twice meanwhile
        assert follower.seqs() == [follower.rows[0]["seq"]], "a row after the open transaction's went out before it"
        # Without --follow the stream prints only what is final, and says why it stops there.
        out = subprocess.run(stream_command(deployment, "--after", str(follower.rows[0]["seq"])), capture_output=True, text=True,
                             timeout=60, env=stream_environment(deployment))
        assert out.returncode == 0 and out.stdout == "" and "transaction still open" in out.stderr
        held.stdin.write("COMMIT;\n")
        held.stdin.close()
        assert held.wait(timeout=30) == 0
        assert wait_until(lambda: len(follower.rows) == 4, timeout=30), follower.seqs()
        assert follower.seqs()[1:] == [held_seq] + later
        assert follower.rows[1]["action"] == "test.held"
    finally:
        follower.stop()
        if held is not None and held.poll() is None:
            held.kill()


@pytest.mark.skipif(not ON_POSTGRES, reason="transactions commit out of id order only on PostgreSQL (SQLite has one writer at a time)")
def test_a_row_of_the_newest_transaction_held_open_with_nothing_committed_after_it_is_not_skipped(deployment):
    """The open writer holds the newest transaction id and nothing commits
    after it: no snapshot lists it as running (a snapshot's xmax is one past
    the newest that finished), yet its row is not final."""
    deployment.add_user("first")
    follower = Follower(deployment)
    held = None
    try:
        assert wait_until(lambda: len(follower.rows) == 1, timeout=30)
        held, held_seq = held_audit_row(deployment)
        time.sleep(2)  # the follower looks at least twice meanwhile
        assert follower.seqs() == [follower.rows[0]["seq"]]
        held.stdin.write("COMMIT;\n")
        held.stdin.close()
        assert held.wait(timeout=30) == 0
        assert wait_until(lambda: len(follower.rows) == 2, timeout=30), "the held row was skipped: %s" % follower.seqs()
        assert follower.seqs()[1] == held_seq and follower.rows[1]["action"] == "test.held"
    finally:
        follower.stop()
        if held is not None and held.poll() is None:
            held.kill()


# -- events.command ------------------------------------------------------------------

def events_deployment(tmp_path, flowhost_bin, spawn, script, actions=("session.open", "user.block"), **runner):
    command = tmp_path / "on-event.sh"
    command.write_text("#!/bin/sh\n" + script)
    command.chmod(0o755)
    config = dict(CHEAP_CONFIG, events=dict({"command": [str(command)], "actions": list(actions)}, **runner))
    return Deployment(str(tmp_path), flowhost_bin, spawn, config=config)


def timed_activation(deployment, user):
    code = deployment.add_user(user)
    host = deployment.host()
    started = time.time()
    activate(host, user, code)
    return host, time.time() - started


def test_a_slow_events_command_does_not_delay_the_login_and_gets_the_row(tmp_path, flowhost_bin, spawn):
    received = tmp_path / "received.jsonl"
    deployment = events_deployment(tmp_path, flowhost_bin, spawn, "sleep 4\ncat >> %s\n" % received)
    host, took = timed_activation(deployment, "alice")
    # The command takes 4 s for the session's event; the login's answer does not wait for it.
    assert took < 3, took
    assert wait_until(lambda: received.exists() and received.read_text().endswith("\n"), timeout=30)
    events = [json.loads(line) for line in received.read_text().splitlines()]
    opened = [row for row in everything(deployment) if row["action"] == "session.open"]
    assert events == opened  # the audit row itself, seq and all
    assert events[0]["userID"] == "alice" and events[0]["deviceID"] == "device-1"
    assert wait_until(lambda: any(row["action"] == "events.command" and row["outcome"] == "ok" for row in everything(deployment)))
    outbox = deployment.admin("outbox", "--all")
    assert [(item["kind"], item["seq"], "deliveredAt" in item) for item in outbox if item["kind"] == "audit-event"] == [
        ("audit-event", events[0]["seq"], True)]
    host.close()


def test_a_failing_events_command_is_recorded_and_retried_and_the_login_is_prompt(tmp_path, flowhost_bin, spawn):
    tries = tmp_path / "tries.jsonl"
    deployment = events_deployment(tmp_path, flowhost_bin, spawn, "cat >> %s\nexit 3\n" % tries, attempts=2, timeoutSeconds=2)
    host, took = timed_activation(deployment, "alice")
    assert took < 3, took
    # The first run fails at once; the second comes after the back-off (5 s), and the worker gives up.
    assert wait_until(lambda: tries.exists() and len(tries.read_text().splitlines()) == 2, timeout=40)
    assert wait_until(lambda: len([row for row in everything(deployment) if row["action"] == "events.command"]) == 2)
    runs = [(row["outcome"], row["detail"]["attempt"]) for row in everything(deployment) if row["action"] == "events.command"]
    assert runs == [("failed", 1), ("gave-up", 2)]
    sent = [json.loads(line) for line in tries.read_text().splitlines()]
    assert sent[0] == sent[1] and sent[0]["action"] == "session.open"  # the same event, the same seq: a repeat a receiver can tell
    [message] = [item for item in deployment.admin("outbox", "--all") if item["kind"] == "audit-event"]
    assert message["attempts"] == 2 and message["lastError"] == "exited with status 3" and "failedAt" in message
    host.close()


def test_an_admin_commands_event_runs_before_it_exits(tmp_path, flowhost_bin, spawn):
    received = tmp_path / "received.jsonl"
    deployment = events_deployment(tmp_path, flowhost_bin, spawn, "cat >> %s\n" % received)
    deployment.add_user("mallory")
    deployment.admin("block", "mallory")
    [event] = [json.loads(line) for line in received.read_text().splitlines()]
    assert (event["action"], event["userID"]) == ("user.block", "mallory")


def test_a_host_that_exits_right_after_a_login_still_delivers_its_event(tmp_path, flowhost_bin, spawn):
    """A socket-activated host exits when its client leaves: the run it woke
    finishes, and is recorded, before it exits (never a command left to run
    on alone, nor an event left to the next host)."""
    received = tmp_path / "received.jsonl"
    deployment = events_deployment(tmp_path, flowhost_bin, spawn, "sleep 1\ncat >> %s\n" % received, timeoutSeconds=5)
    code = deployment.add_user("alice")
    host = deployment.host()
    activate(host, "alice", code)
    host.process.stdin.close()  # the client leaves right after its login
    host.process.wait(timeout=20)
    assert received.exists(), "the host exited before its event's run finished"
    [event] = [json.loads(line) for line in received.read_text().splitlines()]
    assert (event["action"], event["userID"]) == ("session.open", "alice")
    [message] = [item for item in deployment.admin("outbox", "--all") if item["kind"] == "audit-event"]
    assert "deliveredAt" in message
    assert [row["outcome"] for row in everything(deployment) if row["action"] == "events.command"] == ["ok"]


def test_a_host_takes_up_an_earlier_runs_leftover_at_its_first_audit_row_before_it_exits(tmp_path, flowhost_bin, spawn):
    """The login itself is no event here: the host's worker starts at its
    first audit row all the same, and runs what an earlier run left."""
    tries = tmp_path / "tries.jsonl"
    deployment = events_deployment(tmp_path, flowhost_bin, spawn, "cat >> %s\nexit 3\n" % tries, actions=("user.block",), attempts=3,
                                   timeoutSeconds=2)
    code = deployment.add_user("alice")
    deployment.add_user("mallory")
    deployment.admin("block", "mallory")
    assert len(tries.read_text().splitlines()) == 1
    time.sleep(6)  # its retry is due (back-off 5 s)
    host = deployment.host()
    activate(host, "alice", code)
    host.process.stdin.close()
    host.process.wait(timeout=20)
    sent = [json.loads(line) for line in tries.read_text().splitlines()]
    assert [(event["action"], event["userID"]) for event in sent] == [("user.block", "mallory")] * 2, "the leftover was not run"


def test_an_admin_command_runs_only_the_events_it_made(tmp_path, flowhost_bin, spawn):
    """Another run's leftover (here a failed event, due again) is a host's
    worker's: an admin command runs none of it, and a read-only one runs nothing."""
    tries = tmp_path / "tries.jsonl"
    deployment = events_deployment(tmp_path, flowhost_bin, spawn, "cat >> %s\nexit 3\n" % tries, attempts=3, timeoutSeconds=2)
    for user in ("mallory", "trent"):
        deployment.add_user(user)
    deployment.admin("block", "mallory")
    assert [json.loads(line)["userID"] for line in tries.read_text().splitlines()] == ["mallory"]
    time.sleep(6)  # its retry is due (back-off 5 s)
    deployment.admin("outbox", "--all")
    deployment.admin("audit")
    assert [json.loads(line)["userID"] for line in tries.read_text().splitlines()] == ["mallory"], "a read-only command ran an event"
    deployment.admin("block", "trent")
    assert [json.loads(line)["userID"] for line in tries.read_text().splitlines()] == ["mallory", "trent"]


def test_each_step_of_an_issuer_rotation_is_an_audit_row_and_an_event(tmp_path, flowhost_bin, spawn):
    received = tmp_path / "received.jsonl"
    deployment = events_deployment(tmp_path, flowhost_bin, spawn, "cat >> %s\n" % received,
                                   actions=("issuer.stage", "issuer.activate", "issuer.withdraw"))
    staged = deployment.admin("rotate-issuer")["keyID"]
    deployment.admin("rotate-issuer", "--activate", staged)
    rows = [row for row in everything(deployment) if row["action"].startswith("issuer.")]
    retired = rows[-1]["detail"]["retiredKeyID"]
    deployment.admin("withdraw-issuer", retired, "--reason", "the old laptop is lost")
    rows = [row for row in everything(deployment) if row["action"].startswith("issuer.")]
    assert [(row["action"], row["outcome"], row["detail"], row["userID"]) for row in rows] == [
        ("issuer.stage", "ok", {"keyID": staged}, None),
        ("issuer.activate", "ok", {"keyID": staged, "retiredKeyID": retired}, None),
        ("issuer.withdraw", "ok", {"keyID": retired, "reason": "the old laptop is lost"}, None)]
    # Each ran the events command before its admin command exited: the rows themselves.
    assert [json.loads(line) for line in received.read_text().splitlines()] == rows


def test_events_settings_are_checked(tmp_path, flowhost_bin):
    for events, named in (({"command": ["/bin/true"]}, "events.actions"), ({"actions": ["user.block"]}, "events.command"),
                          ({"command": ["/bin/true"], "actions": ["events.command"]}, "events.actions"),
                          ({"command": ["/bin/true"], "actions": ["x"], "attempts": 0}, "events.attempts")):
        config = tmp_path / "config.json"
        config.write_text(json.dumps(dict(CHEAP_CONFIG, events=events)))
        out = subprocess.run([flowhost_bin, "admin", "audit", "--store", str(tmp_path / "s.sqlite"), "--config", str(config)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode != 0 and named in out.stderr, (events, out.stderr)
