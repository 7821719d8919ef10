#!/usr/bin/env python3
"""Checks the layout's import rules: every target under Sources/ imports only what the module
table in docs/architecture.md ("Modules and what they may import") allows it (the "May import"
column), so the layout cannot erode silently.

The table is the one written list: a row per module, `| `Name` | what it owns | `A`, `B` |`
(several modules may share a row). Glibc, Darwin, Dispatch and Synchronization are the platform
and always allowed; Foundation only where listed. A module listed as `internal X` may be imported
only with an access level of internal or narrower (`internal import X`), so nothing of X reaches
the importing module's interface. Every directory under Sources/ must have a row.
Exit status 1 with one line per broken rule.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE_FILE = "docs/architecture.md"
TABLE_HEADING = "\n## Modules and what they may import"
PLATFORM = {"Glibc", "Darwin", "Dispatch", "Synchronization", "Swift", "_Concurrency"}


def rules():
    text = open(os.path.join(ROOT, TABLE_FILE), encoding="utf-8").read()
    if TABLE_HEADING not in text:
        sys.exit(f"check-imports: no '{TABLE_HEADING.strip()}' section in {TABLE_FILE}")
    section = text.split(TABLE_HEADING, 1)[1].split("\n## ", 1)[0]
    allowed = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        modules = re.findall(r"`([A-Za-z0-9_-]+)`", cells[0])
        imports = {name: "any" for name in re.findall(r"`([A-Za-z0-9_]+)`", cells[-1])}
        imports.update({name: "internal" for name in re.findall(r"`internal ([A-Za-z0-9_]+)`", cells[-1])})
        for module in modules:
            allowed[module] = imports
    return allowed


NARROW = {"internal", "fileprivate", "private"}


def imports_of(directory):
    found = {}
    for root, _, files in os.walk(directory):
        for name in files:
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                m = re.match(r"\s*(?:@\w+\s+)*(?:(public|package|internal|fileprivate|private)\s+)?import\s+(?:\w+\s+)?([A-Za-z0-9_]+)", line)
                if m:
                    found.setdefault(m.group(2), []).append((f"{os.path.relpath(path, ROOT)}:{number}", m.group(1)))
    return found


def main():
    allowed = rules()
    problems = []
    sources = os.path.join(ROOT, "Sources")
    for target in sorted(os.listdir(sources)):
        if not os.path.isdir(os.path.join(sources, target)):
            continue
        if target not in allowed:
            problems.append(f"Sources/{target}: no row in {TABLE_FILE}'s module table")
            continue
        for module, places in sorted(imports_of(os.path.join(sources, target)).items()):
            if module in PLATFORM or module == target:
                continue
            rule = allowed[target].get(module)
            if rule is None:
                problems.append(f"{places[0][0]}: {target} imports {module}, which {TABLE_FILE} does not allow it")
            elif rule == "internal":
                for place, level in places:
                    if level not in NARROW:
                        problems.append(f"{place}: {target} may import {module} only as `internal import {module}` ({TABLE_FILE})")
    for line in problems:
        print(line)
    if problems:
        print(f"check-imports: {len(problems)} broken rule(s); fix the import or the table in {TABLE_FILE}", file=sys.stderr)
        return 1
    print(f"check-imports: {len(allowed)} modules follow their import rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
