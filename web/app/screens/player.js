// The full player: artwork, scrubber, −15/+15 s, speed, sleep timer, chapters, output, up next.
import { h, iconButton, icon, artwork, formatDuration } from '../ui.js';
import { RATE_CHOICES, skipName, nameSkip } from '../player.js';

const SLEEP = [['', 'Off'], ['5', '5 minutes'], ['15', '15 minutes'], ['30', '30 minutes'], ['45', '45 minutes'], ['60', '1 hour'], ['end', 'End of this item']];

export default {
  title: 'Player',
  mount(root, ctx) {
    const p = ctx.player;
    const scrubber = h('input', { type: 'range', class: 'scrubber', id: 'scrubber', min: '0', max: '0', step: '1', value: '0', 'aria-label': 'Position' });
    const elapsed = h('span'), remaining = h('span');
    let dragging = false;
    scrubber.addEventListener('input', () => { dragging = true; elapsed.textContent = formatDuration(Number(scrubber.value)); });
    scrubber.addEventListener('change', () => { dragging = false; p.seek(Number(scrubber.value)); });
    const playButton = h('button', { type: 'button', class: 'icon-button big', onclick: () => p.toggle() });
    const backButton = iconButton('back', skipName('Back', p.skips.skipBack), () => p.back());
    const forwardButton = iconButton('forward', skipName('Forward', p.skips.skipForward), () => p.forward());
    const rate = h('select', { id: 'rate', onchange: () => p.setRate(Number(rate.value)) },
      RATE_CHOICES.map((r) => h('option', { value: String(r) }, `${r}×`)));
    const sleep = h('select', { id: 'sleep', onchange: () => p.setSleep(sleep.value === 'end' ? 'end' : Number(sleep.value) || null) },
      SLEEP.map(([v, t]) => h('option', { value: v }, t)));
    const output = h('select', { id: 'output', onchange: async () => { await p.setOutput(output.value); output.value = p.output; } },
      h('option', { value: 'device' }, 'This device'), h('option', { value: 'server' }, 'The server\'s speakers'));
    const outputNote = h('p', { class: 'output-note', role: 'status' });
    const head = h('div');
    const chapterBox = h('div');
    const queueBox = h('section', { 'aria-labelledby': 'upnext' });

    const offError = (e) => { outputNote.textContent = e.detail; };
    p.addEventListener('error', offError);

    const renderTime = () => {
      const d = p.duration, pos = p.position;
      scrubber.max = String(Math.floor(d || 0));
      if (!dragging) { scrubber.value = String(Math.floor(pos)); elapsed.textContent = formatDuration(pos); }
      scrubber.setAttribute('aria-valuetext', `${formatDuration(pos)} of ${formatDuration(d)}`);
      remaining.textContent = d ? `-${formatDuration(Math.max(0, d - pos))}` : '';
    };
    const render = () => {
      const item = p.current;
      head.replaceChildren(item
        ? h('div', {}, artwork(item.thumbnail_url, 'item-art'), h('h1', {}, item.id != null ? h('a', { href: `/item/${item.id}`, 'data-link': true }, item.title) : item.title), h('p', { class: 'hint' }, item.channel_name || ''))
        : h('div', {}, h('h1', {}, 'Nothing playing'), h('p', {}, 'Pick something in the ', h('a', { href: '/feed', 'data-link': true }, 'feed'), '.')));
      const label = p.playing ? 'Pause' : 'Play';
      playButton.setAttribute('aria-label', label);
      playButton.title = label;
      playButton.replaceChildren(icon(p.playing ? 'pause' : 'play'));
      nameSkip(backButton, skipName('Back', p.skips.skipBack));
      nameSkip(forwardButton, skipName('Forward', p.skips.skipForward));
      if (!RATE_CHOICES.includes(p.currentRate) && ![...rate.options].some((o) => o.value === String(p.currentRate))) rate.append(h('option', { value: String(p.currentRate) }, `${p.currentRate}×`));
      rate.value = String(p.currentRate);
      output.value = p.output;
      if (p.sleepAt === null) sleep.value = '';
      const chapters = p.remote?.chapter && p.output === 'server' ? [p.remote.chapter] : [];
      chapterBox.replaceChildren(...(Array.isArray(item?.chapters) && item.chapters.length
        ? [h('h2', {}, 'Chapters'), h('ol', { class: 'chapters' }, item.chapters.map((c) => { const start = Number(c.start_seconds ?? c.start ?? 0); return h('li', {}, h('button', { type: 'button', onclick: () => p.seek(start) }, `${formatDuration(start)} ${c.title || ''}`)); }))]
        : chapters.length ? [h('p', { class: 'hint' }, `Chapter: ${typeof chapters[0] === 'string' ? chapters[0] : chapters[0].title || ''}`)] : []));
      queueBox.replaceChildren(h('h2', { id: 'upnext' }, 'Up next'),
        p.queue.length ? h('ol', { class: 'queue' }, p.queue.map((q, i) => h('li', {},
          h('a', { class: 'q-title', href: `/item/${q.id}`, 'data-link': true }, q.title),
          iconButton('play', `Play ${q.title}`, () => p.play(q)),
          iconButton('up', `Move ${q.title} up`, () => p.moveInQueue(i, -1), { disabled: i === 0 }),
          iconButton('down', `Move ${q.title} down`, () => p.moveInQueue(i, 1), { disabled: i === p.queue.length - 1 }),
          iconButton('close', `Remove ${q.title} from the queue`, () => p.removeFromQueue(i)))))
          : h('p', { class: 'hint' }, 'The queue is empty: “Add to queue” on any item puts it here.'));
      renderTime();
    };

    root.append(h('div', { class: 'player-full' },
      head,
      scrubber,
      h('div', { class: 'times' }, elapsed, remaining),
      h('div', { class: 'transport' },
        iconButton('prev', 'Previous', () => p.previous()),
        backButton,
        playButton,
        forwardButton,
        iconButton('next', 'Next', () => p.next())),
      h('div', { class: 'player-options' },
        h('p', { class: 'field' }, h('label', { for: 'rate' }, 'Speed'), rate),
        h('p', { class: 'field' }, h('label', { for: 'sleep' }, 'Sleep timer'), sleep),
        h('p', { class: 'field' }, h('label', { for: 'output' }, 'Play on'), output)),
      outputNote,
      chapterBox,
      queueBox));
    p.addEventListener('change', render);
    p.addEventListener('time', renderTime);
    render();
    return () => {
      p.removeEventListener('change', render);
      p.removeEventListener('time', renderTime);
      p.removeEventListener('error', offError);
    };
  },
};
