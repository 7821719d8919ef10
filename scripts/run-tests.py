#!/usr/bin/env python3
"""Runs the built test bundle with its XCTest classes in parallel processes (what scripts/test.sh runs).

    scripts/run-tests.py BUNDLE [--jobs N] [--timings FILE] [--postgresql REGEX]... [REGEX...]

BUNDLE is the `feedctlPackageTests.xctest` a `swift build --build-tests` made. Most of the suite
waits on real time (audio played into PulseAudio, servers, timeouts), so one class per process,
N at once, longest first (by FILE, the durations of the last run), finishes in a fraction of
`swift test`'s serial run. Each class already has its own PulseAudio, D-Bus, daemon, server and
temp dirs (PulseTestCase, DaemonTestCase, APIHarness), so classes do not share state. The
swift-testing tests run as one more job (they run in parallel inside it). REGEX selects classes
(`Module.Class`) as `swift test --filter` would. A class's output is printed only when it fails;
a class that runs past --timeout is killed and fails. Exits 1 when anything failed.

--postgresql REGEX runs the classes it selects (of those selected) a second time, with
FEEDCTL_TEST_ENGINE=postgresql: the API tests against a PostgreSQL store (TestDatabase.make()),
as jobs named `CLASS@postgresql` in the same pool. A class's skipped tests are counted and shown.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

SUMMARY = re.compile(r"Executed (\d+) tests?, with (?:(\d+) tests? skipped and )?(\d+) failures?")


def classes(bundle, patterns):
    out = subprocess.run([bundle, "--list-tests"], capture_output=True, text=True, check=True).stdout
    names = []
    for line in out.splitlines():
        if "/" in line and not line.startswith("Listing"):
            name = line.split("/")[0].strip()
            if name not in names and (not patterns or any(re.search(p, name) for p in patterns)):
                names.append(name)
    return names


class Job:
    def __init__(self, name, argv, env, log_dir):
        self.name, self.argv = name, argv
        self.log = tempfile.NamedTemporaryFile(mode="w+", dir=log_dir, prefix="test-", suffix=".log", delete=False)
        self.started = time.monotonic()
        # Its own process group: a timeout kills the class's children too (ffmpeg, servers).
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env=env, start_new_session=True)

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def kill(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundle")
    ap.add_argument("patterns", nargs="*", metavar="REGEX")
    ap.add_argument("--jobs", type=int, default=8, help="classes run at once (default 8)")
    ap.add_argument("--timings", help="JSON file of each class's last duration: read to start the longest first, then updated")
    ap.add_argument("--timeout", type=float, default=600, help="seconds a class may take (default 600)")
    ap.add_argument("--postgresql", action="append", default=[], metavar="REGEX",
                    help="also run these classes with FEEDCTL_TEST_ENGINE=postgresql (repeatable)")
    args = ap.parse_args()

    timings = {}
    if args.timings and os.path.exists(args.timings):
        try:
            with open(args.timings) as f:
                timings = json.load(f)
        except (OSError, ValueError):
            timings = {}
    selected = classes(args.bundle, args.patterns)
    # Each job: (name, argv, environment). A class's second run on PostgreSQL is its own job.
    jobs = [(n, [args.bundle, n], None) for n in selected]
    postgresql = dict(os.environ, FEEDCTL_TEST_ENGINE="postgresql")
    jobs += [(n + "@postgresql", [args.bundle, n], postgresql)
             for n in selected if any(re.search(p, n) for p in args.postgresql)]
    names = [name for name, _, _ in jobs]
    # Unknown (new) classes first: they may be long. Then the longest first, so that the last
    # ones to start are short and the workers finish together.
    queue = sorted(jobs, key=lambda job: -timings.get(job[0], float("inf")))
    if not args.patterns:
        queue.insert(0, ("swift-testing", [args.bundle, "--testing-library", "swift-testing"], None))

    started = time.monotonic()
    running, failed, tests, skipped, test_seconds = [], [], 0, 0, 0.0
    log_dir = tempfile.mkdtemp(prefix="feedctl-test-logs-")
    try:
        while queue or running:
            while queue and len(running) < args.jobs:
                name, argv, env = queue.pop(0)
                running.append(Job(name, argv, env, log_dir))
            time.sleep(0.05)
            for job in list(running):
                elapsed = time.monotonic() - job.started
                status = job.process.poll()
                if status is None and elapsed > args.timeout:
                    job.kill()
                    job.process.wait()
                    status = "timeout"
                if status is None:
                    continue
                running.remove(job)
                output = job.output()
                counts = SUMMARY.findall(output)
                count = int(counts[-1][0]) if counts else 0
                skips = int(counts[-1][1] or 0) if counts else 0
                if job.name != "swift-testing":
                    timings[job.name] = round(elapsed, 1)
                    tests += count
                    skipped += skips
                    test_seconds += elapsed
                else:
                    m = re.search(r"Test run with (\d+) tests?", output)
                    count = int(m.group(1)) if m else 0
                if status != 0 or (job.name != "swift-testing" and not counts):
                    why = "timed out" if status == "timeout" else f"exit status {status}"
                    failed.append(job.name)
                    sys.stdout.write(f"\n==== {job.name} FAILED ({why}, {elapsed:.1f} s):\n{output}\n")
                else:
                    skipped_note = f", {skips} skipped" if skips else ""
                    sys.stdout.write(f"  ok {elapsed:6.1f} s  {job.name} ({count} tests{skipped_note})\n")
                sys.stdout.flush()
                job.log.close()
                os.unlink(job.log.name)
    except KeyboardInterrupt:
        for job in running:
            job.kill()
        raise
    finally:
        if not os.listdir(log_dir):
            os.rmdir(log_dir)

    if args.timings and not args.patterns:
        os.makedirs(os.path.dirname(os.path.abspath(args.timings)), exist_ok=True)
        with open(args.timings, "w") as f:
            json.dump(timings, f, indent=0, sort_keys=True)
    wall = time.monotonic() - started
    slowest = ", ".join(f"{n} {timings[n]:.0f} s" for n in sorted(names, key=lambda n: -timings.get(n, 0))[:5])
    again = sum(1 for n in names if n.endswith("@postgresql"))
    print(f"XCTest: {tests} tests ({skipped} skipped) in {len(selected)} classes (and {again} again on PostgreSQL), "
          f"{len(failed)} failed, {wall:.0f} s "
          f"({test_seconds:.0f} s of classes, {args.jobs} at once); slowest: {slowest}")
    if failed:
        print("failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
