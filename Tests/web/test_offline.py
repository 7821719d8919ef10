"""Offline (issue 27): the manifest and its icons; the app opens with no server and shows the
feed last seen, saying it is offline; a "mark watched" done offline reaches the server once it is
back (checked through the API), and one overtaken by a later change elsewhere yields to the
server; a downloaded episode plays with no server, and the position and a save made then are sent
once it is back. "No network" here is the real thing for the page and its service worker alike: the `feedctl serve` process is
stopped, then started again on the same port and library."""
import json
import subprocess
import time

from harness import PASSWORD, check, make_tone, rss, wait_for

TITLES = ['Offline tone one', 'Offline tone two', 'Offline tone three']
AUDIO_TIME = 'return document.getElementById("player-audio").currentTime'


def setup(w):
    make_tone(w.files.directory / 'tone.mp3', 440, 60)
    items = [{'guid': f'off-{n}', 'title': title, 'description': f'Notes for {title}.',
              'enclosure': f'{w.files.base}/tone.mp3', 'duration': '60'} for n, title in enumerate(TITLES)]
    w.server.subscribe(w.files.write('offline.xml', rss('Offline Radio', items)))
    w.items = {i['title']: i for i in w.server.api('GET', '/api/feed?per_page=50')['items']}
    check(set(TITLES) <= set(w.items), f'the feed has the three items: {list(w.items)}')


def stop_server(w):
    w.server.proc.terminate()
    w.server.proc.wait(timeout=10)
    check(w.server.raw('GET', '/health')[0] == 0, 'the server is down')


def start_server(w):
    """`feedctl serve` again, same port, same library (the browser's session stays valid)."""
    s = w.server
    s.log = open(s.directory / 'serve.log', 'a')
    s.proc = subprocess.Popen([str(s.bin / 'feedctl-serve'), '--db', str(s.db), '--listen', f'127.0.0.1:{s.port}',
                               '--allow-private-feeds', '--socket', str(s.directory / 'run/player.sock')],
                              env=s.env, stdout=s.log, stderr=subprocess.STDOUT)
    wait_for('feedctl serve to answer again', lambda: s.raw('GET', '/health')[0] == 200, timeout=30)


def controlled(p):
    """The page is controlled by the service worker (after its first activation)."""
    return wait_for('the service worker to control the page',
                    lambda: p.js('return !!(navigator.serviceWorker && navigator.serviceWorker.controller)'), timeout=20)


def test_the_manifest_is_valid_and_its_icons_load(w):
    p = w.page
    p.login(w.server.user, PASSWORD)
    manifest = p.d.execute_cdp_cmd('Page.getAppManifest', {})
    check(manifest.get('url', '').endswith('/manifest.webmanifest'), f'the page names the manifest: {manifest.get("url")}')
    check(not manifest.get('errors'), f'Chromium reads the manifest without errors: {manifest.get("errors")}')
    data = json.loads(manifest['data'])
    for key, want in [('name', 'feedctl'), ('display', 'standalone'), ('start_url', '/feed'), ('scope', '/')]:
        check(data.get(key) == want, f'manifest {key} is {want!r}: {data.get(key)!r}')
    check(data.get('theme_color') and data.get('background_color'), 'the manifest has theme colours')
    icons = data.get('icons') or []
    wanted = {('192x192', 'any'), ('512x512', 'any'), ('512x512', 'maskable')}
    check(wanted <= {(i['sizes'], i.get('purpose', 'any')) for i in icons}, f'icons 192, 512 and a maskable 512: {icons}')
    for icon in icons:
        size = int(icon['sizes'].split('x')[0])
        loaded = p.d.execute_async_script("""
            const [src, done] = arguments;
            fetch(src).then(async (r) => {
              const type = r.headers.get('Content-Type');
              const bitmap = await createImageBitmap(await r.blob());
              done({status: r.status, type, width: bitmap.width, height: bitmap.height});
            }).catch((e) => done({error: String(e)}));""", icon['src'])
        check(loaded.get('status') == 200 and loaded.get('type') == 'image/png' and loaded.get('width') == size == loaded.get('height'),
              f'{icon["src"]} loads as a {size}x{size} PNG: {loaded}')
    errors = p.d.execute_cdp_cmd('Page.getInstallabilityErrors', {}).get('installabilityErrors', [])
    # Headless Chromium can say nothing of its own window; every other reason is a failure.
    errors = [e for e in errors if e.get('errorId') not in ('in-incognito',)]
    check(not errors, f'Chromium finds the app installable: {errors}')


def test_the_app_opens_offline_with_the_last_feed(w):
    p = w.page
    p.go('/feed')
    controlled(p)
    p.go('/feed')   # this load's answers go through the service worker and are kept
    wait_for('the feed', lambda: all(t in p.find('main').text for t in TITLES))
    first = w.items[TITLES[0]]['id']
    p.go(f'/item/{first}')
    wait_for('the item page', lambda: TITLES[0] in p.find('main h1').text)
    stop_server(w)
    p.go('/feed')
    wait_for('the last feed, with no server', lambda: all(t in p.find('main').text for t in TITLES), timeout=20)
    banner = wait_for('the offline banner', lambda: (lambda b: b if b.is_displayed() else None)(p.find('#offline-banner')))
    check('Offline' in banner.text, f'the page says it is offline: {banner.text!r}')
    p.go(f'/item/{first}')
    wait_for('the item page last seen, with no server', lambda: TITLES[0] in p.find('main h1').text, timeout=20)
    # A screen never opened: its modules were cached with the build (followed from the shell).
    p.go('/channels')
    wait_for('the Channels screen, never opened, with no server', lambda: 'Channels' in p.find('main h1').text, timeout=20)
    check('did not load' not in p.find('main').text, f'its module came from the cache: {p.find("main").text!r}')
    p.go('/feed')
    wait_for('the feed again', lambda: all(t in p.find('main').text for t in TITLES), timeout=20)
    p.screenshots('offline-feed')


def test_an_action_taken_offline_reaches_the_server(w):
    p = w.page
    item = w.items[TITLES[1]]
    check(not item['is_watched'], 'not watched at first')
    row = f'.row[data-item-id="{item["id"]}"]'
    p.press('Mark watched', within=row)
    wait_for('the row marked watched while offline', lambda: p.find(f'{row} button[aria-pressed="true"]'))
    queued = w.items[TITLES[2]]
    p.press('Add to queue', within=f'.row[data-item-id="{queued["id"]}"]')
    kept = wait_for('both writes kept', lambda: (lambda k: k if len(k) == 2 else None)(p.d.execute_async_script("""
        const done = arguments[0];
        const open = indexedDB.open('feedctl-offline');
        open.onsuccess = () => { const all = open.result.transaction('outbox').objectStore('outbox').getAll();
          all.onsuccess = () => done(all.result.map((e) => e.method + ' ' + e.path)); };
        open.onerror = () => done(['error']);""")))
    check(kept == [f'PUT /api/feed/items/{item["id"]}/watched', 'POST /api/queue'], f'the writes are kept in IndexedDB: {kept}')
    start_server(w)
    # No reload: the kept writes go when the retry (with backoff) finds the server again.
    wait_for('the watched mark on the server', lambda: w.server.api('GET', f'/api/feed/items/{item["id"]}')['is_watched'], timeout=90, interval=1)
    wait_for('the queue add on the server', lambda: [e.get('item', {}).get('id') for e in w.server.api('GET', '/api/queue')['items']] == [queued['id']],
             timeout=30, interval=1)
    wait_for('the outbox to empty', lambda: p.d.execute_async_script("""
        const done = arguments[0];
        const open = indexedDB.open('feedctl-offline');
        open.onsuccess = () => { const c = open.result.transaction('outbox').objectStore('outbox').count();
          c.onsuccess = () => done(c.result === 0); };"""), timeout=20)
    p.go('/feed')
    wait_for('the banner gone once online', lambda: not p.find('#offline-banner').is_displayed(), timeout=20)


def outbox(p):
    """What the page keeps to send (IndexedDB `feedctl-offline`): 'METHOD path' each."""
    return p.d.execute_async_script("""
        const done = arguments[0];
        const open = indexedDB.open('feedctl-offline');
        open.onsuccess = () => { const all = open.result.transaction('outbox').objectStore('outbox').getAll();
          all.onsuccess = () => done(all.result.map((e) => e.method + ' ' + e.path)); };
        open.onerror = () => done(['error']);""")


def test_the_server_wins_over_an_action_taken_offline(w):
    """An item marked unwatched offline, then marked watched again elsewhere (the CLI, on the
    library) before the page reaches the server: the server's watched stands, and the row shows it."""
    p = w.page
    item = w.items[TITLES[1]]['id']   # watched on the server by the test above
    row = f'.row[data-item-id="{item}"]'
    p.go('/feed')
    p.find(f'{row} button[aria-pressed="true"]')
    stop_server(w)
    p.press('Mark unwatched', within=row)
    wait_for('the unwatched mark kept', lambda: outbox(p) == [f'PUT /api/feed/items/{item}/unwatched'])
    time.sleep(1.5)   # elsewhere, later
    w.server.cli('watched', '--undo', str(item))
    w.server.cli('watched', str(item))
    start_server(w)
    wait_for('the outbox to empty', lambda: outbox(p) == [], timeout=90, interval=1)
    check(w.server.api('GET', f'/api/feed/items/{item}')['is_watched'], 'the later watched mark stands on the server')
    wait_for('the row shows the server\'s state', lambda: p.all(f'{row} button[aria-pressed="true"]'), timeout=20)


def test_nothing_kept_for_one_user_shows_to_the_next(w):
    p = w.page
    p.go('/feed')
    wait_for('the owner\'s feed', lambda: all(t in p.find('main').text for t in TITLES))
    kept = lambda: p.d.execute_async_script('const d = arguments[0]; caches.keys().then(d)')
    check(any(name.startswith('feedctl-api-') for name in kept()), f'the owner\'s pages are kept: {kept()}')
    p.press(f'Sign out {w.server.user}')
    wait_for('the login page', lambda: '/login' in p.d.current_url)
    wait_for('the owner\'s kept pages gone at sign-out', lambda: not any(n.startswith('feedctl-api-') for n in kept()))
    p.login('alice', PASSWORD)
    wait_for('alice\'s (empty) feed', lambda: 'Nothing here yet' in p.find('main').text)
    stop_server(w)
    p.go('/feed')
    wait_for('alice\'s feed offline', lambda: 'Nothing here yet' in p.find('main').text, timeout=20)
    text = p.find('main').text
    check(not any(t in text for t in TITLES), f'alice sees nothing of the owner\'s: {text!r}')
    start_server(w)
    p.go('/feed')
    p.press('Sign out alice')
    wait_for('the login page', lambda: '/login' in p.d.current_url)
    p.login(w.server.user, PASSWORD)


def test_a_downloaded_episode_plays_offline(w):
    p = w.page
    item = w.items[TITLES[2]]
    code, _ = w.server.raw('HEAD', f'/api/items/{item["id"]}/audio', token=w.server.token)
    check(code != 404, 'GET /api/items/{id}/audio (the audio part) is served: the download keeps what it answers')
    p.go(f'/item/{item["id"]}')
    p.press('Download for offline')
    wait_for('the download to finish', lambda: p.button('Remove download', timeout=1), timeout=60)
    p.go('/downloads')
    entry = p.find(f'.download[data-item-id="{item["id"]}"]')
    size = (w.files.directory / 'tone.mp3').stat().st_size
    check(TITLES[2] in entry.text, f'the download is listed: {entry.text!r}')
    check('kB' in entry.text, f'with its size ({size} bytes): {entry.text!r}')
    p.screenshots('downloads')
    p.axe('downloads')
    stop_server(w)
    p.go('/downloads')
    p.press(f'Play {TITLES[2]}')
    wait_for('the downloaded episode to play with no server', lambda: p.js(AUDIO_TIME) > 2, timeout=30)
    p.press('Forward 15 seconds', within='#mini-player')   # a seek: a Range answered from the kept body
    wait_for('the seek to land', lambda: p.js(AUDIO_TIME) > 17, timeout=15)
    t = p.js(AUDIO_TIME)
    time.sleep(1.5)
    check(p.js(AUDIO_TIME) > t + 0.5, 'the audio advances after the seek')
    p.press('Pause', within='#mini-player')
    paused_at = int(p.js(AUDIO_TIME))
    # The position (saved on pause) and a Save, both done with no server: kept, then sent.
    p.go(f'/item/{item["id"]}')
    p.press('Save')
    kept = wait_for('the position and the save kept', lambda: (lambda k: k if len(k) == 2 else None)(outbox(p)))
    check(sorted(kept) == sorted([f'PATCH /api/feed/{item["id"]}/progress', 'POST /api/saved-videos']), f'kept: {kept}')
    start_server(w)
    wait_for('the offline position on the server', lambda: abs((w.server.api('GET', f'/api/feed/items/{item["id"]}')['watch_progress_seconds'] or 0) - paused_at) <= 1,
             timeout=90, interval=1)
    wait_for('the offline save on the server', lambda: TITLES[2] in [v.get('title') for v in w.server.api('GET', '/api/saved-videos')['items']],
             timeout=30, interval=1)
    p.go('/downloads')
    p.press(f'Remove the download of {TITLES[2]}')
    wait_for('the download removed', lambda: 'Nothing downloaded yet' in p.find('main').text)
