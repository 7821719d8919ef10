"""A listener's first session: sign in, subscribe, see the feed, play in the browser (the audio
element advances, the Media Session is set, the sink's monitor hears the tone), skip ±15 s, and
the progress reaches the server (its API and `feedctl show`). Screenshots of each screen, and axe
at phone and desktop width; the focus shows (the app's 3 px ring) on a row and on its buttons."""
import json
import time

from harness import DESKTOP, PASSWORD, PHONE, check, make_tone, rss, wait_for

TITLES = ['Tone at four forty', 'Second episode', 'Third episode']


def axe_at_both_widths(p, name):
    """axe at phone width, then desktop (where the tests go on)."""
    for label, size in [('phone', PHONE), ('desktop', DESKTOP)]:
        p.d.set_window_size(*size)
        p.axe(f'{name}-{label}')


def focus_shows(p):
    """The focused element's outline: the app's own ring (3 px), not none nor the browser's 1 px default."""
    style = p.js('const s = getComputedStyle(document.activeElement); return [document.activeElement.tagName, s.outlineStyle, parseFloat(s.outlineWidth)]')
    check(style[1] not in ('none', '') and style[2] >= 2, f'the focus shows on {style[0]}: {style}')


def setup(w):
    make_tone(w.files.directory / 'tone.mp3', 440, 90)
    items = [{'guid': f'ep-{n}', 'title': title, 'description': f'Notes for {title}.\nSecond line.',
              'enclosure': f'{w.files.base}/tone.mp3', 'duration': '90'} for n, title in enumerate(TITLES)]
    w.feed_url = w.files.write('podcast.xml', rss('Tone Radio', items))


def test_signing_in_needs_the_password(w):
    p = w.page
    p.go('/feed')
    wait_for('the login page for a signed-out visitor', lambda: '/login?next=' in p.d.current_url)
    p.screenshots('login')
    axe_at_both_widths(p, 'login')
    p.find('input[name="username"]').send_keys(w.server.user)
    p.find('input[name="password"]').send_keys('wrong password')
    p.press('Sign in')
    message = wait_for('the refusal', lambda: p.find('#login-error').text)
    check('invalid' in message.lower(), f'the refusal says why: {message!r}')
    p.login(w.server.user, PASSWORD)


def test_subscribing_shows_the_items_in_the_feed(w):
    w.server.subscribe(w.feed_url)
    p = w.page
    p.go('/feed')
    wait_for('the three episodes in the feed', lambda: all(t in p.find('main').text for t in TITLES))
    rows = p.all('.row')
    check(len(rows) == 3, f'three rows, not {len(rows)}')
    p.screenshots('feed')
    axe_at_both_widths(p, 'feed')


def test_playing_in_the_browser_is_heard(w):
    p = w.page
    row = wait_for('the first row', lambda: next(r for r in p.all('.row') if TITLES[0] in r.text))
    with w.pulse.recording(w.out / 'browser-tone.raw') as recording:
        p.press('Play', within=f'.row[data-item-id="{row.get_attribute("data-item-id")}"]')
        wait_for('the audio element to play', lambda: p.js('return document.getElementById("player-audio").currentTime') > 2, timeout=20)
        time.sleep(2)
    state = p.js('const a = document.getElementById("player-audio"); return {t: a.currentTime, paused: a.paused, src: a.currentSrc,'
                 ' title: navigator.mediaSession.metadata && navigator.mediaSession.metadata.title,'
                 ' artist: navigator.mediaSession.metadata && navigator.mediaSession.metadata.artist}')
    check(state['t'] > 3 and not state['paused'], f'the audio advances: {state}')
    check(state['title'] == TITLES[0], f'Media Session metadata names the item: {state}')
    check(state['artist'] == 'Tone Radio', f'Media Session metadata names the channel: {state}')
    ok, line = w.pulse.heard(recording, '440')
    check(ok, f'the sink heard the browser: {line}')
    check(p.find('#mini-player').is_displayed(), 'the mini player shows')
    p.screenshots('feed-playing')


def test_skipping_moves_15_seconds_each_way(w):
    p = w.page
    before = p.js('return document.getElementById("player-audio").currentTime')
    p.press('Forward 15 seconds', within='#mini-player')
    after = wait_for('the jump forward', lambda: (lambda t: t if t >= before + 14 else None)(p.js('return document.getElementById("player-audio").currentTime')))
    check(after < before + 18, f'+15 s: {before:.1f} -> {after:.1f}')
    p.press('Back 15 seconds', within='#mini-player')
    back = wait_for('the jump back', lambda: (lambda t: t if t <= after - 13 else None)(p.js('return document.getElementById("player-audio").currentTime')))
    check(back >= after - 17, f'-15 s: {after:.1f} -> {back:.1f}')


def test_progress_reaches_the_server(w):
    p = w.page
    p.press('Forward 15 seconds', within='#mini-player')
    time.sleep(1)
    p.press('Pause', within='#mini-player')
    position = wait_for('a pause', lambda: p.js('const a = document.getElementById("player-audio"); return a.paused && a.currentTime'))
    item_id = p.js('return Number(document.getElementById("mini-player").dataset.itemId)')
    item = wait_for('the progress on the server', lambda: (lambda it: it if abs((it['watch_progress_seconds'] or 0) - int(position)) <= 1 else None)(
        w.server.api('GET', f'/api/feed/items/{item_id}')))
    check(not item['is_watched'], 'not watched halfway')
    shown = json.loads(w.server.cli('show', str(item_id), '--json'))
    progress = shown.get('progress', shown.get('progress_seconds'))
    check(progress is not None and abs(progress - int(position)) <= 1, f'`feedctl show` has the position {int(position)}: {shown}')


def test_the_item_page_and_the_full_player(w):
    p = w.page
    item_id = p.js('return Number(document.getElementById("mini-player").dataset.itemId)')
    p.go(f'/item/{item_id}')   # a reload: the player starts over, the server remembers
    wait_for('the item page', lambda: TITLES[0] in p.find('main h1').text)
    check('Notes for' in p.find('.notes').text, 'the show notes show')
    check('null' not in p.find('main').text and 'undefined' not in p.find('main').text, 'no missing value shows as text')
    check('Played' in p.find('.progress-line').text, f'its progress shows: {p.find(".progress-line").text}')
    p.screenshots('item')
    axe_at_both_widths(p, 'item')
    p.press('Resume')
    wait_for('the resumed position', lambda: p.js('return document.getElementById("player-audio").currentTime') > 20)
    p.find('#mini-player a.mini-title').click()
    wait_for('the full player', lambda: p.d.current_url.endswith('/player'))
    scrubber = p.find('#scrubber')
    # Dragging the scrubber: values while it moves (input), the seek when it is let go (change).
    p.js('const s = arguments[0]; s.value = "60"; s.dispatchEvent(new Event("input")); s.dispatchEvent(new Event("change"));', scrubber)
    wait_for('the scrubber to seek', lambda: 59 <= p.js('return document.getElementById("player-audio").currentTime') < 66)
    from selenium.webdriver.support.ui import Select
    Select(p.find('#rate')).select_by_value('1.5')
    wait_for('the speed', lambda: p.js('return document.getElementById("player-audio").playbackRate') == 1.5)
    Select(p.find('#rate')).select_by_value('1')
    Select(p.find('#sleep')).select_by_value('end')
    p.screenshots('player')
    axe_at_both_widths(p, 'player')
    p.press('Pause', within='.transport')


def test_the_keys(w):
    from selenium.webdriver.common.keys import Keys
    p = w.page
    p.go('/feed')
    wait_for('rows', lambda: len(p.all('.row')) == 3)
    body = p.find('body')
    body.send_keys('j')
    check(p.js('return document.activeElement.classList.contains("row")'), 'j focuses the first row')
    focus_shows(p)
    p.d.switch_to.active_element.send_keys(Keys.TAB)
    check(p.js('return document.activeElement.getAttribute("aria-label")') == 'Play', 'Tab goes to the row\'s first action')
    focus_shows(p)
    p.d.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)
    body = p.d.switch_to.active_element
    body.send_keys('j')
    second = p.js('return document.activeElement.dataset.itemId')
    body = p.d.switch_to.active_element
    body.send_keys('k')
    first = p.js('return document.activeElement.dataset.itemId')
    check(first != second, 'j and k move between rows')
    p.d.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for('Enter opens the item', lambda: p.d.current_url.endswith(f'/item/{first}'))
    p.find('body').send_keys('?')
    wait_for('the keys dialog', lambda: 'Keyboard shortcuts' in p.find('dialog').text)
    p.screenshots('keys')
    p.find('dialog').send_keys(Keys.ESCAPE)


def test_space_and_arrows_drive_the_player(w):
    from selenium.webdriver.common.keys import Keys
    p = w.page
    audio = 'document.getElementById("player-audio")'
    p.go('/feed')
    p.press('Play', within='.row')
    wait_for('playing', lambda: p.js(f'return !{audio}.paused && {audio}.currentTime > 1'))
    p.js('document.activeElement.blur()')
    body = p.find('body')
    body.send_keys(Keys.SPACE)
    wait_for('space to pause', lambda: p.js(f'return {audio}.paused'))
    before = p.js(f'return {audio}.currentTime')
    body.send_keys(Keys.ARROW_RIGHT)
    wait_for('→ to skip 15 s', lambda: p.js(f'return {audio}.currentTime') >= before + 14)
    body.send_keys(Keys.ARROW_LEFT)
    wait_for('← to go back 15 s', lambda: p.js(f'return {audio}.currentTime') <= before + 1)
    body.send_keys(Keys.SPACE)
    wait_for('space to play again', lambda: not p.js(f'return {audio}.paused'))
    body.send_keys(Keys.SPACE)


def test_the_theme_is_light_dark_or_the_systems(w):
    p = w.page
    p.go('/feed')
    background = 'return getComputedStyle(document.body).backgroundColor'
    p.press('Theme: system')
    wait_for('the light theme', lambda: p.js('return document.documentElement.dataset.theme') == 'light')
    light = p.js(background)
    p.press('Theme: light')
    wait_for('the dark theme', lambda: p.js('return document.documentElement.dataset.theme') == 'dark')
    dark = p.js(background)
    check(light != dark, f'the page changes colour: {light} vs {dark}')
    p.screenshots('feed-dark')
    p.axe('feed-dark')
    p.go('/feed')
    check(p.js('return document.documentElement.dataset.theme') == 'dark', 'the choice is kept')
    p.press('Theme: dark')
    wait_for('the system theme', lambda: p.js('return document.documentElement.dataset.theme') is None)


def test_moving_around_never_stops_the_audio(w):
    p = w.page
    audio = 'document.getElementById("player-audio")'
    p.go('/feed')
    p.press('Play', within='.row')
    wait_for('playing', lambda: p.js(f'return !{audio}.paused && {audio}.currentTime > 1'))
    for tab in ['Discover', 'Saved', 'Channels', 'Settings', 'Feed']:
        before = p.js(f'return {audio}.currentTime')
        p.find(f'#tabs a[data-tab="{tab.lower()}"]').click()
        wait_for(f'the {tab} screen', lambda: p.d.current_url.endswith(f'/{tab.lower()}'))
        wait_for(f'the audio going on under {tab}', lambda: p.js(f'return !{audio}.paused && {audio}.currentTime > {before + 0.2}'))
    p.d.back()
    wait_for('back to Settings', lambda: p.d.current_url.endswith('/settings'))
    check(not p.js(f'return {audio}.paused'), 'the back button does not stop it either')


def test_leaving_the_page_saves_the_position(w):
    p = w.page
    audio = 'document.getElementById("player-audio")'
    item_id = int(p.js('return document.getElementById("mini-player").dataset.itemId'))
    p.js(f'{audio}.currentTime = 40')   # a seek, saved at once
    wait_for('the seek saved', lambda: abs((w.server.api('GET', f'/api/feed/items/{item_id}')['watch_progress_seconds'] or 0) - 40) <= 1)
    time.sleep(5)   # playing on: nothing more is saved for 10 s
    position = p.js(f'return {audio}.currentTime')
    check(position > 44, f'still playing: {position}')
    p.d.get('about:blank')   # pagehide: the keepalive request
    saved = wait_for('the position saved on leaving', lambda: (lambda s: s if s >= int(position) - 1 else None)(
        w.server.api('GET', f'/api/feed/items/{item_id}')['watch_progress_seconds'] or 0))
    check(saved <= position + 2, f'saved {saved}, left at {position:.1f}')


def test_an_ended_session_sends_the_app_to_login(w):
    p = w.page
    p.go('/feed')
    wait_for('rows', lambda: p.all('.row'))
    p.d.delete_cookie('session_token')
    # The next screen that asks the API (Saved) is answered 401: the app goes to the login page,
    # which will come back to that screen.
    p.find('#tabs a[data-tab="saved"]').click()
    wait_for('the login page, back to Saved after', lambda: '/login?next=%2Fsaved' in p.d.current_url)
    p.login(w.server.user, PASSWORD)


def test_the_session_left_no_script_errors_or_policy_violations(w):
    p = w.page
    p.go('/feed')
    wait_for('rows', lambda: p.all('.row'))
    entries = p.d.get_log('browser')
    bad = [e['message'] for e in entries if e['level'] == 'SEVERE' and (
        'Content Security Policy' in e['message'] or 'Uncaught' in e['message'] or 'TypeError' in e['message'] or 'ReferenceError' in e['message'])]
    check(not bad, f'errors in the page: {bad[:5]}')
