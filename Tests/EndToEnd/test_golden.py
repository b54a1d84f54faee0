"""Golden transcripts: exact line-by-line exchanges in Protocol/golden.

Each file holds `-> ` lines (client to host, sent as they are) and `<- `
lines (host to client, compared byte for byte). A transcript may drive
several hosts on one store: `-> @B …` and `<- @B …` are host B's lines
(`# host B: ARGS` gives its arguments; unlabelled lines are host A's), and
each host's lines are compared in their own order. `# setup: notify NAME`
sends NAME a notification (Accept with authlevel 1, Reject); `{{notification}}`
in a `-> ` line is the latest notification id seen. A line `# args: …` gives
the host's arguments; `{echo}` stands for a folder holding only the C
example flow, `{mfa}`, `{stepup}`, `{deviceactivation}`, `{ldatoggle}` and `{datasigning}` for one holding only that flow (each transcript
pins its plugin set, so adding a flow rewrites none of them), `{store}` and `{config}` for a fresh deployment's files.
`# config: JSON` merges those sections into the deployment's config.
`# setup: add-user NAME` creates a user before the host starts (its code is
`{{code:NAME}}` in `-> ` lines); `{{outbox:NAME}}` in a `-> ` line is the
latest code the delivery channel holds for NAME when the line is sent; `# setup: activate NAME` also activates it
with a password on the transcript's device. In `<- ` lines `{{*}}` matches
any run of characters without a quote (session ids, verification keys).
Host requests are answered from `# answer: METHOD JSON` lines; the client's
reply appears as a `=> ` line after the host lines of its step (compared
too). After the last line the host must stay silent.

FLOWHOST_UPDATE_GOLDEN=1 rewrites the `<- ` lines from what the host says
(review the diff before committing it).
"""

import json
import os
import re

import pytest

# FLOWHOST_GOLDEN_DIR replays other transcripts (the inspector's test replays the one its page exported).
GOLDEN_DIR = os.environ.get("FLOWHOST_GOLDEN_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "Protocol", "golden")
FILES = sorted(name for name in os.listdir(GOLDEN_DIR) if name.endswith(".transcript"))


def parse(path):
    """Header lines, and steps: (host, sent line, [(host, expected line)], [(host, client reply)])."""
    header, steps = [], []
    with open(path, encoding="utf-8") as handle:
        for raw in handle.read().splitlines():
            if raw[:3] in ("-> ", "<- ", "=> "):
                host, text = "A", raw[3:]
                if text.startswith("@"):
                    host, text = text[1:].split(" ", 1)
                if raw.startswith("-> "):
                    steps.append([host, text, [], []])
                elif raw.startswith("<- "):
                    steps[-1][2].append((host, text))
                else:
                    steps[-1][3].append((host, text))
            else:
                header.append(raw)
    return header, steps


VOLATILE = re.compile(
    r'"(sessionID|verificationKey|notification_uuid|create_ts|expiry_timestamp|update_ts|payloadSignature|dataSignatureID|keyID|publicKey|signature|jwtJsonTokenInfo)"'
    r':"[^"]+"')
VOLATILE_NUMBERS = re.compile(r'"(create_ts_epoch|expiry_timestamp_epoch|ResponseDataLen|signedAt)":\d+')
VOLATILE_KEY = re.compile(r'("key":"VERIFICATION_KEY","value":")[^"]+"')
UUID = re.compile(r'"notification_uuid":"([^"]+)"')


def normalized(line):
    line = VOLATILE.sub(r'"\1":"{{*}}"', line)
    line = VOLATILE_NUMBERS.sub(r'"\1":{{*}}', line)
    return VOLATILE_KEY.sub(r'\1{{*}}"', line)


def matches(expected, actual):
    pattern = "^" + "[^\"]*".join(re.escape(part) for part in expected.split("{{*}}")) + "$"
    return re.match(pattern, actual) is not None


def substitute(args, echo_dir, mfa_dir, deployment, flow_dirs):
    replaced = []
    for arg in args.split():
        arg = arg.replace("{echo}", echo_dir).replace("{mfa}", mfa_dir).replace("{store}", deployment.store)
        for key, folder in flow_dirs.items():
            arg = arg.replace("{%s}" % key, folder)
        replaced.append(arg.replace("{config}", deployment.config))
    return replaced


def start_hosts(header, spawn, echo_dir, mfa_dir, flow_dirs, deployment):
    """The transcript's setup done and its hosts started: (hosts by label, variables)."""
    host_args, variables, answers = {}, {}, {}
    for line in header:
        match = re.match(r"# config: (.*)", line)
        if match:
            with open(deployment.config, encoding="utf-8") as handle:
                config = json.load(handle)
            for section, values in json.loads(match.group(1)).items():
                config[section] = dict(config.get(section, {}), **values)
            with open(deployment.config, "w", encoding="utf-8") as handle:
                json.dump(config, handle)
    for line in header:
        match = re.match(r"# args: (.*)", line)
        if match:
            host_args["A"] = substitute(match.group(1), echo_dir, mfa_dir, deployment, flow_dirs)
        match = re.match(r"# host (\S+): (.*)", line)
        if match:
            host_args[match.group(1)] = substitute(match.group(2), echo_dir, mfa_dir, deployment, flow_dirs)
        match = re.match(r"# setup: add-user (\S+)", line)
        if match:
            variables["{{code:%s}}" % match.group(1)] = deployment.add_user(match.group(1))
        match = re.match(r"# setup: activate (\S+) on (\S+)", line)
        if match:
            from conftest import activate
            setup_host = deployment.host(device_id=match.group(2))
            activate(setup_host, match.group(1), deployment.add_user(match.group(1)))
            setup_host.close()
        match = re.match(r"# setup: notify (\S+)", line)
        if match:
            variables["{{notification}}"] = deployment.admin(
                "notify", match.group(1), "--subject", "Pay 20 EUR to Carol?", "--message", "Invoice 42",
                "--action", "Accept=accept:1", "--action", "Reject=reject")["notification_uuid"]
        match = re.match(r"# answer: (\S+) (.*)", line)
        if match:
            answers[match.group(1)] = json.loads(match.group(2))
    hosts = {}
    for label, args in host_args.items():
        hosts[label] = spawn(*args)
        for method, result in answers.items():
            hosts[label].on_request(method, lambda params, result=result: result)
    return hosts, variables


def substituted(sent, variables, deployment):
    """A `-> ` line with its variables filled: those seen so far, and
    `{{outbox:NAME}}` with the latest code delivered to NAME."""
    for variable, value in variables.items():
        sent = sent.replace(variable, value)
    for user in re.findall(r"\{\{outbox:([^}]+)\}\}", sent):
        latest = [row for row in deployment.admin("outbox") if row["userID"] == user][-1]
        sent = sent.replace("{{outbox:%s}}" % user, latest["activationCode"])
    return sent


@pytest.mark.parametrize("name", FILES)
def test_golden(name, spawn, echo_dir, mfa_dir, flow_dirs, deployment):
    path = os.path.join(GOLDEN_DIR, name)
    header, steps = parse(path)
    hosts, variables = start_hosts(header, spawn, echo_dir, mfa_dir, flow_dirs, deployment)
    update = os.environ.get("FLOWHOST_UPDATE_GOLDEN") == "1"
    actual_steps = []
    for target, original, expected, expected_replies in steps:
        before = {label: len([entry for entry in host.transcript if entry[0] == "<-"]) for label, host in hosts.items()}
        sent_before = {label: len([entry for entry in host.transcript if entry[0] == "->"]) for label, host in hosts.items()}
        sent = substituted(original, variables, deployment)
        hosts[target].send_line(sent)
        if update:
            # The reply first (a slow step such as password hashing must not
            # spill into the next step's lines), then whatever follows it.
            try:
                request = json.loads(sent)
            except ValueError:
                request = None  # a malformed line, sent on purpose
            if isinstance(request, dict) and "id" in request and "method" in request:
                hosts[target].wait_reply(request["id"], timeout=10)
            for host in hosts.values():
                host.drain(0.3)
        else:
            for label, host in hosts.items():
                for _ in [line for owner, line in expected if owner == label]:
                    host.read_message(timeout=10)
        received = []
        for label, host in hosts.items():
            lines = [line for direction, line in host.transcript if direction == "<-"][before[label]:]
            received += [(label, line) for line in lines]
            for line in lines:
                found = UUID.search(line)
                if found:
                    variables["{{notification}}"] = found.group(1)  # the latest one shown
        replies = [(label, normalized(line)) for label, host in hosts.items()
                   for direction, line in [entry for entry in host.transcript if entry[0] == "->"][sent_before[label]:]
                   if '"id":"fh-' in line and '"method"' not in line]
        actual_steps.append((target, original, [(label, normalized(line)) for label, line in received], replies))
        if not update:
            for label in hosts:
                mine = [line for owner, line in expected if owner == label]
                got = [line for owner, line in received if owner == label]
                assert len(got) == len(mine) and all(map(matches, mine, got)), \
                    "after -> %s\non host %s expected %s\nreceived %s" % (sent, label, mine, got)
            assert [line for _, line in replies] == [line for _, line in expected_replies], \
                "after -> %s the client's replies to host requests differ: %s" % (sent, replies)
    if update:
        with open(path, "w", encoding="utf-8") as handle:
            for line in header:
                handle.write(line + "\n")
            for target, sent, received, replies in actual_steps:
                handle.write("-> " + ("" if target == "A" else "@%s " % target) + sent + "\n")
                for label, line in received:
                    handle.write("<- " + ("" if label == "A" else "@%s " % label) + line + "\n")
                for label, line in replies:
                    handle.write("=> " + ("" if label == "A" else "@%s " % label) + line + "\n")
        return
    for host in hosts.values():
        assert host.drain(0.3) == [], "the host said more than the transcript"
