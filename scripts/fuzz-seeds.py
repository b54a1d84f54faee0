#!/usr/bin/env python3
"""Writes the fuzz seed corpus from the golden transcripts: for each one, its
client lines (after `initialize`, which the dispatch target sends itself)
as one input for fuzz-dispatch, and each client line alone for fuzz-frames
and (without its newline) for fuzz-json."""
import hashlib
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
golden = os.path.join(root, "Protocol", "golden")
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "Tests", "Fuzz", "Corpus")
for target in ("frames", "json", "dispatch"):
    os.makedirs(os.path.join(out, target), exist_ok=True)


def write(target, data):
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(out, target, name), "wb") as handle:
        handle.write(data)


for name in sorted(os.listdir(golden)):
    if not name.endswith(".transcript"):
        continue
    lines = []
    with open(os.path.join(golden, name), encoding="utf-8") as handle:
        for raw in handle.read().splitlines():
            if raw.startswith("-> "):
                text = raw[3:]
                if text.startswith("@"):
                    text = text.split(" ", 1)[1]
                if '"method":"initialize"' not in text:
                    lines.append(text)
    for line in lines:
        write("frames", (line + "\n").encode())
        write("json", line.encode())
    if lines:
        write("dispatch", ("\n".join(lines) + "\n").encode())
