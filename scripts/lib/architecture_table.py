"""Checks that docs/ARCHITECTURE.md's dependency table names exactly the direct dependencies that
Package.swift gives each target under Sources/ (and the fuzz target).

Usage: python3 scripts/lib/architecture_table.py PACKAGE_DUMP.json docs/ARCHITECTURE.md
PACKAGE_DUMP.json is `swift package dump-package` (run with SIGNERKIT_FUZZ=1 so the fuzz target is
declared). A row's first cell names its targets in backticks; its last cell names the dependencies in
backticks (anything else in that cell, such as "Debian -dev package", is prose). Exit 1 names every
target whose row is missing or whose dependencies differ.
"""

import json
import re
import sys


def declared_targets(dump):
    """Target name -> set of direct target dependencies, for the targets the table must describe."""
    result = {}
    for target in dump["targets"]:
        if target["type"] in ("test", "plugin"):
            continue
        path = target.get("path") or ""
        if path and not (path.startswith("Sources/") or path.startswith("Fuzz/")):
            continue  # Benchmarks/ targets are described in prose
        dependencies = set()
        for entry in target.get("dependencies", []):
            for _, value in entry.items():
                dependencies.add(value[0])
        result[target["name"]] = dependencies
    return result


def table_rows(markdown):
    """Target name -> set of names in backticks in the row's last cell."""
    rows = {}
    for line in markdown.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        names = re.findall(r"`([^`]+)`", cells[0])
        dependencies = set(re.findall(r"`([^`]+)`", cells[-1]))
        for name in names:
            rows[name] = dependencies
    return rows


def main():
    dump = json.load(open(sys.argv[1], encoding="utf-8"))
    markdown = open(sys.argv[2], encoding="utf-8").read()
    declared = declared_targets(dump)
    rows = table_rows(markdown)
    problems = []
    for name, dependencies in sorted(declared.items()):
        if name not in rows:
            problems.append(f"{name}: no row in the table (Package.swift: {sorted(dependencies)})")
            continue
        documented = rows[name]
        if documented != dependencies:
            missing = sorted(dependencies - documented)
            extra = sorted(documented - dependencies)
            problems.append(f"{name}: table lacks {missing}, names {extra} that Package.swift does not")
    for name in sorted(set(rows) - set(declared)):
        problems.append(f"{name}: a row for a target Package.swift does not declare")
    for problem in problems:
        print(f"architecture-check: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"architecture-check: {len(declared)} targets, the table matches Package.swift")


if __name__ == "__main__":
    main()
