"""The screens in `--open` mode (one owner, no login): Settings says so and has no sessions or
password to change; Channels adds a feed and Collections makes one without any sign-in."""
from harness import check, rss, wait_for

WORLD = {'open_mode': True}


def setup(w):
    w.feed_url = w.files.write('open.xml', rss('Open Radio', [{'guid': 'o1', 'title': 'Open one', 'enclosure': f'{w.files.base}/o1.mp3'}]))


def test_settings_in_open_mode(w):
    p = w.page
    p.go('/settings')
    wait_for('the open mode said', lambda: 'open mode' in p.find('main').text)
    check(not p.all('.session-list') and not p.all('input[name="current-password"]'), 'no sessions nor password in open mode')
    check(p.all('input[name="theme"]'), 'the theme is there')
    p.axe('settings-open')
    p.screenshots('settings-open')


def test_channels_and_collections_in_open_mode(w):
    p = w.page
    p.go('/channels')
    p.find('input[name="url"]').send_keys(w.feed_url)
    p.button('Add channel').click()
    wait_for('the channel added', lambda: 'Added Open Radio' in p.find('.report').text)
    check([c['name'] for c in w.server.api('GET', '/api/channels')['items']] == ['Open Radio'], 'the API has it')
    p.go('/collections')
    p.find('input[name="name"]').send_keys('Evening')
    p.button('Create collection').click()
    wait_for('the collection made', lambda: 'Evening' in [c['name'] for c in w.server.api('GET', '/api/collections')['items']])
