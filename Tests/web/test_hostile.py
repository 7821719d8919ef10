"""Hostile feed content (script elements, event-handler attributes, javascript: and data: links,
SVG, CSS, entity tricks) in titles, notes, links, artwork and the channel's name, rendered in the
feed list and on each item's page in a real browser: it shows as text and nothing runs."""
import time

from harness import PASSWORD, check, make_tone, wait_for

PAYLOADS = [
    ('<script>window.__pwned="title-script"</script>Script title', '<script>document.title="pwned"; window.__pwned="notes-script"</script>Script notes'),
    ('<img src=x onerror="window.__pwned=\'img\'">Image title', '<img src="x" onerror="window.__pwned=\'notes-img\'"> Image notes'),
    ('<svg onload="window.__pwned=\'svg\'"><circle r="5"/></svg>SVG title', '<svg><script>window.__pwned="svg-script"</script></svg>SVG notes'),
    ('&lt;b onmouseover="window.__pwned=\'entity\'"&gt;Entity title&lt;/b&gt;', '&amp;lt;script&amp;gt;window.__pwned="double"&amp;lt;/script&amp;gt; Entity notes'),
    ('<a href="javascript:window.__pwned=\'link\'">Link title</a>', '<a href="javascript:window.__pwned=\'notes-link\'">click</a> <a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">data</a> Link notes'),
    ('<style>body{display:none}</style>Style title', '<style>*{display:none}</style><iframe src="javascript:parent.__pwned=\'iframe\'"></iframe> Style notes'),
]
WORDS = ['Script title', 'Image title', 'SVG title', 'Entity title', 'Link title', 'Style title']


def cdata(text):
    return '<![CDATA[' + text.replace(']]>', ']]]]><![CDATA[>') + ']]>'


def setup(w):
    make_tone(w.files.directory / 'tone.mp3', 440, 30)
    items = []
    for n, (title, notes) in enumerate(PAYLOADS):
        link = "javascript:window.__pwned='item-link'" if n % 2 == 0 else 'data:text/html,<script>alert(1)</script>'
        image = "javascript:window.__pwned='art'" if n % 2 == 0 else 'data:image/svg+xml,<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'
        items.append(f'<item><guid>hostile-{n}</guid><title>{cdata(title)}</title><description>{cdata(notes)}</description>'
                     f'<link>{cdata(link)}</link><itunes:image href="{image.replace("<", "&lt;").replace(chr(34), "&quot;")}"/>'
                     f'<enclosure url="{w.files.base}/tone.mp3" length="1000" type="audio/mpeg"/>'
                     f'<pubDate>Mon, 0{n + 1} Nov 2026 10:00:00 GMT</pubDate></item>')
    xml = ('<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>'
           f'<title>{cdata("<img src=x onerror=window.__pwned=1>Evil <b>Channel</b>")}</title><link>http://127.0.0.1/</link>'
           f'<description>d</description>{"".join(items)}</channel></rss>')
    w.server.subscribe(w.files.write('hostile.xml', xml))
    w.page.login(w.server.user, PASSWORD)


INSPECT = r'''
const bad = [];
for (const el of document.querySelectorAll('*')) {
  for (const a of el.attributes) {
    if (a.name.startsWith('on')) bad.push(`${el.tagName} ${a.name}`);
    if (['href', 'src', 'xlink:href', 'action', 'formaction'].includes(a.name) && /^\s*(javascript|data|vbscript):/i.test(a.value)) bad.push(`${el.tagName} ${a.name}=${a.value.slice(0, 40)}`);
  }
}
const main = document.getElementById('main');
for (const tag of ['script', 'iframe', 'object', 'embed', 'style', 'link', 'meta', 'base', 'form', 'img:not(.row-art):not(.item-art)', 'b', 'a[href^="javascript"]'])
  for (const el of main.querySelectorAll(`.row ${tag}, .notes ${tag}, h1 ${tag}`)) bad.push(`<${tag}> from the feed`);
for (const tag of ['script', 'iframe', 'object', 'embed', 'style'])
  for (const el of main.querySelectorAll(tag)) bad.push(`<${tag}> in main`);
for (const el of document.querySelectorAll('svg')) if (!el.classList.contains('icon')) bad.push('svg from content');
return {pwned: window.__pwned, bad, title: document.title, text: main.innerText, visible: getComputedStyle(document.body).display};
'''


def inspect(p, where):
    state = p.js(INSPECT)
    check(state['pwned'] is None, f'{where}: content ran: window.__pwned = {state["pwned"]!r}')
    check(not state['bad'], f'{where}: markup from the feed became live: {state["bad"][:5]}')
    check(state['title'] != 'pwned' and state['visible'] != 'none', f'{where}: the page was changed: {state["title"]!r}')
    return state


def test_the_feed_list_shows_hostile_content_as_text(w):
    p = w.page
    p.go('/feed')
    wait_for('every hostile item in the list', lambda: all(word in p.find('main').text for word in WORDS))
    # Let anything that would load (an image's onerror, an SVG's onload) have its chance.
    time.sleep(1)
    for row in p.all('.row'):
        p.d.execute_script('arguments[0].dispatchEvent(new MouseEvent("mouseover", {bubbles: true}))', row)
    state = inspect(p, 'the feed')
    check('Evil' in state['text'] and 'Channel' in state['text'], 'the channel name shows as text')
    p.screenshots('hostile-feed')


def test_each_item_page_shows_hostile_notes_as_text(w):
    p = w.page
    ids = p.js('return [...document.querySelectorAll(".row")].map(r => r.dataset.itemId)')
    check(len(ids) == len(PAYLOADS), f'{len(PAYLOADS)} rows, not {len(ids)}')
    for item_id in ids:
        p.go(f'/item/{item_id}')
        wait_for(f'item {item_id}', lambda: p.all('.notes') and p.find('main h1').text)
        time.sleep(0.3)
        state = inspect(p, f'item {item_id}')
        check('notes' in state['text'].lower(), f'item {item_id}: its notes show: {state["text"][:200]!r}')
        links = p.js('return [...document.querySelectorAll("main a[href]")].map(a => a.href)')
        check(all(link.startswith(('http://', 'https://')) for link in links), f'item {item_id}: only http(s) links: {links}')
    p.screenshots('hostile-item')
