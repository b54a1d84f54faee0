"""The operator's JSON (spec §21) fits its schemas."""

from schemas import validate


def test_issued_codes_fit_their_schema(deployment):
    validate("admin.issued-code", deployment.admin("add-user", "alice"))
    validate("admin.issued-code", deployment.admin("issue-code", "alice"))
