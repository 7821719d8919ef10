"""The screens in `--open` mode (one owner, no login): Settings says so and has no sessions or
password to change; Channels adds a feed and Collections makes one without any sign-in; the
channel list comes a page (100) at a time."""
import urllib.request

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


def test_channels_come_a_page_at_a_time(w):
    outlines = []
    for n in range(105):
        url = w.files.write(f'many-{n:03}.xml', rss(f'Station {n:03}', [{'guid': f'm{n}', 'title': f'Only {n}', 'enclosure': f'{w.files.base}/m{n}.mp3'}]))
        outlines.append(f'<outline type="rss" text="Station {n:03}" xmlUrl="{url}"/>')
    opml = '<?xml version="1.0"?><opml version="2.0"><body>' + ''.join(outlines) + '</body></opml>'
    request = urllib.request.Request(w.server.base + '/api/channels/opml', data=opml.encode(), method='POST',
                                     headers={'Content-Type': 'text/x-opml'})
    with urllib.request.urlopen(request, timeout=120) as response:
        check(response.status == 200, f'the import: {response.status}')
    p = w.page
    p.go('/channels')
    wait_for('the first page', lambda: '106 channels, 100 shown' in p.find('main').text)
    check(len(p.all('.channel-card')) == 100, f'100 cards, not {len(p.all(".channel-card"))}')
    p.button('Show more channels').click()
    wait_for('the rest', lambda: len(p.all('.channel-card')) == 106)
    check(not p.find('main').text.count('shown'), 'all shown')
