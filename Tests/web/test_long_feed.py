"""10,000 items: scrolling the feed to its end keeps a bounded number of rows in the page (the
list is virtual), and the last item is reached."""
import time

from harness import PASSWORD, check, rss, wait_for

COUNT = 10_000
MAX_ROWS = 300


def setup(w):
    items = [{'guid': f'n-{n}', 'title': f'Episode number {n}', 'enclosure': f'{w.files.base}/e{n}.mp3', 'duration': '600'}
             for n in range(COUNT)]
    w.server.subscribe(w.files.write('long.xml', rss('Long Show', items)))
    total = w.server.api('GET', '/api/feed?per_page=1')['total']
    check(total == COUNT, f'the library holds {COUNT} items, not {total}')
    w.page.login(w.server.user, PASSWORD)


def test_scrolling_ten_thousand_items_keeps_the_rows_bounded(w):
    p = w.page
    p.d.set_window_size(1280, 800)
    p.go('/feed')
    wait_for('the first rows', lambda: len(p.all('.row')) > 5)
    most = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        state = p.js('window.scrollTo(0, document.documentElement.scrollHeight);'
                     'return {rows: document.querySelectorAll(".row").length, text: document.getElementById("main").innerText.slice(-4000)}')
        most = max(most, state['rows'])
        if f'Episode number {COUNT - 1}' in state['text']:
            break
        time.sleep(0.05)
    check(f'Episode number {COUNT - 1}' in p.find('main').text, 'the last item was reached')
    rows = len(p.all('.row'))
    check(most <= MAX_ROWS and rows <= MAX_ROWS, f'rows in the page stayed bounded: at most {most}, now {rows}')
    heap = p.js('return performance.memory ? performance.memory.usedJSHeapSize : null')
    print(f'    {COUNT} items scrolled: at most {most} rows in the page, JS heap {heap and heap // 1_000_000} MB')
    p.js('window.scrollTo(0, 0)')
    wait_for('the first item again', lambda: 'Episode number 0' in p.find('main').text)
