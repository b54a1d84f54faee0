"""The start path's rules (docs/performance.md, "The start path") held by a
reading of the code, not only by the benchmark's PSS and cold-start rows:
the host's modules, the SDK and the flows decode text through
`String(utf8:)` / `String(validUTF8:)` and read their command line through
`ProcessArguments`, never through the generic standard-library calls whose
first use writes a page of libswiftCore's data in every host."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What a host process never runs: the command line beyond `serve`, the
# inspector, the Swift client and the embedded test host.
NOT_IN_A_HOST = ("Sources/flowhost-cli/", "Sources/flowhost-inspector/", "Sources/FlowHostClient/", "Sources/FlowHostTesting/")
# The one reader of the C runtime's argv, which falls back to CommandLine.
ARGUMENTS = "Sources/FlowHostLaunch/ProcessArguments.swift"
FORBIDDEN = [
    (re.compile(r"String\(\s*decoding:"), "String(utf8:), not String(decoding:as:)"),
    (re.compile(r"String\(\s*validating:"), "String(validUTF8:), not String(validating:as:)"),
    (re.compile(r"\bCommandLine\."), "ProcessArguments, not CommandLine"),
]


def host_sources():
    for top in ("Sources", "Plugins"):
        for folder, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                if name.endswith(".swift"):
                    path = os.path.relpath(os.path.join(folder, name), ROOT)
                    if not path.startswith(NOT_IN_A_HOST):
                        yield path


def code_of(line):
    """The line without a `//` comment (the rules are named in comments)."""
    return line.split("//", 1)[0]


def test_the_host_uses_no_generic_text_decoding_or_commandline():
    found = []
    for path in host_sources():
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                for pattern, rule in FORBIDDEN:
                    if pattern.search(code_of(line)) and not (path == ARGUMENTS and "CommandLine" in rule):
                        found.append("%s:%d: %s" % (path, number, rule))
    assert not found, "\n".join(found)


def test_the_rule_sees_a_violation(tmp_path):
    # The reading itself must catch what it looks for (a rule that matches
    # nothing would pass forever).
    line = "let text = String(decoding: bytes, as: UTF8.self)"
    assert any(pattern.search(code_of(line)) for pattern, _ in FORBIDDEN)
    assert not any(pattern.search(code_of("// not String(decoding:as:)")) for pattern, _ in FORBIDDEN)
