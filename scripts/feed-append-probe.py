#!/usr/bin/env python3
"""Appends to the change feed on PostgreSQL with several publishers at once:
each of `--clients` pgbench clients runs the host's publish transaction
(BEGIN, SET LOCAL synchronous_commit, one INSERT INTO feed_event, COMMIT)
against a store the host migrated, on a throw-away cluster
(Tests/EndToEnd/pgcluster.py, Debian's postgresql, fsync on). The same
database is then measured with the feed's lock taken alone by every append,
as before `feed/v5-shared-append-lock`: the reference. The two alternate,
`--rounds` times each, and the median of each is printed (appends per
second), with --json FILE for the benchmark's `appends` row.

    swift build
    FLOWHOST_BIN_DIR=$(swift build --show-bin-path) python3 scripts/feed-append-probe.py

It takes about a minute; it is not part of CI."""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "EndToEnd"))
from pgcluster import Cluster  # noqa: E402

APPEND_LOCK = 0x666C6F7766656564
ORDER_FUNCTION = """CREATE OR REPLACE FUNCTION flowhost_feed_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM %s(%d); NEW.sequence := nextval('feed_event_number'); RETURN NEW; END $$"""


def appends_per_second(cluster, database, script, clients, seconds):
    out = subprocess.run(
        [os.path.join(cluster.bin, "pgbench"), "-n", "-f", script, "-c", str(clients), "-j", str(min(clients, os.cpu_count() or 1)),
         "-T", str(seconds), "-h", cluster.folder, "-U", cluster.USER, database],
        capture_output=True, text=True, timeout=seconds + 120, env=dict(os.environ, PGPASSFILE=cluster.passfile))
    found = re.search(r"tps = ([0-9.]+)", out.stdout)
    if out.returncode != 0 or not found:
        raise RuntimeError("pgbench failed: %s" % (out.stderr or out.stdout)[-600:])
    return float(found.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json")
    arguments = parser.parse_args()
    binary = os.path.join(os.environ.get("FLOWHOST_BIN_DIR", ".build/debug"), "flowhost")
    folder = tempfile.mkdtemp(prefix="flowhost-append-pg-")
    state = tempfile.mkdtemp(prefix="flowhost-append-state-")
    cluster = Cluster(folder, fsync=True)
    try:
        database = cluster.create_database()
        # Any admin command migrates the store, as a host's start does.
        made = subprocess.run([binary, "admin", "add-user", "probe", "--store", cluster.url(database)],
                              capture_output=True, text=True, timeout=120, env=dict(os.environ, FLOWHOST_STATE_DIR=state))
        if made.returncode != 0:
            raise RuntimeError("flowhost admin add-user failed: %s" % made.stderr[-600:])
        script = os.path.join(folder, "append.sql")
        with open(script, "w") as handle:
            handle.write("BEGIN;\nSET LOCAL synchronous_commit = on;\n"
                         "INSERT INTO feed_event (topic, payload, at) VALUES ('probe.t' || :client_id, '{\"n\":1}', 0);\nCOMMIT;\n")
        os.chmod(script, 0o644)
        shared, alone = [], []
        for _ in range(arguments.rounds):
            cluster.psql(database, ORDER_FUNCTION % ("pg_advisory_xact_lock_shared", APPEND_LOCK))
            shared.append(appends_per_second(cluster, database, script, arguments.clients, arguments.seconds))
            cluster.psql(database, ORDER_FUNCTION % ("pg_advisory_xact_lock", APPEND_LOCK))
            alone.append(appends_per_second(cluster, database, script, arguments.clients, arguments.seconds))
        row = {"clients": arguments.clients, "appends_per_second": statistics.median(shared),
               "reference_appends_per_second": statistics.median(alone), "shared": shared, "alone": alone}
        print("%d publishers: %.0f appends/s with the lock shared, %.0f with it taken alone (%.2fx)" % (
            arguments.clients, row["appends_per_second"], row["reference_appends_per_second"],
            row["appends_per_second"] / row["reference_appends_per_second"]))
        if arguments.json:
            with open(arguments.json, "w") as handle:
                json.dump({"rows": [row]}, handle, indent=1)
    finally:
        cluster.remove()
        shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    main()
