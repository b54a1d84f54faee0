"""Every message a flow sends is marked for translation (docs/translating.md).

A message written without a mark is sent in English in every language, and
the catalogs' checks cannot see it: it is in no catalog. So each golden
transcript (Protocol/golden) is replayed with French set at `initialize`,
and each text a client shows (`statusMessage`, `errorString`, `StatusMsg`,
an error's `message`) is held against the English golden's at the same
place. The same text in both is a message nobody marked, unless French
writes it the same way (fr.po's msgstr equals its msgid) or it is data the
client or the operator gave (it appears in a `-> ` line or the setup).
"""

import json
import os
import re
import sys

import pytest

from test_golden import FILES, GOLDEN_DIR, UUID, matches, parse, start_hosts, substituted

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import messages  # noqa: E402
FRENCH = {"internationalizationOptions": {"localeCode": "fr", "localeName": "French", "languageDirection": 0}}
TEXT_FIELDS = ("statusMessage", "errorString", "StatusMsg")


def po_entries(path):
    """{msgid: {msgstr}} of a catalog, every context, read as scripts/messages.py reads it."""
    entries = {}
    for (_, msgid), msgstr in messages.read_po(path).items():
        entries.setdefault(msgid, set()).add(msgstr)
    return entries


def texts(line):
    """The client-visible texts of one host line, in order."""
    try:
        # A volatile number is `:{{*}}`; any other `{{*}}` is inside a string.
        message = json.loads(line.replace(":{{*}}", ":0").replace("{{*}}", "WILDCARD"))
    except ValueError:
        return []
    found = []
    def walk(value):
        if isinstance(value, dict):
            for key, member in value.items():
                if key in TEXT_FIELDS and isinstance(member, str):
                    found.append(member)
                else:
                    walk(member)
        elif isinstance(value, list):
            for member in value:
                walk(member)
    walk(message)
    error = message.get("error") if isinstance(message, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        found.append(error["message"])
    return [text.replace("WILDCARD", "{{*}}") for text in found]


def in_french(line):
    """An `initialize` request line with French asked for; any other line as it is."""
    try:
        request = json.loads(line)
    except ValueError:
        return line
    if not isinstance(request, dict) or request.get("method") != "initialize" or not isinstance(request.get("params"), dict):
        return line
    request["params"]["initOptions"] = dict(request["params"].get("initOptions") or {}, **FRENCH)
    return json.dumps(request, separators=(",", ":"))


def same_in_french(french):
    """English texts French writes the same way (a translation equal to its msgid)."""
    return {msgid for msgid, translations in french.items() if msgid in translations}


@pytest.mark.parametrize("name", FILES)
def test_every_message_of_a_golden_transcript_is_translated(name, spawn, echo_dir, mfa_dir, flow_dirs, deployment):
    french = po_entries(os.path.join(ROOT, "Protocol", "locale", "fr.po"))
    assert len(french) > 100
    alike = same_in_french(french)
    header, steps = parse(os.path.join(GOLDEN_DIR, name))
    given = "\n".join(header + [sent for _, sent, _, _ in steps])
    hosts, variables = start_hosts(header, spawn, echo_dir, mfa_dir, flow_dirs, deployment)
    untranslated, initialized = [], set()
    for target, original, expected, _ in steps:
        before = {label: len([entry for entry in host.transcript if entry[0] == "<-"]) for label, host in hosts.items()}
        sent = substituted(in_french(original), variables, deployment)
        hosts[target].send_line(sent)
        for label, host in hosts.items():
            for _ in [line for owner, line in expected if owner == label]:
                host.read_message(timeout=10)
        for label, host in hosts.items():
            english = [line for owner, line in expected if owner == label]
            received = [line for direction, line in host.transcript if direction == "<-"][before[label]:]
            assert len(received) == len(english), "after -> %s host %s said %s" % (sent, label, received)
            for line in received:
                found = UUID.search(line)
                if found:
                    variables["{{notification}}"] = found.group(1)
            for english_line, french_line in zip(english, received):
                if label not in initialized:
                    # No language is set before initialize has succeeded: what comes before is English.
                    if '"result":{"protocolVersion"' in french_line:
                        initialized.add(label)
                    continue
                english_texts, french_texts = texts(english_line), texts(french_line)
                assert len(english_texts) == len(french_texts), (english_line, french_line)
                for english_text, french_text in zip(english_texts, french_texts):
                    if not re.search(r"[A-Za-z]{2}", english_text) or not matches(english_text, french_text):
                        continue
                    if french_text in alike or french_text in given:
                        continue
                    untranslated.append(french_text)
    assert untranslated == [], "sent in English with French set (mark them, then translate them in fr.po): %s" % untranslated


# A literal where a client-visible text goes, not through host.text(…): what
# the goldens do not reach. "Success" is translated on its way out (every
# event's default words); a notification's texts are stored for the user's
# other devices, whose language the writing host does not know, and stay
# English (spec §22, "Languages").
UNMARKED = re.compile(r'\b(message|errorString|statusMessage|StatusMsg)"?\s*:\s*(\.string\()?"(?!Success")[^"]*[A-Za-z]{2}')
# A C flow's internal errors (out of memory, a host too old to create it on) come before any language is known.
C_UNMARKED = re.compile(r'flowhost_error_set\((?![^;]*INTERNAL_ERROR)[^;]*"[^"]*[A-Za-z]{2}')
STORED_FOR_OTHER_DEVICES = re.compile(r'Services\.NotificationsCreate\(')


def test_no_flow_passes_an_unmarked_literal_where_a_message_goes():
    found = []
    for folder, _, files in os.walk(os.path.join(ROOT, "Plugins")):
        for name in sorted(files):
            if not name.endswith((".swift", ".c")):
                continue
            path = os.path.join(folder, name)
            lines = open(path, encoding="utf-8").read().splitlines()
            pattern = UNMARKED if name.endswith(".swift") else C_UNMARKED
            for number, line in enumerate(lines, 1):
                if line.strip().startswith("//") or not pattern.search(line):
                    continue
                if any(STORED_FOR_OTHER_DEVICES.search(above) for above in lines[max(0, number - 4):number]):
                    continue
                found.append("%s:%d: %s" % (os.path.relpath(path, ROOT), number, line.strip()))
    assert found == [], "mark these with host.text(…, in: \"<flow>\") and translate them:\n" + "\n".join(found)
