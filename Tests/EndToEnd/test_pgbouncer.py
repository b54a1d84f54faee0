"""Hosts whose queries go through a real PgBouncer in transaction mode
(pgcluster.Bouncer: server_reset_query empty, a pool smaller than the number
of hosts) and whose change feed LISTENs on the server itself (--feed-store),
whatever FLOWHOST_TEST_BACKEND says: every transaction stands alone, and an
idle host holds no server connection."""

import json
import os
import subprocess
import tempfile
import time

import pytest

from conftest import CHEAP_CONFIG, GOOD_PASSWORD, activate
from pgcluster import logged_statements, write_durabilities

POOL_SIZE = 2


@pytest.fixture(scope="module")
def cluster():
    from pgcluster import Cluster
    made = Cluster(tempfile.mkdtemp(prefix="flowhost-pg-bouncer-"))
    made.log_backends()
    made.pool = made.bouncer(pool_size=POOL_SIZE)
    yield made
    made.remove()


@pytest.fixture
def store(cluster, tmp_path):
    for made in cluster.throwaway_store(tmp_path, CHEAP_CONFIG, url=cluster.pool.url):
        yield dict(made, feed=cluster.url(made["db"]))


def admin(flowhost_bin, store, *args):
    out = subprocess.run([flowhost_bin, "admin"] + list(args) + ["--store", store["url"], "--config", store["config"], "--json"],
                         capture_output=True, text=True, timeout=60, env=dict(os.environ, **store["env"]))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def host(spawn, store, device, *extra):
    client = spawn("--store", store["url"], "--feed-store", store["feed"], "--config", store["config"], *extra, env=store["env"])
    client.initialize(device={"deviceID": device, "deviceName": device, "ldaCapabilities": []})
    return client


def log_in(client, user):
    client.request("logOff", [user])
    client.wait_event("getUser")
    client.request("setUser", [user])
    client.wait_event("getPassword")
    client.request("setPassword", [GOOD_PASSWORD, 0])
    assert client.wait_event("onUserLoggedIn")["params"]["userID"] == user


def backends(cluster, database):
    """The database's server connections: (pid, last statement)."""
    return cluster.psql("postgres", "SELECT pid, query FROM pg_stat_activity WHERE datname = '%s'" % database)


def test_the_pooler_is_in_true_transaction_mode(cluster):
    settings = {row["key"]: row["value"] for row in cluster.pool.show("CONFIG")}
    assert settings["pool_mode"] == "transaction"
    assert settings["server_reset_query"] == ""
    assert settings["default_pool_size"] == str(POOL_SIZE)


def test_hosts_through_the_pooler_log_in_and_an_idle_host_holds_no_server_connection(cluster, store, spawn, flowhost_bin):
    users = ["alice", "bob", "carol", "dave"]
    hosts = []
    for user in users:
        code = admin(flowhost_bin, store, "add-user", user)["activationCode"]
        client = host(spawn, store, "laptop-" + user)
        activate(client, user, code)
        hosts.append(client)
    for user, client in zip(users, hosts):
        log_in(client, user)
    # Four hosts, each with a session, between transactions: none holds a
    # server connection through the pooler (each client's link is empty; a
    # sample may catch a host's periodic feed read in flight, so the first
    # sample without one counts), and the pooler never opened more than its
    # pool for them.
    for _ in range(40):
        clients = [row for row in cluster.pool.show("CLIENTS") if row["database"] == store["db"]]
        if all(row["link"] == "" for row in clients):
            break
        time.sleep(0.05)
    assert len(clients) >= len(users), clients
    assert all(row["link"] == "" for row in clients), clients
    servers = [row for row in cluster.pool.show("SERVERS") if row["database"] == store["db"]]
    assert len(servers) <= POOL_SIZE and all(row["state"] != "active" and row["link"] == "" for row in servers), servers
    pooled = [row for row in backends(cluster, store["db"]) if row[1] != "LISTEN flowhost_feed"]
    assert len(pooled) <= POOL_SIZE, pooled
    assert cluster.psql(store["db"], "SELECT count(*) FROM session WHERE ended_at IS NULL") == [[str(len(users))]]


def test_users_logging_off_and_in_again_keep_the_machines_one_listen(cluster, store, spawn, flowhost_bin):
    """A host that follows nothing keeps its place in the machine's relay a
    while (Protocol/spec.md, "One listener per machine"): a logoff and a
    login do not make the server start, and authenticate, a new LISTEN
    connection each time, whichever host held it."""
    hosts = {}
    for user in ("frank", "grace"):
        code = admin(flowhost_bin, store, "add-user", user)["activationCode"]
        hosts[user] = host(spawn, store, "laptop-" + user)
        activate(hosts[user], user, code)

    def listening():
        return cluster.psql("postgres", "SELECT pid FROM pg_stat_activity WHERE datname = '%s' AND application_name = 'flowhost feed listener'"
                            % store["db"])
    first = listening()
    assert len(first) == 1, backends(cluster, store["db"])
    for _ in range(3):
        for user, client in hosts.items():
            log_in(client, user)
            assert listening() == first


def test_every_write_sets_its_durability_inside_its_transaction(cluster, store, spawn, flowhost_bin):
    """With a database default of synchronous_commit=off, a session SET would
    hold only on the server connection that ran it; through the pooler other
    transactions would commit without it. Every write sets it itself."""
    cluster.psql("postgres", "ALTER DATABASE %s SET synchronous_commit = off" % store["db"])
    cluster.psql("postgres", "ALTER DATABASE %s SET log_statement = 'all'" % store["db"])
    code = admin(flowhost_bin, store, "add-user", "erin")["activationCode"]
    laptop = host(spawn, store, "laptop-e")
    activate(laptop, "erin", code)
    log_in(laptop, "erin")
    with open(os.path.join(cluster.folder, "server.log"), encoding="utf-8", errors="replace") as handle:
        log = handle.read()
    durabilities = write_durabilities(log)
    assert durabilities and None not in durabilities, durabilities
    assert "on" in durabilities
    statements = [statement for _, statement in logged_statements(log)]
    assert not [s for s in statements if s.startswith("SET synchronous_commit")]
    assert not [s for s in statements if "PREPARE" in s or "pg_advisory_lock(" in s or "TEMP" in s]


def test_the_feed_listens_on_the_server_itself_and_wakes_at_once(cluster, store, spawn):
    """Through the pooler a LISTEN would be lost with its server connection;
    --feed-store keeps it on the server, so each event wakes the subscriber
    long before its periodic read (every 2 s)."""
    listener = host(spawn, store, "listener", "--examples")
    assert listener.request("echo.subscribe", {"topic": "echo.pooled"}) == {"ok": True}
    publisher = host(spawn, store, "publisher", "--examples")
    listening = [row for row in backends(cluster, store["db"]) if row[1] == "LISTEN flowhost_feed"]
    assert len(listening) >= 1, backends(cluster, store["db"])
    for n in range(5):
        time.sleep(0.3 + 0.25 * n)
        started = time.monotonic()
        assert publisher.request("echo.publish", {"topic": "echo.pooled", "payload": {"n": n}}) == {"ok": True}
        assert listener.wait_event("onEchoFeed", timeout=10)["params"]["payload"]["n"] == n
        assert time.monotonic() - started < 1.0, "event %d came by the periodic read, not the LISTEN" % n


def test_a_feed_store_with_a_password_or_beside_a_sqlite_store_is_refused(store, flowhost_bin, tmp_path):
    with_password = store["feed"].replace("postgresql:///", "postgresql://flowhost:hunter2secret@/")
    refused = subprocess.run([flowhost_bin, "--store", store["url"], "--feed-store", with_password, "--config", store["config"]],
                             input="", capture_output=True, text=True, timeout=30, env=dict(os.environ, **store["env"]))
    assert refused.returncode == 64 and "holds a password" in refused.stderr, refused.stderr
    assert "hunter2secret" not in refused.stderr
    beside_sqlite = subprocess.run([flowhost_bin, "--store", str(tmp_path / "s.sqlite"), "--feed-store", store["feed"]],
                                   input="", capture_output=True, text=True, timeout=30)
    assert beside_sqlite.returncode == 64 and "--feed-store" in beside_sqlite.stderr, beside_sqlite.stderr


def test_the_configs_store_feed_is_used_when_no_option_names_one(cluster, store, spawn, tmp_path):
    config = dict(CHEAP_CONFIG, store={"feed": store["feed"]})
    path = tmp_path / "with-feed.json"
    path.write_text(json.dumps(config))
    listener = spawn("--store", store["url"], "--config", str(path), "--examples", env=store["env"])
    listener.initialize(device={"deviceID": "l", "deviceName": "l", "ldaCapabilities": []})
    assert listener.request("echo.subscribe", {"topic": "echo.config"}) == {"ok": True}
    assert [row for row in backends(cluster, store["db"]) if row[1] == "LISTEN flowhost_feed"]
