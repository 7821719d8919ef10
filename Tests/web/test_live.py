"""Live across devices (issue 27): two browsers signed in as the same user, each on its feed,
see each other's watched mark without a reload, and a mark made by the CLI (another process on
the library) reaches both; a save made in one browser, and a collection and a subscription made
on another device, show on the other browser's Saved, Collections and Channels screens without a
reload. Through the per-user event stream, `GET /api/events` (its isolation between users:
APIServerTests.EventStreamTests)."""
import time

from harness import PASSWORD, Page, browser, check, rss, wait_for

TITLES = ['Live one', 'Live two']


def setup(w):
    items = [{'guid': f'l-{n}', 'title': t, 'enclosure': f'{w.files.base}/l{n}.mp3', 'duration': '60'} for n, t in enumerate(TITLES)]
    w.server.subscribe(w.files.write('live.xml', rss('Live Show', items)))
    w.ids = {i['title']: i['id'] for i in w.server.api('GET', '/api/feed')['items']}
    w.second_url = w.files.write('second.xml', rss('Second Show', [{'guid': 's-0', 'title': 'Elsewhere', 'enclosure': f'{w.files.base}/s0.mp3'}]))
    w.page.login(w.server.user, PASSWORD)
    w.other = Page(browser(w.pulse.env), w.server.base, w.out)   # a second device, its own cookies
    w.other.login(w.server.user, PASSWORD)


def watched_in(page, title, w):
    rows = page.all(f'.row[data-item-id="{w.ids[title]}"]')
    return bool(rows) and 'watched' in rows[0].get_attribute('class').split()


def test_a_watched_mark_in_one_browser_shows_in_the_other(w):
    try:
        for page in (w.page, w.other):
            page.go('/feed')
            wait_for('the feed', lambda: len(page.all('.row')) == len(TITLES))
        check(not watched_in(w.other, 'Live one', w), 'not watched before')
        w.page.press('Mark watched', within=f'.row[data-item-id="{w.ids["Live one"]}"]')
        wait_for('the mark in the other browser, without a reload', lambda: watched_in(w.other, 'Live one', w), timeout=10)

        # Another process on the library: the CLI.
        w.server.cli('watched', str(w.ids['Live two']))
        for page in (w.page, w.other):
            wait_for("the CLI's mark in both browsers", lambda: watched_in(page, 'Live two', w), timeout=10)
    finally:
        w.other.d.quit()


def test_saves_collections_and_subscriptions_made_elsewhere_show_without_a_reload(w):
    other = Page(browser(w.pulse.env), w.server.base, w.out)
    try:
        other.login(w.server.user, PASSWORD)
        main = lambda: other.find('main').text
        other.go('/saved')
        wait_for('the Saved screen', lambda: 'Saved' in main())
        w.page.go('/feed')
        w.page.press('Save', within=f'.row[data-item-id="{w.ids["Live one"]}"]')
        wait_for('the save in the other browser', lambda: 'Live one' in main(), timeout=10)

        other.go('/collections')
        wait_for('the Collections screen', lambda: other.all('input[name="name"]'))
        w.server.api('POST', '/api/collections', {'name': 'Made elsewhere'})
        wait_for('the new collection in the other browser', lambda: 'Made elsewhere' in main(), timeout=10)

        other.go('/channels')
        wait_for('the Channels screen', lambda: 'Live Show' in main())
        w.server.subscribe(w.second_url)
        wait_for('the new subscription in the other browser', lambda: 'Second Show' in main(), timeout=10)
    finally:
        other.d.quit()


def open_stream(w):
    """One `GET /api/events` stream of the user, held open; (status, connection)."""
    import http.client
    connection = http.client.HTTPConnection('127.0.0.1', w.server.port, timeout=10)
    connection.request('GET', '/api/events', headers={'Authorization': f'Bearer {w.server.token}', 'Accept': 'text/event-stream'})
    return connection.getresponse().status, connection


def test_a_page_refused_a_stream_says_so_and_catches_up_when_one_is_free(w):
    p = w.page
    p.go('/settings')
    p.d.get('about:blank')   # the page's own stream closed (pagehide)
    held = []

    def fill():
        """The user's streams, up to the cap: the next is refused; its status."""
        for _ in range(40):
            status, connection = open_stream(w)
            if status != 200:
                connection.close()
                return status
            held.append(connection)
        return None
    try:
        check(fill() == 429, f'the cap answered 429 after {len(held)} streams')
        # Streams of pages gone (the tests above) count until the server notices, at its next
        # keepalive (15 s): then their places are taken too.
        time.sleep(16)
        check(fill() == 429, f'the cap answered 429 again, {len(held)} streams held')
        p.go('/feed')
        wait_for('the feed', lambda: p.all(f'.row[data-item-id="{w.ids["Live two"]}"]'))
        wait_for('the page says live updates stopped', lambda: 'Live updates paused' in p.find('#toasts').text, timeout=5)
    finally:
        for connection in held:
            connection.close()
    w.server.cli('watched', '--undo', str(w.ids['Live two']))   # a change while the page has no stream
    wait_for('the change shown once the page has a stream again', lambda: not watched_in(p, 'Live two', w), timeout=45, interval=0.5)
