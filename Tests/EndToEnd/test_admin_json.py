"""The operator's JSON (spec §21) fits its schemas."""

from schemas import validate


def test_issued_codes_fit_their_schema(deployment):
    validate("admin.issued-code", deployment.admin("add-user", "alice"))
    validate("admin.issued-code", deployment.admin("issue-code", "alice"))


def test_several_users_are_added_at_once_one_line_each(deployment):
    import json
    out = deployment.admin("add-user", "ann", "bob", "cy", check=False)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["userID"] for line in lines] == ["ann", "bob", "cy"]
    for line in lines:
        validate("admin.issued-code", line)
    assert len({line["activationCode"] for line in lines}) == 3
    # The first failure stops the command; the users before it stay.
    out = deployment.admin("add-user", "dee", "bob", "eve", check=False)
    assert out.returncode == 1 and "already exists" in out.stderr
    assert [json.loads(line)["userID"] for line in out.stdout.splitlines()] == ["dee"]
    assert deployment.admin("show-user", "dee")["status"] is not None
    assert deployment.admin("show-user", "eve", check=False).returncode == 1


def _token_claims(token):
    import base64
    import json
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_a_session_is_asked_for_by_the_tokens_sid(deployment):
    """Spec §10: the token cannot say whether its session ended early; the host can."""
    import json
    from conftest import activate
    code = deployment.add_user("alice")
    host = deployment.host("device-1")
    logged_in = activate(host, "alice", code)["params"]["response"]
    sid = _token_claims(logged_in["additionalInfo"]["jwtJsonTokenInfo"])["sid"]
    assert sid == logged_in["sessionInfo"]["sessionID"]
    shown = deployment.admin("session", sid)
    validate("admin.session", shown)
    assert (shown["state"], shown["userID"], shown["deviceID"], shown["endedAt"]) == ("open", "alice", "device-1", None)
    assert shown["openedAt"] <= shown["lastSeenAt"] < shown["endsBy"] <= shown["openedAt"] + 43200
    host.request("logOff", ["alice"])
    host.wait_event("onUserLoggedOff")
    out = deployment.admin("session", sid, check=False)
    assert out.returncode == 1, "not open: a backend's check fails"
    ended = json.loads(out.stdout)
    validate("admin.session", ended)
    assert (ended["state"], ended["endReason"], ended["endsBy"]) == ("ended", "logoff", None)
    assert ended["endedAt"] >= ended["openedAt"]
    unknown = deployment.admin("session", "0" * 32, check=False)
    assert unknown.returncode == 1 and "no such session" in unknown.stderr and unknown.stdout == ""


def test_a_session_past_its_idle_lifetime_is_expired(tmp_path, flowhost_bin, spawn):
    import json
    import time
    from conftest import CHEAP_CONFIG, Deployment, activate
    config = dict(CHEAP_CONFIG, sessions={"idleTimeoutSeconds": 2})
    deployment = Deployment(str(tmp_path), flowhost_bin, spawn, config=config)
    code = deployment.add_user("alice")
    host = deployment.host("device-1")
    sid = activate(host, "alice", code)["params"]["response"]["sessionInfo"]["sessionID"]
    time.sleep(3)
    out = deployment.admin("session", sid, check=False)
    shown = json.loads(out.stdout)
    validate("admin.session", shown)
    assert out.returncode == 1 and (shown["state"], shown["endReason"]) == ("expired", "idle")
