"""Many pages of the app in one browser (web/app/stream.js). Over HTTP/1.1 Chromium opens at most
six connections to one server, and each event stream holds one while its page is open: with a
stream per page, the seventh page's requests waited for ever. The pages share one stream: eight
tabs of one browser each load their feed, each shows a mark made elsewhere (the CLI) without a
reload, and when the page holding the stream is closed another takes it over and the rest still
hear the next change."""
from harness import PASSWORD, check, rss, wait_for

TITLES = ['Tab one', 'Tab two', 'Tab three']
TABS = 8


def setup(w):
    items = [{'guid': f't-{n}', 'title': t, 'enclosure': f'{w.files.base}/t{n}.mp3', 'duration': '60'} for n, t in enumerate(TITLES)]
    w.server.subscribe(w.files.write('tabs.xml', rss('Tab Show', items)))
    w.ids = {i['title']: i['id'] for i in w.server.api('GET', '/api/feed')['items']}
    w.page.login(w.server.user, PASSWORD)


def watched_in(page, title, w):
    rows = page.all(f'.row[data-item-id="{w.ids[title]}"]')
    return bool(rows) and 'watched' in rows[0].get_attribute('class').split()


def in_every_tab(w, tabs, what, predicate, timeout=15):
    for n, handle in enumerate(tabs):
        w.page.d.switch_to.window(handle)
        wait_for(f'{what} in tab {n + 1} of {len(tabs)}', lambda: predicate(w.page), timeout=timeout)


def test_eight_tabs_load_and_hear_changes_through_one_stream(w):
    d = w.page.d
    w.page.go('/feed')
    tabs = [d.current_window_handle]
    for _ in range(TABS - 1):
        d.switch_to.new_window('tab')
        w.page.go('/feed')
        tabs.append(d.current_window_handle)
    # Each tab's screen loads: none waits behind the others' streams.
    in_every_tab(w, tabs, 'the feed', lambda page: len(page.all('.row')) == len(TITLES), timeout=20)
    # One stream: its lock held by one tab, the seven others waiting for it.
    name = f"feedctl-stream:events:{w.server.api('GET', '/api/auth/me')['user']['id']}"
    locks = wait_for('the tabs queued for the stream', lambda: (lambda l: l if len(l['pending']) == TABS - 1 else None)(w.page.stream_locks()))
    check(locks == {'held': [name], 'pending': [name] * (TABS - 1)}, f'one stream for {TABS} tabs: {locks}')

    w.server.cli('watched', str(w.ids['Tab one']))
    in_every_tab(w, tabs, "the CLI's mark, without a reload", lambda page: watched_in(page, 'Tab one', w))

    # The first tab opened holds the stream: closed, another takes it over.
    d.switch_to.window(tabs[0])
    d.close()
    tabs = tabs[1:]
    d.switch_to.window(tabs[0])
    wait_for('another tab holding the stream, the rest waiting',
             lambda: w.page.stream_locks() == {'held': [name], 'pending': [name] * (TABS - 2)})
    w.server.cli('watched', str(w.ids['Tab two']))
    in_every_tab(w, tabs, 'a mark made after the stream changed tabs', lambda page: watched_in(page, 'Tab two', w))

    # A reload of any tab still loads (its place in the queue is given up and asked again).
    d.switch_to.window(tabs[-1])
    d.refresh()
    wait_for('the reloaded feed', lambda: len(w.page.all('.row')) == len(TITLES), timeout=20)
    for handle in tabs[1:]:
        d.switch_to.window(handle)
        d.close()
    d.switch_to.window(tabs[0])
