#!/usr/bin/env python3
"""The change feed on PostgreSQL with many hosts on one machine: N hosts
subscribed to one topic through the echo example flow, one publisher, on a
throw-away cluster (Tests/EndToEnd/pgcluster.py, Debian's postgresql). For
each N it prints the hosts that failed (refused by the server, an error, an
exit), the server's backends for the database, backends per subscribed
host, the server's transactions per second while no event is published,
server transactions per published event while the events are published
and delivered (all, and what delivery costs: less the publish's own one),
the publisher's answer time, and the delivery time from the
publish request to each host's onEchoFeed (p50 / p99).

With --bouncer the hosts' queries go through a PgBouncer in transaction
mode and only their feed listener connects to the server (--feed-store),
as a deployment behind a pooler runs. --max-connections sets the server's
limit (PostgreSQL's default is 100). With --reference, each N is measured
again with Benchmarks/reference/fanout_host.c in place of the hosts: N
processes woken by one datagram each, with no database, driven the same
way: the physical limit the hosts' delivery is compared with.

    swift build
    FLOWHOST_BIN_DIR=$(swift build --show-bin-path) python3 scripts/feed-relay-probe.py --hosts 10,50,100

It takes about a minute for 10, 50 and 100 hosts; it is not part of CI (the
benchmark's `fleet` section runs it on the release build). Run it against
another build (FLOWHOST_BIN_DIR) to compare; --json FILE writes the rows."""

import argparse
import json
import os
import re
import resource
import selectors
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "EndToEnd"))
from pgcluster import Cluster  # noqa: E402


class Exited(Exception):
    def __init__(self, host):
        super().__init__("a host exited")
        self.host = host


class Host:
    """A host driven line by line from one selector loop (no thread per host,
    so arrival times are not skewed by the probe's own scheduling)."""

    def __init__(self, binary, url, state, feed=None):
        env = dict(os.environ, FLOWHOST_STATE_DIR=state, FLOWHOST_LOG_LEVEL="warning")
        arguments = [binary, "--store", url, "--examples"] + (["--feed-store", feed] if feed else [])
        self.process = subprocess.Popen(arguments, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        os.set_blocking(self.process.stdout.fileno(), False)
        self.buffer = b""
        self.next_id = 1

    def send(self, method, params):
        request_id = self.next_id
        self.next_id += 1
        self.write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return request_id

    def write(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def lines(self):
        chunk = os.read(self.process.stdout.fileno(), 1 << 16)
        if not chunk:
            raise Exited(self)
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


def pump(hosts, until, timeout=None):
    """Reads every host's lines until `until(host, message, arrived)` has
    said True for what it waits for. A thousand hosts starting at once on
    two cores take a while: the time allowed grows with their number."""
    timeout = timeout or max(60, 0.25 * len(hosts))
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
    """Sends the request to every host and waits for each answer; returns
    the hosts that answered with an error or exited (each counted once, as
    a refused or failed host, and left out from then on)."""
    waiting = {host: host.send(method, params(host) if callable(params) else params) for host in hosts}
    failed = []

    def until(host, message, _):
        if host in waiting and waiting[host] == message.get("id"):
            if "error" in message:
                sys.stderr.write("%s: %s\n" % (method, message["error"]))
                failed.append(host)
            del waiting[host]
        return not waiting
    while True:
        try:
            pump([host for host in hosts if host not in failed], until)
            return failed
        except Exited as exited:
            sys.stderr.write("%s: a host exited\n" % method)
            failed.append(exited.host)
            waiting.pop(exited.host, None)


def wait_ready(members):
    """Waits for each reference member's first line (its socket is bound)."""
    waiting = set(members)

    def until(member, message, _):
        if member in waiting and message.get("method") == "ready":
            waiting.discard(member)
        return not waiting
    pump(members, until)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def begun(cluster, body):
    """The transactions the server began (each with BEGIN, as the hosts'
    are) while `body` ran, from the statements it logged."""
    mark = os.path.getsize(cluster.log_file)
    body()
    time.sleep(0.2)
    with open(cluster.log_file, encoding="utf-8", errors="replace") as handle:
        handle.seek(mark)
        logged = handle.read()
    # A BEGIN is logged as a simple query's or, sent in the pipeline of its
    # transaction's first statement, as an extended query's.
    return len(re.findall(r"(?:statement|execute [^:]*): BEGIN", logged)), logged.count("INSERT INTO feed_event")


def deliveries(publisher, hosts, events, gap, publish):
    """Publishes `events` events one by one and returns each host's delivery
    time (ms) from the publish request to its onEchoFeed line, and the
    publisher's answer times (ms)."""
    latencies = []
    answers = []
    everyone = hosts + [publisher]
    for n in range(events):
        pending = set(hosts)
        started = time.monotonic()
        reply = {"id": publish(n)}

        def until(host, message, arrived):
            if host is publisher and message.get("id") == reply["id"]:
                reply["id"] = None
                answers.append((arrived - started) * 1000)
            elif host in pending and message.get("method") == "onEchoFeed" and message["params"]["payload"]["n"] == n:
                pending.discard(host)
                latencies.append((arrived - started) * 1000)
            return not pending and reply["id"] is None
        pump(everyone, until)
        time.sleep(gap)
    return latencies, answers


def measure(cluster, binary, count, events, gap, bouncer=None):
    database = cluster.create_database()
    state = tempfile.mkdtemp(prefix="flowhost-probe-state-")
    url = bouncer.url(database) if bouncer else cluster.url(database)
    feed = cluster.url(database) if bouncer else None
    hosts, publisher = [], None
    try:
        publisher = Host(binary, url, state, feed)
        if request_all([publisher], "initialize", {"protocolVersion": "1.1", "clientInfo": {"name": "probe", "version": "1"},
                                                   "device": {"deviceID": "publisher", "deviceName": "publisher", "ldaCapabilities": []}}):
            raise RuntimeError("the publisher failed to start")
        hosts = [Host(binary, url, state, feed) for _ in range(count)]
        failed = set(request_all(hosts, "initialize", lambda host: {
            "protocolVersion": "1.1", "clientInfo": {"name": "probe", "version": "1"},
            "device": {"deviceID": "d%d" % host.process.pid, "deviceName": "probe", "ldaCapabilities": []}}))
        failed |= set(request_all([host for host in hosts if host not in failed], "echo.subscribe", {"topic": "echo.probe"}))
        working = [host for host in hosts if host not in failed]
        time.sleep(1.0)
        rows = cluster.psql("postgres", "SELECT application_name, query FROM pg_stat_activity WHERE datname = '%s'" % database)
        backends = len(rows)
        listens = len([row for row in rows if row[1] == "LISTEN flowhost_feed"])
        # The server's idle load (what the hosts cost it while no event is
        # published), then the events' own: each publish is one transaction
        # that inserts its event, and delivery costs the server the rest.
        idle_seconds = 10
        idle, _ = begun(cluster, lambda: time.sleep(idle_seconds))
        timed = {}

        def publish_all():
            timed["latencies"], timed["answers"] = deliveries(
                publisher, working, events, gap, lambda n: publisher.send("echo.publish", {"topic": "echo.probe", "payload": {"n": n}}))
        transactions_begun, published = begun(cluster, publish_all)
        latencies, answers = timed["latencies"], timed["answers"]
        return {
            "hosts": count, "failed": len(failed), "backends": backends, "listens": listens, "per_host": backends / count,
            "transactions": transactions_begun / events,
            "idle_per_second": idle / idle_seconds,
            "delivery_transactions": (transactions_begun - published) / events,
            "p50": percentile(latencies, 0.50), "p99": percentile(latencies, 0.99), "publish_p50": percentile(answers, 0.50),
        }
    finally:
        for host in hosts + ([publisher] if publisher else []):
            host.close()
        cluster.drop_database(database)
        shutil.rmtree(state, ignore_errors=True)


class Reference(Host):
    """A fanout_host process, driven as a host is."""

    def __init__(self, arguments):
        self.process = subprocess.Popen(arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        os.set_blocking(self.process.stdout.fileno(), False)
        self.buffer = b""
        self.next_id = 1

    def close(self):
        # A member waits on its socket only, not on its input.
        self.process.terminate()
        self.process.wait()


def measure_reference(program, count, events, gap):
    folder = tempfile.mkdtemp(prefix="flowhost-probe-fanout-")
    members, publisher = [], None
    try:
        members = [Reference([program, "member", os.path.join(folder, "%d.sock" % index)]) for index in range(count)]
        wait_ready(members)
        publisher = Reference([program, "publisher", folder, str(count)])

        def publish(n):
            request_id = publisher.next_id
            publisher.next_id += 1
            publisher.write({"id": request_id, "payload": {"n": n}})
            return request_id
        latencies, _ = deliveries(publisher, members, events, gap, publish)
        return {"hosts": count, "p50": percentile(latencies, 0.50), "p99": percentile(latencies, 0.99)}
    finally:
        for process in members + ([publisher] if publisher else []):
            process.close()
        shutil.rmtree(folder, ignore_errors=True)


def compile_reference(folder):
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Benchmarks", "reference", "fanout_host.c")
    program = os.path.join(folder, "fanout_host")
    subprocess.run(["cc", "-O2", "-o", program, source], check=True)
    return program


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", default="10,50,100", help="comma-separated host counts")
    parser.add_argument("--events", type=int, default=50, help="events published per row")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between events")
    parser.add_argument("--bouncer", action="store_true", help="queries through a PgBouncer in transaction mode")
    parser.add_argument("--max-connections", type=int, default=100, help="the server's max_connections")
    parser.add_argument("--reference", action="store_true", help="measure Benchmarks/reference/fanout_host.c beside each row")
    parser.add_argument("--json", help="write the rows to this file")
    arguments = parser.parse_args()
    # Each host holds three pipes here, and PgBouncer one socket per host.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    folder = os.environ.get("FLOWHOST_BIN_DIR") or subprocess.check_output(["swift", "build", "--show-bin-path"], text=True).strip()
    binary = os.path.join(folder, "flowhost")
    scratch = tempfile.mkdtemp(prefix="flowhost-probe-")
    program = compile_reference(scratch) if arguments.reference else None
    cluster = Cluster(tempfile.mkdtemp(prefix="flowhost-probe-pg-"), max_connections=arguments.max_connections)
    rows = []
    try:
        cluster.log_backends(every_statement=True)
        bouncer = cluster.bouncer() if arguments.bouncer else None
        print("| hosts | failed | server backends | backends per host | LISTEN backends | idle server transactions/s "
              "| server transactions per event, all / its delivery | publish answered p50 | delivery p50 / p99 | reference p50 / p99 |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for count in [int(item) for item in arguments.hosts.split(",")]:
            row = measure(cluster, binary, count, arguments.events, arguments.gap, bouncer)
            if program:
                reference = measure_reference(program, count, arguments.events, arguments.gap)
                row["reference_p50"], row["reference_p99"] = reference["p50"], reference["p99"]
            rows.append(row)
            against = "%(reference_p50).1f / %(reference_p99).1f ms" % row if program else "—"
            print("| %(hosts)d | %(failed)d | %(backends)d | %(per_host).2f | %(listens)d | %(idle_per_second).2f | %(transactions).2f / %(delivery_transactions).2f | %(publish_p50).1f ms | %(p50).1f / %(p99).1f ms | " % row
                  + against + " |", flush=True)
    finally:
        cluster.remove()
        shutil.rmtree(scratch, ignore_errors=True)
    if arguments.json:
        with open(arguments.json, "w") as handle:
            json.dump({"bouncer": arguments.bouncer, "maxConnections": arguments.max_connections, "rows": rows}, handle, indent=2)


if __name__ == "__main__":
    main()
