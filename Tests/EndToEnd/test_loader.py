"""Each way a plugin is refused: one clear line, the other flows still load."""

import os
import subprocess

import pytest

from conftest import BIN_DIR, DEVICE

REFUSALS = [
    ("no_entry", "no entry symbol flowhost_plugin_v1"),
    ("wrong_abi", "ABI version 2, this host speaks 1"),
    ("small_struct", "descriptor struct_size 16 is smaller than ABI 1.0's"),
    ("dup_name", "flow name echo is already taken"),
    ("dup_method", "method echo is already taken"),
    ("create_fails", "create failed: no database configured"),
    ("not_a_library", "libnot_a_library.so"),  # dlopen's own message names the file
    ("rpc_method", 'rpc.foo: names that begin with "rpc." are reserved by JSON-RPC 2.0'),
    ("reserved_name", "flow name sessions is reserved for the host"),
    ("reads_other", 'reads[0]: "echo.secrets" is not a host topic a flow may read'),
    ("unknown_key", 'methods[0].startsDialog: unknown key; did you mean "startsDialogue"?'),
    ("not_json_manifest",
     'manifest is not JSON: expected \',\' or \'}\' at line 1, column 37 (in methods[0]) near "{"methods":[{"name":"notjson.begin" "params":[]}]}"'),
]


@pytest.mark.parametrize("plugin,reason", REFUSALS)
def test_refused_with_one_line_and_others_load(spawn, echo_dir, test_plugins, plugin, reason):
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins[plugin])
    flows = host.initialize(device=DEVICE)["flows"]
    assert [flow["name"] for flow in flows] == ["echo"]
    assert host.request("echo", {"text": "ok"}) == {"text": "ok"}
    host.shutdown()
    refused = [line for line in host.stderr_text().splitlines() if "refused plugin" in line]
    assert len(refused) == 1, host.stderr_text()
    assert reason in refused[0]
    assert test_plugins[plugin] in refused[0]


@pytest.mark.parametrize("plugin,reason", REFUSALS)
def test_plugins_command_lists_the_refusal(flowhost_bin, echo_dir, test_plugins, plugin, reason):
    out = subprocess.run(
        [flowhost_bin, "plugins", "--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins[plugin]],
        capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[0].startswith("loaded  echo 1.0.0 abi=1.6 methods=echo,echo.subscribe,echo.publish services=echo.upper ")
    assert len(lines) == 2 and lines[1].startswith("refused ") and reason in lines[1], out.stdout


def test_strict_makes_a_refusal_fatal(flowhost_bin, echo_dir, test_plugins):
    out = subprocess.run(
        [flowhost_bin, "--strict", "--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["wrong_abi"]],
        input="", capture_output=True, text=True, timeout=30)
    assert out.returncode == 3
    assert out.stdout == ""
    assert "refused plugin" in out.stderr


def test_strict_with_good_plugins_serves(flowhost_bin, echo_dir):
    out = subprocess.run(
        [flowhost_bin, "--strict", "--no-default-plugins", "--plugins", echo_dir],
        input='{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}\n', capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    assert '"openrpc":"1.3.2"' in out.stdout


def test_invalid_config_names_the_key(flowhost_bin, tmp_path):
    config = tmp_path / "config.json"
    config.write_text('{"maxFrameBytes": 1024, "maxNestingDeth": 3}')
    out = subprocess.run([flowhost_bin, "--no-default-plugins", "--config", str(config)],
                         input="", capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert "maxNestingDeth" in out.stderr and "unknown key" in out.stderr


@pytest.mark.parametrize("argv", [["--max-frame-bytes", "0"], ["serve", "--max-frame-bytes=-5"]])
def test_a_frame_limit_below_one_byte_is_a_usage_error(flowhost_bin, argv):
    # `flowhost` hands the first to flowhost-cli after its own launcher
    # refuses it; the second is read by flowhost-cli's parser: one wording.
    out = subprocess.run([flowhost_bin] + argv + ["--no-default-plugins"], input="", capture_output=True, text=True, timeout=30)
    assert out.returncode == 64, out.stderr
    assert out.stdout == ""
    assert "--max-frame-bytes must be positive" in out.stderr


@pytest.mark.parametrize("library", ["libFlowPluginMFA.so", "libFlowPluginStepUp.so", "libFlowPluginDeviceActivation.so",
                                     "libFlowPluginLDAToggle.so", "libFlowPluginDataSigning.so"])
@pytest.mark.skipif(os.path.basename(os.path.normpath(BIN_DIR)) != "release",
                    reason="the export map is the release build's (scripts/release/build.sh), which the isolated pass runs")
def test_a_built_flow_exports_its_entry_symbol_only(library):
    # scripts/release/plugin-exports.map: the static copy of the SDK and the flow's
    # Swift code stay inside the library (fewer symbols to bind at dlopen).
    out = subprocess.run(["nm", "-D", "--defined-only", os.path.join(BIN_DIR, library)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    exported = sorted(fields[2] for fields in (line.split() for line in out.stdout.splitlines())
                      if len(fields) == 3 and fields[1].isupper() and fields[1] not in "AUW")
    assert exported == ["flowhost_plugin_v1"], exported


def test_a_manifest_with_escapes_loads_as_it_spells(spawn, test_plugins):
    host = spawn("--no-default-plugins", "--plugins", test_plugins["escaped_manifest"])
    flows = host.initialize(device=DEVICE)["flows"]
    assert [flow["name"] for flow in flows] == ["escaped"]
    # The host holds no summaries: rpc.discover reads the manifest again.
    methods = {method["name"]: method for method in host.request("rpc.discover")["methods"]}
    assert methods["escaped.begin"]["summary"] == "caf\u00e9 \U0001F511"
    host.shutdown()
