#!/usr/bin/env python3
"""The functions callgrind saw run in one executable, by linker name, for lld's
--symbol-ordering-file (scripts/link-order.sh, scripts/link-order-serve.sh).

Usage: hot-functions.py EXECUTABLE_NAME 'GLOB' ['GLOB' ...] > list
Each glob is a group of callgrind outputs; the functions of the first group come first, then those
of the next that are new, and so on: the code every run uses is packed tightest.
"""
import glob, re, sys


def functions_run(paths, executable):
    names = set()
    for path in paths:
        objects, functions, current = {}, {}, ""
        for line in open(path, errors="replace"):
            m = re.match(r"(c?)(ob|fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if not m:
                continue
            called, kind, ident, name = m.groups()
            table = objects if kind == "ob" else functions
            if name:
                table[ident] = name
            if called:
                continue
            if kind == "ob":
                current = objects.get(ident, "")
            elif current.endswith("/" + executable):
                names.add(re.sub(r"'\d+$", "", functions[ident]))  # callgrind's recursion-depth suffix
    return {n for n in names if not n.startswith("0x")}


executable, groups = sys.argv[1], sys.argv[2:]
seen, ordered = set(), []
for pattern in groups:
    group = functions_run(glob.glob(pattern), executable) - seen
    ordered += sorted(group)
    seen |= group
print("\n".join(ordered))
