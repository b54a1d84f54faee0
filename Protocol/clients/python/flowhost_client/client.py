"""The client's engine: spawn the host, talk JSON-RPC 2.0 over its
stdin/stdout, collect events, answer the host's own requests. The typed
methods come from `typed.py` (generated from the contract). Usage:

    from flowhost_client import FlowHostClient
    with FlowHostClient(["flowhost"]) as host:
        host.initialize(device={"deviceID": "dev-1", "ldaCapabilities": [1]})
        host.on_request("platform/authenticateLDA", lambda params: {"authenticated": True})
        event = host.wait_event("getUser")
        host.request("setUser", {"userName": "alice"})

A host behind a socket (a socket unit with `Accept=yes`, or TLS through
stunnel in front of one) is reached with `FlowHostClient.connect(address)`
instead, and is driven the same way.

Every line sent and received is kept in `transcript` as ("->", line) or
("<-", line), which is what the golden-transcript tests compare.
"""

import json
import os
import queue
import socket
import ssl
import subprocess
import threading
import time

from .typed import TypedRequests, typed_event

PROTOCOL_VERSION = "1.1"


class RPCError(Exception):
    """A JSON-RPC error answer: code, message and data as the host sent them."""

    def __init__(self, error):
        self.code = error.get("code")
        self.message = error.get("message")
        self.data = error.get("data")
        super().__init__("%s %s %s" % (self.code, self.message, json.dumps(self.data) if self.data is not None else ""))


class HostExited(Exception):
    """The host closed its output while the client waited."""


class SocketConnection:
    """A connected socket, with the parts of a spawned process the client
    uses: `stdin` to write to, `stdout` to read lines from, `poll`, `wait`
    and `kill`. A host's exit status does not cross a socket: `wait` returns
    None once the host has closed the connection."""

    returncode = None
    stderr = None

    def __init__(self, sock):
        self.socket = sock
        self.stdin = _SocketWriter(sock)
        self.stdout = _SocketLines(sock)

    def poll(self):
        return None

    def wait(self, timeout=None):
        if not self.stdout.ended.wait(timeout):
            raise subprocess.TimeoutExpired("flowhost (socket)", timeout)
        self.socket.close()
        return None

    def kill(self):
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.socket.close()


class _SocketWriter:
    def __init__(self, sock):
        self._socket = sock
        self.closed = False

    def write(self, data):
        self._socket.sendall(data)

    def flush(self):
        pass

    def close(self):
        """The end of the client's input, as closing a pipe is: a plain
        socket is shut for writing (the host reads end of input and exits);
        TLS cannot be half-closed, so it ends when the socket is closed."""
        if self.closed:
            return
        self.closed = True
        if not isinstance(self._socket, ssl.SSLSocket):
            try:
                self._socket.shutdown(socket.SHUT_WR)
            except OSError:
                pass


class _SocketLines:
    def __init__(self, sock):
        self._file = sock.makefile("rb")
        self.ended = threading.Event()

    def __iter__(self):
        try:
            for line in self._file:
                yield line
        except (OSError, ValueError):
            pass
        finally:
            self.ended.set()


class FlowHostClient(TypedRequests):
    def __init__(self, argv, env=None, stderr=None, cwd=None):
        self.argv = list(argv)
        process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        self._start(process, read_stderr=stderr is None)

    @classmethod
    def connect(cls, address, ssl_context=None, server_hostname=None, timeout=10.0):
        """A host behind a socket: `address` is a Unix-domain socket's path
        or a (host, port) pair; with `ssl_context` (ssl.SSLContext), the
        connection is TLS, its certificate checked for `server_hostname`
        (default: the host part of the address)."""
        if isinstance(address, str):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            try:
                sock.connect(address)
            except OSError:
                sock.close()
                raise
        else:
            sock = socket.create_connection(tuple(address), timeout)
        if ssl_context is not None:
            name = server_hostname or (address[0] if not isinstance(address, str) else None)
            sock = ssl_context.wrap_socket(sock, server_hostname=name)
        sock.settimeout(None)
        client = cls.__new__(cls)
        client.argv = None
        client._start(SocketConnection(sock), read_stderr=False)
        return client

    def _start(self, process, read_stderr):
        self.process = process
        self.transcript = []
        self.events = []          # every event, in arrival order
        self.cancelled = []       # ids of host requests the host gave up on ($/cancelRequest)
        self._unread = 0          # index of the first event not yet taken by wait_event
        self._taken = set()       # indexes of events next_event has returned
        self._incoming = queue.Queue()
        self._handlers = {}
        self._next_id = 1
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self._stderr_lines = []
        if read_stderr:
            self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
            self._stderr_reader.start()

    # -- context manager -------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- sending ---------------------------------------------------------

    def send_raw(self, data):
        """Writes bytes as they are (no framing added)."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        with self._lock:
            self.process.stdin.write(data)
            self.process.stdin.flush()

    def send_line(self, text):
        """Writes one frame: the text and a newline."""
        self.transcript.append(("->", text))
        self.send_raw(text.encode("utf-8") + b"\n")

    def send(self, message):
        self.send_line(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def request(self, method, params=None, timeout=10.0):
        """Sends a request and returns its result, or raises RPCError."""
        request_id = self._next_id
        self._next_id += 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        reply = self.wait_reply(request_id, timeout)
        if "error" in reply:
            raise RPCError(reply["error"])
        return reply.get("result")

    def initialize(self, device=None, client_info=None, protocol_version=PROTOCOL_VERSION, process_id=None, timeout=10.0):
        params = {
            "protocolVersion": protocol_version,
            "clientInfo": client_info or {"name": "flowhost_client.py", "version": "1"},
            "device": device if device is not None else {},
        }
        if process_id is not None:
            params["processId"] = process_id
        return self.request("initialize", params, timeout)

    def shutdown(self, timeout=10.0):
        """shutdown then exit; returns the host's exit status."""
        self.request("shutdown", timeout=timeout)
        self.notify("exit")
        return self.process.wait(timeout)

    # -- host requests -----------------------------------------------------

    def on_request(self, method, handler):
        """handler(params) returns a result, or raises RPCError to answer with an error."""
        self._handlers[method] = handler

    # -- receiving -------------------------------------------------------

    def read_message(self, timeout=10.0):
        """The next frame the host wrote, parsed (events and replies alike)."""
        try:
            item = self._incoming.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("no message from the host within %.1fs" % timeout)
        if item is None:
            self._incoming.put(None)  # stays closed for later reads
            raise HostExited("host closed its output (exit status %s)" % self.process.poll())
        return item

    def wait_reply(self, request_id, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            message = self.read_message(max(0.0, deadline - time.monotonic()))
            if isinstance(message, dict) and "method" not in message and message.get("id") == request_id:
                return message

    def wait_event(self, name=None, timeout=10.0):
        """The next event not yet taken (of `name`, if given); earlier events of
        other names are passed over (they stay in `events`, and next_event
        can still take them)."""
        deadline = time.monotonic() + timeout
        while True:
            while self._unread < len(self.events):
                index, event = self._unread, self.events[self._unread]
                self._unread += 1
                if index not in self._taken and (name is None or event["method"] == name):
                    self._taken.add(index)
                    return event
            self.read_message(max(0.0, deadline - time.monotonic()))

    def next_event(self, name=None, timeout=10.0):
        """The next event not yet taken by next_event (of `name`, if given), typed
        (flowhost_client.typed: GetPasswordEvent, ...); events of other names
        stay for a later call, as in the Node and Swift clients."""
        deadline = time.monotonic() + timeout
        while True:
            for index, event in enumerate(self.events):
                if index not in self._taken and (name is None or event["method"] == name):
                    self._taken.add(index)
                    return typed_event(event)
            self.read_message(max(0.0, deadline - time.monotonic()))

    def drain(self, quiet=0.2):
        """Reads until the host has been quiet for `quiet` seconds."""
        messages = []
        while True:
            try:
                messages.append(self.read_message(quiet))
            except (TimeoutError, HostExited):
                return messages

    def stderr_text(self):
        return "".join(self._stderr_lines)

    def close(self, timeout=5.0):
        try:
            if self.process.stdin and not self.process.stdin.closed:
                self.process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    # -- internals -------------------------------------------------------

    def _read_loop(self):
        for raw in self.process.stdout:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            self.transcript.append(("<-", line))
            try:
                message = json.loads(line)
            except ValueError:
                message = {"unparseable": line}
            if isinstance(message, dict) and "method" in message and "id" in message:
                self._answer(message)
            elif isinstance(message, dict) and message.get("method") == "$/cancelRequest":
                # The host no longer waits for that request: a real client closes its prompt.
                self.cancelled.append((message.get("params") or {}).get("id"))
            elif isinstance(message, dict) and "method" in message:
                self.events.append(message)
            self._incoming.put(message)
        self._incoming.put(None)

    def _answer(self, message):
        handler = self._handlers.get(message["method"])
        if handler is None:
            return  # left for the test to answer with send()
        try:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": handler(message.get("params"))}
        except RPCError as error:
            body = {"code": error.code, "message": error.message}
            if error.data is not None:
                body["data"] = error.data
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": body}
        try:
            self.send(reply)
        except (BrokenPipeError, ValueError):
            pass

    def _read_stderr(self):
        for raw in self.process.stderr:
            self._stderr_lines.append(raw.decode("utf-8", errors="replace"))
