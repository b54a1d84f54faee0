"""The boundaries the host enforces on flows written by others (issue 24):
names the built-in flows own, plugins pinned by content hash, and the truth
about services a flow uses that nothing offers."""

import hashlib
import json
import os
import subprocess
import time

import pytest

from conftest import DEVICE, activate

BUILT_IN = ["data-signing", "device-activation", "lda-toggle", "mfa", "step-up"]

CLAIMS = [
    ("claim_stepup", "service stepup.authenticate is owned by the built-in flow step-up"),
    ("claim_method", "method updateNotification is owned by the built-in flow step-up"),
    ("claim_event", "event getPassword is owned by the built-in flow "),
]


def plugins_json(flowhost_bin, *args, env=None):
    environment = dict(os.environ)
    environment.pop("FLOWHOST_PLUGIN_PATH", None)
    environment.update(env or {})
    out = subprocess.run([flowhost_bin, "plugins", "--json"] + list(args), capture_output=True, text=True, timeout=60, env=environment)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def library(folder):
    [name] = [entry for entry in os.listdir(folder) if entry.endswith(".so")]
    return os.path.join(folder, name)


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.mark.parametrize("plugin,reason", CLAIMS)
def test_a_plugin_found_elsewhere_cannot_take_a_built_in_flows_name(spawn, test_plugins, plugin, reason):
    # --plugins is searched first, yet the built-in flow keeps its name.
    host = spawn("--plugins", test_plugins[plugin])
    flows = sorted(flow["name"] for flow in host.initialize(device=DEVICE)["flows"])
    assert flows == BUILT_IN
    host.shutdown()
    refused = [line for line in host.stderr_text().splitlines() if "refused plugin" in line]
    assert len(refused) == 1 and reason in refused[0] and "(--plugins) may not take it" in refused[0], host.stderr_text()


@pytest.mark.parametrize("plugin,reason", CLAIMS)
def test_the_same_claim_from_the_plugin_path_is_refused_and_strict_stops(flowhost_bin, test_plugins, plugin, reason):
    environment = dict(os.environ, FLOWHOST_PLUGIN_PATH=test_plugins[plugin])
    listed = plugins_json(flowhost_bin, env={"FLOWHOST_PLUGIN_PATH": test_plugins[plugin]})
    assert sorted(flow["name"] for flow in listed["flows"]) == BUILT_IN
    assert all(flow["origin"] == "built-in" for flow in listed["flows"])
    [refusal] = listed["refused"]
    assert reason in refusal["reason"] and "(FLOWHOST_PLUGIN_PATH)" in refusal["reason"]
    strict = subprocess.run([flowhost_bin, "--strict"], input="", capture_output=True, text=True, timeout=60, env=environment)
    assert strict.returncode == 3 and reason in strict.stderr


@pytest.mark.parametrize("plugin,reason", CLAIMS)
def test_without_the_built_in_flows_the_name_is_free(flowhost_bin, test_plugins, plugin, reason):
    # The refusal is about the name's owner, not about the plugin: the
    # operator who leaves the built-in flows out may load it.
    listed = plugins_json(flowhost_bin, "--no-default-plugins", "--plugins", test_plugins[plugin])
    assert [flow["origin"] for flow in listed["flows"]] == ["--plugins"] and listed["refused"] == []


def test_the_step_up_flow_still_guards_a_level_4_signature(flowhost_bin, test_plugins):
    listed = plugins_json(flowhost_bin, "--plugins", test_plugins["claim_stepup"])
    [step_up] = [flow for flow in listed["flows"] if flow["name"] == "step-up"]
    [signing] = [flow for flow in listed["flows"] if flow["name"] == "data-signing"]
    assert "stepup.authenticate" in step_up["services"] and "stepup.authenticate" in signing["uses"]
    assert step_up["origin"] == "built-in"


def test_plugins_json_shows_each_flows_hash_and_origin(flowhost_bin, echo_dir):
    listed = plugins_json(flowhost_bin, "--plugins", echo_dir)
    by_name = {flow["name"]: flow for flow in listed["flows"]}
    assert by_name["echo"]["origin"] == "--plugins"
    for flow in by_name.values():
        assert flow["sha256"] == sha256(flow["path"])
    assert listed["refused"] == [] and listed["unoffered"] == []


def test_a_pinned_plugin_loads_and_a_changed_one_is_refused_before_it_runs(spawn, flowhost_bin, test_plugins, tmp_path):
    folder = test_plugins["constructor_marker"]
    path = library(folder)
    good = sha256(path)
    marker = tmp_path / "marker"
    env = {"FLOWHOST_TEST_MARKER": str(marker)}
    listed = plugins_json(flowhost_bin, "--no-default-plugins", "--plugins", folder, "--pin", "%s=%s" % (os.path.basename(path), good.upper()), env=env)
    assert [flow["name"] for flow in listed["flows"]] == ["marker"] and listed["flows"][0]["sha256"] == good
    marker.unlink()
    wrong = "0" * 64
    host = spawn("--no-default-plugins", "--plugins", folder, "--pin", "%s=%s" % (os.path.basename(path), wrong), env=env)
    assert host.initialize(device=DEVICE)["flows"] == []
    host.shutdown()
    refused = [line for line in host.stderr_text().splitlines() if "refused plugin" in line]
    assert len(refused) == 1 and good in refused[0] and wrong in refused[0], host.stderr_text()
    assert not marker.exists(), "a refused library's constructor ran"


def test_pins_in_the_config_and_pinned_only(flowhost_bin, test_plugins, echo_dir, tmp_path):
    echo = library(echo_dir)
    marker_path = library(test_plugins["constructor_marker"])
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"plugins": {"pins": {os.path.basename(echo): sha256(echo)}, "pinnedOnly": True}}))
    listed = plugins_json(flowhost_bin, "--no-default-plugins", "--config", str(config), "--plugins", echo_dir,
                          "--plugins", test_plugins["constructor_marker"], env={"FLOWHOST_TEST_MARKER": str(tmp_path / "marker")})
    assert [flow["name"] for flow in listed["flows"]] == ["echo"]
    [refusal] = listed["refused"]
    assert refusal["path"] == marker_path and "not pinned" in refusal["reason"] and sha256(marker_path) in refusal["reason"]
    assert not (tmp_path / "marker").exists()
    # The flag alone does the same.
    listed = plugins_json(flowhost_bin, "--no-default-plugins", "--pinned-only", "--plugins", echo_dir)
    assert listed["flows"] == [] and "not pinned" in listed["refused"][0]["reason"]


@pytest.mark.parametrize("pin,message", [
    ("libx.so=abc", "is not a SHA-256"),
    ("libx.so", "expected FILE=SHA256"),
    ("dir/libx.so=" + "a" * 64, "name the library's file"),
])
def test_a_bad_pin_stops_the_host_with_the_reason(flowhost_bin, pin, message):
    out = subprocess.run([flowhost_bin, "--pin", pin], input="", capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and message in out.stderr


def test_a_bad_pins_section_names_its_key(flowhost_bin, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"plugins": {"pinnedOnyl": True}}))
    out = subprocess.run([flowhost_bin, "--config", str(config)], input="", capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and 'plugins: pinnedOnyl: unknown key; did you mean "pinnedOnly"?' in out.stderr


def test_no_warning_for_host_services_and_a_real_typo_is_named(flowhost_bin, test_plugins):
    plain = subprocess.run([flowhost_bin, "plugins"], capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0
    assert "nothing offers" not in plain.stdout + plain.stderr
    listed = plugins_json(flowhost_bin, "--plugins", test_plugins["uses_typo"])
    assert listed["unoffered"] == [{
        "flow": "typo", "service": "records.gte", "nearest": "records.get",
        "message": "flow typo uses service records.gte, which nothing offers; did you mean records.get?",
    }]
    text = subprocess.run([flowhost_bin, "plugins", "--plugins", test_plugins["uses_typo"]], capture_output=True, text=True, timeout=60)
    assert "warning flow typo uses service records.gte, which nothing offers; did you mean records.get?" in text.stdout


def test_a_host_topic_reaches_only_the_host_whose_user_it_concerns(deployment, test_plugins):
    reader = ("--plugins", test_plugins["feed_reader"])
    codes = {user: deployment.add_user(user) for user in ("alice", "mallory")}
    alice = deployment.host("device-a", extra=reader)
    activate(alice, "alice", codes["alice"])
    mallory = deployment.host("device-m", extra=reader)
    activate(mallory, "mallory", codes["mallory"])
    for host in (alice, mallory):
        for topic in ("notifications.created", "sessions.ended"):
            assert host.request("reader.subscribe", {"topic": topic}) == {"ok": True}
    # A new device asks alice's devices for an approval.
    newcomer = deployment.host("device-b")
    newcomer.wait_event("getUser")
    newcomer.request("setUser", ["alice"])
    newcomer.wait_event("addNewDeviceOptions")
    newcomer.request("performVerifyAuth", [True])
    heard = alice.wait_event("onHeard", timeout=10)["params"]
    assert heard["topic"] == "notifications.created" and heard["payload"]["userID"] == "alice"
    # Alice logs off on her device: mallory's host hears nothing of it either.
    alice.request("logOff", ["alice"])
    alice.wait_event("onUserLoggedOff")
    # Mallory's own logoff shows her reader hears what is hers, and the wait
    # covers alice's events, published before it.
    mallory.request("logOff", ["mallory"])
    mallory.wait_event("onUserLoggedOff")
    time.sleep(0.5)
    heard_by_mallory = [event["params"] for event in mallory.events if event["method"] == "onHeard"]
    assert all(item["payload"].get("userID") == "mallory" for item in heard_by_mallory), heard_by_mallory


def c_manifest(stem):
    """The MANIFEST macro of a test plugin's C source, as the string the C
    compiler makes of it (adjacent literals joined, escapes read)."""
    import ast
    import re
    with open(os.path.join(os.path.dirname(__file__), "plugins", stem + ".c"), encoding="utf-8") as handle:
        source = handle.read()
    match = re.search(r'#define MANIFEST((?:.*\\\n)*.*)', source)
    literal = match.group(1).replace("\\\n", " ")
    return ast.literal_eval(literal.strip())


MANIFEST_SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "Protocol", "schemas", "manifest.schema.json")
REFUSED_BY_THE_SCHEMA = ["unknown_key", "rpc_method", "reads_other"]


def test_every_built_flows_manifest_fits_the_published_schema(flowhost_bin, echo_dir):
    import jsonschema
    with open(MANIFEST_SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    jsonschema.Draft202012Validator.check_schema(schema)
    listed = plugins_json(flowhost_bin, "--plugins", echo_dir)
    assert len(listed["flows"]) == 6
    for flow in listed["flows"]:
        jsonschema.validate(flow["manifest"], schema)


@pytest.mark.parametrize("stem", REFUSED_BY_THE_SCHEMA)
def test_the_schema_refuses_what_the_loader_refuses(stem):
    import jsonschema
    with open(MANIFEST_SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(json.loads(c_manifest(stem)), schema)


@pytest.mark.parametrize("stem", ["claim_stepup", "claim_method", "claim_event", "feed_reader", "uses_typo", "c_stepup", "c_full", "dup_method"])
def test_the_schema_takes_what_the_loader_takes(stem):
    import jsonschema
    with open(MANIFEST_SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    jsonschema.validate(json.loads(c_manifest(stem)), schema)
