"""The tutorial's `terms` flow (docs/writing-a-flow.md), in Swift and in C,
built out of tree by scripts/examples.sh, loaded into the built flowhost
with --plugins beside the built-in flows, and driven as a client would.
Selected only when scripts/examples.sh names the built libraries."""

import json
import os
import shutil
import subprocess

import pytest

from conftest import DEVICE

pytestmark = pytest.mark.examples

KINDS = ["FLOWHOST_EXAMPLE_SWIFT", "FLOWHOST_EXAMPLE_C"]


@pytest.fixture(params=KINDS)
def terms_dir(request, tmp_path):
    library = os.environ.get(request.param, "")
    if not os.path.isfile(library):
        pytest.fail("%s names no built library (%r): run scripts/examples.sh" % (request.param, library))
    folder = tmp_path / "terms"
    folder.mkdir(mode=0o700)
    shutil.copy(library, str(folder / os.path.basename(library)))
    return str(folder)


def test_the_terms_flow_loads_beside_the_built_in_flows(flowhost_bin, terms_dir):
    out = subprocess.run([flowhost_bin, "plugins", "--json", "--plugins", terms_dir], capture_output=True, text=True, timeout=60)
    listed = json.loads(out.stdout)
    assert listed["refused"] == [] and listed["unoffered"] == [], listed
    [terms] = [flow for flow in listed["flows"] if flow["name"] == "terms"]
    assert terms["origin"] == "--plugins" and len(terms["sha256"]) == 64
    assert {"mfa", "step-up", "terms"} <= {flow["name"] for flow in listed["flows"]}


def test_a_user_accepts_the_terms_once_and_it_is_kept(spawn, deployment, terms_dir):
    first = spawn("--plugins", terms_dir, "--store", deployment.store, "--config", deployment.config)
    first.initialize(device=DEVICE)
    assert first.request("terms.status", {"userID": "alice"}) == {"accepted": False, "version": None}
    first.request("terms.accept", {"userID": "alice", "version": "2026-11"})
    asked = first.wait_event("getTermsConsent")
    assert asked["params"] == {"userID": "alice", "version": "2026-11"}
    first.request("setTermsConsent", {"accepted": True})
    assert first.wait_event("onTermsAccepted")["params"] == {"userID": "alice", "version": "2026-11"}
    # Another host on the same store: the acceptance is durable, and not asked for again.
    second = spawn("--plugins", terms_dir, "--store", deployment.store, "--config", deployment.config)
    second.initialize(device=dict(DEVICE, deviceID="device-e2e-2"))
    assert second.request("terms.status", {"userID": "alice"}) == {"accepted": True, "version": "2026-11"}
    assert second.request("terms.accept", {"userID": "alice", "version": "2026-11"}) == {"accepted": True, "already": True}


def test_an_unanswered_consent_expires_and_a_bad_user_id_never_reaches_the_flow(spawn, tmp_path, terms_dir):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"challengeTimeoutMs": 300}))
    host = spawn("--no-default-plugins", "--plugins", terms_dir, "--config", str(config))
    host.initialize(device=DEVICE)
    host.request("terms.accept", {"userID": "bob", "version": "v1"})
    host.wait_event("getTermsConsent")
    assert host.wait_event("onTermsDeclined", timeout=5)["params"] == {"userID": "bob", "reason": "expired"}
    from flowhost_client import RPCError
    with pytest.raises(RPCError) as refused:
        host.request("terms.accept", {"userID": "", "version": "v1"})
    assert refused.value.code == -32602 and refused.value.data["field"] == "userID"
