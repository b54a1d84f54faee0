"""One listener per machine (Protocol/spec.md, "One listener per machine"):
the hosts that share a state folder and a store elect one of them by flock
on feed-relay-HASH.lock; it LISTENs on the server, takes each new feed row
from its notice (or reads it, once, when the notice cannot carry it) and
pushes the rows to the others over feed-relay-HASH.sock. Against a
real, throw-away PostgreSQL cluster, whatever FLOWHOST_TEST_BACKEND says."""

import glob
import os
import signal
import socket
import stat
import struct
import tempfile
import threading
import time

import pytest

from conftest import CHEAP_CONFIG

LISTENER = "flowhost feed listener"
SUBSCRIBERS = 5


@pytest.fixture(scope="module")
def cluster():
    from pgcluster import Cluster
    made = Cluster(tempfile.mkdtemp(prefix="flowhost-pg-relay-"))
    made.log_backends(every_statement=True)
    yield made
    made.remove()


@pytest.fixture
def store(cluster, tmp_path):
    yield from cluster.throwaway_store(tmp_path, CHEAP_CONFIG)


def echo_host(spawn, store, device):
    client = spawn("--store", store["url"], "--config", store["config"], "--examples", env=store["env"])
    client.initialize(device={"deviceID": device, "deviceName": device, "ldaCapabilities": []})
    return client


def subscribed(spawn, store, count, topic):
    hosts = [echo_host(spawn, store, "subscriber-%d" % index) for index in range(count)]
    for client in hosts:
        assert client.request("echo.subscribe", {"topic": topic}) == {"ok": True}
    return hosts


def listeners(cluster, store):
    """The database's LISTEN backends, by application name and by statement."""
    rows = cluster.psql("postgres", "SELECT pid, application_name, query FROM pg_stat_activity WHERE datname = '%s'" % store["db"])
    by_name = [row for row in rows if row[1] == LISTENER]
    by_statement = [row for row in rows if row[2] == "LISTEN flowhost_feed"]
    assert by_name == by_statement, rows
    return by_name


def settled_listeners(cluster, store, expected):
    for _ in range(100):
        found = listeners(cluster, store)
        if len(found) == expected:
            return found
        time.sleep(0.05)
    return listeners(cluster, store)


def relay_file(store, suffix):
    found = glob.glob(os.path.join(store["env"]["FLOWHOST_STATE_DIR"], "feed-relay-*" + suffix))
    assert len(found) == 1, found
    return found[0]


def holder_pid(store):
    """The process holding the relay's lock file, from /proc/locks."""
    return holder_in(store["env"]["FLOWHOST_STATE_DIR"])


def heard(client, count, timeout=15):
    return [client.wait_event("onEchoFeed", timeout=timeout)["params"]["payload"]["n"] for _ in range(count)]


def nothing_more(client):
    with pytest.raises(Exception):
        client.wait_event("onEchoFeed", timeout=0.5)


def feed_readers(cluster, since):
    """The backends that read the feed table after `since` bytes of the server log."""
    with open(os.path.join(cluster.folder, "server.log"), encoding="utf-8", errors="replace") as handle:
        handle.seek(since)
        lines = [line for line in handle if "FROM feed_event WHERE sequence >" in line]
    return {line.split("]")[0] for line in lines}, len(lines)


def log_size(cluster):
    return os.path.getsize(os.path.join(cluster.folder, "server.log"))


def test_the_hosts_of_a_machine_hold_one_listen_and_the_rows_come_in_its_notices(cluster, store, spawn):
    hosts = subscribed(spawn, store, SUBSCRIBERS, "echo.relay")
    publisher = echo_host(spawn, store, "publisher")
    assert len(settled_listeners(cluster, store, 1)) == 1, listeners(cluster, store)
    for suffix in (".lock", ".sock"):
        mode = os.lstat(relay_file(store, suffix)).st_mode
        assert stat.S_IMODE(mode) == 0o600, (suffix, oct(mode))
    assert holder_pid(store) in [client.process.pid for client in hosts]

    since, started = log_size(cluster), time.monotonic()
    for n in range(30):
        assert publisher.request("echo.publish", {"topic": "echo.relay", "payload": {"n": n}}) == {"ok": True}
    for client in hosts:
        assert heard(client, 30) == list(range(30))
        nothing_more(client)
    # The notices carried the rows: the holder read the feed only for its
    # periodic read (every 1.5 to 2 s), one backend for all of them.
    readers, reads = feed_readers(cluster, since)
    periodic = int((time.monotonic() - started) / 1.5) + 1
    assert len(readers) <= 1 and reads <= periodic, (readers, reads, periodic)
    # A row too large for its notice is read, once, by the holder.
    since, started = log_size(cluster), time.monotonic()
    large = "x" * 8000
    assert publisher.request("echo.publish", {"topic": "echo.relay", "payload": {"n": "large", "text": large}}) == {"ok": True}
    for client in hosts:
        event = client.wait_event("onEchoFeed", timeout=15)["params"]["payload"]
        assert event["n"] == "large" and event["text"] == large
    readers, reads = feed_readers(cluster, since)
    periodic = int((time.monotonic() - started) / 1.5) + 1
    assert len(readers) == 1 and 1 <= reads <= 1 + periodic, (readers, reads, periodic)
    # Any session may send a notice on the channel: one that does not name
    # the store's key is no row, and moves no cursor past what is real.
    for forged in (r"forged\n999999\n0\necho.relay\n{\"n\": \"forged\"}", r"999999\n0\necho.relay\n{\"n\": \"forged\"}"):
        cluster.psql(store["db"], "SELECT pg_notify('flowhost_feed', E'%s')" % forged.replace("'", "''"))
    time.sleep(0.3)
    assert publisher.request("echo.publish", {"topic": "echo.relay", "payload": {"n": "real"}}) == {"ok": True}
    for client in hosts:
        assert client.wait_event("onEchoFeed", timeout=15)["params"]["payload"]["n"] == "real"
    for n in range(30, 33):
        time.sleep(0.3)
        started = time.monotonic()
        assert publisher.request("echo.publish", {"topic": "echo.relay", "payload": {"n": n}}) == {"ok": True}
        for client in hosts:
            assert heard(client, 1) == [n]
        assert time.monotonic() - started < 1.0, "event %d came by the periodic read, not the listener" % n
    assert len(listeners(cluster, store)) == 1


def test_a_killed_holder_is_replaced_and_no_event_is_lost_or_repeated(cluster, store, spawn):
    hosts = subscribed(spawn, store, SUBSCRIBERS, "echo.failover")
    publisher = echo_host(spawn, store, "publisher")
    assert len(settled_listeners(cluster, store, 1)) == 1
    first = holder_pid(store)
    victim = next(client for client in hosts if client.process.pid == first)
    survivors = [client for client in hosts if client is not victim]
    total = 200

    def publish():
        for n in range(total):
            publisher.request("echo.publish", {"topic": "echo.failover", "payload": {"n": n}}, timeout=30)
            time.sleep(0.005)
    thread = threading.Thread(target=publish)
    thread.start()
    for client in survivors:
        assert heard(client, 1) == [0]
    time.sleep(0.2)
    os.kill(first, signal.SIGKILL)
    thread.join()
    for client in survivors:
        assert heard(client, total - 1) == list(range(1, total))
        nothing_more(client)
    second = holder_pid(store)
    assert second in [client.process.pid for client in survivors], (first, second)
    assert len(settled_listeners(cluster, store, 1)) == 1, listeners(cluster, store)


def test_a_host_starting_alone_becomes_the_holder_and_an_exiting_holder_hands_over(cluster, store, spawn):
    first = echo_host(spawn, store, "first")
    state = store["env"]["FLOWHOST_STATE_DIR"]
    # Nothing before the first subscription: no file, no connection.
    assert glob.glob(os.path.join(state, "feed-relay-*")) == []
    assert listeners(cluster, store) == []
    assert first.request("echo.subscribe", {"topic": "echo.handover"}) == {"ok": True}
    assert holder_pid(store) == first.process.pid
    second, third = subscribed(spawn, store, 2, "echo.handover")
    assert holder_pid(store) == first.process.pid
    publisher = echo_host(spawn, store, "publisher")
    assert publisher.request("echo.publish", {"topic": "echo.handover", "payload": {"n": 0}}) == {"ok": True}
    for client in (first, second, third):
        assert heard(client, 1) == [0]
    # The holder exits: one of the others takes over, and another after it.
    first.close()
    assert publisher.request("echo.publish", {"topic": "echo.handover", "payload": {"n": 1}}) == {"ok": True}
    for client in (second, third):
        assert heard(client, 1) == [1]
    assert holder_pid(store) in (second.process.pid, third.process.pid)
    assert len(settled_listeners(cluster, store, 1)) == 1
    holder = second if holder_pid(store) == second.process.pid else third
    other = third if holder is second else second
    holder.close()
    assert publisher.request("echo.publish", {"topic": "echo.handover", "payload": {"n": 2}}) == {"ok": True}
    assert heard(other, 1) == [2]
    assert holder_pid(store) == other.process.pid
    assert len(settled_listeners(cluster, store, 1)) == 1


def frame(kind, body):
    return struct.pack(">IB", len(body) + 1, kind) + body


def refused(path, data):
    """Sends `data` to the holder's socket; True when the holder closes the connection."""
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    peer.settimeout(5)
    peer.connect(path)
    try:
        peer.sendall(data)
        return peer.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):  # closed before or while the bytes went
        return True
    finally:
        peer.close()


def test_garbage_and_foreign_peers_are_refused_and_the_holder_carries_on(cluster, store, spawn):
    hosts = subscribed(spawn, store, 3, "echo.garbage")
    publisher = echo_host(spawn, store, "publisher")
    holder = holder_pid(store)
    path = relay_file(store, ".sock")
    assert refused(path, b"\xff\xff\xff\xff")                          # a length over the bound
    assert refused(path, frame(9, b"x"))                               # an unknown kind
    assert refused(path, frame(1, b"\x00" * 8))                        # a follow cut short
    assert refused(path, frame(2, struct.pack(">QI", 1, 0)))           # events, from a reader
    assert refused(path, frame(1, struct.pack(">QqH", 1, 0, 1) + struct.pack(">H", 2) + b"\xff\xfe"))  # not UTF-8
    assert refused(path, frame(1, struct.pack(">QqH", 1, 0, 1025) + b"".join(struct.pack(">H", 1) + b"t" for _ in range(1025))))  # too many topics
    if os.geteuid() == 0:
        # Another user, let past the file system's permissions (a link to the
        # socket in a folder it can reach, the socket's mode opened): refused by its uid.
        reachable = tempfile.mkdtemp(prefix="flowhost-relay-foreign-")
        os.chmod(reachable, 0o755)
        link = os.path.join(reachable, "relay.sock")
        os.link(path, link)
        os.chmod(path, 0o666)
        try:
            child = os.fork()
            if child == 0:
                try:
                    os.setgid(65534)
                    os.setuid(65534)
                    os._exit(0 if refused(link, frame(1, struct.pack(">QqH", 1, 0, 0))) else 1)
                except BaseException:
                    os._exit(2)
            assert os.waitpid(child, 0)[1] == 0
        finally:
            os.chmod(path, 0o600)
            os.unlink(link)
            os.rmdir(reachable)
    assert holder_pid(store) == holder
    assert publisher.request("echo.publish", {"topic": "echo.garbage", "payload": {"n": 7}}) == {"ok": True}
    for client in hosts:
        assert heard(client, 1) == [7]
    assert len(listeners(cluster, store)) == 1


def test_hosts_of_two_stores_sharing_a_state_folder_each_get_their_own_feed(cluster, store, spawn, tmp_path):
    (tmp_path / "other").mkdir()
    for other in cluster.throwaway_store(tmp_path / "other", CHEAP_CONFIG):
        other = dict(other, env=store["env"])  # the same state folder
        ours = subscribed(spawn, store, 2, "echo.shared")
        theirs = subscribed(spawn, other, 2, "echo.shared")
        state = store["env"]["FLOWHOST_STATE_DIR"]
        assert len(glob.glob(os.path.join(state, "feed-relay-*.lock"))) == 2
        assert echo_host(spawn, store, "publisher").request("echo.publish", {"topic": "echo.shared", "payload": {"n": 1}}) == {"ok": True}
        assert echo_host(spawn, other, "publisher").request("echo.publish", {"topic": "echo.shared", "payload": {"n": 2}}) == {"ok": True}
        for client in ours:
            assert heard(client, 1) == [1]
            nothing_more(client)
        for client in theirs:
            assert heard(client, 1) == [2]
            nothing_more(client)
        assert len(listeners(cluster, store)) == 1 and len(listeners(cluster, other)) == 1


def holder_in(folder):
    """The process holding the relay's lock file in one machine's state
    folder, from /proc/locks."""
    found = glob.glob(os.path.join(folder, "feed-relay-*.lock"))
    assert len(found) == 1, found
    inode = os.stat(found[0]).st_ino
    with open("/proc/locks") as handle:
        for line in handle:
            fields = line.split()
            if "FLOCK" in fields and fields[-3].split(":")[-1] == str(inode):
                return int(fields[-4])
    return None


def relay_warnings(machines, victim):
    """What each living host of `machines` said of the relay: with an extra
    listener, which host reads the store itself, and why."""
    return [(folder, client.process.pid, line)
            for folder, hosts in machines for client in hosts if client is not victim
            for line in client.stderr_text().splitlines() if "change feed" in line]


def test_four_machines_four_publishers_and_a_listener_killed_midstream(cluster, store, spawn, tmp_path):
    """Four machines (a state folder each, so a listener each) on one server,
    three subscribed hosts on each, four publishers at once: every host
    hears every event once, all in one order, each publisher's in the order
    it published them; and so again after one machine's listener is killed
    in the middle of the stream (issue 51's simulated machines)."""
    machines = []
    for index in range(4):
        folder = tmp_path / ("machine-%d" % index)
        folder.mkdir(mode=0o700)
        env = {"FLOWHOST_STATE_DIR": str(folder)}
        hosts = []
        for number in range(3):
            client = spawn("--store", store["url"], "--config", store["config"], "--examples", env=env)
            client.initialize(device={"deviceID": "m%d-%d" % (index, number), "deviceName": "m", "ldaCapabilities": []})
            assert client.request("echo.subscribe", {"topic": "echo.machines"}) == {"ok": True}
            hosts.append(client)
        machines.append((str(folder), hosts))
    assert len(settled_listeners(cluster, store, 4)) == 4, listeners(cluster, store)
    publishers = [echo_host(spawn, store, "publisher-%d" % index) for index in range(4)]
    each = 60
    errors = []

    def publish(index):
        try:
            for n in range(each):
                payload = {"n": index * 1000 + n}
                assert publishers[index].request("echo.publish", {"topic": "echo.machines", "payload": payload}, timeout=30) == {"ok": True}
        except Exception as error:  # reported below, not lost in the thread
            errors.append(error)
    threads = [threading.Thread(target=publish, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    # A machine's listener killed while the publishers run.
    folder, hosts = machines[2]
    early = {client: heard(client, 5) for client in hosts}
    victim_pid = holder_in(folder)
    victim = next(client for client in hosts if client.process.pid == victim_pid)
    os.kill(victim_pid, signal.SIGKILL)
    for thread in threads:
        thread.join()
    assert errors == []
    orders = []
    for folder, hosts in machines:
        for client in hosts:
            if client is victim:
                continue
            got = early.get(client, [])
            got += heard(client, 4 * each - len(got), timeout=30)
            nothing_more(client)
            assert len(got) == len(set(got)) == 4 * each, (folder, len(got), len(set(got)))
            for index in range(4):
                mine = [n for n in got if n // 1000 == index]
                assert mine == [index * 1000 + n for n in range(each)], (folder, index)
            orders.append(got)
    assert all(order == orders[0] for order in orders), "the hosts heard the events in different orders"
    assert holder_in(machines[2][0]) in [client.process.pid for client in machines[2][1] if client is not victim]
    assert len(settled_listeners(cluster, store, 4)) == 4, (listeners(cluster, store), relay_warnings(machines, victim))
