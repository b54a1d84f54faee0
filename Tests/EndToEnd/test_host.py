"""The host end to end: lifecycle, discovery, the C example flow, stdout guard."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import DEVICE
from flowhost_client import RPCError
from schemas import validate


def test_initialize_lists_the_c_flow(spawn, echo_dir):
    host = spawn("--no-default-plugins", "--plugins", echo_dir)
    result = host.initialize(device=DEVICE)
    validate("initialize.result", result)
    assert result["protocolVersion"] == "1.1"
    assert result["device"] == {"deviceID": "device-e2e-1"}
    assert result["flows"] == [
        {"name": "echo", "version": "1.0.0", "abiVersion": 1, "methods": ["echo", "echo.subscribe", "echo.publish"],
         "events": ["onEcho", "onEchoFeed"]}
    ]


def test_default_plugin_folder_is_next_to_the_executable(spawn):
    host = spawn()
    names = [flow["name"] for flow in host.initialize(device=DEVICE)["flows"]]
    assert names == ["data-signing", "device-activation", "lda-toggle", "mfa", "step-up"], "every built flow, and no example"


def test_examples_load_only_when_asked(spawn):
    host = spawn("--examples")
    assert "echo" in [flow["name"] for flow in host.initialize(device=DEVICE)["flows"]]


def test_plugin_path_environment_variable(spawn, echo_dir):
    host = spawn("--no-default-plugins", env={"FLOWHOST_PLUGIN_PATH": "/nonexistent:" + echo_dir})
    assert [flow["name"] for flow in host.initialize(device=DEVICE)["flows"]] == ["echo"]


def test_rpc_discover_is_openrpc_of_every_method(spawn, echo_dir):
    host = spawn("--no-default-plugins", "--plugins", echo_dir)
    document = host.request("rpc.discover")
    validate("rpc.discover.result", document)
    methods = {method["name"]: method for method in document["methods"]}
    assert {"initialize", "shutdown", "exit", "rpc.discover", "ping", "echo"} <= set(methods)
    assert methods["echo"]["params"][0] == {
        "name": "text", "required": True, "schema": {"type": "string"}, "description": "Any text."}
    assert methods["echo"]["params"][1]["required"] is False
    assert [event["name"] for event in document["x-flowhost-events"] if event["flow"] == "echo"] == ["onEcho", "onEchoFeed"]


def test_c_flow_method_and_event(spawn, echo_dir):
    host = spawn("--no-default-plugins", "--plugins", echo_dir)
    host.initialize(device=DEVICE)
    assert host.request("echo", {"text": "plain"}) == {"text": "plain"}
    assert host.request("echo", ["positional ✓"]) == {"text": "positional ✓"}
    result = host.request("echo", {"text": "with event", "notify": True})
    validate("echo.echo.result", result)
    event = host.wait_event("onEcho")
    validate("echo.onEcho.params", event["params"])
    assert event["params"] == {"text": "with event"}
    # The reply came before the event it caused.
    lines = [line for direction, line in host.transcript if direction == "<-"]
    assert lines.index('{"jsonrpc":"2.0","id":4,"result":{"text":"with event"}}') < lines.index(
        '{"jsonrpc":"2.0","method":"onEcho","params":{"text":"with event"}}')


def test_shutdown_then_exit_status_zero(spawn, echo_dir):
    host = spawn("--no-default-plugins", "--plugins", echo_dir)
    host.initialize(device=DEVICE)
    validate("ping.result", host.request("ping"))
    validate("shutdown.result", host.request("shutdown"))
    host.notify("exit")
    assert host.process.wait(5) == 0


def test_exit_without_shutdown_status_one(spawn):
    host = spawn("--no-default-plugins")
    host.notify("exit")
    assert host.process.wait(5) == 1


def test_end_of_input_exits_cleanly_within_a_second(spawn, echo_dir):
    host = spawn("--no-default-plugins", "--plugins", echo_dir)
    host.initialize(device=DEVICE)
    started = time.monotonic()
    host.process.stdin.close()
    assert host.process.wait(5) == 0
    assert time.monotonic() - started < 1.0


def test_last_line_without_newline_is_answered_at_eof(spawn):
    host = spawn("--no-default-plugins")
    host.send_raw(b'{"jsonrpc":"2.0","id":"last","method":"rpc.discover"}')
    host.process.stdin.close()
    assert host.wait_reply("last")["result"]["openrpc"] == "1.3.2"
    assert host.process.wait(5) == 0


def test_exits_when_the_client_process_is_gone(spawn, echo_dir):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        host = spawn("--no-default-plugins", "--plugins", echo_dir)
        host.initialize(device=DEVICE, process_id=sleeper.pid)
        assert host.request("ping") == {}
        sleeper.kill()
        sleeper.wait()
        started = time.monotonic()
        assert host.process.wait(5) == 0
        assert time.monotonic() - started < 1.0
    finally:
        if sleeper.poll() is None:
            sleeper.kill()


def test_stray_stdout_from_a_plugin_does_not_corrupt_frames(spawn, echo_dir, test_plugins):
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["noisy"])
    host.initialize(device=DEVICE)
    assert host.request("noisy.shout") == {"shouted": True}
    assert host.request("echo", {"text": "still framed"}) == {"text": "still framed"}
    host.shutdown()
    received = [line for direction, line in host.transcript if direction == "<-"]
    for line in received:
        message = json.loads(line)
        validate("envelope", message)
        assert message.get("id") != 999, "a forged frame reached stdout"
    stderr = host.stderr_text()
    assert "noisy: puts" in stderr
    assert "noisy: raw write to fd 1" in stderr
    assert "forged" in stderr


def test_response_to_an_unknown_id_is_ignored(spawn):
    host = spawn("--no-default-plugins")
    host.send({"jsonrpc": "2.0", "id": "fh-404", "result": {}})
    assert host.request("rpc.discover")["openrpc"] == "1.3.2"


def test_a_c_flow_uses_services_host_requests_and_events(spawn, echo_dir, test_plugins):
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--plugins", test_plugins["c_full"], "--log-level", "info")
    host.initialize(device=DEVICE)
    # A service of another flow (the C example's echo.upper), through the host.
    assert host.request("cfull.upper", {"text": "abc é"}) == {"text": "ABC é"}
    # A request to the client; the answer is routed back to the C flow.
    host.on_request("platform/confirm", lambda params: {"confirmed": params["question"] == "sure?"})
    assert host.request("cfull.ask", {"question": "sure?"}) is None
    assert host.wait_event("onAnswered")["params"] == {"answer": {"confirmed": True}}
    # An error answer, and no answer at all (the host's timeout).
    host.on_request("platform/confirm", lambda params: (_ for _ in ()).throw(RPCError({"code": -7, "message": "no"})))
    host.request("cfull.ask", ["again?"])
    assert host.wait_event("onAnswered")["params"] == {"error": -7, "fromClient": True}
    del host._handlers["platform/confirm"]
    host.request("cfull.ask", {"question": "anyone?", "timeoutMs": 200})
    assert host.wait_event("onAnswered", timeout=5)["params"] == {"error": -32000, "fromClient": False, "data": {"method": "platform/confirm"}}
    host.shutdown()
    assert "cfull created" in host.stderr_text()
