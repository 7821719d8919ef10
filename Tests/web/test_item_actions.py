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
    p.button('Mark watched', within=row(w, 'Alpha episode')).click()
    wait_for('watched on the server', lambda: w.server.api('GET', f'/api/feed/items/{w.ids["Alpha episode"]}')['is_watched'])
    p.button('Mark unwatched', within=row(w, 'Alpha episode')).click()
    wait_for('unwatched on the server', lambda: not w.server.api('GET', f'/api/feed/items/{w.ids["Alpha episode"]}')['is_watched'])


def test_save_and_add_to_a_collection(w):
    p = w.page
    p.button('Save', within=row(w, 'Bravo episode')).click()
    saved = wait_for('the saved video', lambda: [s for s in w.server.api('GET', '/api/saved-videos')['items'] if s.get('title') == 'Bravo episode'] or (False, w.server.api('GET', '/api/saved-videos')))
    check(isinstance(saved, list), f'saved: {saved}')
    p.button('Add to collection', within=row(w, 'Bravo episode')).click()
    p.find('dialog input[name="name"]').send_keys('Road trip')
    p.screenshots('add-to-collection')
    p.axe('add-to-collection')
    p.button('Add', within='dialog').click()
    collections = wait_for('the collection', lambda: [c for c in w.server.api('GET', '/api/collections')['items'] if c['name'] == 'Road trip'])
    items = w.server.api('GET', f'/api/collections/{collections[0]["id"]}')['items']
    check([i.get('title') for i in items] == ['Bravo episode'], f'the collection holds the item: {items}')


def test_the_queue_reorders_removes_and_plays(w):
    p = w.page
    for title in TITLES:
        p.button('Add to queue', within=row(w, title)).click()
    p.go('/player')   # a reload: the queue is kept in this browser
    queue = lambda: [li.text for li in p.all('.queue li')]
    wait_for('three queued', lambda: len(queue()) == 3)
    check([q.split('\n')[0] for q in queue()] == TITLES, f'in the order added: {queue()}')
    p.button('Move Charlie episode up').click()
    wait_for('Charlie moved up', lambda: [q.split('\n')[0] for q in queue()] == ['Alpha episode', 'Charlie episode', 'Bravo episode'])
    p.button('Remove Alpha episode from the queue').click()
    wait_for('Alpha removed', lambda: [q.split('\n')[0] for q in queue()] == ['Charlie episode', 'Bravo episode'])
    p.screenshots('player-queue')
    p.button('Next').click()
    wait_for('the next one playing', lambda: 'Charlie episode' in p.find('.player-full h1').text)
    wait_for('the queue moved on', lambda: [q.split('\n')[0] for q in queue()] == ['Bravo episode'])
    p.button('Pause', within='.transport').click()
