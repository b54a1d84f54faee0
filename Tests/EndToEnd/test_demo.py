"""`flowhost demo`, the README's main job: every scenario runs as scripted,
and nothing it made is left behind (its store, its keys and the issuer's
key live in a temporary folder under TMPDIR that goes with the demo)."""

import glob
import os
import subprocess


def test_the_demo_runs_every_scenario_and_leaves_nothing_behind(tmp_path, flowhost_bin):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    before = set(glob.glob("/tmp/flowhost-demo-*"))
    out = subprocess.run([flowhost_bin, "demo"], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, TMPDIR=str(scratch)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip().endswith("Demo finished: every scenario ran as scripted."), out.stdout[-500:]
    assert list(scratch.iterdir()) == [], "the demo's folder, with its keys, is removed"
    assert set(glob.glob("/tmp/flowhost-demo-*")) == before, "and none is made outside TMPDIR"
