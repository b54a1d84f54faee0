"""`flowhost inspect` without a browser: where it listens, what it serves
to whom, and the relay between a WebSocket and a host process."""

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import websocket

from conftest import Inspector


def status(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def connect(inspector, token=None, origin=None):
    return websocket.create_connection(
        f"ws://127.0.0.1:{inspector.port}/host?token={inspector.token if token is None else token}",
        origin=origin or f"http://127.0.0.1:{inspector.port}", timeout=10)


def frames(connection, count):
    return [json.loads(connection.recv()) for _ in range(count)]


def listening_addresses(port):
    """The local addresses of sockets listening on `port` (from /proc/net/tcp and tcp6)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as handle:
            for row in list(handle)[1:]:
                local, state = row.split()[1], row.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if int(hex_port, 16) == port and state == "0A":
                    found.append(address)
    return found


def descriptors_of(pid):
    """What a process holds open. The host is still starting when this runs, so a descriptor it
    closes between the listing and the readlink is skipped: an inherited socket is held from exec
    on and cannot vanish that way."""
    held = set()
    for name in os.listdir(f"/proc/{pid}/fd"):
        try:
            held.add(os.readlink(f"/proc/{pid}/fd/{name}"))
        except FileNotFoundError:
            pass
    return held


def running_state(pid):
    """The process's state letter, or None once it is gone (it may go between any two reads)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def tcp_sockets():
    """Every TCP socket of the machine, as /proc/PID/fd names them."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as handle:
            found |= {f"socket:[{row.split()[9]}]" for row in list(handle)[1:]}
    return found


def test_it_listens_on_loopback_only_and_prints_a_token_url(inspector):
    assert listening_addresses(inspector.port) == ["0100007F"], "127.0.0.1, and nothing else"
    assert len(inspector.token) == 64


def test_nothing_is_served_without_the_token(inspector):
    base = f"http://127.0.0.1:{inspector.port}"
    for path in ("/", "/inspector.js", "/inspector.css", "/host", "/no-such-page", "/?token=", "/?token=" + "0" * 64,
                 "/?token=" + inspector.token[:-1]):
        code, body = status(base + path)
        assert code == 403, path
        assert "flowhost" not in body.lower() or "forbidden" in body
    code, page = status(inspector.url)
    assert code == 200 and "FlowHost Inspector" in page
    assert f"inspector.js?token={inspector.token}" in page, "the page names its script with the token"
    assert status(f"{base}/inspector.js?token={inspector.token}")[0] == 200


def test_a_request_naming_another_host_is_refused_even_with_the_token(inspector):
    # A DNS-rebinding page sends its own name as Host.
    assert status(inspector.url, {"Host": f"attacker.example:{inspector.port}"})[0] == 403
    assert status(inspector.url, {"Host": f"localhost:{inspector.port}"})[0] == 200


def test_a_websocket_from_another_origin_or_without_the_token_is_refused(inspector):
    for token, origin in ((None, "http://attacker.example"), ("0" * 64, None), ("", None)):
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            connect(inspector, token=token, origin=origin)
        assert refused.value.status_code == 403


def test_frames_pass_both_ways_and_the_socket_end_ends_the_host(inspector):
    connection = connect(inspector)
    started = json.loads(connection.recv())
    assert started["kind"] == "started" and started["command"][1:4] == ["--store", inspector.store, "--config"]
    # The host's config is the operator's with the page as the WebAuthn relying party, in the inspector's private folder.
    host_config = started["command"][4]
    assert os.stat(os.path.dirname(host_config)).st_mode & 0o777 == 0o700 and os.stat(host_config).st_mode & 0o777 == 0o600
    with open(host_config) as handle, open(inspector.config) as given:
        assert json.load(handle) == {**json.load(given), "webauthn": {"rpID": "localhost", "origins": [f"http://localhost:{inspector.port}"]}}
    pid = started["pid"]
    held = descriptors_of(pid)
    assert not held & tcp_sockets(), f"the host holds none of the inspector's listening or browser sockets: {held}"
    connection.send(json.dumps({"kind": "frame", "line": json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"})}))
    reply = json.loads(connection.recv())
    assert reply == {"kind": "frame", "line": '{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"Server not initialized"}}'}
    # Two frames in one message would reach the host as two: refused.
    connection.send(json.dumps({"kind": "frame", "line": '{"jsonrpc":"2.0","id":8,"method":"ping"}\n{"jsonrpc":"2.0","id":9,"method":"ping"}'}))
    assert json.loads(connection.recv())["kind"] == "log"
    connection.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and running_state(pid) not in (None, "Z"):
        time.sleep(0.05)
    assert running_state(pid) in (None, "Z"), "the host ends with its page's socket"
    inspector.stop()
    assert not os.path.exists(os.path.dirname(host_config)), "the config goes with the inspector"


def test_port_is_the_one_given(tmp_path, flowhost_bin):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    running = Inspector(str(tmp_path), flowhost_bin, extra=("--port", str(port)))
    try:
        assert running.port == port
    finally:
        running.stop()


def test_bad_options_stop_it_before_it_serves(tmp_path, flowhost_bin):
    usage = subprocess.run([flowhost_bin, "inspect", "--no-such-option"], capture_output=True, text=True, timeout=30)
    assert usage.returncode == 64 and "--no-such-option" in usage.stderr and usage.stdout == ""
    config = tmp_path / "config.json"
    config.write_text('{"noSuchKey": 1}')
    refused = subprocess.run([flowhost_bin, "inspect", "--store", str(tmp_path / "s.sqlite"), "--config", str(config)],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and "noSuchKey" in refused.stderr and "http://" not in refused.stdout
