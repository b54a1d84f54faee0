"""The documents that say what the code does: the README's benchmark table is
the last whole run's, every target comes from the thresholds file, and the
README stays a front door."""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH_MAIN = os.path.join(ROOT, "Benchmarks", "Sources", "flowhost-bench", "main.swift")
THRESHOLDS = os.path.join(ROOT, "Benchmarks", "thresholds.json")


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return handle.read()


def test_the_readmes_benchmark_table_is_the_last_whole_runs():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "readme_table.py"), "--check",
                          os.path.join(ROOT, "README.md")], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr


def test_every_threshold_is_a_rows_and_no_target_is_written_in_the_code():
    # A row that names a threshold the file lacks stops the benchmark; this
    # finds the other way round: a threshold no row names any more.
    thresholds = {key for key in json.loads(read("Benchmarks", "thresholds.json")) if not key.startswith("$")}
    source = read("Benchmarks", "Sources", "flowhost-bench", "main.swift")
    literals = set(re.findall(r'"([a-z0-9-]+)"', source))
    assert thresholds <= literals, sorted(thresholds - literals)
    assert not re.search(r"target: \.", source), "a target written in the benchmark's code, not in the thresholds file"


def test_the_results_targets_are_the_thresholds_files():
    thresholds = json.loads(read("Benchmarks", "thresholds.json"))
    texts = {"ratioAtLeast": "ratio ≥ {}", "ratioAtMost": "ratio ≤ {}", "atMost": "≤ {}"}
    for row in json.loads(read("Benchmarks", "results", "latest.json"))["rows"]:
        if "threshold" not in row:
            continue
        (kind, bound), = thresholds[row["threshold"]].items()
        assert row["target"] == texts[kind].format(float(bound)), row


def test_the_readme_is_a_front_door():
    readme = read("README.md")
    assert len(readme.splitlines()) <= 300
    # Every document it sends a reader to is there.
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme):
        if "://" not in target:
            assert os.path.exists(os.path.join(ROOT, target)), target
    # The two commands come first.
    assert readme.split("```sh\n", 1)[1].startswith("./scripts/demo.sh")
