"""The web app's files alone (no browser): feed content can reach the page as markup in one place
only (the server-sanitized show notes), nothing is evaluated from strings, the shell has no
inline script or style (the CSP refuses them), nothing is loaded from another origin, and every
module a module imports exists."""
import re
from pathlib import Path

from harness import ROOT, check

WORLD = None
WEB = ROOT / 'web'
SOURCES = sorted(p for p in WEB.rglob('*') if p.suffix in ('.js', '.css', '.html', '.webmanifest'))


def test_markup_enters_the_page_only_as_the_sanitized_notes(w):
    sinks = re.compile(r'\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(|setTimeout\(\s*[\'"`]')
    found = [(p.relative_to(ROOT), n, line.strip()) for p in SOURCES if p.suffix == '.js'
             for n, line in enumerate(p.read_text().splitlines(), 1) if sinks.search(line)]
    allowed = [(Path('web/app/screens/item.js'), 'box.innerHTML = item.description_html;')]
    extra = [f for f in found if not any(f[0] == path and f[2].startswith(text) for path, text in allowed)]
    check(not extra, f'markup or code from strings: {extra}')
    check(len(found) == 1, f'the notes are the one place: {found}')


def test_the_shell_has_no_inline_script_or_style(w):
    html = (WEB / 'index.html').read_text()
    check(not re.search(r'<script(?![^>]*\bsrc=)', html), 'an inline <script>')
    check('<style' not in html and ' style=' not in html and re.search(r'\son[a-z]+=', html) is None, 'inline style or handler')
    check('%ASSETS%/app/app.js' in html, 'the shell names its assets with %ASSETS%')


def test_nothing_comes_from_another_origin(w):
    remote = re.compile(r'''(?:src|href|import|from|url\()\s*=?\s*['"(]?\s*(?:https?:)?//''')
    found = [(p.relative_to(ROOT), line.strip()) for p in SOURCES for line in p.read_text().splitlines() if remote.search(line)]
    check(not found, f'loaded from elsewhere: {found}')


def test_every_import_exists(w):
    imports = re.compile(r'''(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]''')
    missing = []
    for p in SOURCES:
        if p.suffix != '.js':
            continue
        for match in imports.finditer(p.read_text()):
            target = match.group(1) or match.group(2)
            if not (p.parent / target).resolve().is_file():
                missing.append(f'{p.relative_to(ROOT)}: {target}')
    check(not missing, f'imports of missing files: {missing}')
    for name in ['feed', 'item', 'login', 'player', 'discover', 'saved', 'collections', 'history', 'channels', 'settings']:
        check((WEB / f'app/screens/{name}.js').is_file(), f'the screen module {name}.js')
