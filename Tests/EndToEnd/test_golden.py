"""Golden transcripts: exact line-by-line exchanges in Protocol/golden.

Each file holds `-> ` lines (client to host, sent as they are) and `<- `
lines (host to client, compared byte for byte). A line `# args: …` gives
the host's arguments; `{echo}` stands for a folder holding only the C
example flow. After the last line the host must stay silent.

FLOWHOST_UPDATE_GOLDEN=1 rewrites the `<- ` lines from what the host says
(review the diff before committing it).
"""

import os
import re

import pytest

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "Protocol", "golden")
FILES = sorted(name for name in os.listdir(GOLDEN_DIR) if name.endswith(".transcript"))


def parse(path):
    header, steps = [], []
    with open(path, encoding="utf-8") as handle:
        for raw in handle.read().splitlines():
            if raw.startswith("-> "):
                steps.append([raw[3:], []])
            elif raw.startswith("<- "):
                steps[-1][1].append(raw[3:])
            else:
                header.append(raw)
    return header, steps


@pytest.mark.parametrize("name", FILES)
def test_golden(name, spawn, echo_dir):
    path = os.path.join(GOLDEN_DIR, name)
    header, steps = parse(path)
    args = []
    for line in header:
        match = re.match(r"# args: (.*)", line)
        if match:
            args = [arg.replace("{echo}", echo_dir) for arg in match.group(1).split()]
    host = spawn(*args)
    update = os.environ.get("FLOWHOST_UPDATE_GOLDEN") == "1"
    actual_steps = []
    for sent, expected in steps:
        before = len([entry for entry in host.transcript if entry[0] == "<-"])
        host.send_line(sent)
        if update:
            host.drain(0.3)
        else:
            for _ in expected:
                host.read_message(timeout=10)
        received = [line for direction, line in host.transcript if direction == "<-"][before:]
        actual_steps.append((sent, received))
        if not update:
            assert received == expected, "after -> %s" % sent
    if update:
        with open(path, "w", encoding="utf-8") as handle:
            for line in header:
                handle.write(line + "\n")
            for sent, received in actual_steps:
                handle.write("-> " + sent + "\n")
                for line in received:
                    handle.write("<- " + line + "\n")
        return
    assert host.drain(0.3) == [], "the host said more than the transcript"
