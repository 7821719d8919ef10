#!/usr/bin/env python3
"""Runs the browser tests: python3 Tests/web/run.py [PATTERN] [--out DIR]

Each Tests/web/test_*.py is independent: it gets its own world (harness.World: a fresh library
and `feedctl serve`, a feed server, a headless PulseAudio, Chromium) and its test_* functions run
in the order written, each given that world (`WORLD = None`: none, for checks of the files alone); after a failure the file's later tests are skipped
(they build on it) and said so. PATTERN keeps the files or tests whose name contains it.
Screenshots and axe reports go to DIR (default: a new temp directory, printed). Exit status 0
when every test ran and passed. The Python packages come from scripts/install-deps.sh (a venv
in the per-machine cache, used when the running Python lacks them)."""
import argparse
import importlib.util
import inspect
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent


def ensure_packages():
    try:
        import selenium  # noqa: F401
        import axe_selenium_python  # noqa: F401
        import oidc_provider_mock  # noqa: F401  (test_oidc's provider)
        return
    except ImportError:
        pass
    cache = Path(os.environ.get('XDG_CACHE_HOME') or Path.home() / '.cache') / 'feedctl/web-venv'
    python = cache / 'bin/python'
    if python.exists() and Path(sys.executable) != python:
        os.execv(str(python), [str(python), *sys.argv])
    sys.exit('web tests: selenium, axe-selenium-python or oidc-provider-mock is missing: run scripts/install-deps.sh')


def main():
    parser = argparse.ArgumentParser(description='feedctl browser tests')
    parser.add_argument('pattern', nargs='?', default='')
    parser.add_argument('--out', help='where screenshots and reports go')
    args = parser.parse_args()
    ensure_packages()
    sys.path.insert(0, str(HERE))
    import harness
    out = Path(args.out or tempfile.mkdtemp(prefix='feedctl-web-'))
    out.mkdir(parents=True, exist_ok=True)
    print(f'web tests: output in {out}', flush=True)
    failed, passed, skipped = [], 0, 0
    started = time.monotonic()
    for path in sorted(HERE.glob('test_*.py')):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        tests = [(name, fn) for name, fn in vars(module).items() if name.startswith('test_') and inspect.isfunction(fn)]
        tests.sort(key=lambda t: t[1].__code__.co_firstlineno)
        if args.pattern and args.pattern not in path.stem:
            tests = [t for t in tests if args.pattern in t[0]]
        if not tests:
            continue
        world = None
        broken = None
        try:
            settings = getattr(module, 'WORLD', {})
            world = None if settings is None else harness.World(out / path.stem, **settings)
            if hasattr(module, 'setup'):
                module.setup(world)
        except Exception:
            broken = traceback.format_exc()
        for name, fn in tests:
            label = f'{path.stem}.{name}'
            if broken:
                print(f'SKIP {label} (an earlier step failed)', flush=True)
                skipped += 1
                continue
            t0 = time.monotonic()
            try:
                fn(world)
                passed += 1
                print(f'ok   {label} ({time.monotonic() - t0:.1f} s)', flush=True)
            except Exception:
                broken = traceback.format_exc()
                failed.append(label)
                print(f'FAIL {label} ({time.monotonic() - t0:.1f} s)\n{broken}', flush=True)
                if world:
                    world.dump_logs(label)
        if broken and not failed:
            print(f'FAIL {path.stem}: its world did not start\n{broken}', flush=True)
            failed.append(path.stem)
        if world:
            world.close()
    print(f'web tests: {passed} passed, {len(failed)} failed, {skipped} skipped in {time.monotonic() - started:.0f} s; output in {out}')
    if failed:
        print('failed: ' + ', '.join(failed))
    return 1 if failed or skipped else 0


if __name__ == '__main__':
    sys.exit(main())
