"""The shared scenario suite (Protocol/scenarios/flows.json), run by the
Python and Node clients against the built binary; the Swift client runs it in
`swift test` (FlowHostClientTests). A scenario whose step does not hold must
fail each runner."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import BIN_DIR, ROOT, store_environment, store_location

SUITE = os.path.join(ROOT, "Protocol", "scenarios", "flows.json")
PYTHON_CLIENT = os.path.join(ROOT, "Protocol", "clients", "python")
NODE_RUNNER = os.path.join(ROOT, "Protocol", "clients", "typescript", "test", "scenarios.mjs")


def runner(language, folder, suite=SUITE):
    """On PostgreSQL, the store is the database standing for the folder's store.sqlite."""
    binary = os.path.join(BIN_DIR, "flowhost")
    sqlite = os.path.join(str(folder), "store.sqlite")
    environment = dict(os.environ, FLOWHOST_SCENARIO_STORE=store_location(sqlite), **store_environment(sqlite))
    if language == "python":
        return subprocess.run([sys.executable, "-m", "flowhost_client.scenarios", binary, str(folder), suite],
                              capture_output=True, text=True, timeout=300, env=dict(environment, PYTHONPATH=PYTHON_CLIENT))
    node = shutil.which("node")
    assert node, "Node.js is installed by scripts/setup.sh --test"
    return subprocess.run([node, NODE_RUNNER, binary, str(folder), suite], capture_output=True, text=True, timeout=300, env=environment)


@pytest.mark.parametrize("language", ["python", "node"])
def test_the_client_runs_the_shared_scenario_suite(language, tmp_path):
    with open(SUITE, encoding="utf-8") as handle:
        names = [scenario["name"] for scenario in json.load(handle)["scenarios"]]
    run = runner(language, tmp_path)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert run.stdout.splitlines() == ["scenario ok: %s" % name for name in names]
    assert any(name.startswith(flow) for flow in ("mfa", "step-up", "device-activation", "lda-toggle", "data-signing") for name in names)


@pytest.mark.parametrize("language", ["python", "node"])
def test_a_step_that_does_not_hold_fails_the_client_runner(language, tmp_path):
    with open(SUITE, encoding="utf-8") as handle:
        suite = json.load(handle)
    first = suite["scenarios"][0]
    broken = dict(suite, scenarios=[dict(first, steps=first["steps"][:4] + [
        {"on": "laptop", "expect": "getActivationCode", "match": {"userID": "somebody-else"}}])])
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    (tmp_path / "run").mkdir()
    run = runner(language, tmp_path / "run", str(path))
    assert run.returncode != 0
    assert "step 5" in run.stderr and "somebody-else" in run.stderr, run.stderr[-2000:]
