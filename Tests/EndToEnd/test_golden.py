"""Golden transcripts: exact line-by-line exchanges in Protocol/golden.

Each file holds `-> ` lines (client to host, sent as they are) and `<- `
lines (host to client, compared byte for byte). A line `# args: …` gives
the host's arguments; `{echo}` stands for a folder holding only the C
example flow, `{mfa}` for one holding only the mfa flow (each transcript
pins its plugin set, so adding a flow rewrites none of them), `{store}` and `{config}` for a fresh deployment's files.
`# setup: add-user NAME` creates a user before the host starts (its code is
`{{code:NAME}}` in `-> ` lines); `# setup: activate NAME` also activates it
with a password on the transcript's device. In `<- ` lines `{{*}}` matches
any run of characters without a quote (session ids, verification keys).
Host requests are answered from `# answer: METHOD JSON` lines. After the
last line the host must stay silent.

FLOWHOST_UPDATE_GOLDEN=1 rewrites the `<- ` lines from what the host says
(review the diff before committing it).
"""

import json
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


VOLATILE = re.compile(r'"(sessionID|verificationKey)":"[^"]+"')


def matches(expected, actual):
    pattern = "^" + "[^\"]*".join(re.escape(part) for part in expected.split("{{*}}")) + "$"
    return re.match(pattern, actual) is not None


@pytest.mark.parametrize("name", FILES)
def test_golden(name, spawn, echo_dir, mfa_dir, deployment):
    path = os.path.join(GOLDEN_DIR, name)
    header, steps = parse(path)
    args, variables, answers = [], {}, {}
    for line in header:
        match = re.match(r"# args: (.*)", line)
        if match:
            args = [arg.replace("{echo}", echo_dir).replace("{mfa}", mfa_dir).replace("{store}", deployment.store)
                    .replace("{config}", deployment.config)
                    for arg in match.group(1).split()]
        match = re.match(r"# setup: add-user (\S+)", line)
        if match:
            variables["{{code:%s}}" % match.group(1)] = deployment.add_user(match.group(1))
        match = re.match(r"# setup: activate (\S+) on (\S+)", line)
        if match:
            from conftest import activate
            activate(deployment.host(device_id=match.group(2)), match.group(1), deployment.add_user(match.group(1)))
        match = re.match(r"# answer: (\S+) (.*)", line)
        if match:
            answers[match.group(1)] = json.loads(match.group(2))
    host = spawn(*args)
    for method, result in answers.items():
        host.on_request(method, lambda params, result=result: result)
    update = os.environ.get("FLOWHOST_UPDATE_GOLDEN") == "1"
    actual_steps = []
    for original, expected in steps:
        before = len([entry for entry in host.transcript if entry[0] == "<-"])
        sent = original
        for variable, value in variables.items():
            sent = sent.replace(variable, value)
        host.send_line(sent)
        if update:
            host.drain(0.3)
        else:
            for _ in expected:
                host.read_message(timeout=10)
        received = [line for direction, line in host.transcript if direction == "<-"][before:]
        actual_steps.append((original, [VOLATILE.sub(r'"\1":"{{*}}"', line) for line in received]))
        if not update:
            assert len(received) == len(expected) and all(map(matches, expected, received)), \
                "after -> %s\nexpected %s\nreceived %s" % (sent, expected, received)
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
