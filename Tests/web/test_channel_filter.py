"""The feed's channel filter: its channels are loaded only when the filter is first used (the feed
itself asks for none: a library may follow thousands), it then lists every channel by name and
narrows the feed to the one chosen; a feed opened with a channel in its address names that channel
with one small request, not the whole list."""
from harness import PASSWORD, check, rss, wait_for

SHOWS = ['Alpha Show', 'Bravo Show', 'Charlie Show']


def setup(w):
    w.channels = {}
    for show in SHOWS:
        slug = show.split()[0].lower()
        items = [{'guid': f'{slug}-{n}', 'title': f'{show} episode {n}', 'enclosure': f'{w.files.base}/{slug}{n}.mp3', 'duration': '600'}
                 for n in range(2)]
        w.channels[show] = w.server.subscribe(w.files.write(f'{slug}.xml', rss(show, items)))['id']
    w.page.login(w.server.user, PASSWORD)


def subscription_requests(p):
    """The paths (with queries) of every /api/subscriptions request this page made."""
    return p.js('return performance.getEntriesByType("resource").map(e => new URL(e.name))'
                '.filter(u => u.pathname.startsWith("/api/subscriptions")).map(u => u.pathname + u.search)')


def options(p):
    return p.js('return [...document.getElementById("feed-channel").options].map(o => o.textContent)')


def titles(p):
    return sorted(r.text.split('\n')[0] for r in p.all('.row'))


def test_the_channels_load_when_the_filter_is_first_used(w):
    from selenium.webdriver.support.ui import Select
    p = w.page
    p.go('/feed')
    wait_for('every row', lambda: len(titles(p)) == 6)
    check(subscription_requests(p) == [], f'the feed asked for no channels: {subscription_requests(p)}')
    check(options(p) == ['All channels'], f'the filter holds only "All channels" until used: {options(p)}')
    p.find('#feed-channel').click()
    wait_for('every channel in the filter, by name', lambda: options(p) == ['All channels'] + SHOWS)
    asked = subscription_requests(p)
    check(len(asked) == 1 and 'page=1' in asked[0] and 'per_page=' in asked[0], f'one paged request: {asked}')
    Select(p.find('#feed-channel')).select_by_visible_text('Bravo Show')
    wait_for('the Bravo episodes only', lambda: titles(p) == ['Bravo Show episode 0', 'Bravo Show episode 1']
             and f'channel={w.channels["Bravo Show"]}' in p.d.current_url)


def test_a_channel_in_the_address_is_named_without_the_whole_list(w):
    from selenium.webdriver.support.ui import Select
    p = w.page
    bravo = w.channels['Bravo Show']
    p.go(f'/feed?channel={bravo}')
    wait_for('the Bravo episodes only', lambda: titles(p) == ['Bravo Show episode 0', 'Bravo Show episode 1'])
    wait_for('the chosen channel named', lambda: p.js('const s = document.getElementById("feed-channel");'
                                                     'return s.value + " " + s.selectedOptions[0].textContent') == f'{bravo} Bravo Show')
    check(subscription_requests(p) == [f'/api/subscriptions/{bravo}'], f'only the chosen channel was asked for: {subscription_requests(p)}')
    p.find('#feed-channel').click()
    wait_for('every channel, the chosen one once', lambda: sorted(options(p)) == sorted(['All channels'] + SHOWS))
    check(p.js('return document.getElementById("feed-channel").value') == str(bravo), 'the choice stays')
    Select(p.find('#feed-channel')).select_by_value('')
    wait_for('every episode again', lambda: len(titles(p)) == 6 and 'channel=' not in p.d.current_url)
