#!/usr/bin/env python3
"""Writes the man pages: scripts/man-pages.py BINDIR OUTDIR

Each dist/man/PROGRAM.1.md becomes OUTDIR/PROGRAM.1 (man(7)). What the program parses comes from
the program itself, `BINDIR/PROGRAM --experimental-dump-help` (ArgumentParser's ToolInfo JSON),
so it cannot drift from the code: the SYNOPSIS, the program's own options (which open OPTIONS)
and, for a program with subcommands, every command's entry (its synopsis, what it does, its
arguments and options), placed in the file's COMMANDS section by `@commands NAME...` lines under
`### Topic` subsections; a command no line places is an error. -h/--help and --version are said
once, at the top, and ArgumentParser's `help` command is left out. The options the file's OPTIONS
section describes (those nearly every command takes) are listed in each command's synopsis but
described only there. The NAME comes from the file, else from the program's abstract; the other
sections (DESCRIPTION, EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO) are the file's, in
its order.

The files are a small subset of Markdown: `## SECTION`; paragraphs; a block indented four spaces
is an example, printed as it is; `term` then `: definition` is a tagged paragraph; `@table FILE
MARKER` is the Markdown table that follows the line starting with MARKER in FILE (feedctl's EXIT
STATUS is docs/cli.md's table, the one statement of it); inline `code` and **bold** are bold,
*text* italic; <!-- comments --> are left out. Python's standard library only: installing the
pages builds no Swift tool.
"""
import datetime
import json
import os
import re
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "dist", "man")


def fail(message):
    sys.exit(f"man-pages.py: {message}")


# --- roff text -------------------------------------------------------------------------------

def escape(text):
    """Plain text as roff: backslashes, hyphens (so options and commands copy as typed), and
    every non-ASCII character as its \\[uXXXX] name (no preprocessor needed)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\e")
        elif ch == "-":
            out.append("\\-")
        elif ord(ch) > 127:
            out.append(f"\\[u{ord(ch):04X}]")
        else:
            out.append(ch)
    return "".join(out)


INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s](?:[^*]*[^*\s])?)\*")


def inline(text):
    """Markdown's inline code, bold and italic as roff fonts, everything else escaped."""
    out, last = [], 0
    for m in INLINE.finditer(text):
        out.append(escape(text[last:m.start()]))
        code, bold, italic = m.groups()
        out.append(f"\\fI{escape(italic)}\\fR" if italic else f"\\fB{escape(code or bold)}\\fR")
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\])")


def lines(text, width=80):
    """Text as roff input lines: a sentence starts a line (roff's rule, so that it spaces
    sentences right), lines are cut at spaces to at most `width` bytes (fill mode joins them
    again), a line that ends in a period inside a sentence says it is no sentence end, and a
    leading period or apostrophe would be a request."""
    out = []
    for line in text.split("\n"):
        for sentence in SENTENCE_END.split(line):
            cut = textwrap.wrap(sentence, width, break_long_words=False, break_on_hyphens=False)
            out += [l + "\\&" if i < len(cut) - 1 and re.search(r"[.!?][)\]\"']*$", l) else l for i, l in enumerate(cut)]
    return [protect(l) for l in out]


def protect(line):
    return "\\&" + line if line.startswith((".", "'")) else line


def tidy(out):
    """Without the paragraph breaks that break nothing (after a heading, before another
    paragraph macro), which mandoc -Tlint warns of."""
    kept = []
    for i, line in enumerate(out):
        after = out[i + 1] if i + 1 < len(out) else ""
        if line == ".PP" and (kept[-1].startswith((".SH", ".SS")) or after.startswith((".SY", ".TP", ".PP"))):
            continue
        kept.append(line)
    return kept


# --- the hand-written part ---------------------------------------------------------------------

def read_source(path):
    """{SECTION: [block, ...]} in the file's order; a block is a list of lines."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"<!--.*?-->", "", f.read(), flags=re.S)
    sections, current = {}, None
    for raw in text.split("\n"):
        line = raw.rstrip()
        if line.startswith("## "):
            current = sections.setdefault(line[3:].strip(), [[]])
        elif line.startswith("# ") or current is None:
            continue
        elif line == "":
            current.append([])
        else:
            current[-1].append(line)
    return {name: [b for b in blocks if b] for name, blocks in sections.items()}


def markdown_table(path, marker):
    """The rows of the Markdown table after the line starting with `marker` in `path`."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read().split("\n")
    start = next((i for i, l in enumerate(text) if l.startswith(marker)), None)
    if start is None:
        fail(f"{path} has no line starting with {marker!r} (the @table a man page reads)")
    rows = []
    for line in text[start + 1:]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
        elif rows:
            break
    if len(rows) < 2:
        fail(f"no table after {marker!r} in {path}")
    return rows[1:]   # without the header


def render_blocks(blocks, entries=None, source=""):
    """The file's blocks as roff. In COMMANDS, `### Title` is a subsection and `@commands a b`
    places those commands' generated entries (taken from `entries`)."""
    out = []
    for block in blocks:
        while block and block[0].startswith("### "):
            out.append(f'.SS "{escape(block[0][4:])}"')
            block = block[1:]
        if not block:
            continue
        if entries is not None and block[0].startswith("@commands "):
            for name in " ".join(l.removeprefix("@commands ") for l in block).split():
                if name not in entries:
                    fail(f"{source}: @commands names {name!r}, which is no command (or is placed twice)")
                out += entries.pop(name)
        elif all(l.startswith("    ") for l in block):
            out += [".PP", ".RS 4", ".EX"] + [protect(escape(l[4:])) for l in block] + [".EE", ".RE"]
        elif len(block) >= 2 and block[1].startswith(": "):
            definition = [block[1][2:]] + block[2:]
            out += [".TP", inline(block[0])] + lines(inline("\n".join(definition)))
        elif block[0].startswith("@table "):
            _, path, marker = block[0].split(" ", 2)
            for term, meaning in markdown_table(path, marker):
                out += [".TP", f"\\fB{inline(term)}\\fR"] + lines(inline(meaning))
        else:
            out += [".PP"] + lines(inline("\n".join(block)))
    return out


def defined_options(blocks):
    """The option names a section's tagged paragraphs describe (`--db` in "`--db` *path*")."""
    return {m for block in blocks if len(block) >= 2 and block[1].startswith(": ")
            for m in re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", block[0])}


# --- the generated part ------------------------------------------------------------------------

def ask(program, option):
    """What `program option` prints (a line saying why, and exit, when it cannot be run)."""
    try:
        result = subprocess.run([program, option], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        fail(f"can't run {program} {option}: {error}")
    if result.returncode != 0:
        fail(f"{program} {option} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def dump_help(program):
    try:
        return json.loads(ask(program, "--experimental-dump-help"))["command"]
    except (ValueError, KeyError) as error:
        fail(f"{program} --experimental-dump-help printed no ToolInfo JSON: {error}")


def names(argument):
    return ["-" * (2 if n["kind"] == "long" else 1) + n["name"] for n in argument.get("names", [])]


def is_help_or_version(argument):
    return bool(set(names(argument)) & {"--help", "--version", "-h"})


def shown(command):
    """The arguments a page shows for a command: not hidden, not -h/--help or --version."""
    return [a for a in command.get("arguments", []) if a.get("shouldDisplay", True) and not is_help_or_version(a)]


def subcommands(command):
    """Subcommands a page shows: not hidden, and not ArgumentParser's `help` (said at the top)."""
    return [c for c in command.get("subcommands", [])
            if c.get("shouldDisplay", True) and not (c["commandName"] == "help" and not c.get("subcommands"))]


def value(argument):
    return argument.get("valueName") or "value"


def synopsis_item(argument):
    """One argument as the synopsis shows it: [--name value], [--flag], value ..., [value]."""
    repeat = " ...\\&" if argument.get("isRepeating") else ""
    if argument["kind"] == "positional":
        text = f"\\fI{escape(value(argument))}\\fR{repeat}"
    else:
        text = f"\\fB{escape(names(argument)[-1])}\\fR"
        if argument["kind"] == "option":
            text += f" \\fI{escape(value(argument))}\\fR"
        text += repeat
    return f"[{text}]" if argument.get("isOptional") else text


def synopsis(words, arguments):
    out = [f'.SY "{escape(words)}"']
    out += [synopsis_item(a) for a in arguments]
    return out + [".YS"]


def describe(argument):
    """A tagged paragraph for one argument: its names (and value), its help, its default."""
    if argument["kind"] == "positional":
        tag = f"\\fI{escape(value(argument))}\\fR"
    else:
        tag = ", ".join(f"\\fB{escape(n)}\\fR" for n in names(argument))
        if argument["kind"] == "option":
            tag += f" \\fI{escape(value(argument))}\\fR"
    text = argument.get("abstract") or ""
    if argument.get("defaultValue"):
        text += f" (default: {argument['defaultValue']})"
    if argument.get("allValues") and not all(v in text for v in argument["allValues"]):
        text += " (one of: " + ", ".join(argument["allValues"]) + ")"
    out = [".TP", tag] + lines(inline(text.strip()))
    if argument.get("discussion"):
        out += [".IP"] + lines(inline(argument["discussion"]))
    return out


def paragraphs(text):
    out = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        out += [".PP"] + lines(inline(paragraph))
    return out


def command_entry(path, command, common, pages):
    """A leaf command: its synopsis, then indented what it does and the arguments the page does
    not describe elsewhere."""
    arguments = shown(command)
    out = synopsis(" ".join(path), arguments) + [".RS 4"]
    out += lines(inline(command.get("abstract", "")))
    if command.get("discussion"):
        out += paragraphs(command["discussion"])
    own_page = "-".join(path)
    if own_page in pages and len(path) > 1:
        out += [".PP", f"Its options: \\fB{escape(own_page)}\\fR(1)."]
    out += [l for a in arguments if a.get("abstract") and not (set(names(a)) & common) for l in describe(a)]
    return out + [".RE"]


def command_entries(root, common, pages):
    """{name: roff lines} for each command of the program: a leaf's entry, or a group's
    abstract followed by its subcommands' entries."""
    entries = {}
    for command in subcommands(root):
        path = [root["commandName"], command["commandName"]]
        children = subcommands(command)
        if not children:
            entries[command["commandName"]] = command_entry(path, command, common, pages)
            continue
        out = [".PP", f"\\fB{escape(' '.join(path))}\\fR: " + inline(command.get("abstract", ""))]
        for child in children:
            name = child["commandName"]
            # `feedctl download ITEM` is `feedctl download get ITEM`: shown as [get].
            word = f"[{name}]" if name == command.get("defaultSubcommand") else name
            out += command_entry(path + [word], child, common, pages)
        entries[command["commandName"]] = out
    return entries


def render(page, program, source, pages):
    root = dump_help(program)
    sections = read_source(source)
    common = defined_options(sections.get("OPTIONS", []))
    known = set()

    def collect(command):
        for a in command.get("arguments", []):
            known.update(names(a))
        for c in command.get("subcommands", []):
            collect(c)
    collect(root)
    if common - known:
        fail(f"{source} describes {', '.join(sorted(common - known))}, which {page} does not take")
    if bool(subcommands(root)) != ("COMMANDS" in sections):
        fail(f"{source} needs a COMMANDS section exactly when {page} has subcommands")

    date = datetime.datetime.fromtimestamp(int(os.environ.get("SOURCE_DATE_EPOCH", datetime.datetime.now().timestamp())),
                                           datetime.timezone.utc).strftime("%Y-%m-%d")
    out = [f".\\\" Written by scripts/man-pages.py from {page} --experimental-dump-help and dist/man/{page}.1.md.",
           f'.TH {escape(page.upper())} 1 {date} "feedctl {escape(ask(program, "--version").strip())}" "User Commands"',
           ".nr HY 0", ".nh", ".ad l", ".SH NAME"]   # unhyphenated (.YS and .EE read HY), unjustified
    if "NAME" in sections:
        out += lines(inline(" ".join(l for b in sections["NAME"] for l in b)))
    else:
        abstract = root.get("abstract", "").rstrip(".")
        out += lines(f"{escape(page)} \\- {inline(abstract[:1].lower() + abstract[1:])}")

    out.append(".SH SYNOPSIS")
    if subcommands(root):
        out += [f".SY {escape(page)}", "\\fIcommand\\fR [\\fIarguments\\fR]", ".YS",
                f".SY {escape(page)}", "\\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR", ".YS"]
    else:
        out += synopsis(root["commandName"], shown(root))
        if page != root["commandName"]:   # `feedctl daemon` runs feedctl-daemon
            out += [f".SY {escape(page)}", "[\\fIoptions\\fR]", ".YS"]

    # The file's sections in its order; the program's own options open OPTIONS, which follows
    # DESCRIPTION when the file has none.
    top = [l for a in root.get("arguments", []) if a.get("shouldDisplay", True) for l in describe(a)]
    order = [name for name in sections if name != "NAME"]
    if "OPTIONS" not in order:
        order.insert(order.index("DESCRIPTION") + 1 if "DESCRIPTION" in order else 0, "OPTIONS")
    entries = command_entries(root, common, pages)
    for name in order:
        out.append(f'.SH "{escape(name)}"')
        if name == "OPTIONS":
            out += top
        out += render_blocks(sections.get(name, []), entries if name == "COMMANDS" else None, source)
    if entries:
        fail(f"{source}: COMMANDS places no entry for {', '.join(entries)} (add them to an @commands line)")
    return "\n".join(tidy(out)) + "\n"


def main():
    if len(sys.argv) != 3:
        fail("usage: scripts/man-pages.py BINDIR OUTDIR")
    bindir, outdir = sys.argv[1:]
    pages = sorted(f[:-len(".1.md")] for f in os.listdir(SOURCES) if f.endswith(".1.md"))
    os.makedirs(outdir, exist_ok=True)
    for page in pages:
        program = os.path.join(bindir, page)
        if not os.access(program, os.X_OK):
            fail(f"no program {program} to read {page}(1)'s options from")
        text = render(page, program, os.path.join(SOURCES, page + ".1.md"), pages)
        with open(os.path.join(outdir, page + ".1"), "w", encoding="ascii") as f:
            f.write(text)


if __name__ == "__main__":
    main()
