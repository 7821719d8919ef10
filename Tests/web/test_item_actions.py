"""Each row's actions, checked on the server: mark watched and unwatched, save, add to a
collection (made from the dialog), add to the queue; the queue on the full player: reorder,
remove, play."""
from harness import PASSWORD, check, make_tone, rss, wait_for

TITLES = ['Alpha episode', 'Bravo episode', 'Charlie episode']


def setup(w):
    make_tone(w.files.directory / 'tone.mp3', 440, 30)
    items = [{'guid': f'a-{n}', 'title': t, 'enclosure': f'{w.files.base}/tone.mp3', 'duration': '30'} for n, t in enumerate(TITLES)]
    w.server.subscribe(w.files.write('actions.xml', rss('Actions Show', items)))
    w.page.login(w.server.user, PASSWORD)
    w.ids = {i['title']: i['id'] for i in w.server.api('GET', '/api/feed')['items']}


def row(w, title):
    return f'.row[data-item-id="{w.ids[title]}"]'


def test_mark_watched_and_unwatched(w):
    p = w.page
    p.go('/feed')
    p.press('Mark watched', within=row(w, 'Alpha episode'))
    wait_for('watched on the server', lambda: w.server.api('GET', f'/api/feed/items/{w.ids["Alpha episode"]}')['is_watched'])
    p.press('Mark unwatched', within=row(w, 'Alpha episode'))
    wait_for('unwatched on the server', lambda: not w.server.api('GET', f'/api/feed/items/{w.ids["Alpha episode"]}')['is_watched'])


def test_save_and_add_to_a_collection(w):
    p = w.page
    p.press('Save', within=row(w, 'Bravo episode'))
    saved = wait_for('the saved video', lambda: w.server.api('GET', '/api/saved-videos')['items'])
    check([s.get('title') for s in saved] == ['Bravo episode'], f'the item saved is the one asked for: {saved}')
    p.press('Add to collection', within=row(w, 'Bravo episode'))
    p.find('dialog input[name="name"]').send_keys('Road trip')
    p.screenshots('add-to-collection')
    p.axe('add-to-collection')
    p.press('Add', within='dialog')
    collections = wait_for('the collection', lambda: [c for c in w.server.api('GET', '/api/collections')['items'] if c['name'] == 'Road trip'])
    items = wait_for('its item', lambda: w.server.api('GET', f'/api/collections/{collections[0]["id"]}')['items'])
    check([i.get('title') for i in items] == ['Bravo episode'], f'the collection holds the item: {items}')


def test_the_queue_reorders_removes_and_plays(w):
    p = w.page
    for title in TITLES:
        p.press('Add to queue', within=row(w, title))
    p.go('/player')   # a reload: the queue is kept in this browser
    queue = lambda: [li.text for li in p.all('.queue li')]
    wait_for('three queued', lambda: len(queue()) == 3)
    check([q.split('\n')[0] for q in queue()] == TITLES, f'in the order added: {queue()}')
    p.press('Move Charlie episode up')
    wait_for('Charlie moved up', lambda: [q.split('\n')[0] for q in queue()] == ['Alpha episode', 'Charlie episode', 'Bravo episode'])
    p.press('Remove Alpha episode from the queue')
    wait_for('Alpha removed', lambda: [q.split('\n')[0] for q in queue()] == ['Charlie episode', 'Bravo episode'])
    p.screenshots('player-queue')
    p.press('Next')
    wait_for('the next one playing', lambda: 'Charlie episode' in p.find('.player-full h1').text)
    wait_for('the queue moved on', lambda: [q.split('\n')[0] for q in queue()] == ['Bravo episode'])
    p.press('Pause', within='.transport')


def test_search_modes_and_filters(w):
    from selenium.webdriver.support.ui import Select
    p = w.page
    p.go('/feed')
    titles = lambda: sorted(r.text.split('\n')[0] for r in p.all('.row'))
    wait_for('every row', lambda: titles() == sorted(TITLES))
    p.find('#feed-search').send_keys('charl')
    wait_for('the search result', lambda: titles() == ['Charlie episode'] and 'q=charl' in p.d.current_url)
    check(not p.find('#feed-duration').is_enabled(), 'a search takes no length')
    p.find('#feed-search').clear()
    p.js('document.getElementById("feed-search").dispatchEvent(new Event("input"))')
    wait_for('the feed again', lambda: titles() == sorted(TITLES))
    # Charlie was played (the queue test): not in Quick Watch? It is unwatched and 30 s long: in.
    p.press('Mark watched', within=row(w, 'Alpha episode'))
    p.find('#feed-unwatched').click()
    wait_for('unwatched only', lambda: 'Alpha episode' not in titles() and len(titles()) == 2)
    p.find('#feed-unwatched').click()
    Select(p.find('#feed-duration')).select_by_value('long')
    wait_for('nothing over 30 minutes', lambda: titles() == [] and 'Nothing here' in p.find('.list-status').text)
    Select(p.find('#feed-duration')).select_by_value('')
    Select(p.find('#feed-platform')).select_by_value('youtube')
    wait_for('no YouTube items', lambda: titles() == [])
    Select(p.find('#feed-platform')).select_by_value('podcast')
    wait_for('the podcast items', lambda: len(titles()) == 3)
    p.press('Quick Watch')
    wait_for('Quick Watch: the unwatched short ones', lambda: 'Alpha episode' not in titles() and len(titles()) == 2 and 'mode=quick_watch' in p.d.current_url)
    p.press('Catch Up')
    wait_for('Catch Up', lambda: 'mode=catch_up' in p.d.current_url and p.find('.list-status').text != 'Loading…')
    check(not p.find('#feed-duration').is_enabled(), 'Catch Up chooses its own lengths')
    p.go(p.d.current_url.replace(w.server.base, ''))
    wait_for('the choices kept in the address', lambda: p.find('button.chip[aria-pressed="true"]').text == 'Catch Up')
    p.screenshots('feed-catch-up')
