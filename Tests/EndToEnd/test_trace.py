"""`--trace FILE` (and FLOWHOST_TRACE): every frame in and out, timestamped,
with passwords, codes and the session token masked."""

import json
import os
import re
import stat

from conftest import GOOD_PASSWORD, activate


def test_the_trace_shows_every_frame_and_no_secret(deployment, tmp_path):
    trace = tmp_path / "frames.trace"
    code = deployment.add_user("alice")
    host = deployment.host("device-1", lda=[1], extra=("--trace", str(trace)))
    activate(host, "alice", code)
    host.request("logOff", ["alice"])
    host.wait_event("getUser")
    host.request("shutdown")
    host.notify("exit")
    host.process.wait(5)
    assert stat.S_IMODE(os.stat(trace).st_mode) == 0o600
    lines = trace.read_text(encoding="utf-8").splitlines()
    shape = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (->|<-) (\{|\[)")
    assert lines and all(shape.match(line) for line in lines), lines[:3]
    sent = [json.loads(line.split(" ", 2)[2]) for line in lines if " -> " in line]
    received = [json.loads(line.split(" ", 2)[2]) for line in lines if " <- " in line]
    assert [message.get("method") for message in sent][:2] == ["initialize", "setUser"]
    assert {"getUser", "getActivationCode", "onUserLoggedIn", "onUserLoggedOff"} <= {message.get("method") for message in received}
    assert len([m for m in received if "id" in m and "method" not in m]) == len([m for m in sent if "id" in m]), "every reply"
    text = trace.read_text(encoding="utf-8")
    assert GOOD_PASSWORD not in text and code not in text
    masked = {message["method"]: message["params"] for message in sent if message.get("method") in ("setPassword", "setActivationCode")}
    assert masked["setPassword"][0] == "•••", "by position"
    assert masked["setActivationCode"]["activationCode"] == "•••", "by name"
    token = [e for e in host.events if e["method"] == "onUserLoggedIn"][0]["params"]["response"]["additionalInfo"]["jwtJsonTokenInfo"]
    assert token.count(".") == 2 and token not in text, "the session token is a bearer credential: masked"
    logged_in = [m for m in received if m.get("method") == "onUserLoggedIn"][0]
    assert logged_in["params"]["response"]["additionalInfo"]["jwtJsonTokenInfo"] == "•••"


def test_the_environment_variable_turns_it_on(spawn, echo_dir, tmp_path):
    trace = tmp_path / "env.trace"
    host = spawn("--no-default-plugins", "--plugins", echo_dir, env={"FLOWHOST_TRACE": str(trace)})
    host.initialize()
    host.send_line("this is not JSON, maybe a password")
    host.read_message()
    host.request("shutdown")
    host.notify("exit")
    host.process.wait(5)
    text = trace.read_text(encoding="utf-8")
    assert '"method":"initialize"' in text and "(not JSON, 34 bytes)" in text and "password" not in text


def test_an_error_answer_says_why_and_every_reason_is_a_failed_check(deployment):
    """A client that cannot run the LDA check says why in data.reason; the
    step-up falls back to the password whatever the reason, and the
    operator's log tells the reasons apart."""
    from flowhost_client import RPCError
    from schemas import validate
    code = deployment.add_user("alice")
    host = deployment.host("device-1", lda=[1])
    activate(host, "alice", code)
    host.request("manageDeviceAuthenticationModes", [True, 1])
    host.wait_event("getPassword")
    host.request("setPassword", [GOOD_PASSWORD, 5])
    host.wait_event("getUserConsentForLDA")
    host.request("setUserConsentForLDA", [True, 16, 1])
    host.wait_event("onDeviceAuthManagementStatus")
    host.request("logOff", ["alice"])
    host.wait_event("getUser")
    host.request("setUser", ["alice"])
    host.wait_event("onUserLoggedIn")  # logged in with LDA: step-up tries it first
    for reason in ["cancelled", "failed", "unavailable"]:
        answer = {"code": 1, "message": "no", "data": {"reason": reason}}
        validate("platform.error", answer)

        def refuse(params, answer=answer):
            raise RPCError(answer)
        host.on_request("platform/authenticateLDA", refuse)
        uuid = deployment.admin("notify", "alice", "--subject", "s", "--message", "m", "--action", "Accept=accept:1")["notification_uuid"]
        host.request("updateNotification", [uuid, "accept"])
        assert host.wait_event("getPassword")["params"]["challengeMode"] == 3, reason
        host.request("setPassword", [GOOD_PASSWORD, 3])
        assert host.wait_event("onUpdateNotification")["params"]["pArgs"]["response"]["StatusCode"] == 100
    host.close()
    for reason in ["cancelled", "failed", "unavailable"]:
        assert "platform/authenticateLDA with an error (reason: %s)" % reason in host.stderr_text()


def test_a_frame_that_is_not_json_is_never_echoed(spawn, echo_dir, tmp_path):
    """Issue 21.9: a password with a bad escape, a Latin-1 byte or a raw tab
    made jansson quote it in -32700's detail, and so into the trace."""
    trace = tmp_path / "bad.trace"
    host = spawn("--no-default-plugins", "--plugins", echo_dir, "--trace", str(trace))
    host.initialize()
    secrets = [b"Secr\\qet-Passw0rd", "Caf\u00e9-Passw0rd".encode("latin-1"), b"Tab\tbed-Passw0rd"]
    for secret in secrets:
        host.process.stdin.write(b'{"jsonrpc":"2.0","id":7,"method":"setPassword","params":["' + secret + b'",0]}\n')
        host.process.stdin.flush()
        reply = host.read_message()
        assert reply["error"]["code"] == -32700
        detail = reply["error"]["data"]["detail"]
        assert detail.startswith("not valid JSON (line 1, column ") and "Passw0rd" not in detail and "Secr" not in detail
    host.request("shutdown")
    host.notify("exit")
    host.process.wait(5)
    text = trace.read_bytes()
    assert b"Passw0rd" not in text and b"Caf" not in text and b"Tab" not in text


def test_an_existing_trace_file_readable_by_others_is_refused(flowhost_bin, echo_dir, tmp_path):
    import subprocess
    trace = tmp_path / "loose.trace"
    trace.write_text("")
    os.chmod(trace, 0o644)
    out = subprocess.run([flowhost_bin, "--no-default-plugins", "--plugins", echo_dir, "--trace", str(trace)],
                         input='{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}\n', capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and out.stdout == ""
    assert "has mode 644" in out.stderr and "chmod 600" in out.stderr
    assert trace.read_text() == "", "nothing appended"
    os.symlink(str(tmp_path / "elsewhere.trace"), str(tmp_path / "link.trace"))
    out = subprocess.run([flowhost_bin, "--no-default-plugins", "--plugins", echo_dir, "--trace", str(tmp_path / "link.trace")],
                         input="", capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and not os.path.exists(str(tmp_path / "elsewhere.trace")), "a link is not followed"
    os.unlink(str(tmp_path / "link.trace"))
