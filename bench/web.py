#!/usr/bin/env python3
"""bench/web: the web app in headless Chromium on bench/modes' 1,000,000-item library, on loopback.

Not a test (nothing here asserts a time). Prints, next to each target of issue 27:
- first feed page painted: navigation start → the first rows of the feed on screen, a fresh
  browser profile (median of RUNS), and the floor on the same machine in the same run: the same
  browser navigating to the feed's first page as bare JSON (`/api/feed?per_page=50`: the server's
  answer with no app at all); the ratio app / floor;
- bytes transferred on the first load, everything included (the shell, every asset, the API
  answers, compressed as sent), and on a second load in the same profile;
- after scrolling through 10,000 items: the rows in the DOM and the JS heap (after a GC).
Usage: bench/web [RUNS]   (FEEDCTL_BIN_DIR=DIR uses the programs there instead of building;
FEEDCTL_WEB_ROOT=DIR serves that web/ instead of this checkout's)
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'Tests/web'))
import harness  # noqa: E402  the browser tests' Chromium and helpers

TARGETS = {'paint_ms': 500, 'first_kb': 150, 'rows': 300, 'heap_mb': 50}
SCROLLED = 10_000

# Set before any script of the page runs: when the first feed row is added, the time of the next
# frame (what was painted) is kept. The resource timing buffer (250 entries by default: every
# artwork request is one) is made large enough to hold every feed page the scroll asks for, which
# is how the items loaded are counted (with 250, the count stopped at whatever page filled it).
PAINT_PROBE = """
performance.setResourceTimingBufferSize(1000000);
window.__firstRows = null;
new MutationObserver((_, observer) => {
  if (document.querySelector('.row')) {
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => { window.__firstRows = performance.now(); }, 0));
  }
}).observe(document, {childList: true, subtree: true});
"""


def programs():
    given = os.environ.get('FEEDCTL_BIN_DIR')
    if given:
        return Path(given)
    subprocess.run(['swift', 'build', '-c', 'release', '--product', 'feedctl-serve'], cwd=ROOT, check=True)
    return ROOT / '.build/release'


def library():
    db = ROOT / 'bench/out/modes-1m.sqlite'
    if not (ROOT / 'bench/out/modes-1m.sqlite.done').exists():
        subprocess.run(['sh', str(ROOT / 'bench/modes')], check=True, stdout=subprocess.DEVNULL)
    return db


def transferred(driver):
    """Bytes over the network for this page: the document and every resource (0 when cached)."""
    return driver.execute_script(
        "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
        ".reduce((sum, e) => sum + (e.transferSize || 0), 0)")


def fresh_browser():
    driver = harness.browser()
    driver.execute_cdp_cmd('Page.addScriptToEvaluateOnNewDocument', {'source': PAINT_PROBE})
    return driver


def first_paint(base):
    """A fresh profile: (ms to the first rows painted, bytes of the first load, of a second load)."""
    driver = fresh_browser()
    try:
        driver.get(base + '/feed')
        painted = harness.wait_for('the first rows painted', lambda: driver.execute_script('return window.__firstRows'), timeout=60)
        time.sleep(1)   # let the page finish what it loads after painting (counted in the bytes)
        first = transferred(driver)
        driver.get(base + '/feed')
        harness.wait_for('the first rows again', lambda: driver.execute_script('return window.__firstRows'), timeout=60)
        time.sleep(1)
        return painted, first, transferred(driver)
    finally:
        driver.quit()


def floor(base):
    """The same browser loading the feed's first page as bare JSON: ms to its responseEnd."""
    driver = harness.browser()
    try:
        driver.get(base + '/api/feed?per_page=50')
        return driver.execute_script("return performance.getEntriesByType('navigation')[0].responseEnd")
    finally:
        driver.quit()


def scrolled(base):
    """Rows in the DOM (most seen, and at the end) and the JS heap after scrolling SCROLLED items."""
    driver = fresh_browser()
    try:
        driver.get(base + '/feed')
        harness.wait_for('the first rows', lambda: driver.execute_script('return window.__firstRows'), timeout=60)
        started = time.monotonic()
        most, seen, deadline = 0, 0, started + 600
        while time.monotonic() < deadline:
            state = driver.execute_script(
                'window.scrollTo(0, document.documentElement.scrollHeight);'
                # Items loaded: the feed pages the app asked for (page × per_page of the last).
                'const pages = performance.getEntriesByType("resource").map(e => new URL(e.name))'
                '  .filter(u => u.pathname === "/api/feed" && !u.searchParams.get("search"))'
                '  .map(u => (+u.searchParams.get("page") || 1) * (+u.searchParams.get("per_page") || 20));'
                'return {rows: document.querySelectorAll(".row").length, loaded: Math.max(0, ...pages)}')
            most = max(most, state['rows'])
            seen = max(seen, state['loaded'])
            if seen >= SCROLLED:
                break
            time.sleep(0.02)
        driver.execute_cdp_cmd('HeapProfiler.collectGarbage', {})
        heap = driver.execute_cdp_cmd('Runtime.getHeapUsage', {})['usedSize']
        rows = driver.execute_script('return document.querySelectorAll(".row").length')
        return seen, most, rows, heap, time.monotonic() - started
    finally:
        driver.quit()


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    bin_dir, db = programs(), library()
    work = Path(tempfile.mkdtemp(prefix='feedctl-bench-web-'))
    copy = work / 'library.sqlite'
    shutil.copyfile(db, copy)   # the server may write (sessions, claims): never to the cached library
    port = harness.free_port()
    base = f'http://127.0.0.1:{port}'
    env = dict(os.environ, HOME=str(work), XDG_RUNTIME_DIR=str(work))
    server = subprocess.Popen([str(bin_dir / 'feedctl-serve'), '--db', str(copy), '--open', '--listen', f'127.0.0.1:{port}',
                               '--socket', str(work / 'player.sock'), '--web-root', os.environ.get('FEEDCTL_WEB_ROOT', str(ROOT / 'web'))], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        harness.wait_for('feedctl serve', lambda: subprocess.run(['curl', '-sf', base + '/health'], capture_output=True).returncode == 0,
                         timeout=60)
        total = json.loads(subprocess.run(['curl', '-s', base + '/api/feed?per_page=1'], capture_output=True, text=True).stdout)['total']
        print(f'bench/web: {total:,} items in the feed ({db.name}), {runs} runs, Chromium headless on 127.0.0.1')
        paints, firsts, seconds, floors = [], [], [], []
        for _ in range(runs):
            painted, first, second = first_paint(base)
            paints.append(painted); firsts.append(first); seconds.append(second)
            floors.append(floor(base))
        paint, bare = statistics.median(paints), statistics.median(floors)
        print(f'first feed page painted: median {paint:.0f} ms (runs {", ".join(f"{p:.0f}" for p in paints)}); '
              f'target ≤ {TARGETS["paint_ms"]} ms: {"met" if paint <= TARGETS["paint_ms"] else "MISSED"}')
        print(f'  floor, the first page as bare JSON: median {bare:.0f} ms; app / floor = {paint / bare:.1f}×')
        first_kb = statistics.median(firsts) / 1000
        print(f'bytes on the first load: {first_kb:.1f} KB; target ≤ {TARGETS["first_kb"]} KB: '
              f'{"met" if first_kb <= TARGETS["first_kb"] else "MISSED"}; second load {statistics.median(seconds) / 1000:.1f} KB')
        seen, most, rows, heap, took = scrolled(base)
        heap_mb = heap / 1e6
        print(f'scrolled through {seen:,} items in {took:.1f} s: at most {most} rows in the DOM, {rows} at the end '
              f'(target ≤ {TARGETS["rows"]}: {"met" if most <= TARGETS["rows"] else "MISSED"}); JS heap after GC {heap_mb:.1f} MB '
              f'(target ≤ {TARGETS["heap_mb"]} MB: {"met" if heap_mb <= TARGETS["heap_mb"] else "MISSED"})')
        if seen < SCROLLED:
            print(f'  (only {seen:,} items were reached within 10 minutes of scrolling)')
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
