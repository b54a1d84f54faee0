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


# Put on the line before a fenced block that only illustrates (it is in no example).
NOT_THE_EXAMPLES = "<!-- not the example's code -->"


def code_blocks(text, language):
    """The fenced blocks of `language` in a Markdown text, each as its lines
    (indented blocks too), but those marked NOT_THE_EXAMPLES."""
    blocks = []
    for match in re.finditer(r"^( *)```%s\n(.*?)^\1```" % language, text, re.S | re.M):
        if text[: match.start()].rstrip("\n").endswith(NOT_THE_EXAMPLES):
            continue
        indent = len(match.group(1))
        blocks.append([line[indent:] for line in match.group(2).splitlines()])
    return blocks


def squeezed(text):
    return re.sub(r"\s+", " ", text).strip()


def test_the_tutorials_code_is_the_examples_code():
    # What the tutorial shows is what scripts/examples.sh builds and tests:
    # each line of each of its Swift blocks is in the Swift example (a `//`
    # line stands for what is left out; a block marked NOT_THE_EXAMPLES only
    # illustrates), and its make block is the C example's Makefile.
    tutorial = read("docs", "writing-a-flow.md")
    example = os.path.join(ROOT, "Examples", "TermsFlow")
    sources = []
    for folder, _, files in os.walk(example):
        sources += [read(folder, name) for name in sorted(files) if name.endswith(".swift")]
    swift = squeezed("\n".join(sources))
    blocks = code_blocks(tutorial, "swift")
    assert len(blocks) >= 8, "the tutorial's Swift blocks were not found"
    for block in blocks:
        for line in block:
            if line.strip() and not line.strip().startswith("//"):
                assert squeezed(line) in swift, "docs/writing-a-flow.md shows a line the example does not have: %r" % line
    [make] = code_blocks(tutorial, "make")
    makefile = read("Examples", "terms-c", "Makefile")
    for line in make:
        assert line in makefile.splitlines(), "docs/writing-a-flow.md shows a Makefile line the example does not have: %r" % line


def test_the_header_and_the_spec_say_the_same_abi_minor():
    header = read("Sources", "CFlowHostABI", "include", "flowhost_plugin.h")
    minor = re.search(r"#define FLOWHOST_ABI_MINOR (\d+)u", header).group(1)
    assert "version 1.%s (major 1, minor %s)" % (minor, minor) in header
    assert "minor (`abi_minor`, now %s)" % minor in read("Protocol", "spec.md")
    assert "(ABI 1.1 to 1.%s)" % minor in read("Protocol", "spec.md")
    # The host table's newest section is this minor's.
    table = header[: header.index("} flowhost_host_v1;")]
    assert re.findall(r"--- ABI 1\.(\d+)", table)[-1] == minor, "the host table's newest section is not the header's minor"
