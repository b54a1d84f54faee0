"""The PostgreSQL store against a real, throw-away server (pgcluster.py),
whatever FLOWHOST_TEST_BACKEND says: what only PostgreSQL has (a server that
can stop mid-flow, many hosts migrating at once, a password kept out of the
URL) and what must hold there as in SQLite (append-only tables)."""

import os
import re
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import CHEAP_CONFIG, GOOD_PASSWORD, activate, status_of
from flowhost_client import RPCError
from pgcluster import Cluster, write_durabilities


@pytest.fixture(scope="module")
def cluster():
    """A cluster of this module's own: one test stops and starts it."""
    made = Cluster(tempfile.mkdtemp(prefix="flowhost-pg-own-"))
    yield made
    made.remove()


@pytest.fixture
def store(cluster, tmp_path):
    yield from cluster.throwaway_store(tmp_path, CHEAP_CONFIG)


def admin(flowhost_bin, store, *args):
    import json
    out = subprocess.run([flowhost_bin, "admin"] + list(args) + ["--store", store["url"], "--config", store["config"], "--json"],
                         capture_output=True, text=True, timeout=60, env=dict(os.environ, **store["env"]))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def host(spawn, store, device):
    client = spawn("--store", store["url"], "--config", store["config"], env=store["env"])
    client.initialize(device={"deviceID": device, "deviceName": device, "ldaCapabilities": []})
    return client


def test_the_server_stopping_mid_flow_is_a_clear_status_and_the_host_recovers(cluster, store, spawn, flowhost_bin):
    code = admin(flowhost_bin, store, "add-user", "alice")["activationCode"]
    laptop = host(spawn, store, "laptop")
    activate(laptop, "alice", code)
    laptop.request("logOff", ["alice"])
    laptop.wait_event("getUser")
    laptop.request("setUser", ["alice"])
    laptop.wait_event("getPassword")
    cluster.stop("fast")
    try:
        laptop.request("setPassword", [GOOD_PASSWORD, 0])
        refused = laptop.wait_event("getUser")
        assert status_of(refused) == 114, refused  # a clear status, not a crash or a login
        assert laptop.process.poll() is None
        # While the server is down, a new step is refused with a clear error; getUser stays open.
        with pytest.raises(RPCError) as refused_again:
            laptop.request("setUser", ["alice"])
        assert refused_again.value.code == -32015 and refused_again.value.data == {"retryAfterSeconds": 1}
    finally:
        cluster.start()
    # The server is back: the same host logs in (it reconnects; the back-off is short at first).
    import time
    deadline = time.time() + 15
    while True:
        try:
            laptop.request("setUser", ["alice"])
            break
        except RPCError as error:
            assert error.code == -32015 and time.time() < deadline, error
            time.sleep(0.2)
    laptop.wait_event("getPassword")
    laptop.request("setPassword", [GOOD_PASSWORD, 0])
    assert laptop.wait_event("onUserLoggedIn")["params"]["userID"] == "alice"
    # The change feed came back too (its LISTEN connection is opened again): a
    # notification made now reaches the logged-in host.
    uuid = admin(flowhost_bin, store, "notify", "alice", "--subject", "After the restart", "--message", "m",
                 "--action", "Accept=accept:1")["notification_uuid"]
    assert laptop.wait_event("onNotificationReceived", timeout=15)["params"]["notification_uuid"] == uuid
    # Nothing half-written: no attempt was spent, one session is open (this one).
    rows = cluster.psql(store["db"], "SELECT password_attempts_left FROM \"user\" WHERE user_id = 'alice'")
    assert int(rows[0][0]) == CHEAP_CONFIG["passwords"]["maxAttempts"]
    assert cluster.psql(store["db"], "SELECT count(*) FROM session WHERE user_id = 'alice' AND ended_at IS NULL") == [["1"]]
    assert "the store is unreachable" in laptop.stderr_text()


def test_durability_maps_to_synchronous_commit_whatever_the_databases_default(cluster, store, spawn, flowhost_bin):
    """A database whose default is synchronous_commit=off still gets durable
    commits for security-relevant writes: each write transaction sets it on,
    and only relaxed writes (a login's session) set it off. Seen in the
    server's statement log of this database."""
    cluster.psql("postgres", "ALTER DATABASE %s SET synchronous_commit = off" % store["db"])
    cluster.psql("postgres", "ALTER DATABASE %s SET log_statement = 'all'" % store["db"])
    code = admin(flowhost_bin, store, "add-user", "carol")["activationCode"]
    laptop = host(spawn, store, "laptop-c")
    activate(laptop, "carol", code)
    laptop.request("logOff", ["carol"])
    laptop.wait_event("getUser")
    laptop.request("setUser", ["carol"])
    laptop.wait_event("getPassword")
    laptop.request("setPassword", [GOOD_PASSWORD, 0])
    laptop.wait_event("onUserLoggedIn")
    assert cluster.psql(store["db"], "SELECT status FROM \"user\" WHERE user_id = 'carol'") == [["active"]]
    with open(os.path.join(cluster.folder, "server.log"), encoding="utf-8", errors="replace") as handle:
        log = handle.read()
    durabilities = write_durabilities(log)
    assert None not in durabilities, durabilities  # every write sets it, as its transaction's first statement
    assert "on" in durabilities and "off" in durabilities, durabilities
    assert "statement: SET synchronous_commit" not in log
    # No round trip of its own for a BEGIN: it travels with the transaction's first statement.
    assert not re.search(r"statement: BEGIN ISOLATION LEVEL [A-Z ]+(; SET LOCAL synchronous_commit = \w+)?\n", log)  # no session state: a transaction pooler may sit in between
    assert code not in log and GOOD_PASSWORD not in log  # raw secrets never reach SQL, only their hashes


def test_eight_hosts_starting_at_once_on_a_new_database_migrate_it_once(cluster, store, flowhost_bin):
    results = []

    def start():
        out = subprocess.run([flowhost_bin, "--store", store["url"], "--config", store["config"]],
                             input='{"jsonrpc":"2.0","id":1,"method":"ping"}\n', capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, **store["env"]))
        results.append((out.returncode, out.stderr[-500:]))
    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(code == 0 for code, _ in results), results
    names = [row[0] for row in cluster.psql(store["db"], "SELECT name FROM schema_migration ORDER BY name")]
    # Each domain's migrations, once each; a new database runs none of the history before the split by domain.
    assert names == sorted([
        "feed/v1-feed", "feed/v2-commit-order", "accounts/v1-users-and-devices", "audit/v1-audit", "audit/v2-no-truncate",
        "sessions/v1-sessions", "delivery/v1-outbox", "credentials/v4-passwords-and-codes", "records/v1-records",
        "devices/v1-device-keys", "signatures/v1-signature-receipts", "signatures/v2-issuer-countersignature",
        "signatures/v3-no-truncate", "notifications/v1-notifications", "devices/v2-key-algorithm", "devices/v3-webauthn",
        # Indexes and retention that keep every table bounded and every statement off whole-table reads (issue 25).
        "sessions/v2-history-indexes", "feed/v3-by-time", "notifications/v2-by-creation", "audit/v3-retention", "delivery/v2-indexes",
        "sessions/v3-users-by-last-access", "audit/v4-ids-by-rowid",
        # The issuer's key set (spec §19).
        "signatures/v4-issuer-key-set",
        # The audit stream's cursor (spec §12, "The audit as a stream").
        "audit/v5-stream-order",
        # A code bound to its purpose.
        "credentials/v5-code-purpose",
        # Push tokens (spec §16, "Push tokens").
        "push/v1-tokens",
        # The feed's notices carry their rows (spec, "One listener per machine").
        "feed/v4-notice-rows",
        # Appends share the feed's lock; a settled read takes it alone (spec, "The change feed").
        "feed/v5-shared-append-lock"]), names


def test_a_host_starting_on_a_migrated_database_takes_no_lock_and_runs_no_ddl(cluster, store, flowhost_bin):
    """A thousand hosts starting together must not queue on the migration
    lock: once every migration is applied, a start reads which ones are and
    goes on (seen in the server's statement log)."""
    def start():
        out = subprocess.run([flowhost_bin, "--store", store["url"], "--config", store["config"]],
                             input='{"jsonrpc":"2.0","id":1,"method":"ping"}\n', capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, **store["env"]))
        assert out.returncode == 0, out.stderr[-500:]
    start()  # migrates the new database
    cluster.psql("postgres", "ALTER DATABASE %s SET log_statement = 'all'" % store["db"])
    log_path = os.path.join(cluster.folder, "server.log")
    mark = os.path.getsize(log_path)
    start()
    with open(log_path, encoding="utf-8", errors="replace") as handle:
        handle.seek(mark)
        logged = handle.read()
    assert "SELECT name FROM schema_migration" in logged, logged[-2000:]
    assert "pg_advisory_xact_lock" not in logged and "CREATE TABLE IF NOT EXISTS schema_migration" not in logged, logged[-2000:]
    # A database missing a migration still takes the lock and applies it.
    cluster.psql(store["db"], "DELETE FROM schema_migration WHERE name = 'feed/v3-by-time'")
    cluster.psql(store["db"], "DROP INDEX IF EXISTS feed_event_by_time")
    mark = os.path.getsize(log_path)
    start()
    with open(log_path, encoding="utf-8", errors="replace") as handle:
        handle.seek(mark)
        logged = handle.read()
    assert "pg_advisory_xact_lock" in logged
    assert cluster.psql(store["db"], "SELECT count(*) FROM schema_migration WHERE name = 'feed/v3-by-time'") == [["1"]]


def test_the_audit_log_and_signature_receipts_refuse_update_delete_and_truncate(cluster, store, flowhost_bin):
    admin(flowhost_bin, store, "add-user", "bob")
    # Rows to refuse changes to (inserted directly: these tables refuse only UPDATE and DELETE).
    cluster.psql(store["db"], "INSERT INTO signature_receipt VALUES ('r1','bob','d','k','p',0,0,'none',1,'r','x','s')")
    import time
    recent = int(time.time()) // 3600 * 3600 - 86400  # an hour younger than 90 days stays append-only
    cluster.psql(store["db"], "INSERT INTO audit_count VALUES (%d, 'bob', 'a', 'o', 2, 1)" % recent)
    cluster.psql(store["db"], "INSERT INTO audit_count VALUES (0, 'bob', 'old', 'o', 2, 1)")
    for statement in ("UPDATE audit SET outcome = 'x'", "DELETE FROM audit", "DELETE FROM audit_count WHERE hour > 0",
                      "UPDATE audit_count SET count = 1", "DELETE FROM signature_receipt", "UPDATE signature_receipt SET reason = 'x'",
                      "TRUNCATE audit", "TRUNCATE audit_count", "TRUNCATE signature_receipt", "TRUNCATE audit, signature_receipt"):
        with pytest.raises(RuntimeError, match="append-only"):
            cluster.psql(store["db"], statement)
    # A count may grow; an hour past 90 days may go (retention), no younger one.
    cluster.psql(store["db"], "UPDATE audit_count SET count = 3")
    cluster.psql(store["db"], "DELETE FROM audit_count WHERE hour = 0")
    assert cluster.psql(store["db"], "SELECT count(*) FROM audit_count") == [["1"]]
    assert int(cluster.psql(store["db"], "SELECT count(*) FROM audit")[0][0]) >= 1


def test_a_password_in_the_store_url_is_refused_and_never_shown(cluster, store, flowhost_bin, tmp_path):
    url = store["url"].replace("postgresql:///", "postgresql://flowhost:Sup3r-Secret-pw@/")
    out = subprocess.run([flowhost_bin, "--store", url], input="", capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "password file" in out.stderr and "Sup3r-Secret-pw" not in out.stderr
    out = subprocess.run([flowhost_bin, "admin", "show-user", "alice", "--store", store["url"] + "&password=Sup3r-Secret-pw"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "Sup3r-Secret-pw" not in out.stderr + out.stdout


def test_an_unreachable_server_at_start_is_a_clear_error(tmp_path, flowhost_bin):
    url = "postgresql:///nowhere?host=%s&user=flowhost" % tmp_path
    out = subprocess.run([flowhost_bin, "admin", "show-user", "alice", "--store", url], capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "cannot connect to the store" in out.stderr, out.stderr


def test_a_sqlite_host_never_loads_libpq(flowhost_bin, tmp_path):
    """The PostgreSQL code is paid for only when used: libpq is not among the
    libraries a host on the SQLite store maps."""
    process = subprocess.Popen([flowhost_bin, "--store", str(tmp_path / "s.sqlite")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        process.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        process.stdin.flush()
        process.stdout.readline()
        with open("/proc/%d/maps" % process.pid) as maps:
            assert "libpq" not in maps.read()
    finally:
        process.stdin.close()
        process.wait(timeout=10)
    needed = subprocess.run(["readelf", "-d", flowhost_bin], capture_output=True, text=True).stdout
    assert "libpq" not in needed


def echo_host(spawn, store, device):
    client = spawn("--store", store["url"], "--config", store["config"], "--examples", env=store["env"])
    client.initialize(device={"deviceID": device, "deviceName": device, "ldaCapabilities": []})
    return client


def test_feed_events_arrive_in_number_order_when_a_writer_commits_late(cluster, store, spawn):
    """Writer A takes its sequence number and holds its transaction open;
    writer B (a host) appends and commits meanwhile, without waiting for A.
    B's event is not delivered before A's: a reader past B would never see
    A's once it committed."""
    listener = echo_host(spawn, store, "listener")
    assert listener.request("echo.subscribe", {"topic": "echo.order"}) == {"ok": True}
    publisher = echo_host(spawn, store, "publisher")
    slow = subprocess.Popen(
        [os.path.join(cluster.bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
         "-d", "dbname=%s host=%s user=%s" % (store["db"], cluster.folder, cluster.USER)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, PGPASSFILE=cluster.passfile))
    slow.stdin.write("BEGIN;\nINSERT INTO feed_event (topic, payload, at) VALUES ('echo.order', '{\"n\":\"A\"}', 0);\n")
    slow.stdin.flush()
    deadline = time.time() + 10
    while not cluster.psql(store["db"], "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ShareLock' AND granted"):
        assert time.time() < deadline, "writer A never took the feed's lock"
        time.sleep(0.05)
    # B is not held behind A: appends no longer take one lock in turn.
    assert publisher.request("echo.publish", {"topic": "echo.order", "payload": {"n": "B"}}, timeout=10) == {"ok": True}
    assert cluster.psql(store["db"], "SELECT payload FROM feed_event WHERE topic = 'echo.order'") == [['{"n":"B"}']]
    with pytest.raises(TimeoutError):  # B waits for A's lower number to settle
        listener.wait_event("onEchoFeed", timeout=1.5)
    slow.stdin.write("COMMIT;\n")
    slow.stdin.close()
    assert slow.wait(timeout=20) == 0, slow.stderr.read()
    heard = [listener.wait_event("onEchoFeed", timeout=10)["params"]["payload"]["n"] for _ in range(2)]
    assert heard == ["A", "B"], heard
    numbers = [int(row[0]) for row in cluster.psql(store["db"], "SELECT sequence FROM feed_event WHERE topic = 'echo.order' ORDER BY sequence")]
    assert numbers[1] == numbers[0] + 1, "each append draws one number: %s" % numbers


def test_the_feed_numbers_go_on_past_the_old_ones_across_the_shared_lock_migration(cluster, store, flowhost_bin):
    """A store of the version before feed/v5-shared-append-lock (an identity
    column, the lock taken alone), whose feed was pruned to nothing after
    number 500: the migration starts the new sequence past 500, so no
    host's cursor is ever above a new event's number."""
    admin(flowhost_bin, store, "add-user", "alice")  # a migrated store
    db = store["db"]
    # The state before v5, as that version's migrations left it.
    cluster.psql(db, "DELETE FROM schema_migration WHERE name = 'feed/v5-shared-append-lock'")
    cluster.psql(db, "DROP SEQUENCE feed_event_number")
    cluster.psql(db, "ALTER TABLE feed_event ALTER COLUMN sequence ADD GENERATED BY DEFAULT AS IDENTITY")
    cluster.psql(db, """CREATE OR REPLACE FUNCTION flowhost_feed_order() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_advisory_xact_lock(%d); NEW.sequence := nextval(pg_get_serial_sequence('feed_event', 'sequence')); RETURN NEW; END $$"""
                 % 0x666C6F7766656564)
    cluster.psql(db, "SELECT setval(pg_get_serial_sequence('feed_event', 'sequence'), 498)")
    cluster.psql(db, "INSERT INTO feed_event (topic, payload, at) VALUES ('old.t', '{}', 0)")  # draws 499 and 500
    assert cluster.psql(db, "SELECT sequence FROM feed_event WHERE topic = 'old.t'") == [["500"]]
    cluster.psql(db, "DELETE FROM feed_event")
    admin(flowhost_bin, store, "add-user", "bob")  # migrates again: v5 only
    assert cluster.psql(db, "SELECT COUNT(*) FROM schema_migration WHERE name = 'feed/v5-shared-append-lock'") == [["1"]]
    cluster.psql(db, "INSERT INTO feed_event (topic, payload, at) VALUES ('new.t', '{}', 0)")
    cluster.psql(db, "INSERT INTO feed_event (topic, payload, at) VALUES ('new.t', '{}', 0)")
    assert cluster.psql(db, "SELECT sequence FROM feed_event WHERE topic = 'new.t' ORDER BY 1") == [["501"], ["502"]]


def test_many_writers_at_once_lose_no_feed_event(cluster, store, spawn):
    listener = echo_host(spawn, store, "listener")
    assert listener.request("echo.subscribe", {"topic": "echo.load"}) == {"ok": True}
    publishers = [echo_host(spawn, store, "publisher-%d" % index) for index in range(4)]

    def publish(index, client):
        for n in range(150):
            client.request("echo.publish", {"topic": "echo.load", "payload": {"from": index, "n": n}}, timeout=30)
    threads = [threading.Thread(target=publish, args=(index, client)) for index, client in enumerate(publishers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    heard = [listener.wait_event("onEchoFeed", timeout=10)["params"]["payload"] for _ in range(600)]
    assert len({(item["from"], item["n"]) for item in heard}) == 600
    for index in range(4):
        assert [item["n"] for item in heard if item["from"] == index] == list(range(150)), "each writer's events in its order"


def test_percent_encoded_passwords_and_upper_case_schemes_are_handled(cluster, store, flowhost_bin, tmp_path):
    """Issue 21.10: `%70assword=` and `passwor%64=` connected; `POSTGRESQL://u:pw@…`
    became a SQLite path (a folder named with the password, an empty store)."""
    secret = "Sup3r-Secret-pw"
    for url in (store["url"] + "&%70assword=" + secret, store["url"] + "&passwor%64=" + secret,
                store["url"] + "&PASSWORD=" + secret,
                store["url"].replace("postgresql:///", "POSTGRESQL://flowhost:%s@/" % secret),
                store["url"].replace("postgresql:///", "postgresql://flowhost%%3A%s@/" % secret)):
        out = subprocess.run([flowhost_bin, "admin", "show-user", "alice", "--store", url], cwd=str(tmp_path),
                             capture_output=True, text=True, timeout=30)
        assert out.returncode != 0 and "password file" in out.stderr, (url, out.stderr)
        assert secret not in out.stderr + out.stdout
    assert os.listdir(str(tmp_path)) == ["config.json"], "nothing made on disk"
    # The scheme in any case is still PostgreSQL.
    upper = store["url"].replace("postgresql://", "PostgreSQL://")
    out = subprocess.run([flowhost_bin, "admin", "add-user", "carol", "--store", upper, "--config", store["config"], "--json"],
                         capture_output=True, text=True, timeout=30, env=dict(os.environ, **store["env"]))
    assert out.returncode == 0, out.stderr
    # Any other URL is refused, never taken for a file.
    before = sorted(os.listdir(str(tmp_path)))
    out = subprocess.run([flowhost_bin, "admin", "show-user", "alice", "--store", "mysql://u:%s@db/x" % secret], cwd=str(tmp_path),
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "mysql://" in out.stderr and secret not in out.stderr
    assert sorted(os.listdir(str(tmp_path))) == before


def shape(cluster, database):
    """Every table's columns, every constraint, index, trigger and function,
    as PostgreSQL describes them (names and definitions)."""
    queries = [
        "SELECT 'column', table_name || '.' || column_name, data_type || ' null=' || is_nullable || ' default=' || COALESCE(column_default, '')"
        " || ' identity=' || is_identity || ' collation=' || COALESCE(collation_name, '') || ' at=' || ordinal_position"
        " FROM information_schema.columns WHERE table_schema = 'public'",
        "SELECT 'constraint', conrelid::regclass || '.' || conname, pg_get_constraintdef(oid) FROM pg_constraint"
        " WHERE connamespace = 'public'::regnamespace",
        "SELECT 'index', indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
        "SELECT 'trigger', tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal",
        "SELECT 'function', proname, md5(prosrc) FROM pg_proc WHERE pronamespace = 'public'::regnamespace",
    ]
    return sorted(tuple(row) for query in queries for row in cluster.psql(database, query))


def test_a_store_from_before_the_split_by_domain_ends_like_a_new_one(cluster, flowhost_bin, tmp_path):
    """A store the build before the split made (its frozen history, and the
    two PostgreSQL-only migrations) records each domain's baseline without
    running it, and ends with exactly the schema a new store gets."""
    fixture = os.path.join(os.path.dirname(__file__), "fixtures", "postgres-before-the-split.sql")
    old, new = cluster.create_database(), cluster.create_database()
    cluster.load(old, fixture)
    for database in (old, new):
        out = subprocess.run([flowhost_bin, "--store", cluster.url(database)], input='{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, FLOWHOST_STATE_DIR=str(tmp_path)))
        assert out.returncode == 0, out.stderr[-500:]
    upgraded, made = shape(cluster, old), shape(cluster, new)
    assert [row for row in upgraded if row not in made] == [] and [row for row in made if row not in upgraded] == []
    names = {database: {row[0] for row in cluster.psql(database, "SELECT name FROM schema_migration")} for database in (old, new)}
    assert names[old] - names[new] == {"credentials/v1-accounts", "credentials/v2-state-checks", "credentials/v3-counter-retention",
                                       "postgres/v1-feed-commit-order", "postgres/v2-append-only-truncate"}
    assert names[new] <= names[old]
    assert cluster.psql(old, "SELECT user_id FROM \"user\"") == [["legacy-pg"]], "its rows came along"
