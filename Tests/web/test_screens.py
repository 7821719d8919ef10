"""The Discover, Saved, Collections, History, Channels and Settings screens, each doing its main
job in the browser against the real `feedctl serve`, the API asked afterwards whether it
happened; axe finds no serious or critical violation on each, at phone and desktop width, and
each is photographed at both.

Discover's Apple Podcasts search is answered by a stand-in: a file in the iTunes Search API's
shape on a loopback file server (the real service cannot be reached from here). Its Rumble
search is pointed at a closed port, so one platform fails and the screen must say so.
"""
import json
import os
import tempfile
from pathlib import Path

from harness import PASSWORD, FileServer, check, make_tone, rss, wait_for

# The providers' addresses must be in the server's environment when it starts (World starts it
# before setup), so the stand-in is up at import; setup puts the environment back.
STAND_IN = FileServer(Path(tempfile.mkdtemp(prefix='feedctl-web-itunes-')))
(STAND_IN.directory / 'itunes').mkdir()
SAVED_ENV = {name: os.environ.get(name) for name in
             ['FEEDCTL_DISCOVER_ITUNES_URL', 'FEEDCTL_DISCOVER_RUMBLE_URL', 'FEEDCTL_DISCOVER_YTDLP']}
os.environ.update(FEEDCTL_DISCOVER_ITUNES_URL=f'{STAND_IN.base}/itunes',
                  FEEDCTL_DISCOVER_RUMBLE_URL='http://127.0.0.1:9/rumble',   # nothing listens on port 9
                  FEEDCTL_DISCOVER_YTDLP='/nonexistent/yt-dlp')

TITLES = ['Four tones', 'A minute of A', 'Hello']
OTHER, OTHER_PASSWORD = 'bob', 'bob password 12'


def itunes(results):
    (STAND_IN.directory / 'itunes/search').write_text(json.dumps({'resultCount': len(results), 'results': results}))


def setup(w):
    for name, value in SAVED_ENV.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    make_tone(w.files.directory / 'tone.mp3', 440, 4)
    w.tone_url = f'{w.files.base}/tone.mp3'
    w.feed_url = w.files.write('tones.xml', rss('Tone Radio', [
        {'guid': f'tone-{n}', 'title': title, 'enclosure': f'{w.tone_url}?tones={n}', 'duration': '4'} for n, title in enumerate(TITLES)]))
    w.server.cli('user', 'add', OTHER, '--password-stdin', input=OTHER_PASSWORD + '\n')
    w.page.login(w.server.user, PASSWORD)


def look(w, name):
    """axe at phone and desktop width, and a screenshot at each."""
    p = w.page
    for label, size in [('phone', (390, 844)), ('desktop', (1280, 800))]:
        p.d.set_window_size(*size)
        p.axe(f'{name}-{label}')
    p.screenshots(name)


def capture_downloads(p):
    """Keeps what the page offers as downloads (the name and the text of each) in window.downloads."""
    # The blob is read where it is made (the CSP's connect-src keeps fetch() off blob: URLs).
    p.js('window.downloads = []; const blobs = new Map(); const make = URL.createObjectURL;'
         'URL.createObjectURL = (blob) => { const url = make(blob); blobs.set(url, blob); return url; };'
         'HTMLAnchorElement.prototype.click = function () {'
         '  const blob = this.download && blobs.get(this.href);'
         '  if (blob) blob.text().then((text) => window.downloads.push({name: this.download, text}));'
         '};')


def downloaded(p, name):
    return wait_for(f'the download {name}', lambda: next((d['text'] for d in p.js('return window.downloads') if d['name'] == name), None))


def channel_named(w, name):
    return next((c for c in w.server.api('GET', '/api/channels')['items'] if c['name'] == name), None)


def items_of(w, channel_id):
    return w.server.api('GET', f'/api/feed?channel_ids={channel_id}')['items']


# Every item has its own media URL (a query on the one tone), as real feeds do: a saved video is
# found by its URL.

# --- Discover -----------------------------------------------------------------------------------

def test_discover_shows_each_platform_as_it_answers_and_subscribes(w):
    atom = w.files.write('blog.xml', rss('Atom Blog Audio', [{'guid': 'b1', 'title': 'A post read aloud', 'enclosure': f'{w.tone_url}?blog'}]))
    hostile = '<img src=x onerror="window.hacked=1">Tone <script>window.hacked=2</script>'
    itunes([{'wrapperType': 'track', 'kind': 'podcast', 'collectionId': 7, 'collectionName': 'Atom Blog Audio',
             'artistName': 'Example', 'feedUrl': atom, 'collectionViewUrl': 'https://podcasts.apple.com/us/podcast/id7'},
            {'wrapperType': 'track', 'kind': 'podcast', 'collectionId': 8, 'collectionName': hostile,
             'artistName': 'Example', 'feedUrl': 'https://feeds.example.org/hostile.xml', 'description': hostile}])
    p = w.page
    p.go('/discover')
    p.find('input[name="q"]').send_keys('blog')
    p.js('const s = document.querySelector("select[name=type]"); s.value = "channels";')
    p.press('Search')
    wait_for('every platform to answer', lambda: p.all('.platform') and not p.all('.platform.searching'))
    status = {e.get_attribute('data-platform'): e.text for e in p.all('.platform')}
    check('2 results in' in status.get('itunes', ''), f'Apple Podcasts says its count and time: {status}')
    check(hostile in p.find('.discover-results').text, 'a result\'s markup is shown as text')
    check(p.js('return window.hacked') is None and not p.all('.discover-results img[src="x"], .discover-results script'),
          'and nothing of it ran or became an element')
    check(' ms' in status.get('library', ''), f'the library says its time: {status}')
    check('failed' in status.get('rumble', ''), f'Rumble says it failed: {status}')
    check('search=' not in p.d.current_url and 'q=blog' in p.d.current_url, f'the search is in the URL: {p.d.current_url}')
    p.press('Subscribe to Atom Blog Audio')
    p.find('[aria-label="Subscribed to Atom Blog Audio"]')
    check(channel_named(w, 'Atom Blog Audio'), 'the API lists the channel subscribed from Discover')
    look(w, 'discover')


def test_discover_subscribes_and_plays_an_episode_the_library_lacks(w):
    walks = w.files.write('walks.xml', rss('Walks', [{'guid': 'walk-1', 'title': 'Night walk', 'enclosure': f'{w.tone_url}?walk'}]))
    itunes([{'wrapperType': 'podcastEpisode', 'kind': 'podcast-episode', 'trackId': 501, 'trackName': 'Night walk',
             'collectionId': 50, 'collectionName': 'Walks', 'feedUrl': walks, 'episodeUrl': f'{w.tone_url}?walk', 'trackTimeMillis': 4000}])
    p = w.page
    p.go('/discover?q=night%20walk')
    p.press('Subscribe to Walks and play Night walk')
    wait_for('the player to take the episode', lambda: p.find('.mini-title').text == 'Night walk')
    check(channel_named(w, 'Walks'), 'the channel was followed to play it')
    p.press('Pause')


def test_discover_saves_and_plays_a_library_result(w):
    channel = w.server.subscribe(w.feed_url)
    first = next(i for i in items_of(w, channel['id']) if i['title'] == 'Four tones')
    itunes([])
    p = w.page
    p.go('/discover?q=four%20tones')
    p.press('Save Four tones')
    p.find('[aria-label="Saved Four tones"]')
    saved = w.server.api('GET', '/api/saved-videos')['items']
    check(first['id'] in [s['item_id'] for s in saved], f'the item is saved: {saved}')
    p.press('Play Four tones')
    wait_for('the player to take the item', lambda: p.find('.mini-title').text == 'Four tones')
    p.press('Pause')


# --- Channels -----------------------------------------------------------------------------------

def test_channels_add_sync_pause_speed_and_items(w):
    url = w.files.write('numbers.xml', rss('Numbers Station', [{'guid': f'n{n}', 'title': f'Number {n}', 'enclosure': f'{w.tone_url}?number={n}'}
                                                               for n in range(3)]))
    p = w.page
    p.go('/channels')
    p.find('input[name="url"]').send_keys(url)
    p.press('Add channel')
    wait_for('the channel added', lambda: 'Added Numbers Station (3 items)' in p.find('.report').text)
    channel = channel_named(w, 'Numbers Station')
    card = f'[data-channel-id="{channel["id"]}"]'
    p.find(card)
    p.press('Sync Numbers Station now')
    wait_for('the sync result', lambda: 'Synced: nothing new' in p.find(f'{card} .sync-result').text)
    p.press('Pause Numbers Station')
    p.find('[aria-label="Resume Numbers Station"]')
    check(w.server.api('GET', f'/api/channels/{channel["id"]}')['is_active'] is False, 'paused through the API')
    p.js(f'const s = document.querySelector(\'{card} select[name=speed]\'); s.value = "1.5"; s.dispatchEvent(new Event("change"));')
    wait_for('the speed kept', lambda: w.server.api('GET', f'/api/channels/{channel["id"]}')['speed'] == 1.5)
    look(w, 'channels')

    p.find(f'{card} h2 a').click()
    wait_for('its items on its page', lambda: all(f'Number {n}' in p.find('.item-list').text for n in range(3)))
    look(w, 'channel')
    p.press('Remove Numbers Station')
    p.find('dialog[open] button[value="ok"]').click()
    wait_for('the channel gone from the API', lambda: channel_named(w, 'Numbers Station') is None)
    wait_for('back on the list', lambda: p.d.current_url.endswith('/channels'))


def test_channels_show_errors_and_parse_warnings_and_import_opml(w):
    cut = w.files.write('cut.xml', '<?xml version="1.0"?><rss version="2.0"><channel><title>Cut Short</title>'
                                   '<item><title>Whole</title><guid>w</guid></item><item><title>Cut')
    gone = f'{w.files.base}/nothing-here.xml'
    opml = w.files.directory / 'subscriptions.opml'
    opml.write_text('<?xml version="1.0"?><opml version="2.0"><body>'
                    f'<outline type="rss" text="Cut" xmlUrl="{cut}"/><outline type="rss" text="Gone" xmlUrl="{gone}"/></body></opml>')
    p = w.page
    p.go('/channels')
    p.find('input[type="file"]').send_keys(str(opml))
    wait_for('the import report', lambda: 'Imported subscriptions.opml' in p.find('.report').text)
    card = f'[data-channel-id="{channel_named(w, "Cut Short")["id"]}"]'

    # The list is redrawn when the import's events arrive (a redraw closes the details again):
    # opened and read until it holds still.
    def warning_shown():
        details = p.find(f'{card} details.warnings')
        if details.get_attribute('open') is None:
            p.find(f'{card} details.warnings summary').click()
        return 'the document ends inside an item' in p.find(f'{card} details.warnings').text
    wait_for('the parse warning shown', warning_shown)
    failing = next(c for c in w.server.api('GET', '/api/channels')['items'] if c['feed_url'] == gone)
    wait_for('the failed sync shown', lambda: 'Last sync failed' in p.find(f'[data-channel-id="{failing["id"]}"]').text)
    look(w, 'channels-problems')
    p.js('window.scrollTo(0, 0)')   # the toolbar is at the top, under the sticky header once scrolled
    capture_downloads(p)
    p.press('Export OPML')
    opml_text = downloaded(p, 'feedctl-subscriptions.opml')
    check('<opml' in opml_text and cut in opml_text, f'the export is the OPML of the subscriptions: {opml_text[:300]}')


# --- Collections --------------------------------------------------------------------------------

def test_collections_create_reorder_by_keyboard_buttons_and_drag(w):
    channel = channel_named(w, 'Tone Radio')
    items = items_of(w, channel['id'])
    p = w.page
    p.go('/collections')
    p.find('input[name="name"]').send_keys('Road trip')
    p.press('Create collection')
    wait_for('the new collection listed', lambda: 'Road trip' in p.find('.collection-list').text)
    collection = next(c for c in w.server.api('GET', '/api/collections')['items'] if c['name'] == 'Road trip')
    for item in items:
        w.server.api('POST', f'/api/collections/{collection["id"]}/items', {'item_id': item['id']})
    p.go('/collections')
    wait_for('its count', lambda: '3 items' in p.find(f'[data-collection-id="{collection["id"]}"]').text)
    look(w, 'collections')

    p.find(f'[data-collection-id="{collection["id"]}"] h2 a').click()
    p.find('.collection-item')
    order = lambda: [i['id'] for i in w.server.api('GET', f'/api/collections/{collection["id"]}')['items']]
    ids = order()
    title = {i['id']: i['title'] for i in items}
    from selenium.webdriver.common.keys import Keys
    p.find(f'.collection-item[data-item-id="{ids[2]}"]').send_keys(Keys.ALT, Keys.ARROW_UP)
    wait_for('Alt+Up to reach the server', lambda: order() == [ids[0], ids[2], ids[1]])
    check(p.d.switch_to.active_element.get_attribute('data-item-id') == str(ids[2]), 'the moved row keeps the focus')
    check(p.js('return getComputedStyle(document.activeElement).outlineStyle') not in ('none', ''), 'and the focus shows')
    p.d.switch_to.active_element.send_keys(Keys.ALT, Keys.ARROW_UP)
    wait_for('Alt+Up again', lambda: order() == [ids[2], ids[0], ids[1]])
    wait_for('the move announced', lambda: p.find('#main .announcer').get_attribute('textContent') == f'Moved {title[ids[2]]} to position 1 of 3')
    p.press(f'Move {title[ids[2]]} down')
    wait_for('Move down to reach the server', lambda: order() == [ids[0], ids[2], ids[1]])
    # HTML5 drag and drop, dispatched with one DataTransfer as a mouse drag fires it (WebDriver's
    # own pointer actions start no HTML5 drag in Chromium).
    p.js('const [from, to] = [document.querySelector(arguments[0]), document.querySelector(arguments[1])];'
         'const data = new DataTransfer();'
         'for (const [el, type] of [[from, "dragstart"], [to, "dragenter"], [to, "dragover"], [to, "drop"], [from, "dragend"]])'
         '  el.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: data}));',
         f'.collection-item[data-item-id="{ids[0]}"]', f'.collection-item[data-item-id="{ids[1]}"]')
    wait_for('the drag to reach the server', lambda: order() == [ids[2], ids[1], ids[0]])
    look(w, 'collection')

    p.press('Rename Road trip')
    name = p.find('.collection-header input[name="name"]')
    name.clear()
    name.send_keys('Long drive', Keys.ENTER)
    wait_for('the new name kept', lambda: w.server.api('GET', f'/api/collections/{collection["id"]}')['name'] == 'Long drive')
    p.press(f'Remove {title[ids[1]]} from Long drive')
    wait_for('the item removed', lambda: order() == [ids[2], ids[0]])
    capture_downloads(p)
    p.press('Export Long drive')
    exported = json.loads(downloaded(p, 'long-drive.json'))
    check(exported['name'] == 'Long drive' and [i['title'] for i in exported['items']] == [title[ids[2]], title[ids[0]]],
          f'the export is the collection in its order: {exported}')
    p.press('Delete Long drive')
    p.find('dialog[open] button[value="ok"]').click()
    wait_for('the collection deleted', lambda: all(c['id'] != collection['id'] for c in w.server.api('GET', '/api/collections')['items']))


def test_collections_copy_and_move_items_by_keyboard(w):
    """From a collection, by keyboard alone: two items ticked and copied to another collection
    (the targets listed; one already there, said in words), one moved by its own button, and a
    duplicate refused in words; the server holds what the screen says."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    items = items_of(w, channel_named(w, 'Tone Radio')['id'])
    ids, title = [i['id'] for i in items], {i['id']: i['title'] for i in items}
    mix, keep = (w.server.api('POST', '/api/collections', {'name': name}) for name in ['Mix', 'Keep'])
    for item in ids:
        w.server.api('POST', f'/api/collections/{mix["id"]}/items', {'item_id': item})
    w.server.api('POST', f'/api/collections/{keep["id"]}/items', {'item_id': ids[0]})
    held = lambda c: [i['id'] for i in w.server.api('GET', f'/api/collections/{c["id"]}')['items']]
    said = lambda: w.page.find('#main .announcer').get_attribute('textContent')
    p = w.page
    p.go(f'/collections/{mix["id"]}')
    for item in ids[:2]:
        p.find(f'.collection-item[data-item-id="{item}"] input[type="checkbox"]').send_keys(Keys.SPACE)
    p.button('Copy or move 2 selected').send_keys(Keys.ENTER)
    target = p.find('dialog[open] select')
    check(f'Keep (1 item, has some of these already)' in target.text, f'the targets listed: {target.text}')
    Select(target).select_by_value(str(keep['id']))
    p.axe('collection-copy-dialog')
    p.button('Copy', within='dialog[open]').send_keys(Keys.ENTER)
    wait_for('the copy on the server', lambda: held(keep) == [ids[0], ids[1]])
    wait_for('what it did, in words', lambda: said() == 'Copied 1 item to "Keep"; skipped 1 duplicate (already in "Keep")')

    p.button(f'Copy or move {title[ids[2]]}').send_keys(Keys.ENTER)
    Select(p.find('dialog[open] select')).select_by_value(str(keep['id']))
    p.button('Move', within='dialog[open]').send_keys(Keys.ENTER)
    wait_for('the move on the server', lambda: held(keep) == ids and held(mix) == ids[:2])
    wait_for('its row gone', lambda: not p.all(f'.collection-item[data-item-id="{ids[2]}"]'))

    p.button(f'Copy or move {title[ids[0]]}').send_keys(Keys.ENTER)
    Select(p.find('dialog[open] select')).select_by_value(str(keep['id']))
    p.button('Copy', within='dialog[open]').send_keys(Keys.ENTER)
    wait_for('the duplicate, in words', lambda: said() == f'“{title[ids[0]]}” is already in “Keep”: nothing was copied')
    check(held(keep) == ids, 'and nothing changed')


# --- Saved and History --------------------------------------------------------------------------

def test_saved_notes_are_edited_and_kept(w):
    saved = w.server.api('GET', '/api/saved-videos')['items'][0]
    row = f'[data-saved-id="{saved["id"]}"]'
    p = w.page
    p.go('/saved')
    notes = p.find(f'{row} textarea')
    notes.clear()
    notes.send_keys('Play again at <b>2x</b>')
    p.press(f'Save notes for {saved["title"]}')
    wait_for('the notes kept', lambda: w.server.api('GET', f'/api/saved-videos/{saved["id"]}')['notes'] == 'Play again at <b>2x</b>')
    p.press(f'Mark watched: {saved["title"]}')
    wait_for('watched through the API', lambda: w.server.api('GET', f'/api/saved-videos/{saved["id"]}')['is_watched'])
    look(w, 'saved')
    p.press(f'Remove {saved["title"]} from saved')
    wait_for('unsaved', lambda: all(s['id'] != saved['id'] for s in w.server.api('GET', '/api/saved-videos')['items']))


def test_history_lists_what_the_player_finished(w):
    # The history is written by the player daemon when it hears an item to its end: play a
    # 4-second tone on the server's speakers (the headless PulseAudio) through the API.
    item = next(i for i in items_of(w, channel_named(w, 'Tone Radio')['id']) if i['title'] == 'Hello')
    w.server.api('POST', '/api/player/play', {'item_id': item['id'], 'from_start': True})
    wait_for('the play in the history', lambda: item['id'] in [i['id'] for i in w.server.api('GET', '/api/feed/history')['items']],
             timeout=30)
    p = w.page
    p.go('/history')
    wait_for('the history screen to list it', lambda: 'Hello' in p.find('.item-list').text)
    look(w, 'history')


# --- Settings -----------------------------------------------------------------------------------

def test_settings_sessions_users_theme_and_playback(w):
    status, answer = w.server.raw('POST', '/api/auth/login', {'username': w.server.user, 'password': PASSWORD, 'device_name': 'Phone'})
    check(status == 200 and answer['success'], f'a second session: {answer}')
    phone = answer['token']
    p = w.page
    p.go('/settings')
    check('(this browser)' in p.find('.session-list').text, 'this browser is marked')
    p.press('Sign out Phone')
    wait_for('the phone signed out', lambda: w.server.raw('GET', '/api/feed', token=phone)[0] == 401)
    wait_for('the list without it', lambda: 'Phone' not in p.find('.session-list').text)

    p.find('input[name="new-username"]').send_keys('carol')
    p.find('input[name="new-user-password"]').send_keys('carol password 1')
    p.press('Add user')
    wait_for('carol added', lambda: 'carol' in [u['username'] for u in w.server.api('GET', '/api/users')['users']])
    p.press('Remove user carol')
    p.find('dialog[open] button[value="ok"]').click()
    wait_for('carol removed', lambda: 'carol' not in [u['username'] for u in w.server.api('GET', '/api/users')['users']])

    p.click('input[name="theme"][value="dark"]')
    check(p.js('return document.documentElement.dataset.theme') == 'dark', 'the dark theme applies')
    p.js('const s = document.querySelector("select[name=skipForward]"); s.value = "30"; s.dispatchEvent(new Event("change"));')
    check(json.loads(p.js('return localStorage.getItem("feedctl.prefs")'))['skipForward'] == 30, 'the skip interval is kept')
    p.js('const s = document.querySelector("select[name=speed]"); s.value = "1.25"; s.dispatchEvent(new Event("change"));')
    wait_for('the default speed kept', lambda: p.js('return localStorage.getItem("feedctl.rate")') == '1.25')
    look(w, 'settings')
    p.click('input[name="theme"][value="system"]')


def test_a_user_changes_their_password_with_the_current_one(w):
    p = w.page
    p.js('window.scrollTo(0, 0)')   # the account panel is at the top, under the sticky header once scrolled
    p.press('Sign out', within='.panel')
    wait_for('signed out', lambda: '/login' in p.d.current_url)
    p.login(OTHER, OTHER_PASSWORD)
    status, answer = w.server.raw('POST', '/api/auth/login', {'username': OTHER, 'password': OTHER_PASSWORD, 'device_name': 'Laptop'})
    laptop = answer['token']
    p.go('/settings')
    p.find('input[name="current-password"]')
    check(not p.all('input[name="new-username"]'), 'only admins manage users')
    message = lambda: p.find('form.stacked [role="status"]').text

    p.find('input[name="current-password"]').send_keys('not my password')
    p.find('input[name="new-password"]').send_keys('a new password 1')
    p.find('input[name="confirm-password"]').send_keys('a new password 1')
    p.press('Change password')
    wait_for('the refusal', lambda: 'PIN' in message())
    check(w.server.raw('GET', '/api/feed', token=laptop)[0] == 200, 'nothing changed')

    for name, value in [('current-password', OTHER_PASSWORD), ('new-password', 'a new password 1'), ('confirm-password', 'a new password 1')]:
        field = p.find(f'input[name="{name}"]')
        field.clear()
        field.send_keys(value)
    p.press('Change password')
    wait_for('the change', lambda: 'Password changed' in message())
    check(w.server.raw('GET', '/api/feed', token=laptop)[0] == 401, 'the other sessions ended')
    status, answer = w.server.raw('POST', '/api/auth/login', {'username': OTHER, 'password': 'a new password 1'})
    check(answer['success'], 'the new password signs in')
    look(w, 'settings-user')


def test_a_user_downloads_their_data_then_deletes_their_account(w):
    """Bob (signed in from the test above, with his new password) is offered his data first,
    downloads it (JSON and OPML: his own only), then deletes his account: a wrong password
    deletes nothing, the confirmation names what goes, and afterwards he is signed out for good."""
    password = 'a new password 1'
    status, answer = w.server.raw('POST', '/api/auth/login', {'username': OTHER, 'password': password, 'device_name': 'Tablet'})
    check(status == 200 and answer['success'], f'bob signs in: {answer}')
    tablet = answer['token']
    status, _ = w.server.raw('POST', '/api/subscriptions', {'url': w.feed_url}, token=tablet)
    check(status in (200, 201), f'bob subscribes: {status}')
    downloads = Path(tempfile.mkdtemp(prefix='feedctl-web-downloads-'))
    p = w.page
    p.d.execute_cdp_cmd('Page.setDownloadBehavior', {'behavior': 'allow', 'downloadPath': str(downloads)})
    p.go('/settings')
    form = p.find('form[aria-label="Delete my account"]')
    json_link = p.find('a[href="/api/account/export"]')
    check(p.js('return Boolean(arguments[0].compareDocumentPosition(arguments[1]) & Node.DOCUMENT_POSITION_FOLLOWING)', json_link, form),
          'the download is offered before the deletion')

    json_link.click()
    p.find('a[href="/api/account/export.opml"]').click()
    data = wait_for('the JSON download', lambda: (downloads / 'feedctl-my-data.json').exists() and (downloads / 'feedctl-my-data.json').read_text())
    document = json.loads(data)
    check(document['format'] == 'feedctl-account-export' and document['profile']['name'] == OTHER, f'his profile: {document["profile"]}')
    check([s['feed_url'] for s in document['subscriptions']] == [w.feed_url], f'his subscriptions only: {document["subscriptions"]}')
    check(len(document['sessions']) >= 2 and all('token' not in s for s in document['sessions']), 'his sessions, without tokens')
    others = [c['feed_url'] for c in w.server.api('GET', '/api/channels')['items'] if c['feed_url'] != w.feed_url]
    check(others and not any(url in data for url in others), f"none of the owner's other subscriptions in it: {others}")
    opml = wait_for('the OPML download', lambda: (downloads / 'feedctl-subscriptions.opml').exists() and (downloads / 'feedctl-subscriptions.opml').read_text())
    check(w.feed_url.replace('&', '&amp;') in opml, f'his feed in the OPML: {opml[:300]}')

    field = p.find('input[name="delete-password"]')
    field.send_keys('not my password')
    p.press('Delete my account', within='form[aria-label="Delete my account"]')
    dialog = p.find('dialog[open]')
    check('subscriptions' in dialog.text and 'sessions on every device' in dialog.text and OTHER in dialog.text,
          f'the confirmation names what goes: {dialog.text}')
    p.axe('settings-delete-dialog')
    p.find('dialog[open] button[value="ok"]').click()
    wait_for('the refusal', lambda: 'wrong password' in p.find('form[aria-label="Delete my account"] [role="status"]').text)
    check(w.server.raw('GET', '/api/feed', token=tablet)[0] == 200, 'a wrong password deletes nothing')

    # What this browser keeps for him (an episode kept offline) goes with the account.
    media = f"feedctl-media-u{document['profile']['id']}"
    p.d.execute_async_script('const done = arguments[arguments.length - 1];'
                             'caches.open(arguments[0]).then((c) => c.put("/api/items/1/audio", new Response("x"))).then(done);', media)
    field.clear()
    field.send_keys(password)
    p.press('Delete my account', within='form[aria-label="Delete my account"]')
    p.find('dialog[open] button[value="ok"]').click()
    wait_for('signed out, at the login page', lambda: '/login' in p.d.current_url)
    check(w.server.raw('GET', '/api/feed', token=tablet)[0] == 401, 'every session of his ended')
    status, answer = w.server.raw('POST', '/api/auth/login', {'username': OTHER, 'password': password})
    check(not answer['success'], 'his account is gone')
    check(OTHER not in [u['username'] for u in w.server.api('GET', '/api/users')['users']], 'not among the users')
    kept = p.d.execute_async_script('const done = arguments[arguments.length - 1]; caches.keys().then(done);')
    check(media not in kept, f'the episodes kept in this browser for him went too: {kept}')
