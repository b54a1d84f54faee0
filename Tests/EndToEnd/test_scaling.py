"""Cost that stays flat as history grows (issue 25): no statement the host
or the admin runs in the everyday flows reads a table whole. Each SQLite
connection writes every statement it compiles, with SQLite's query plan, to
FLOWHOST_SQL_PLAN_LOG; a `SCAN` of any table (or a temporary B-tree for a
GROUP BY) there is a cost that grows with every login before it."""

import pytest

from conftest import GOOD_PASSWORD, activate
from test_data_signing import sign, signed
from test_device_activation import approval_on, ask_to_join, step_up

pytestmark = pytest.mark.sqlite_only

# Tables so small and fixed they may be read whole.
FIXED = {"schema_migration"}
# Partial indexes over a bounded set: reading one whole reads only that set.
BOUNDED_INDEXES = {"outbox_pending"}  # messages still waiting for delivery
# Reads in primary-key order that stop at their bound (a LIMIT 1), by
# statement: the audit's retention reads from its oldest row up to the first
# one within retention, and deletes the rows before it: what it reads is
# what it deletes, plus one (rows are appended in time; spec §15).
READ_IN_ORDER_TO_A_BOUND = {"DELETE FROM audit WHERE id < COALESCE(": "SCAN audit"}


def reads_whole(line):
    if line == "USE TEMP B-TREE FOR GROUP BY":
        return True
    if not line.startswith("SCAN ") or line.split()[1] in FIXED:
        return False
    return not any(line.endswith("INDEX " + index) for index in BOUNDED_INDEXES)


def plans(path):
    statements = {}
    current = None
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            kind, _, rest = line.rstrip("\n").partition("\t")
            if kind == "SQL":
                current = rest
                statements.setdefault(current, set())
            elif kind == "PLAN" and current is not None:
                statements[current].add(rest)
    return statements


def whole_reads(statements):
    found = {}
    for sql, lines in statements.items():
        allowed = [line for prefix, line in READ_IN_ORDER_TO_A_BOUND.items() if sql.startswith(prefix)]
        bad = [line for line in lines if reads_whole(line) and line not in allowed]
        if bad:
            found[sql] = bad
    return found


def test_no_everyday_statement_reads_a_table_whole(deployment, tmp_path, monkeypatch):
    log = tmp_path / "plans.log"
    monkeypatch.setenv("FLOWHOST_SQL_PLAN_LOG", str(log))
    code = deployment.add_user("alice")
    first = deployment.host("device-a")
    activate(first, "alice", code)
    # A logoff and a login again: the remembered users, a device proof, a session.
    first.request("logOff", ["alice"])
    first.wait_event("getUser")
    first.request("setUser", ["alice"])
    first.wait_event("getPassword")
    first.request("setPassword", [GOOD_PASSWORD, 0])
    first.wait_event("onUserLoggedIn")
    # A signature and a notification list.
    sign(first)
    assert signed(first)["status"]["statusCode"] == 100
    first.request("getNotifications", [0, "", 1, "", ""])
    first.wait_event("onGetNotifications")
    # A second device approved from the first, and its login.
    second, key = ask_to_join(deployment)
    uuid = approval_on(first, key)
    first.request("updateNotification", [uuid, "accept"])
    step_up(first)
    second.wait_event("getPassword", timeout=5)
    second.request("setPassword", [GOOD_PASSWORD, 0])
    second.wait_event("onUserLoggedIn")
    # The operator's everyday commands, and the retention sweep.
    for command in (["devices", "alice"], ["notifications", "alice"], ["outbox"], ["prune"]):
        deployment.admin(*command)
    statements = plans(str(log))
    assert len(statements) > 40, "the plan log holds what ran"
    assert whole_reads(statements) == {}
