"""What anyone who can reach 127.0.0.1 can do to `flowhost inspect` without
its token: nothing it sends reaches the operator's terminal as control
characters, and connections it opens and never finishes are closed, never
starve the page and never end the inspector."""

import os
import resource
import socket
import subprocess
import threading
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


def test_half_sent_requests_neither_end_the_inspector_nor_starve_the_page(tmp_path, flowhost_bin):
    # A descriptor limit well below the connections opened, as on a machine where it is 1024 and
    # ten thousand are opened.
    def low_descriptor_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    running = Inspector(str(tmp_path), flowhost_bin, env=SHORT, preexec_fn=low_descriptor_limit)
    attackers = []
    try:
        half = f"GET /?token={'0' * 64} HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n".encode()
        for _ in range(400):
            try:
                peer = socket.create_connection(("127.0.0.1", running.port), timeout=5)
            except OSError:
                continue  # the inspector's backlog, full for a moment (or the inspector gone: asserted next)
            attackers.append(peer)
            try:
                peer.sendall(half)
            except OSError:
                pass  # already closed to make room: what this test wants
        started = time.monotonic()
        assert running.process.poll() is None, "the inspector is still running"
        assert page_status(running) == 200, "the page is served while the half-sent requests are held"
        # The page's WebSocket too, which holds its place while quiet.
        panel = websocket.create_connection(f"ws://127.0.0.1:{running.port}/host?token={running.token}",
                                            origin=f"http://127.0.0.1:{running.port}", timeout=10)
        assert '"started"' in panel.recv()
        still_open = [peer for peer in attackers
                      if not closed_by_peer(peer, max(0.01, started + HEAD_SECONDS + 3 - time.monotonic()))]
        assert still_open == [], f"{len(still_open)} half-sent requests still held after the head timeout"
        assert running.process.poll() is None
        assert page_status(running) == 200, "new connections are accepted once the old ones are closed"
        panel.send('{"kind":"frame","line":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"ping\\"}"}')
        assert '"id\\":1' in panel.recv(), "the quiet panel still relays"
        panel.close()
    finally:
        for peer in attackers:
            peer.close()
        running.stop()


def test_the_page_is_served_while_a_peer_keeps_reopening_half_sent_requests(tmp_path, flowhost_bin):
    def low_descriptor_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    running = Inspector(str(tmp_path), flowhost_bin, env=SHORT, preexec_fn=low_descriptor_limit)
    half = f"GET /?token={'0' * 64} HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n".encode()
    stop = threading.Event()

    def slowloris():
        """Holds up to 400 half-sent requests, opening a new one as fast as it can."""
        held = []
        while not stop.is_set():
            try:
                peer = socket.create_connection(("127.0.0.1", running.port), timeout=2)
                held.append(peer)
                peer.sendall(half)
            except OSError:
                pass
            if len(held) > 400:
                held.pop(0).close()
        for peer in held:
            peer.close()

    attacker = threading.Thread(target=slowloris)
    attacker.start()
    try:
        time.sleep(1)
        served = [page_status(running) for _ in range(10)]
        assert served == [200] * 10
        assert running.process.poll() is None
    finally:
        stop.set()
        attacker.join()
        running.stop()


def test_a_silent_connection_is_closed_and_a_quiet_websocket_is_not(tmp_path, flowhost_bin):
    running = Inspector(str(tmp_path), flowhost_bin, env=SHORT)
    try:
        host = f"127.0.0.1:{running.port}"
        # Nothing sent at all.
        silent = socket.create_connection(("127.0.0.1", running.port))
        # A page's kept-alive connection after its request.
        kept = socket.create_connection(("127.0.0.1", running.port))
        kept.sendall(f"GET /?token={running.token} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        kept.settimeout(5)
        assert kept.recv(65536).startswith(b"HTTP/1.1 200")
        panel = websocket.create_connection(f"ws://{host}/host?token={running.token}", origin=f"http://{host}", timeout=10)
        assert '"started"' in panel.recv()
        assert closed_by_peer(silent, HEAD_SECONDS + 3), "a connection that sends no request is closed"
        assert closed_by_peer(kept, IDLE_SECONDS + 3), "a kept-alive connection with no next request is closed"
        time.sleep(1)
        panel.send('{"kind":"frame","line":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"ping\\"}"}')
        assert '"id\\":1' in panel.recv(), "a device panel quiet for longer than the timeouts still relays"
        panel.close()
        silent.close()
        kept.close()
    finally:
        running.stop()


def unix_sockets_of(pid):
    """The paths of the Unix sockets `pid` listens on (from /proc/PID/net/unix)."""
    inodes = {os.readlink(f"/proc/{pid}/fd/{name}") for name in os.listdir(f"/proc/{pid}/fd")}
    with open(f"/proc/{pid}/net/unix") as handle:
        rows = [row.split() for row in list(handle)[1:]]
    return [row[7] for row in rows if len(row) > 7 and f"socket:[{row[6]}]" in inodes]


def test_flyingfox_listens_only_where_its_user_can_reach_and_that_goes_with_it(tmp_path, flowhost_bin):
    running = Inspector(str(tmp_path), flowhost_bin)
    try:
        # The inspector is flowhost-inspector, exec'd by `flowhost inspect` in the same process.
        paths = unix_sockets_of(running.process.pid)
        assert len(paths) == 1, paths
        folder = os.path.dirname(paths[0])
        assert os.stat(folder).st_mode & 0o777 == 0o700, "no other user can connect past the front door"
    finally:
        running.stop()
    assert not os.path.exists(folder), "stopped, it leaves nothing behind"


def test_panels_up_to_the_descriptor_limit_are_refused_and_everything_works_once_they_close(tmp_path, flowhost_bin):
    def low_descriptor_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))

    running = Inspector(str(tmp_path), flowhost_bin, env=SHORT, preexec_fn=low_descriptor_limit)
    host = f"127.0.0.1:{running.port}"
    panels = []
    try:
        for _ in range(8):
            try:
                panel = websocket.create_connection(f"ws://{host}/host?token={running.token}", origin=f"http://{host}", timeout=5)
                panel.recv()
                panels.append(panel)
            except (OSError, websocket.WebSocketException):
                pass  # refused: the descriptors are spent
        assert running.process.poll() is None
    finally:
        for panel in panels:
            panel.close()
    try:
        time.sleep(HEAD_SECONDS + 1)
        assert running.process.poll() is None, "the inspector is still running"
        assert page_status(running) == 200, "the page is served again"
        panel = websocket.create_connection(f"ws://{host}/host?token={running.token}", origin=f"http://{host}", timeout=10)
        assert '"started"' in panel.recv(), "and a panel's host starts again"
        panel.close()
    finally:
        running.stop()
