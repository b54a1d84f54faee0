"""`flowhost admin check`: one line per check (or one JSON object), exit 1
when anything is wrong, for systemd's ExecStartPre and probes. It migrates
nothing and makes nothing, so it can run before the first host."""

import hashlib
import json
import os
import subprocess

from conftest import ON_POSTGRES, activate, plugin_copy, store_environment, store_location, store_execute, store_rows

ALWAYS = ["config", "store", "files", "issuer", "flows", "pins"]


def check(deployment, *args, store=None, env=None):
    """`admin check` on the deployment's store (or `store`); returns (exit status, {name: check}, stdout)."""
    location = store if store is not None else store_location(deployment.store)
    environment = dict(os.environ, **store_environment(deployment.store))
    environment.update(env or {})
    out = subprocess.run([deployment.bin, "admin", "check", "--store", location, "--config", deployment.config, "--json"] + list(args),
                         capture_output=True, text=True, timeout=60, env=environment)
    report = json.loads(out.stdout)
    assert report["ok"] == (out.returncode == 0), out.stdout
    return out.returncode, {item["name"]: item for item in report["checks"]}, out.stdout


def names_in_order(checks):
    return [name for name in ALWAYS[:4] + (["feed"] if ON_POSTGRES else []) + ALWAYS[4:] if name in checks]


def test_a_deployment_that_serves_passes_every_check_in_text_and_json(deployment, flowhost_bin):
    code = deployment.add_user("ann")
    host = deployment.host("device-a")
    activate(host, "ann", code)
    status, checks, _ = check(deployment)
    assert status == 0, checks
    assert list(checks) == names_in_order(checks) and set(ALWAYS) <= set(checks)
    assert ("feed" in checks) == ON_POSTGRES
    assert all(item["ok"] for item in checks.values())
    assert checks["flows"]["detail"] == "5 loaded: data-signing, device-activation, lda-toggle, mfa, step-up"
    assert checks["pins"]["detail"] == "none set"

    text = subprocess.run([flowhost_bin, "admin", "check", "--store", store_location(deployment.store), "--config", deployment.config],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ, **store_environment(deployment.store)))
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["ok   " + name for name in checks]


def test_a_missing_store_fails_and_is_not_made_and_an_unreachable_server_fails(deployment, tmp_path):
    absent = str(tmp_path / "absent" / "store.sqlite")
    status, checks, _ = check(deployment, store=absent)
    assert status == 1 and not checks["store"]["ok"] and checks["store"]["detail"] == "no store at " + absent
    assert checks["flows"]["ok"], "every check runs, not only up to the first failure"
    assert not os.path.exists(os.path.dirname(absent)), "the check makes no store and no folder"

    status, checks, _ = check(deployment, store="postgresql://127.0.0.1:1/flowhost", env={"FLOWHOST_FEED_STORE": ""})
    assert status == 1 and not checks["store"]["ok"] and checks["store"]["detail"].startswith("cannot connect: ")
    assert not checks["feed"]["ok"], "the feed's server is the store's here"


def test_a_store_a_migration_behind_or_one_a_newer_binary_migrated_fails(deployment):
    deployment.add_user("ann")
    newest = store_rows(deployment.store, "SELECT name FROM schema_migration ORDER BY applied_at DESC, name DESC LIMIT 1")[0][0]
    store_execute(deployment.store, "DELETE FROM schema_migration WHERE name = ?", newest)
    status, checks, _ = check(deployment)
    assert status == 1 and not checks["store"]["ok"]
    assert checks["store"]["detail"].endswith("lacks 1 migration(s), which the next host to start applies: " + newest)
    status, _, _ = check(deployment)
    assert status == 1, "the check applied nothing"

    store_execute(deployment.store, "INSERT INTO schema_migration (name, applied_at) VALUES (?, 0)", newest)
    store_execute(deployment.store, "INSERT INTO schema_migration (name, applied_at) VALUES ('zz-future/v1', 0)")
    status, checks, _ = check(deployment)
    assert status == 1 and "(a newer flowhost migrated it): zz-future/v1" in checks["store"]["detail"]


def test_files_others_can_reach_fail_with_the_fix(deployment, tmp_path):
    code = deployment.add_user("ann")
    host = deployment.host("device-a")
    activate(host, "ann", code)
    folder = tmp_path / "devices"
    keys = [name for name in os.listdir(folder) if name.endswith(".key")]
    assert keys, "the host keeps the device's key there"
    assert check(deployment)[0] == 0

    os.chmod(folder / keys[0], 0o640)
    status, checks, _ = check(deployment)
    assert status == 1 and not checks["files"]["ok"]
    assert "%s can be read or written by group or others (mode 640); run: chmod 600 %s" % (folder / keys[0], folder / keys[0]) in checks["files"]["detail"]

    os.chmod(folder / keys[0], 0o600)
    os.chmod(folder, 0o755)
    status, checks, _ = check(deployment)
    assert status == 1 and "%s can be reached by group or others (mode 755); run: chmod 700 %s" % (folder, folder) in checks["files"]["detail"]
    assert checks["store"]["ok"] and checks["flows"]["ok"]
    os.chmod(folder, 0o700)
    assert check(deployment)[0] == 0


def test_flows_and_pins(deployment, tmp_path, test_plugins):
    deployment.add_user("ann")
    folder = tmp_path / "flows"
    library = plugin_copy(test_plugins, "crashing", folder)
    with open(library, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    name = os.path.basename(library)
    only = ("--no-default-plugins", "--plugins", str(folder))

    status, checks, _ = check(deployment, *only, "--pin", "%s=%s" % (name, digest), "--pinned-only")
    assert status == 0, checks
    assert checks["flows"]["detail"] == "1 loaded: crashing"
    assert checks["pins"]["detail"] == "1 pinned, each loaded; only pinned libraries load"

    wrong = "0" * 64
    status, checks, _ = check(deployment, *only, "--pin", "%s=%s" % (name, wrong))
    assert status == 1 and not checks["flows"]["ok"] and not checks["pins"]["ok"]
    assert "refused %s: its SHA-256 is %s, but it is pinned to %s" % (library, digest, wrong) in checks["flows"]["detail"]
    assert checks["flows"]["detail"].endswith("no flow loaded from %s" % folder)
    assert checks["pins"]["detail"] == "pin %s: refused, its SHA-256 is %s, but it is pinned to %s" % (name, digest, wrong)

    status, checks, _ = check(deployment, *only, "--pin", "libFlowPluginTypo.so=%s" % digest)
    assert status == 1 and checks["flows"]["ok"]
    assert checks["pins"]["detail"] == "pin libFlowPluginTypo.so: no library of that name in the plugin folders"

    os.chmod(folder, 0o777)
    try:
        status, checks, _ = check(deployment, *only)
        assert status == 1 and not checks["flows"]["ok"] and str(folder) in checks["flows"]["detail"]
    finally:
        os.chmod(folder, 0o755)


def test_a_bad_config_fails_alone(deployment):
    with open(deployment.config, "w") as handle:
        json.dump({"passwords": {"maxAttempts": "three"}}, handle)
    status, checks, _ = check(deployment)
    assert status == 1 and list(checks) == ["config"] and "passwords.maxAttempts" in checks["config"]["detail"]
