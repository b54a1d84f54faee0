#!/usr/bin/env python3
"""The change feed on PostgreSQL with many hosts on one machine: N hosts
subscribed to one topic through the echo example flow, one publisher, on a
throw-away cluster (Tests/EndToEnd/pgcluster.py, Debian's postgresql). For
each N it prints the server's backends for the database, backends per
subscribed host, server transactions per published event, and the delivery
time from the publish request to each host's onEchoFeed (p50 / p99).

    swift build
    FLOWHOST_BIN_DIR=$(swift build --show-bin-path) python3 scripts/feed-relay-probe.py --hosts 10,50,100

It takes about a minute for 10, 50 and 100 hosts; it is not part of CI.
Run it against another build (FLOWHOST_BIN_DIR) to compare."""

import argparse
import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "EndToEnd"))
from pgcluster import Cluster  # noqa: E402


class Host:
    """A host driven line by line from one selector loop (no thread per host,
    so arrival times are not skewed by the probe's own scheduling)."""

    def __init__(self, binary, url, state):
        env = dict(os.environ, FLOWHOST_STATE_DIR=state, FLOWHOST_LOG_LEVEL="warning")
        self.process = subprocess.Popen([binary, "--store", url, "--examples"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        os.set_blocking(self.process.stdout.fileno(), False)
        self.buffer = b""
        self.next_id = 1

    def send(self, method, params):
        request_id = self.next_id
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}) + "\n"
        self.process.stdin.write(line.encode())
        self.process.stdin.flush()
        return request_id

    def lines(self):
        chunk = os.read(self.process.stdout.fileno(), 1 << 16)
        if not chunk:
            raise RuntimeError("a host exited")
        self.buffer += chunk
        *complete, self.buffer = self.buffer.split(b"\n")
        return [json.loads(line) for line in complete if line]

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def pump(hosts, until, timeout=30):
    """Reads every host's lines until `until(host, message, arrived)` has said True for what it waits for."""
    selector = selectors.DefaultSelector()
    for host in hosts:
        selector.register(host.process.stdout, selectors.EVENT_READ, host)
    deadline = time.monotonic() + timeout
    try:
        while not until(None, None, None):
            if time.monotonic() > deadline:
                raise RuntimeError("timed out")
            for key, _ in selector.select(0.5):
                arrived = time.monotonic()
                for message in key.data.lines():
                    until(key.data, message, arrived)
    finally:
        selector.close()


def request_all(hosts, method, params):
    waiting = {host: host.send(method, params(host) if callable(params) else params) for host in hosts}

    def until(host, message, _):
        if host in waiting and waiting[host] == message.get("id"):
            if "error" in message:
                raise RuntimeError("%s: %s" % (method, message["error"]))
            del waiting[host]
        return not waiting
    pump(hosts, until)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def transactions(cluster, database):
    time.sleep(1.5)  # the server flushes its statistics about once a second
    return int(cluster.psql("postgres", "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '%s'" % database)[0][0])


def measure(cluster, binary, count, events, gap):
    database = cluster.create_database()
    state = tempfile.mkdtemp(prefix="flowhost-probe-state-")
    url = cluster.url(database)
    hosts, publisher = [], None
    try:
        publisher = Host(binary, url, state)
        request_all([publisher], "initialize", {"protocolVersion": "1.1", "clientInfo": {"name": "probe", "version": "1"},
                                                "device": {"deviceID": "publisher", "deviceName": "publisher", "ldaCapabilities": []}})
        hosts = [Host(binary, url, state) for _ in range(count)]
        request_all(hosts, "initialize", lambda host: {
            "protocolVersion": "1.1", "clientInfo": {"name": "probe", "version": "1"},
            "device": {"deviceID": "d%d" % host.process.pid, "deviceName": "probe", "ldaCapabilities": []}})
        request_all(hosts, "echo.subscribe", {"topic": "echo.probe"})
        time.sleep(1.0)
        rows = cluster.psql("postgres", "SELECT application_name, query FROM pg_stat_activity WHERE datname = '%s'" % database)
        backends = len(rows)
        listens = len([row for row in rows if row[1] == "LISTEN flowhost_feed"])
        before = transactions(cluster, database)
        latencies = []
        everyone = hosts + [publisher]
        for n in range(events):
            pending = set(hosts)
            started = time.monotonic()
            reply = {"id": publisher.send("echo.publish", {"topic": "echo.probe", "payload": {"n": n}})}

            def until(host, message, arrived):
                if host is publisher and message.get("id") == reply["id"]:
                    reply["id"] = None
                elif host in pending and message.get("method") == "onEchoFeed" and message["params"]["payload"]["n"] == n:
                    pending.discard(host)
                    latencies.append((arrived - started) * 1000)
                return not pending and reply["id"] is None
            pump(everyone, until)
            time.sleep(gap)
        after = transactions(cluster, database)
        return {
            "hosts": count, "backends": backends, "listens": listens, "per_host": backends / count,
            "transactions": (after - before) / events,
            "p50": percentile(latencies, 0.50), "p99": percentile(latencies, 0.99),
        }
    finally:
        for host in hosts + ([publisher] if publisher else []):
            host.close()
        cluster.drop_database(database)
        shutil.rmtree(state, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", default="10,50,100", help="comma-separated host counts")
    parser.add_argument("--events", type=int, default=50, help="events published per row")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between events")
    arguments = parser.parse_args()
    folder = os.environ.get("FLOWHOST_BIN_DIR") or subprocess.check_output(["swift", "build", "--show-bin-path"], text=True).strip()
    binary = os.path.join(folder, "flowhost")
    cluster = Cluster(tempfile.mkdtemp(prefix="flowhost-probe-pg-"))
    try:
        print("| hosts | server backends | backends per host | LISTEN backends | server transactions per published event | delivery p50 / p99 |")
        print("|---|---|---|---|---|---|")
        for count in [int(item) for item in arguments.hosts.split(",")]:
            row = measure(cluster, binary, count, arguments.events, arguments.gap)
            print("| %(hosts)d | %(backends)d | %(per_host).2f | %(listens)d | %(transactions).1f | %(p50).1f / %(p99).1f ms |" % row, flush=True)
    finally:
        cluster.remove()


if __name__ == "__main__":
    main()
