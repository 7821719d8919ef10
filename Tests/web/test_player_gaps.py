"""What the first web parts left open (issue 27): the item page's chapters (and the full player's,
each a seek), transcript link and download state from the server; the up-next queue is the user's
own on the server (the CLI sees the browser's, the browser the CLI's); an item finished in the
browser reaches the history; the skip intervals chosen in Settings drive the buttons, their names,
the keys dialog and the Media Session; the Media Session's metadata carries the artwork, its
action handlers (what a lock screen calls) act on the audio and the queue, and its position state
follows the audio; a channel's own speed applies to an item played from the feed; the position
reaches the server every 10 s while playing; the sleep timer stops at the end of the item (the
queue's next waits) or when its time is up."""
import json
import shutil
import time

from harness import PASSWORD, ROOT, check, make_tone, rss, wait_for

TITLES = ['Chaptered episode', 'Short one', 'Third one']
AUDIO = 'document.getElementById("player-audio")'


def setup(w):
    make_tone(w.files.directory / 'tone.mp3', 440, 60)
    make_tone(w.files.directory / 'short.mp3', 440, 6)
    shutil.copy(ROOT / 'web/icons/icon-192.png', w.files.directory / 'art.png')   # an item's artwork
    w.files.write('chapters.json', json.dumps({'version': '1.2.0', 'chapters': [
        {'startTime': 0, 'title': 'Opening'}, {'startTime': 30, 'title': 'The middle', 'url': 'https://example.com/middle'}]}))
    items = [{'guid': 'g-0', 'title': TITLES[0], 'enclosure': f'{w.files.base}/tone.mp3', 'duration': '60', 'image': f'{w.files.base}/art.png'},
             {'guid': 'g-1', 'title': TITLES[1], 'enclosure': f'{w.files.base}/short.mp3', 'duration': '6'},
             {'guid': 'g-2', 'title': TITLES[2], 'enclosure': f'{w.files.base}/tone.mp3', 'duration': '60'}]
    text = rss('Gaps Show', items).replace('<rss version="2.0"', '<rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"')
    first = text.index('</item>')
    text = (text[:first] + f'<podcast:chapters url="{w.files.base}/chapters.json" type="application/json+chapters"/>'
            f'<podcast:transcript url="{w.files.base}/ep.vtt" type="text/vtt"/>' + text[first:])
    w.server.subscribe(w.files.write('gaps.xml', text))
    w.page.login(w.server.user, PASSWORD)
    w.ids = {i['title']: i['id'] for i in w.server.api('GET', '/api/feed')['items']}


def audio_time(p):
    return p.js(f'return {AUDIO}.currentTime')


def test_the_item_page_shows_chapters_transcript_and_download_state(w):
    p = w.page
    p.go(f'/item/{w.ids[TITLES[0]]}')
    chapters = wait_for('the chapters', lambda: [li.text for li in p.all('ol.chapters li')] or None)
    check(len(chapters) == 2 and 'Opening' in chapters[0] and 'The middle' in chapters[1], f'both chapters: {chapters}')
    link = p.find('ol.chapters li a')
    check(link.get_attribute('href') == 'https://example.com/middle', 'the chapter link')
    transcript = next((a for a in p.all('a') if a.text == 'Transcript'), None)
    check(transcript is not None and transcript.get_attribute('href').endswith('/ep.vtt'), 'the transcript link')
    check('Not downloaded' in p.find('main').text, f'the download state: {p.find("main").text[:400]}')
    # A chapter's click starts the item there (nothing plays yet), then seeks it.
    p.press('0:30 The middle')
    wait_for('playing from the chapter', lambda: 29 <= audio_time(p) < 40, timeout=20)
    p.press('0:00 Opening')
    wait_for('sought back to the first chapter', lambda: audio_time(p) < 10)
    # The full player lists them too, and a click there seeks.
    p.find('#mini-player a.mini-title').click()
    wait_for('the full player', lambda: p.d.current_url.endswith('/player'))
    listed = wait_for('its chapters', lambda: [b.text for b in p.all('.player-full ol.chapters button')] or None)
    check(listed == ['0:00 Opening', '0:30 The middle'], f'the full player lists the chapters: {listed}')
    p.press('0:30 The middle', within='.player-full')
    wait_for('sought to the chapter from the full player', lambda: 29 <= audio_time(p) < 40)
    p.d.back()
    wait_for('the item page again', lambda: p.all('ol.chapters li a'))
    p.screenshots('item-chapters')
    p.axe('item-chapters')
    p.press('Pause', within='#mini-player')


def test_the_queue_is_the_users_on_the_server(w):
    p = w.page
    p.go(f'/item/{w.ids[TITLES[2]]}')
    p.press('Add to queue')
    queued = wait_for('the server\'s queue', lambda: w.server.api('GET', '/api/queue')['items'] or None)
    check([e['item']['id'] for e in queued] == [w.ids[TITLES[2]]], f'the server holds the browser\'s entry: {queued}')
    listed = w.server.cli('queue', 'list')
    check(TITLES[2] in listed, f'feedctl queue list shows it: {listed!r}')
    # The CLI queues another: the page shows it (a reload, or coming back to the page).
    w.server.cli('queue', 'add', str(w.ids[TITLES[1]]))
    p.go('/player')
    names = lambda: [li.text.split('\n')[0] for li in p.all('.queue li')]
    wait_for('both in the player\'s Up next', lambda: names() == [TITLES[2], TITLES[1]])
    p.press(f'Move {TITLES[1]} up')
    wait_for('moved on the server', lambda: [e['title'] for e in w.server.api('GET', '/api/queue')['items']] == [TITLES[1], TITLES[2]])
    p.press(f'Remove {TITLES[2]} from the queue')
    wait_for('removed on the server', lambda: [e['title'] for e in w.server.api('GET', '/api/queue')['items']] == [TITLES[1]])
    wait_for('and in the page', lambda: names() == [TITLES[1]])


def test_an_item_finished_in_the_browser_reaches_the_history(w):
    p = w.page
    # Next plays the queue's first (the short one) and takes it off the server's queue.
    p.press('Next')
    wait_for('the short one playing', lambda: TITLES[1] in p.find('.player-full h1').text)
    wait_for('the queue emptied on the server', lambda: w.server.api('GET', '/api/queue')['items'] == [])
    wait_for('it ends', lambda: p.js(f'return {AUDIO}.ended'), timeout=30)
    item = w.ids[TITLES[1]]
    wait_for('watched on the server', lambda: w.server.api('GET', f'/api/feed/items/{item}')['is_watched'])
    history = json.loads(w.server.cli('history', '--json'))
    check([e.get('item') for e in history].count(item) == 1, f'one play in feedctl history: {history}')


def test_the_skip_intervals_of_settings_drive_the_buttons_and_the_media_session(w):
    p = w.page
    p.go(f'/item/{w.ids[TITLES[0]]}')
    p.find('.item-actions button.primary').click()   # Play, or Resume where it stopped
    wait_for('playing', lambda: audio_time(p) > 1 and not p.js(f'return {AUDIO}.paused'), timeout=20)
    # Settings writes the choice (prefs.js) and tells the page: the same call here.
    p.js('localStorage.setItem("feedctl.prefs", JSON.stringify({skipBack: 5, skipForward: 30}));'
         ' window.dispatchEvent(new CustomEvent("feedctl-prefs"));')
    forward = p.button('Forward 30 seconds', within='#mini-player')
    p.button('Back 5 seconds', within='#mini-player')
    before = audio_time(p)
    forward.click()
    after = wait_for('30 s on', lambda: (lambda t: t if t >= before + 28 else None)(audio_time(p)))
    check(after < before + 33, f'+30 s: {before:.1f} -> {after:.1f}')
    p.press('Back 5 seconds', within='#mini-player')
    back = wait_for('5 s back', lambda: (lambda t: t if t <= after - 3 else None)(audio_time(p)))
    check(back >= after - 8, f'-5 s: {after:.1f} -> {back:.1f}')
    p.go('/player')
    p.button('Forward 30 seconds', within='.transport')
    p.button('Back 5 seconds', within='.transport')
    p.find('body').send_keys('?')   # the keys dialog names what ← and → do now
    keys = wait_for('the keys dialog', lambda: (lambda t: t if 'Keyboard shortcuts' in t else None)(p.find('dialog').text))
    check('Back 5 seconds' in keys and 'Forward 30 seconds' in keys and '15 seconds' not in keys, f'the keys say the chosen intervals: {keys!r}')
    p.button('Close', within='dialog').click()


def media_session(p, action, details=None):
    """Calls the handler the page registered with navigator.mediaSession for `action`, as a lock
    screen or headset does; the audio's time and paused state after."""
    return p.d.execute_async_script("""
        const [action, details, done] = arguments;
        const url = document.querySelector('script[type="module"]').src.replace(/app\\.js$/, 'player.js');
        import(url).then(async ({ player }) => {
          await player.mediaSessionHandlers[action]({ action, ...(details || {}) });
          setTimeout(() => done({ t: player.audio.currentTime, paused: player.audio.paused }), 300);
        }).catch((e) => done({ error: String(e) }));""", action, details)


# The browser keeps the Media Session's position state to itself: a page's calls are recorded.
RECORD_POSITION_STATE = '''
const set = MediaSession.prototype.setPositionState;
MediaSession.prototype.setPositionState = function (state) { window.__positionState = state; return set.call(this, state); };'''


def test_the_media_session_handlers_act_on_the_audio(w):
    p = w.page
    check(p.js('return "mediaSession" in navigator'), 'the browser has the Media Session API')
    p.d.execute_cdp_cmd('Page.addScriptToEvaluateOnNewDocument', {'source': RECORD_POSITION_STATE})
    p.go(f'/item/{w.ids[TITLES[0]]}')   # a page loaded afresh: start the item again
    p.find('.item-actions button.primary').click()
    wait_for('playing', lambda: audio_time(p) > 1 and not p.js(f'return {AUDIO}.paused'), timeout=20)
    art = p.js('const m = navigator.mediaSession.metadata; return m && m.artwork.map((a) => a.src)')
    check(art == [f'{w.files.base}/art.png'], f'the metadata carries the artwork: {art}')
    state = media_session(p, 'pause')
    check(state.get('paused') is True, f'pause pauses: {state}')
    state = media_session(p, 'play')
    check(state.get('paused') is False, f'play plays: {state}')
    state = media_session(p, 'seekto', {'seekTime': 40})
    check(40 <= state['t'] < 43, f'seekto 40: {state}')
    position = wait_for('the position state', lambda: p.js('return window.__positionState'))
    check(abs(position['duration'] - 60) < 2 and 40 <= position['position'] < 43 and position['playbackRate'] == 1,
          f'the position state is the audio\'s: {position}')
    state = media_session(p, 'seekbackward')
    check(34 <= state['t'] < 38, f'seekbackward by the chosen 5 s: {state}')
    state = media_session(p, 'seekforward', {'seekOffset': 10})
    check(44 <= state['t'] < 48, f'seekforward by the offset given: {state}')
    state = media_session(p, 'seekforward')
    check(state['t'] >= 54 or state['paused'], f'seekforward by the chosen 30 s (to the end): {state}')
    media_session(p, 'pause')


def queued_ids(p):
    """The item ids of the page's up-next queue, as the player holds it."""
    return p.d.execute_async_script("""
        const done = arguments[0];
        const url = document.querySelector('script[type="module"]').src.replace(/app\\.js$/, 'player.js');
        import(url).then(({ player }) => done(player.queue.map((q) => q.id))).catch((e) => done(String(e)));""")


def test_next_and_previous_track_from_the_media_session(w):
    p = w.page
    playing = lambda: p.js('return Number(document.getElementById("mini-player").dataset.itemId)')
    media_session(p, 'seekto', {'seekTime': 5})   # the first item kept at 5 s: it has most of a minute to go when it comes back
    state = media_session(p, 'play')
    check(not state['paused'], f'playing the first item: {state}')
    w.server.api('POST', '/api/queue', {'item_id': w.ids[TITLES[2]]})
    p.js('document.dispatchEvent(new Event("visibilitychange"))')   # the page reads the queue again, as when it is shown
    wait_for('the queue read', lambda: queued_ids(p) == [w.ids[TITLES[2]]])
    media_session(p, 'nexttrack')
    wait_for('nexttrack plays the queue\'s first', lambda: playing() == w.ids[TITLES[2]] and not p.js(f'return {AUDIO}.paused'), timeout=20)
    media_session(p, 'previoustrack')
    wait_for('previoustrack goes back to the item before', lambda: playing() == w.ids[TITLES[0]] and audio_time(p) >= 5, timeout=20)
    check(queued_ids(p) == [w.ids[TITLES[2]]], 'and the one it left waits first in the queue')
    media_session(p, 'pause')


def test_a_channels_own_speed_applies_to_an_item_played_from_the_feed(w):
    p = w.page
    channel = w.server.api('GET', f'/api/feed/items/{w.ids[TITLES[2]]}')['channel_id']
    w.server.api('PUT', f'/api/channels/{channel}', {'speed': 1.5})
    p.go('/feed')
    p.press('Play', within=f'.row[data-item-id="{w.ids[TITLES[2]]}"]')
    wait_for('playing', lambda: not p.js(f'return {AUDIO}.paused'), timeout=20)
    rate = wait_for('the channel\'s speed', lambda: (lambda r: r if r == 1.5 else None)(p.js(f'return {AUDIO}.playbackRate')), timeout=5)
    check(rate == 1.5, f'played at its channel\'s speed: {rate}')


def test_while_playing_the_position_reaches_the_server_every_10_seconds(w):
    p = w.page
    item = w.ids[TITLES[2]]   # playing since the test above; no pause or seek from here
    on_server = lambda: w.server.api('GET', f'/api/feed/items/{item}')['watch_progress_seconds'] or 0
    first = wait_for('a save while playing', lambda: on_server() or None, timeout=12)
    later = wait_for('the next save, 10 s on', lambda: (lambda s: s if s >= first + 8 else None)(on_server()), timeout=15)
    check(not p.js(f'return {AUDIO}.paused'), 'it played on all along')
    check(audio_time(p) - later < 20, f'the server is at most one period behind: {later} vs {audio_time(p):.1f}')
    p.press('Pause', within='#mini-player')


def test_the_sleep_timer_stops_at_the_end_of_the_item_or_after_its_time(w):
    p = w.page
    playing = lambda: p.js('return Number(document.getElementById("mini-player").dataset.itemId)')
    w.server.api('POST', '/api/queue', {'item_id': w.ids[TITLES[2]]})
    p.js('document.dispatchEvent(new Event("visibilitychange"))')
    wait_for('the queue read', lambda: queued_ids(p) == [w.ids[TITLES[2]]])
    p.go(f'/item/{w.ids[TITLES[1]]}')   # the six-second one
    p.find('.item-actions button.primary').click()
    wait_for('the short one playing', lambda: playing() == w.ids[TITLES[1]] and not p.js(f'return {AUDIO}.paused'), timeout=20)
    p.find('#mini-player a.mini-title').click()
    from selenium.webdriver.support.ui import Select
    Select(p.find('#sleep')).select_by_value('end')
    wait_for('the end of the item', lambda: p.js(f'return {AUDIO}.ended'), timeout=20)
    time.sleep(2)   # without the timer, the queue's next item would start now
    check(playing() == w.ids[TITLES[1]] and p.js(f'return {AUDIO}.paused'), f'nothing started after it: item {playing()}')
    check(queued_ids(p) == [w.ids[TITLES[2]]], 'the queue waits as it was')
    check(p.find('#sleep').get_attribute('value') == '', 'and the timer is off again')
    # A timer of minutes: the menu's shortest is 5; the same call with 3 seconds.
    p.press(f'Play {TITLES[2]}')
    wait_for('the next one playing', lambda: playing() == w.ids[TITLES[2]] and not p.js(f'return {AUDIO}.paused'), timeout=20)
    set_to = p.d.execute_async_script("""
        const done = arguments[0];
        const url = document.querySelector('script[type="module"]').src.replace(/app\\.js$/, 'player.js');
        import(url).then(({ player }) => { player.setSleep(0.05); done(player.sleepAt); }).catch((e) => done(String(e)));""")
    check(isinstance(set_to, (int, float)), f'the timer set: {set_to!r}')
    time.sleep(1)
    check(not p.js(f'return {AUDIO}.paused'), 'still playing a second in')
    wait_for('paused when the time is up', lambda: p.js(f'return {AUDIO}.paused'), timeout=6)
