#!/usr/bin/env python3
"""The README's benchmark table, written from a benchmark run's results.

    python3 Benchmarks/readme_table.py --write README.md   # after a whole run (scripts/bench.sh)
    python3 Benchmarks/readme_table.py --check README.md   # exit 1 if the README's table is not the results'

The table sits between two marker lines in the README; nothing else there
is touched. Figures are printed as the benchmark prints them.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BEGIN = "<!-- benchmark table: written by Benchmarks/readme_table.py from Benchmarks/results/latest.json -->"
END = "<!-- end of benchmark table -->"


def figure(value):
    """As the benchmark's Report.format: no decimals from 1000, one from 10, else two."""
    if abs(value) >= 1000:
        return "%.0f" % value
    if abs(value) >= 10:
        return "%.1f" % value
    return "%.2f" % value


def table(results):
    lines = ["| measure | flowhost | reference | ratio | target | met |", "|---|---|---|---|---|---|"]
    for row in results["rows"]:
        name = row["measure"]
        if name.startswith("  "):
            name = "&nbsp;&nbsp;" + name.lstrip(" ")
        reference = figure(row["reference"]) if "reference" in row else "—"
        ratio = "%.2f" % row["ratio"] if "ratio" in row else "—"
        met = "" if "met" not in row else ("yes" if row["met"] else "**no**")
        lines.append(f"| {name} | {figure(row['flowhost'])} | {reference} | {ratio} | {row.get('target', '')} | {met} |")
    return "\n".join(lines)


def replaced(readme, results):
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        sys.exit(f"readme_table.py: the README has no table between\n  {BEGIN}\n  {END}")
    return readme[: start + len(BEGIN)] + "\n" + table(results) + "\n" + readme[end:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="README")
    action.add_argument("--check", metavar="README")
    parser.add_argument("--results", default=os.path.join(HERE, "results", "latest.json"))
    arguments = parser.parse_args()
    with open(arguments.results, encoding="utf-8") as handle:
        results = json.load(handle)
    path = arguments.write or arguments.check
    with open(path, encoding="utf-8") as handle:
        readme = handle.read()
    wanted = replaced(readme, results)
    if arguments.write:
        if wanted != readme:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(wanted)
        return 0
    if wanted != readme:
        print(f"{path}'s benchmark table is not {arguments.results}'s: run python3 Benchmarks/readme_table.py --write {path}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
