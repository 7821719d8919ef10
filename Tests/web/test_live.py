"""Live across devices (issue 27): two browsers signed in as the same user, each on its feed,
see each other's watched mark without a reload, and a mark made by the CLI (another process on
the library) reaches both. Through the per-user event stream, `GET /api/events` (its isolation
between users: APIServerTests.EventStreamTests)."""
from harness import PASSWORD, Page, browser, check, rss, wait_for

TITLES = ['Live one', 'Live two']


def setup(w):
    items = [{'guid': f'l-{n}', 'title': t, 'enclosure': f'{w.files.base}/l{n}.mp3', 'duration': '60'} for n, t in enumerate(TITLES)]
    w.server.subscribe(w.files.write('live.xml', rss('Live Show', items)))
    w.ids = {i['title']: i['id'] for i in w.server.api('GET', '/api/feed')['items']}
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
