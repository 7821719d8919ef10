"""Publishing and following (issue 29), two users in two browsers: the owner publishes a
collection and sees its link; bob follows it by pasting that link under Followed (listed apart
from his own collections, with its owner), opens the public page, plays an item from its
enclosure, sees the owner's change arrive without a reload, then sees it withdrawn when the owner
unpublishes. The routes, isolation and 410s: APIServerTests.PublishedCollectionTests and
FollowedCollectionTests."""
from harness import PASSWORD, Page, browser, check, make_tone, rss, wait_for

TITLES = ['Shared one', 'Shared two']
NAME = 'Road <b>trip</b>'


def setup(w):
    make_tone(w.files.directory / 's1.mp3', 660, 60)
    items = [{'guid': f's-{n}', 'title': t, 'enclosure': f'{w.files.base}/s{n}.mp3', 'duration': '60'} for n, t in enumerate(TITLES)]
    w.server.subscribe(w.files.write('shared.xml', rss('Shared Show', items)))
    ids = {i['title']: i['id'] for i in w.server.api('GET', '/api/feed')['items']}
    w.collection = w.server.api('POST', '/api/collections', {'name': NAME})['id']
    for title in TITLES:
        w.server.api('POST', f'/api/collections/{w.collection}/items', {'item_id': ids[title]})
    w.server.cli('user', 'add', 'bob', '--password-stdin', input=PASSWORD + '\n')
    w.page.login(w.server.user, PASSWORD)
    w.other = Page(browser(w.pulse.env), w.server.base, w.out)   # bob's browser, its own cookies
    w.other.login('bob', PASSWORD)


def test_one_publishes_the_other_follows_sees_a_change_arrive_then_the_withdrawal(w):
    p, q = w.page, w.other
    try:
        p.go(f'/collections/{w.collection}')
        p.press('Publish')
        link = wait_for('the link shown', lambda: p.find('input.share-link').get_attribute('value'))
        check(link.startswith(f'{w.server.base}/shared/'), f'a whole link: {link}')
        p.screenshots('collection-published')

        # Bob pastes the link under Followed: listed with its owner, apart from his own collections.
        q.go('/followed')
        q.find('input[name="url"]').send_keys(link)
        q.press('Follow')
        row = wait_for('the followed collection', lambda: q.find('.followed-list li.followed'))
        check('by owner' in row.text and '2 items' in row.text, row.text)
        check(NAME in row.text and not q.all('.followed-list b'), 'its name is text, never markup')
        q.go('/collections')
        wait_for("bob's own collections, empty", lambda: q.find('.collection-list .empty'))
        q.go('/followed')
        q.find('.followed-list a').click()
        wait_for('its items', lambda: len(q.all('.followed-items .followed-item')) == 2)
        check('null' not in q.find('main').text, f'nothing shown as "null": {q.find("main").text}')
        q.axe('followed-collection')
        q.screenshots('followed-collection')

        # Its item plays from its enclosure in bob's browser.
        q.press('Play Shared two')
        wait_for('the enclosure playing', lambda: q.js(
            'const a = document.getElementById("player-audio"); return !a.paused && a.currentTime > 0.5 && a.currentSrc.endsWith("/s1.mp3")'),
            timeout=20)

        # The owner removes an item: bob's page shows it without a reload.
        p.press(f'Remove {TITLES[0]} from {NAME}')
        wait_for("the owner's change in bob's browser", lambda: len(q.all('.followed-items .followed-item')) == 1, timeout=10)
        check(TITLES[1] in q.find('.followed-items').text, 'the other item stays')

        # The public page, without anyone's session (a fresh browser).
        stranger = browser(w.pulse.env)
        try:
            stranger.get(link)
            heading = wait_for('the public page', lambda: stranger.find_element('css selector', 'h1').text)
            check(heading == NAME, f'the page shows the name as text: {heading!r}')
            check(len(stranger.find_elements('css selector', 'audio')) == 1, 'its one item plays in the page')
        finally:
            stranger.quit()

        # The owner unpublishes: bob sees it withdrawn, live.
        p.press('Unpublish')
        p.find('dialog[open] button[value="ok"]').click()
        wait_for('the owner sees it unpublished', lambda: p.button('Publish', within='.share', timeout=2))
        notice = wait_for("the withdrawal in bob's browser", lambda: q.find('.withdrawn', timeout=2).text, timeout=10)
        check('Withdrawn by its owner' in notice, notice)
        check(not q.all('.followed-items'), 'its items are gone')
        check('null' not in q.find('main').text, f'nothing shown as "null": {q.find("main").text}')
        q.go('/followed')
        wait_for('marked withdrawn in the list', lambda: 'Withdrawn' in q.find('.followed-list li.followed').text)
        q.screenshots('followed-withdrawn')
    finally:
        q.d.quit()
