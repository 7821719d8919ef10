#!/usr/bin/env python3
"""Applies the PostgreSQL library schema (Sources/LibraryPostgres/PostgresSchema.swift) with psql.

    scripts/pg-apply-schema.py --dump DIR          # write each migration's SQL to DIR/NN-name.sql
    scripts/pg-apply-schema.py 'host=/tmp/pg dbname=lib user=feedctl'   # apply them all, in order

The SQL is read by compiling the Swift file alone (it depends on nothing but the standard library)
with a two-line main that prints it, so what is applied is exactly what the store will run. Each
migration runs in one transaction (psql --single-transaction, stopping at the first error). This
is for checking the schema by hand and in Tests/postgres; the store's own runner records what it
applied and takes the advisory lock.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "Sources", "LibraryPostgres", "PostgresSchema.swift")

MAIN = """
import Glibc
let directory = CommandLine.arguments[1]
for (index, migration) in PostgresSchema.migrations.enumerated() {
    let path = directory + "/" + format2(index + 1) + "-" + migration.name + ".sql"
    guard let file = fopen(path, "w") else { fatalError("cannot write " + path) }
    fputs(migration.sql, file)
    fclose(file)
}
func format2(_ n: Int) -> String { n < 10 ? "0\\(n)" : "\\(n)" }
"""


def swiftc():
    found = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"
    if not os.path.exists(found):
        sys.exit("pg-apply-schema: swiftc not found (PATH, /opt/swift/usr/bin): the schema's SQL is read by compiling it")
    return found


def dump(directory):
    """Writes each migration to DIRECTORY/NN-name.sql; returns the paths in order."""
    os.makedirs(directory, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        main = os.path.join(work, "main.swift")
        with open(main, "w") as f:
            f.write(MAIN)
        binary = os.path.join(work, "dump")
        built = subprocess.run([swiftc(), "-Onone", SCHEMA, main, "-o", binary], capture_output=True, text=True)
        if built.returncode != 0:
            sys.exit(f"pg-apply-schema: compiling {SCHEMA} failed:\n{built.stderr}")
        subprocess.run([binary, directory], check=True)
    return sorted(os.path.join(directory, name) for name in os.listdir(directory) if name.endswith(".sql"))


def apply(conninfo, paths):
    for path in paths:
        result = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "--single-transaction", "-d", conninfo, "-f", path],
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"pg-apply-schema: {os.path.basename(path)} failed: {result.stderr.strip()}")
        print(f"applied {os.path.basename(path)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("conninfo", nargs="?", help="a libpq connection string or postgresql:// URL")
    parser.add_argument("--dump", metavar="DIR", help="only write the migrations' SQL to DIR")
    args = parser.parse_args()
    if args.dump:
        for path in dump(args.dump):
            print(path)
    elif args.conninfo:
        with tempfile.TemporaryDirectory() as directory:
            apply(args.conninfo, dump(directory))
    else:
        parser.error("give a connection string, or --dump DIR")


if __name__ == "__main__":
    main()
