"""The second output: "The server's speakers" (the player daemon, through /api/player), switched
to while playing in the browser and back, the position kept; the daemon's sound is heard on the
server's (private, headless) PulseAudio, and the browser's element is silent meanwhile; the mini
player shows the daemon's position as it moves."""
import time

from harness import PASSWORD, check, make_tone, rss, wait_for

AUDIO = 'document.getElementById("player-audio")'


def setup(w):
    make_tone(w.files.directory / 'tone660.mp3', 660, 120)
    items = [{'guid': 'speakers-1', 'title': 'Six sixty', 'enclosure': f'{w.files.base}/tone660.mp3', 'duration': '120'}]
    w.server.subscribe(w.files.write('speakers.xml', rss('Speaker Test', items)))
    w.page.login(w.server.user, PASSWORD)


def seconds(text):
    """The first m:ss (or h:mm:ss) in the mini player's time line, in seconds."""
    import re
    found = re.search(r'(\d+(?::\d{2}){1,2})', text)
    check(found, f'a time in {text!r}')
    value = 0
    for part in found.group(1).split(':'):
        value = value * 60 + int(part)
    return value


def daemon_status(w):
    code, status = w.server.raw('GET', '/api/player', token=w.server.token)
    return status if code == 200 else None


def test_switching_to_the_servers_speakers_keeps_the_position(w):
    from selenium.webdriver.support.ui import Select
    p = w.page
    p.go('/feed')
    p.press('Play', within='.row')
    wait_for('the browser to play past 6 s', lambda: p.js(f'return {AUDIO}.currentTime') > 6, timeout=20)
    p.find('#mini-player a.mini-title').click()
    Select(p.find('#output')).select_by_value('server')
    status = wait_for('the daemon playing the item', lambda: (lambda s: s if s and s.get('status') == 'playing' else None)(daemon_status(w)), timeout=30)
    check(status.get('position', 0) >= 5, f'the daemon took over near the browser position: {status}')
    check(p.js(f'return {AUDIO}.paused'), 'the browser element is paused')
    with w.pulse.recording(w.out / 'daemon-tone.raw') as recording:
        time.sleep(3)
    ok, line = w.pulse.heard(recording, '660')
    check(ok, f'the server speakers (the daemon) are heard: {line}')
    wait_for('the mini player to follow the daemon', lambda: 'server' in p.find('#mini-player').text)
    # Its time is the daemon's, and it moves while the daemon plays.
    shown = lambda: seconds(p.find('#mini-player .mini-time').text)
    first = shown()
    daemon = daemon_status(w).get('position', 0)
    check(abs(first - daemon) <= 3, f'the mini player shows the daemon position {daemon}: {first}')
    wait_for('the mini player time to move on', lambda: shown() >= first + 2, timeout=10)
    p.screenshots('player-server-output')
    # A reload (or another visit) finds the daemon playing and follows it: the phone as a remote.
    p.go('/player')
    wait_for('the daemon item after a reload', lambda: 'Six sixty' in p.find('#mini-player').text and 'server' in p.find('#mini-player').text)
    check(p.js(f'return {AUDIO}.paused'), 'nothing plays in the browser')
    check(p.find('#output').get_attribute('value') == 'server', 'the output is still the server')


def test_a_second_tab_follows_the_daemon_and_takes_its_stream_over(w):
    """The tabs share one player event stream (web/app/stream.js): a second tab follows the
    daemon through the first one's; once the first is closed it opens the stream itself."""
    p = w.page
    first = p.d.current_window_handle
    p.d.switch_to.new_window('tab')
    p.go('/player')
    shown = lambda: seconds(p.find('#mini-player .mini-time').text)
    wait_for('the daemon item in the second tab', lambda: 'Six sixty' in p.find('#mini-player').text and 'server' in p.find('#mini-player').text)
    at = shown()
    wait_for("the second tab's time to move on (the first tab's stream)", lambda: shown() >= at + 2, timeout=10)
    locks = p.stream_locks()
    player = lambda names: [name for name in names if name.startswith('feedctl-stream:player:')]
    check(len(player(locks['held'])) == 1 and player(locks['pending']) == player(locks['held']),
          f'one player stream for the two tabs, the second waiting for it: {locks}')
    second = p.d.current_window_handle
    p.d.switch_to.window(first)
    p.d.close()
    p.d.switch_to.window(second)
    at = shown()
    wait_for("the second tab's time to move on with the stream its own", lambda: shown() >= at + 2, timeout=15)
    check(p.find('#output').get_attribute('value') == 'server', 'the output is still the server')


def test_switching_back_to_this_device(w):
    from selenium.webdriver.support.ui import Select
    p = w.page
    at = daemon_status(w).get('position', 0)
    Select(p.find('#output')).select_by_value('device')
    wait_for('the browser to play again', lambda: not p.js(f'return {AUDIO}.paused'), timeout=20)
    t = wait_for('the position', lambda: p.js(f'return {AUDIO}.currentTime'))
    check(t >= at - 2, f'the browser went on from the daemon position {at}: {t}')
    status = wait_for('the daemon to stop', lambda: (lambda s: s if s and s.get('status') != 'playing' else None)(daemon_status(w)), timeout=15)
    p.press('Pause', within='.transport')


def test_another_user_is_told_the_speakers_are_the_owners(w):
    from selenium.webdriver.support.ui import Select
    p = w.page
    p.js('document.querySelector(".topbar-actions button.text-button").click()')   # sign out
    wait_for('the login page', lambda: '/login' in p.d.current_url)
    p.login('alice', PASSWORD)
    p.go('/player')
    Select(p.find('#output')).select_by_value('server')
    note = wait_for('the server line', lambda: p.find('.output-note').text)
    check('owner' in note.lower(), f'the refusal is said as the server says it: {note!r}')
    check(Select(p.find('#output')).first_selected_option.get_attribute('value') == 'device', 'the output stays this device')
