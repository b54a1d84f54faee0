"""What anyone who can reach 127.0.0.1 can do to `flowhost inspect` without
its token: nothing it sends reaches the operator's terminal as control
characters."""

import os
import resource
import socket
import subprocess
import time
import urllib.request

import websocket

from conftest import Inspector

HEAD_SECONDS = 2
IDLE_SECONDS = 2
SHORT = {"FLOWHOST_INSPECTOR_HEAD_SECONDS": str(HEAD_SECONDS), "FLOWHOST_INSPECTOR_IDLE_SECONDS": str(IDLE_SECONDS)}


def stopped_stderr(running):
    """Everything the inspector wrote to stderr, once it is stopped."""
    running.process.terminate()
    running.process.wait(timeout=10)
    return running.process.stderr.read()


def raw_control_characters(text):
    return sorted({f"U+{ord(c):04X}" for c in text
                   if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029"})


def exchange(port, data, wait=1.0):
    """Sends `data` and returns what comes back until the inspector closes or `wait` passes."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as peer:
        peer.sendall(data)
        got = b""
        try:
            while chunk := peer.recv(65536):
                got += chunk
        except (socket.timeout, ConnectionResetError):
            pass
        return got


def closed_by_peer(sock, within):
    """True if the inspector closes `sock` (EOF or reset) within `within` seconds."""
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def page_status(running):
    with urllib.request.urlopen(running.url, timeout=10) as response:
        return response.status


def test_what_a_peer_sends_reaches_stderr_escaped(tmp_path, flowhost_bin):
    running = Inspector(str(tmp_path), flowhost_bin)
    try:
        port, token = running.port, running.token
        poison = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\r\x7f\x9b"
        host = f"127.0.0.1:{port}"
        # Without the token: in the path, a header, and the two headers FlyingFox quotes when it cannot read them.
        for head in (f"GET /{poison} HTTP/1.1\r\nHost: {host}\r\n\r\n",
                     f"GET / HTTP/1.1\r\nHost: {host}\r\nX-Poison: {poison}\r\n\r\n",
                     f"GET / HTTP/1.1\r\nHost: {host}\r\nContent-Length: {poison}\r\n\r\n",
                     f"GET / HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: {poison}\r\n\r\n",
                     f"{poison} {poison} {poison}\r\n\r\n"):
            exchange(port, head.encode())
        # With it, so that the request reaches FlyingFox and its error line is written.
        for header in ("Content-Length", "Transfer-Encoding"):
            exchange(port, f"GET /?token={token} HTTP/1.1\r\nHost: {host}\r\n{header}: {poison}\r\n\r\n".encode())
        assert page_status(running) == 200
    finally:
        stderr = stopped_stderr(running)
        running.stop()
    assert "flowhost-inspector" in stderr, f"FlyingFox's error lines are written, escaped: {stderr!r}"
    assert raw_control_characters(stderr) == [], stderr


def test_the_reason_it_cannot_start_reaches_stderr_escaped(flowhost_bin):
    inspector = os.path.join(os.path.dirname(flowhost_bin), "flowhost-inspector")
    refused = subprocess.run([inspector, "--port", "\x1b[2J\x1b]0;owned\x07"], capture_output=True, text=True, timeout=30)
    assert refused.returncode == 64 and "--port takes" in refused.stderr
    assert raw_control_characters(refused.stderr) == [], refused.stderr
