#!/usr/bin/env python3
"""What each release program is made of: scripts/binary-size.py RELEASE_DIR [PROGRAM...]

Relinks each program (default: feedctl, feedctl-daemon, feedctl-serve) exactly as its release
build did (the command in RELEASE_DIR/../../release.yaml, SwiftPM's build manifest) into a temp
file with lld's link map, and sums the map's input sections by where they came from: the Swift
runtime and standard library, Foundation (with CoreFoundation), ICU (its code and, apart, its
data, both inside the static Foundation), each Swift package, feedctl's own modules. "Kept" is
what stays in the installed (stripped) program; "debug" is the DWARF that stripping removes;
the symbol tables that stripping also removes are the rest of the unstripped size.
Needs a release build (swift build -c release) in the tree whose RELEASE_DIR is given.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections import defaultdict

SWIFT_RUNTIME = re.compile(r"lib(swiftCore|swift_Concurrency|swift_StringProcessing|swift_RegexParser|swiftSynchronization|"
                           r"swiftGlibc|swiftDispatch|dispatch|BlocksRuntime|swift_Builtin_float|swift_math|swiftSwiftOnoneSupport|"
                           r"swift_Volatile|swiftRegexBuilder|swift_Differentiation|swiftObservation)\.a")
FOUNDATION = re.compile(r"lib(Foundation|FoundationEssentials|FoundationInternationalization|FoundationNetworking|FoundationXML|"
                        r"CoreFoundation|_FoundationCShims|_FoundationCollections|_CFURLSessionInterface|_CFXMLInterface)\.a")
OWN = None  # feedctl's own targets: the directories under Sources/


def link_command(manifest, program):
    """The args of the link step that produced `program` in SwiftPM's llbuild manifest."""
    text = open(manifest).read()
    m = re.search(r'description: "Linking [^"]*/release/' + re.escape(program) + r'"\n\s+args: (\[.*?\])\n', text)
    if not m:
        raise SystemExit(f"binary-size.py: no link command for {program} in {manifest}")
    import json
    return json.loads(m.group(1))


def component(path):
    base = os.path.basename(path.split("(")[0])
    if "icu" in base.lower() and base.endswith(".a"):
        return "ICU (code)"
    if SWIFT_RUNTIME.search(base):
        return "Swift runtime and standard library"
    if FOUNDATION.search(base):
        return "Foundation"
    m = re.search(r"/release/([^/]+)\.build/", path)
    if m:
        target = m.group(1)
        name = target.replace("_", "-")
        if name in OWN or target in OWN:
            return "feedctl's own modules"
        return package_of(target)
    return "linker-made (.eh_frame_hdr, dynamic symbols, merged strings), C runtime"


PACKAGES = [
    ("BoringSSL (swift-nio-ssl)", r"^CNIOBoringSSL"),
    ("SwiftNIO and its helpers", r"^(NIO|CNIO|_NIO)"),
    ("Hummingbird", r"^(Hummingbird|CHummingbird)"),
    ("GRDB (SQLite access)", r"^(GRDB|GRDBSQLite)"),
    ("TOMLKit (toml++)", r"^(TOMLKit|CTOML)"),
    ("swift-argument-parser", r"^(ArgumentParser|ArgumentParserToolInfo)"),
    ("swift-collections, atomics, algorithms", r"^(DequeModule|OrderedCollections|InternalCollectionsUtilities|_RopeModule|"
                                                r"HashTreeCollections|HeapModule|BitCollections|Collections|Atomics|_AtomicsShims|"
                                                r"Algorithms|RealModule|_NumericsShims|ContainersPreview|BasicContainers|TrailingElementsModule)"),
]


def package_of(target):
    for name, pattern in PACKAGES:
        if re.match(pattern, target):
            return name
    return "other Swift packages (log, service-lifecycle, http-types, system, tracing, bcrypt…)"


def sections(map_file):
    """[(output section, input path, size)] from a link map: lld's (the daemon, the server) or
    gold's (feedctl)."""
    with open(map_file, errors="replace") as f:
        first = f.readline()
        f.seek(0)
        return list(lld_map(f) if "VMA" in first else gnu_map(f))


def lld_map(lines):
    current = None
    for line in lines:
        # Columns: VMA LMA Size Align, then Out (a section), In (an input, 8 further in), Symbol.
        head = re.match(r"\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(.*)", line.rstrip("\n"))
        if not head:
            continue
        size, indent, name = int(head.group(1), 16), len(head.group(2)), head.group(3)
        if indent == 0:
            current = name
        elif indent == 8 and current:
            yield current, name, size


def gnu_map(lines):
    current, pending = None, False
    for line in lines:
        line = line.rstrip("\n")
        if re.match(r"\.[\w.$]+(\s|$)", line):              # an output section
            current, pending = line.split()[0], False
            continue
        if current is None:
            continue
        m = re.match(r" \.\S+(?:\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*))?$", line)
        if m:                                                   # an input section
            if m.group(1):
                yield current, m.group(2), int(m.group(1), 16)
            else:
                pending = True                                  # its address and size on the next line
            continue
        m = re.match(r"\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if pending and m:
            yield current, m.group(2), int(m.group(1), 16)
        pending = False


def icu_data(section, path):
    return section.startswith(".rodata") and "icu" in path.lower() and ("dat" in path.lower() or "data" in path.lower())


def main():
    global OWN
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    release = os.path.realpath(sys.argv[1])
    programs = sys.argv[2:] or ["feedctl", "feedctl-daemon", "feedctl-serve"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    OWN = set(os.listdir(os.path.join(root, "Sources")))
    manifest = os.path.join(os.path.dirname(os.path.dirname(release)), "release.yaml")
    for program in programs:
        args = link_command(manifest, program)
        with tempfile.TemporaryDirectory() as tmp:
            output = os.path.join(tmp, program)
            args = list(args)
            args[args.index("-o") + 1] = output
            subprocess.run(args + ["-Xlinker", f"-Map={tmp}/map"], check=True)
            unstripped = os.path.getsize(output)
            subprocess.run(["strip", "-o", output + ".stripped", output], check=True)
            stripped = os.path.getsize(output + ".stripped")
            kept, debug = defaultdict(int), defaultdict(int)
            for section, path, size in sections(f"{tmp}/map"):
                if section in (".bss", ".tbss") or section.startswith((".comment", ".symtab", ".strtab", ".shstrtab")):
                    continue
                name = "ICU (data)" if icu_data(section, path) else component(path)
                (debug if section.startswith(".debug") else kept)[name] += size
        mb = lambda n: f"{n / 1e6:6.1f}"
        print(f"\n{program}: {unstripped / 1e6:.1f} MB as built, {stripped / 1e6:.1f} MB stripped "
              f"(debug info {sum(debug.values()) / 1e6:.1f} MB, symbol tables ~{(unstripped - stripped - sum(debug.values())) / 1e6:.1f} MB)")
        print(f"  {'MB kept':>7} {'debug':>6}  from")
        for name in sorted(kept, key=lambda n: -kept[n]):
            if kept[name] + debug.get(name, 0) >= 50_000:
                print(f"  {mb(kept[name]):>7} {mb(debug.get(name, 0))}  {name}")
        print(f"  {mb(stripped - sum(kept.values())):>7} {'':>6}  not in the map's input sections (gold's merged .eh_frame, headers, alignment)")


if __name__ == "__main__":
    main()
