"""Shared set-up for the end-to-end tests: the built binary, the built flows,
the test plugins compiled from plugins/*.c, and the reference client."""

import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Protocol", "clients", "python"))

from flowhost_client import FlowHostClient  # noqa: E402


def _bin_dir():
    configured = os.environ.get("FLOWHOST_BIN_DIR")
    if configured:
        return configured
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True)
    return out.stdout.strip()


BIN_DIR = _bin_dir()
FLOWHOST = os.path.join(BIN_DIR, "flowhost")

# -- The store backend -----------------------------------------------------------
#
# FLOWHOST_TEST_BACKEND=postgresql runs the suite on PostgreSQL: a throw-away
# cluster (pgcluster.py) for the whole run, and for every SQLite file a test
# names as a store, a database of its own (its host-local files in a state
# folder beside where the file would be). Tests that read the SQLite file
# itself are marked sqlite_only.
#
# FLOWHOST_TEST_BACKEND=pgbouncer does the same through a PgBouncer in
# transaction mode (pgcluster.Bouncer) in front of that cluster: hosts and
# admin commands query through it, and each host's change feed LISTENs on the
# cluster itself (--feed-store), as a deployment behind a pooler does.

BACKEND = os.environ.get("FLOWHOST_TEST_BACKEND", "sqlite")
ON_POSTGRES = BACKEND in ("postgresql", "pgbouncer")
_CLUSTER = []
_BOUNCER = []
STORE_MAP = {}


def postgres_cluster():
    if not _CLUSTER:
        import atexit
        import tempfile
        from pgcluster import Cluster
        _CLUSTER.append(Cluster(tempfile.mkdtemp(prefix="flowhost-pg-")))
        atexit.register(_CLUSTER[0].remove)
    return _CLUSTER[0]


def _query_server():
    """Where queries go: the cluster, or with pgbouncer its PgBouncer."""
    if BACKEND != "pgbouncer":
        return postgres_cluster()
    if not _BOUNCER:
        _BOUNCER.append(postgres_cluster().bouncer())
    return _BOUNCER[0]


def store_location(path):
    """The store a test's SQLite path stands for on this run's backend."""
    if not ON_POSTGRES or not str(path).endswith(".sqlite"):
        return str(path)
    path = str(path)
    if path not in STORE_MAP:
        STORE_MAP[path] = postgres_cluster().create_database()
    return _query_server().url(STORE_MAP[path])


def feed_store_arguments(path):
    """With pgbouncer, `--feed-store` naming the cluster itself for a mapped store."""
    if BACKEND != "pgbouncer" or not str(path).endswith(".sqlite"):
        return []
    store_location(path)
    return ["--feed-store", postgres_cluster().url(STORE_MAP[str(path)])]


def store_environment(path):
    """FLOWHOST_STATE_DIR for a mapped store: the folder the SQLite file would be in
    (so host-custody keys are in devices/ beside it, as with SQLite)."""
    if not ON_POSTGRES or not str(path).endswith(".sqlite"):
        return {}
    environment = {"FLOWHOST_STATE_DIR": os.path.dirname(str(path)) or "."}
    if BACKEND == "pgbouncer":
        # For hosts started without --store (FLOWHOST_STORE) or by a script.
        environment["FLOWHOST_FEED_STORE"] = feed_store_arguments(path)[1]
    return environment


def map_store_arguments(args):
    """`--store X.sqlite` becomes the backend's store; returns (args, environment)."""
    args, environment, feed = list(args), {}, []
    for index in range(len(args) - 1):
        if args[index] == "--store":
            environment.update(store_environment(args[index + 1]))
            feed = feed_store_arguments(args[index + 1])
            args[index + 1] = store_location(args[index + 1])
    return args + feed, environment


def store_rows(path, query, *args):
    """Rows of a read-only query on the store a test's SQLite path stands for
    (`?` placeholders; on PostgreSQL, values are quoted literals and numbers
    come back as ints)."""
    import re
    if not ON_POSTGRES:
        import sqlite3
        with sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10) as database:
            return database.execute(query, args).fetchall()
    literals = iter("NULL" if arg is None else "'%s'" % str(arg).replace("'", "''") if isinstance(arg, str) else str(int(arg)) for arg in args)
    sql = re.sub(r"\?", lambda _: next(literals), re.sub(r"\b(FROM|UPDATE|INTO|JOIN) user\b", r'\1 "user"', query))
    store_location(path)
    rows = postgres_cluster().psql(STORE_MAP[str(path)], sql)
    return [tuple(int(value) if re.fullmatch(r"-?\d+", value) else (None if value == "" else value) for value in row) for row in rows]


def store_execute(path, statement, *args):
    """Runs one writing statement on the store behind the host's back (an
    attacker with write access to the database, or a bug around the domains)."""
    if not ON_POSTGRES:
        import sqlite3
        with sqlite3.connect(str(path), timeout=10) as database:
            database.execute(statement, args)
        return
    literals = iter("NULL" if arg is None else "'%s'" % str(arg).replace("'", "''") if isinstance(arg, str) else str(int(arg)) for arg in args)
    import re
    store_location(path)
    postgres_cluster().psql(STORE_MAP[str(path)], re.sub(r"\?", lambda _: next(literals), statement))


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only: reads the SQLite file itself; skipped on PostgreSQL")
    config.addinivalue_line("markers", "secrets_on_purpose: the test plants a secret where it must not be")
    config.addinivalue_line("markers", "breaks_contract_on_purpose: a test plugin emits what the contract does not allow")
    config.addinivalue_line("markers", "examples: drives the tutorial's flows that scripts/examples.sh builds out of tree")


def pytest_collection_modifyitems(config, items):
    # The tutorial's flows are built out of tree by scripts/examples.sh, which
    # runs their tests once; every other run leaves them out.
    if not os.environ.get("FLOWHOST_EXAMPLE_SWIFT") and not os.environ.get("FLOWHOST_EXAMPLE_C"):
        left_out = [item for item in items if "examples" in item.keywords]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if "examples" not in item.keywords]
    if ON_POSTGRES:
        skip = pytest.mark.skip(reason="reads the SQLite file itself (FLOWHOST_TEST_BACKEND=%s)" % BACKEND)
        for item in items:
            if "sqlite_only" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def flowhost_bin():
    if not os.path.exists(FLOWHOST):
        pytest.fail("no built flowhost at %s: run swift build first" % FLOWHOST)
    return FLOWHOST


@pytest.fixture(scope="session")
def echo_dir(tmp_path_factory):
    """A folder holding only the C example flow (a symlink to the built one)."""
    folder = tmp_path_factory.mktemp("echo-only")
    os.symlink(os.path.join(BIN_DIR, "libFlowExampleEchoC.so"), str(folder / "libFlowExampleEchoC.so"))
    return str(folder)


@pytest.fixture(scope="session")
def mfa_dir(tmp_path_factory):
    """A folder holding only the mfa flow: transcripts pin their plugin set."""
    folder = tmp_path_factory.mktemp("mfa-only")
    os.symlink(os.path.join(BIN_DIR, "libFlowPluginMFA.so"), str(folder / "libFlowPluginMFA.so"))
    return str(folder)


@pytest.fixture(scope="session")
def flow_dirs(tmp_path_factory):
    """A folder per built flow, each holding only that flow."""
    folders = {}
    for key, library in [("stepup", "libFlowPluginStepUp.so"), ("deviceactivation", "libFlowPluginDeviceActivation.so"),
                         ("ldatoggle", "libFlowPluginLDAToggle.so"), ("datasigning", "libFlowPluginDataSigning.so")]:
        folder = tmp_path_factory.mktemp(key + "-only")
        os.symlink(os.path.join(BIN_DIR, library), str(folder / library))
        folders[key] = str(folder)
    return folders


def _cflags():
    out = subprocess.run(["pkg-config", "--cflags", "--libs", "jansson"], check=True, capture_output=True, text=True)
    return out.stdout.split()


@pytest.fixture(scope="session")
def test_plugins(tmp_path_factory):
    """Compiles each plugins/*.c into its own folder; returns name -> folder."""
    source_dir = os.path.join(os.path.dirname(__file__), "plugins")
    include = os.path.join(ROOT, "Sources", "CFlowHostABI", "include")
    built = {}
    for name in sorted(os.listdir(source_dir)):
        if not name.endswith(".c"):
            continue
        stem = name[:-2]
        folder = tmp_path_factory.mktemp("plugin-" + stem)
        output = str(folder / ("libtest_%s.so" % stem))
        # The legacy plugin sees only the frozen 1.0 header.
        includes = ["-I", source_dir] if stem == "legacy_1_0" else ["-I", include, "-I", source_dir]
        subprocess.run(
            ["cc", "-shared", "-fPIC", "-Wall", "-Werror", "-fvisibility=hidden"] + includes
            + [os.path.join(source_dir, name), "-o", output] + _cflags(),
            check=True,
        )
        built[stem] = str(folder)
    junk = tmp_path_factory.mktemp("plugin-not_a_library")
    shutil.copy(os.path.join(source_dir, "not_a_library.so"), str(junk / "libnot_a_library.so"))
    built["not_a_library"] = str(junk)
    return built


DEVICE = {"deviceID": "device-e2e-1", "deviceName": "e2e", "ldaCapabilities": [1]}


@pytest.fixture
def spawn(flowhost_bin, tmp_path):
    """spawn(*args) starts a host with those arguments; all are closed after the test.
    Without --store, hosts use a store in the test's own folder, never the user's."""
    clients = []

    def start(*args, env=None):
        environment = dict(os.environ)
        environment.pop("FLOWHOST_PLUGIN_PATH", None)
        environment["FLOWHOST_STORE"] = store_location(tmp_path / "default-store.sqlite")
        environment.update(store_environment(tmp_path / "default-store.sqlite"))
        args, mapped = map_store_arguments(args)
        # The suite's run with every flow in a process of its own (scripts/test.sh).
        if os.environ.get("FLOWHOST_TEST_ISOLATE") == "all":
            args = list(args) + ["--isolate-all"]
        if "--store" in args:
            environment.pop("FLOWHOST_FEED_STORE", None)  # the default store's, not this one's
        environment.update(mapped)
        # The most verbose level unless a test says otherwise: the secret
        # hygiene check below then sees every line the host can write.
        environment.setdefault("FLOWHOST_LOG_LEVEL", "trace")
        if env:
            environment.update(env)
        client = FlowHostClient([flowhost_bin] + list(args), env=environment)
        clients.append(client)
        SPAWNED.append(client)
        return client

    yield start
    for client in clients:
        client.close()


# -- Secret hygiene ----------------------------------------------------------------
#
# Every test: no password or activation code the test used may appear on a
# host's stderr (hosts log at trace by default), in the store's files (the
# database, its WAL and shared memory: codes waiting for delivery are sealed),
# or in admin output other than the commands whose job is to show a code to
# the operator (add-user, issue-code, outbox). Secrets are registered as the
# tests make them; passwords are the ones every test uses.

SPAWNED = []
SECRETS = set()
ADMIN_OUTPUTS = []
CODE_SHOWING_COMMANDS = {"add-user", "issue-code", "outbox"}


def register_secret(value):
    if isinstance(value, str) and len(value) >= 6:
        SECRETS.add(value)


def _grep_secrets(secrets, arguments, data=None):
    """grep -F's matches of `secrets` in the
    files named, or in `data`: one pass that looks for every secret at once,
    where a loop over them costs the secrets times the bytes (a load test
    makes thousands of codes and megabytes of logs)."""
    import tempfile
    with tempfile.NamedTemporaryFile("wb", suffix=".patterns") as patterns:
        patterns.write(b"".join(secret.encode() + b"\n" for secret in secrets))
        patterns.flush()
        out = subprocess.run(["grep", "-a", "-o", "-F", "-f", patterns.name] + arguments, input=data,
                             capture_output=True, env=dict(os.environ, LC_ALL="C"))
    if out.returncode > 1:
        raise RuntimeError("grep failed: %s" % out.stderr.decode(errors="replace"))
    return out.stdout.decode(errors="replace").splitlines()


def secrets_in(secrets, data):
    """The secrets found in `data` (bytes)."""
    lines = [secret for secret in secrets if "\n" in secret]
    found = {secret for secret in lines if secret.encode() in data}
    plain = [secret for secret in secrets if "\n" not in secret]
    if plain and data:
        found.update(_grep_secrets(plain, [], data))
    return sorted(found)


def secrets_in_files(secrets, paths):
    """(file, secret) for each secret found in each file."""
    found = set()
    lines = [secret for secret in secrets if "\n" in secret]
    for path in paths if lines else []:
        with open(path, "rb") as handle:
            found.update((path, secret) for secret in secrets_in(lines, handle.read()))
    plain = [secret for secret in secrets if "\n" not in secret]
    for start in range(0, len(paths) if plain else 0, 256):
        # -Z: each file name ends with a NUL, whatever the secret holds.
        for match in _grep_secrets(plain, ["-H", "-Z", "--"] + paths[start:start + 256]):
            path, _, secret = match.partition("\0")
            found.add((path, secret))
    return sorted(found)


@pytest.fixture(autouse=True)
def drop_test_databases():
    """Each test's PostgreSQL databases are dropped after it (the hosts are closed by then)."""
    STORE_MAP.clear()
    yield
    for client in SPAWNED:
        client.close()
    for database in STORE_MAP.values():
        postgres_cluster().drop_database(database)
    STORE_MAP.clear()


@pytest.fixture(autouse=True)
def secret_hygiene(tmp_path, request):
    SPAWNED.clear()
    SECRETS.clear()
    ADMIN_OUTPUTS.clear()
    for password in (GOOD_PASSWORD, "Wrong&Passw0rd9", "Another&Passw0rd1"):
        register_secret(password)
    yield
    if request.node.get_closest_marker("secrets_on_purpose"):
        return
    leaks = []
    for client in SPAWNED:
        client.close()
        leaks += ["stderr: %s" % secret for secret in secrets_in(SECRETS, client.stderr_text().encode())]
    for output in ADMIN_OUTPUTS:
        leaks += ["admin output: %s" % secret for secret in secrets_in(SECRETS, output.encode())]
    files = []
    for folder, names, file_names in os.walk(str(tmp_path)):
        names[:] = [name for name in names if name != "devices"]  # host custody's key files: where keys belong
        files += [os.path.join(folder, name) for name in file_names
                  # sealing keys, test plugins, configs and receipts the test wrote itself
                  if not (name.endswith(".key") or name.endswith(".so") or name.endswith(".json"))]
    leaks += ["%s: %s" % (os.path.basename(path), secret) for path, secret in secrets_in_files(SECRETS, files)]
    for path, database in list(STORE_MAP.items()):
        content = postgres_cluster().dump(database)
        leaks += ["database %s: %s" % (os.path.basename(path), secret) for secret in secrets_in(SECRETS, content)]
    assert not leaks, "secrets where they must never be: %s" % sorted(set(leaks))[:10]


CHEAP_CONFIG = {
    "passwords": {"argon2": {"memoryKiB": 1024, "iterations": 1, "parallelism": 1}, "maxAttempts": 3},
    "activation": {"maxAttempts": 3, "resendIntervalSeconds": 30},
}

GOOD_PASSWORD = "Tr0ub4dor&Zebra"


class Deployment:
    """A store and config shared by hosts (devices) and admin commands."""

    def __init__(self, folder, flowhost_bin, spawn, config=None):
        import json as _json
        self.folder = folder
        self.bin = flowhost_bin
        self.spawn_host = spawn
        self.store = os.path.join(folder, "store.sqlite")
        self.config = os.path.join(folder, "config.json")
        with open(self.config, "w") as handle:
            _json.dump(config if config is not None else CHEAP_CONFIG, handle)

    def admin(self, *args, check=True):
        import json as _json
        out = subprocess.run([self.bin, "admin"] + list(args) + ["--store", store_location(self.store), "--config", self.config, "--json"],
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, **store_environment(self.store)))
        if args and args[0] in CODE_SHOWING_COMMANDS:
            # One JSON value, or one per line (add-user with several users).
            for line in out.stdout.splitlines():
                try:
                    shown = _json.loads(line)
                except ValueError:
                    continue
                for item in shown if isinstance(shown, list) else [shown]:
                    if isinstance(item, dict):
                        register_secret(item.get("activationCode"))
        else:
            ADMIN_OUTPUTS.append(out.stdout + out.stderr)
        if check:
            assert out.returncode == 0, out.stderr
            return _json.loads(out.stdout)
        return out

    def add_user(self, user_id):
        return self.admin("add-user", user_id)["activationCode"]

    def host(self, device_id="device-1", lda=(), lda_answer=True, extra=(), env=None):
        """A host for one device, initialized; its first getUser is waiting in `events`."""
        client = self.spawn_host("--store", self.store, "--config", self.config, *extra, env=env)
        if lda_answer is not None:
            client.on_request("platform/authenticateLDA", lambda params: {"authenticated": lda_answer})
        client.initialize(device={"deviceID": device_id, "deviceName": "Phone " + device_id, "ldaCapabilities": list(lda)})
        return client


def plugin_copy(test_plugins, name, folder, *flags):
    """The built test plugin `name`, copied into `folder` (made here), with an
    empty file for each of `flags` beside it: a library a test may change
    or mark without touching the session's build. Returns its path."""
    folder.mkdir(mode=0o755, exist_ok=True)
    library = [entry for entry in os.listdir(test_plugins[name]) if entry.endswith(".so")][0]
    shutil.copy(os.path.join(test_plugins[name], library), str(folder / library))
    for flag in flags:
        (folder / flag).write_text("")
    return str(folder / library)


def wait_until(predicate, timeout=10.0):
    """Polls `predicate` until it holds or `timeout` seconds pass; returns whether it held."""
    import time
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def status_of(event):
    return event["params"]["response"]["status"]["statusCode"]


def through_device_name(host, user_id, code, device_name="test device"):
    """From an open getUser, answers the user id, the code and the device
    name; returns the next event (consent or a password in set mode)."""
    host.wait_event("getUser")
    host.request("setUser", [user_id])
    host.wait_event("getActivationCode")
    host.request("setActivationCode", [code])
    host.wait_event("getDeviceName")
    host.request("setDeviceName", [device_name])
    return host.wait_event()


def activate(host, user_id, code, password=GOOD_PASSWORD, lda=False):
    """Runs activation on `host` from its open getUser; returns onUserLoggedIn."""
    host.wait_event("getUser")
    host.request("setUser", {"userName": user_id})
    host.wait_event("getActivationCode")
    host.request("setActivationCode", {"activationCode": code})
    name = host.wait_event("getDeviceName")
    host.request("setDeviceName", {"deviceName": name["params"]["deviceName"]})
    if lda:
        consent = host.wait_event("getUserConsentForLDA")
        host.request("setUserConsentForLDA", [True, consent["params"]["challengeMode"], consent["params"]["authenticationType"]])
    else:
        event = host.wait_event()
        if event["method"] == "getUserConsentForLDA":
            host.request("setUserConsentForLDA", [False, event["params"]["challengeMode"], event["params"]["authenticationType"]])
            event = host.wait_event("getPassword")
        assert event["method"] == "getPassword" and event["params"]["challengeMode"] == 1
        host.request("setPassword", [password, 1])
    return host.wait_event("onUserLoggedIn")


def join_with_operator_code(deployment, user, device):
    """A second device of `user`, joined with a code from the operator, logged in."""
    host = deployment.host(device)
    host.wait_event("getUser")
    host.request("setUser", [user])
    host.wait_event("addNewDeviceOptions")
    host.request("fallbackNewDeviceActivationFlow")
    host.wait_event("getActivationCode")
    host.request("setActivationCode", [deployment.admin("outbox")[-1]["activationCode"]])
    event = host.wait_event()
    while event["method"] != "onUserLoggedIn":
        if event["method"] == "getDeviceName":
            host.request("setDeviceName", [event["params"]["deviceName"]])
        elif event["method"] == "getUserConsentForLDA":
            host.request("setUserConsentForLDA", [False, event["params"]["challengeMode"], event["params"]["authenticationType"]])
        elif event["method"] == "getPassword":
            host.request("setPassword", [GOOD_PASSWORD, event["params"]["challengeMode"]])
        event = host.wait_event()
    return host


@pytest.fixture
def deployment(tmp_path, flowhost_bin, spawn):
    return Deployment(str(tmp_path), flowhost_bin, spawn)


# -- Documented status codes ---------------------------------------------------
#
# Every test: each status and error code an event carried is one the contract
# lists for that event (Protocol/status-codes.json, in openrpc.json as
# x-flowhost-status), so a client can rely on the list.

with open(os.path.join(ROOT, "Protocol", "status-codes.json"), encoding="utf-8") as _handle:
    STATUS_CODES = json.load(_handle)["events"]


def _at(value, path):
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


@pytest.fixture(autouse=True)
def documented_statuses():
    yield
    undocumented = set()
    for client in SPAWNED:
        for event in client.events:
            listed = STATUS_CODES.get(event.get("method"))
            if not listed:
                continue
            for path, codes in ((listed["statusPath"], listed["status"]), (listed["errorPath"], listed["error"])):
                code = _at(event.get("params", {}), path)
                if code is not None and code not in codes:
                    undocumented.add("%s %s=%s" % (event["method"], path, code))
    assert not undocumented, "codes Protocol/status-codes.json does not list: %s" % sorted(undocumented)


# -- Every frame fits the published contract -------------------------------------
#
# Every test: each event, host request, successful result and error a host
# sent fits its schema in Protocol/openrpc.json, strictly: the schemas are
# closed (test_contract.py holds it), so a member the contract does not
# describe fails the test as an enum value the host breaks does.

with open(os.path.join(ROOT, "Protocol", "openrpc.json"), encoding="utf-8") as _handle:
    _CONTRACT = json.load(_handle)


def contract_event_schema(flow, name):
    """The schema Protocol/openrpc.json gives `flow`'s event `name`."""
    from schemas import ref_name
    return next(ref_name(event["params"]) for event in _CONTRACT["x-flowhost-events"] if event["flow"] == flow and event["name"] == name)


def _contract_schemas():
    from schemas import ref_name
    events = {}
    for event in _CONTRACT["x-flowhost-events"]:
        if "$ref" in event["params"]:
            events.setdefault(event["name"], set()).add(ref_name(event["params"]))
    requests = {request["name"]: ref_name(request["params"]) for request in _CONTRACT["x-flowhost-host-requests"]}
    results = {method["name"]: ref_name(method["result"]["schema"]) for method in _CONTRACT["methods"]
               if "$ref" in method.get("result", {}).get("schema", {})}
    errors = {error["code"]: ref_name(error["x-flowhost-dataSchema"]) if "x-flowhost-dataSchema" in error else None
              for error in _CONTRACT["x-flowhost-errors"]}
    return events, requests, results, errors


CONTRACT_EVENTS, CONTRACT_REQUESTS, CONTRACT_RESULTS, CONTRACT_ERRORS = _contract_schemas()


def error_problems(error):
    """What in an error the host sent does not fit the contract: the error
    object, and its `data` by its code (an SDK refusal's, or the code's data
    schema; none for a code whose schema says it carries no data)."""
    code = error.get("code") if isinstance(error, dict) else None
    name = "sdk-error" if isinstance(code, int) and code > 0 else "error"
    problem = misfit(name, error)
    if problem:
        return ["error %s: %s" % (code, problem[0])]
    if code > 0 or "data" not in error:
        return []
    if code not in CONTRACT_ERRORS:
        return ["error %s: a code spec §3 does not list" % code]
    data_schema = CONTRACT_ERRORS[code]
    if data_schema is None:
        return ["error %s: data %s, and the contract gives this code none" % (code, json.dumps(error["data"])[:200])]
    problem = misfit(data_schema, error["data"])
    if problem:
        return ["error %s data: %s at %s" % ((code,) + problem)]
    return []


_FIT = {}


def misfit(name, value):
    """The first problem of `value` under the contract's schema `name`, or
    None. Remembered by the value's text: a load test sends the same frames
    thousands of times, and a value fits a schema or not whoever sent it."""
    from schemas import validator
    key = (name, json.dumps(value, sort_keys=True))
    if key not in _FIT:
        problem = next(validator(name).iter_errors(value), None) if not validator(name).is_valid(value) else None
        _FIT[key] = None if problem is None else (problem.message[:200], list(problem.absolute_path))
    return _FIT[key]


def contract_problems(transcript):
    """What in a transcript does not fit the contract (the hosts' side)."""
    problems, asked = [], {}
    for direction, line in transcript:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        for item in message if isinstance(message, list) else [message]:
            if not isinstance(item, dict):
                continue
            if direction == "->":
                if "method" in item and "id" in item:
                    asked[json.dumps(item["id"])] = item["method"]
                continue
            method = item.get("method")
            if method is not None and "id" not in item:
                # Every schema the event's name has (one: test_contract.py holds it).
                for name in CONTRACT_EVENTS.get(method, []):
                    problem = misfit(name, item.get("params", {}))
                    if problem:
                        problems.append("event %s: %s at %s" % ((method,) + problem))
            elif method is not None:
                name = CONTRACT_REQUESTS.get(method)
                problem = name and misfit(name, item.get("params", {}))
                if problem:
                    problems.append("host request %s: %s at %s" % ((method,) + problem))
            elif "error" in item:
                problems += error_problems(item["error"])
            elif "result" in item:
                answered = asked.get(json.dumps(item.get("id")))
                name = CONTRACT_RESULTS.get(answered)
                problem = name and misfit(name, item["result"])
                if problem:
                    problems.append("result of %s: %s at %s" % ((answered,) + problem))
    return problems


@pytest.fixture(autouse=True)
def frames_fit_the_contract(request):
    yield
    if request.node.get_closest_marker("breaks_contract_on_purpose"):
        return
    problems = []
    for client in SPAWNED:
        problems += contract_problems(client.transcript)
    assert not problems, "frames that do not fit Protocol/openrpc.json: %s" % sorted(set(problems))[:10]


@pytest.fixture(autouse=True)
def private_default_store(tmp_path, monkeypatch):
    """No test ever touches the store in the user's home folder."""
    monkeypatch.setenv("FLOWHOST_STORE", str(tmp_path / "default-store.sqlite"))
