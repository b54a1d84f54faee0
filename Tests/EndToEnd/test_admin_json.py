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
