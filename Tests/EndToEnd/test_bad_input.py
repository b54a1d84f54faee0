"""Hostile and broken input: each line gets the right error (or none), and
the next valid request still succeeds."""

import json

import pytest

from conftest import DEVICE
from schemas import validate

NO_REPLY = None

# (name, raw bytes of one frame without its newline, expected reply)
# The expected reply is (code, id) for one error, "batch:N" for a batch of N
# replies, or NO_REPLY.
CASES = [
    ("truncated object", b'{"jsonrpc":"2.0","id":1,"method":"ping"', (-32700, None)),
    ("truncated string", b'{"jsonrpc":"2.0","id":1,"method":"pi', (-32700, None)),
    ("not json at all", b"hello", (-32700, None)),
    ("invalid utf-8", b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}', (-32700, None)),
    ("overlong utf-8", b'{"jsonrpc":"2.0","id":1,"method":"\xc0\xaf"}', (-32700, None)),
    ("raw NUL byte", b'{"jsonrpc":"2.0","id":1,\x00"method":"ping"}', (-32700, None)),
    ("escaped NUL in a string", b'{"jsonrpc":"2.0","id":1,"method":"ping\\u0000"}', (-32700, None)),
    ("duplicate keys", b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', (-32700, None)),
    ("trailing garbage", b'{"jsonrpc":"2.0","id":1,"method":"ping"} x', (-32700, None)),
    ("two objects on one line", b'{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}', (-32700, None)),
    ("10 MiB line", b'{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"' + b"a" * (10 * 1024 * 1024) + b'"}}', (-32600, None)),
    ("100 000 nested arrays", b"[" * 100000 + b"]" * 100000, (-32600, None)),
    ("100 000 nested objects unclosed", b'{"a":' * 100000, (-32600, None)),
    ("wrong jsonrpc version", b'{"jsonrpc":"1.0","id":1,"method":"ping"}', (-32600, 1)),
    ("jsonrpc as a number", b'{"jsonrpc":2.0,"id":1,"method":"ping"}', (-32600, 1)),
    ("missing jsonrpc", b'{"id":1,"method":"ping"}', (-32600, 1)),
    ("object id", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', (-32600, None)),
    ("array id", b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', (-32600, None)),
    ("boolean id", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', (-32600, None)),
    ("method as a number", b'{"jsonrpc":"2.0","id":1,"method":7}', (-32600, 1)),
    ("params as a string", b'{"jsonrpc":"2.0","id":1,"method":"echo","params":"text"}', (-32600, 1)),
    ("params as a number", b'{"jsonrpc":"2.0","id":1,"method":"echo","params":3}', (-32600, 1)),
    ("unknown member", b'{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}', (-32600, 1)),
    ("top-level number", b"42", (-32600, None)),
    ("top-level string", b'"ping"', (-32600, None)),
    ("top-level null", b"null", (-32600, None)),
    ("empty batch", b"[]", (-32600, None)),
    ("batch of junk", b"[1,2,3]", "batch:3"),
    ("unknown method", b'{"jsonrpc":"2.0","id":1,"method":"nope"}', (-32601, 1)),
    ("param of the wrong type", b'{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":5}}', (-32602, 1)),
    ("missing required param", b'{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}', (-32602, 1)),
    ("unknown param", b'{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"a","txt":"b"}}', (-32602, 1)),
    ("too many positional params", b'{"jsonrpc":"2.0","id":1,"method":"echo","params":["a",true,3]}', (-32602, 1)),
    ("params for a method that takes none", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":1}}', (-32602, 1)),
    ("notification of an unknown method", b'{"jsonrpc":"2.0","method":"nope"}', NO_REPLY),
    ("notification with bad params", b'{"jsonrpc":"2.0","method":"echo","params":{"text":1}}', NO_REPLY),
    ("response to nothing", b'{"jsonrpc":"2.0","id":"fh-77","result":true}', NO_REPLY),
    ("blank line", b"", NO_REPLY),
    ("whitespace line", b"   \t ", (-32700, None)),
    ("string id with unicode", b'{"jsonrpc":"2.0","id":"\xc3\xa9\xe2\x9c\x93","method":"nope"}', (-32601, "é✓")),
    ("negative float id", b'{"jsonrpc":"2.0","id":-1.5,"method":"nope"}', (-32601, -1.5)),
]


@pytest.fixture(scope="module")
def host(flowhost_bin, echo_dir, tmp_path_factory):
    """One host for the whole table: each case must leave it usable."""
    import os
    from flowhost_client import FlowHostClient

    env = dict(os.environ)
    env.pop("FLOWHOST_PLUGIN_PATH", None)
    env["FLOWHOST_STORE"] = str(tmp_path_factory.mktemp("store") / "store.sqlite")
    client = FlowHostClient([flowhost_bin, "--no-default-plugins", "--plugins", echo_dir], env=env)
    client.initialize(device=DEVICE)
    yield client
    client.close()


@pytest.mark.parametrize("name,frame,expected", CASES, ids=[case[0] for case in CASES])
def test_bad_frame(host, name, frame, expected):
    host.send_raw(frame + b"\n")
    marker = "after-" + name
    host.send_raw(json.dumps({"jsonrpc": "2.0", "id": marker, "method": "echo", "params": {"text": name}}).encode() + b"\n")
    replies = []
    while True:
        message = host.read_message(timeout=20)
        if isinstance(message, dict) and message.get("id") == marker:
            assert message["result"] == {"text": name}, "the next valid request still succeeds"
            break
        replies.append(message)
    for reply in replies:
        validate("envelope", reply)
    if expected is NO_REPLY:
        assert replies == []
    elif isinstance(expected, str) and expected.startswith("batch:"):
        assert len(replies) == 1 and isinstance(replies[0], list)
        assert len(replies[0]) == int(expected.split(":")[1])
        assert all(item["error"]["code"] == -32600 and item["id"] is None for item in replies[0])
    else:
        code, request_id = expected
        assert len(replies) == 1, replies
        assert replies[0]["error"]["code"] == code, replies[0]
        assert replies[0]["id"] == request_id
        if code == -32602:
            validate("invalid-params-error", replies[0]["error"])


def test_table_is_at_least_25_lines():
    assert len(CASES) >= 25
