// An item's page: artwork, title, channel, date, length, progress, show notes (the server's
// sanitized HTML when it gives it, else the plain text), chapters (a click seeks), transcript
// link, the server's download of it.
import { h, iconButton, artwork, formatDuration, relativeDate, safeURL, addToCollection, saveItem, setWatched } from '../ui.js';
import { downloadControl } from '../offline.js';   // offline hook

export default {
  title: 'Item',
  async mount(root, ctx) {
    const id = Number(ctx.params.id);
    if (!Number.isInteger(id) || id <= 0) { root.append(h('h1', {}, 'Not found'), h('p', {}, 'No such item.')); return; }
    const item = await ctx.api.get(`/api/feed/items/${id}`);
    document.title = `${item.title} · feedctl`;
    const render = () => {
      const progress = item.is_watched ? 'Watched'
        : item.watch_progress_seconds ? `Played ${formatDuration(item.watch_progress_seconds)}${item.duration_seconds ? ` of ${formatDuration(item.duration_seconds)}` : ''}` : 'Not started';
      const original = safeURL(item.video_url);
      const transcript = safeURL(item.transcript_url);
      root.replaceChildren(...[
        h('div', { class: 'item-head' },
          artwork(item.thumbnail_url, 'item-art'),
          h('div', { class: 'item-info' },
            h('h1', {}, item.title),
            h('p', {}, h('a', { href: `/channels/${item.channel_id}`, 'data-link': true }, item.channel_name || 'Channel')),
            h('p', { class: 'hint' }, [relativeDate(item.upload_date), formatDuration(item.duration_seconds), item.platform].filter(Boolean).join(' · ')),
            h('p', { class: 'progress-line' }, progress),
            h('p', { class: 'hint' }, downloadState(item)),
            h('p', {}, downloadControl(item, ctx)),   // offline hook: Download for offline
            h('div', { class: 'item-actions' },
              h('button', { type: 'button', class: 'primary', onclick: () => ctx.player.play(item) }, item.watch_progress_seconds && !item.is_watched ? 'Resume' : 'Play'),
              iconButton('queue', 'Add to queue', () => { ctx.player.enqueue(item); ctx.toast('Added to the queue'); }),
              iconButton(item.is_watched ? 'check' : 'circle', item.is_watched ? 'Mark unwatched' : 'Mark watched',
                async () => { await setWatched(item, !item.is_watched, ctx); render(); }, { 'aria-pressed': String(!!item.is_watched) }),
              iconButton('bookmark', 'Save', () => saveItem(item, ctx)),
              iconButton('folder', 'Add to collection', () => addToCollection(item, ctx)),
              original ? h('a', { href: original, target: '_blank', rel: 'noopener noreferrer', class: 'text-link' }, 'Open the original') : null,
              transcript ? h('a', { href: transcript, target: '_blank', rel: 'noopener noreferrer' }, 'Transcript') : null))),
        chapters(item, ctx),
        h('h2', {}, 'Show notes'),
        notes(item)].filter(Boolean));
    };
    render();
    const off = ctx.events.on('watch', (data) => {
      if (data.item_id !== id) return;
      Object.assign(item, { is_watched: data.watched, watch_progress_seconds: data.progress_seconds });
      render();
    });
    return off;
  },
};

/** The server-sanitized HTML (the notes part), else the description as text. */
function notes(item) {
  if (typeof item.description_html === 'string' && item.description_html) {
    const box = h('div', { class: 'notes' });
    box.innerHTML = item.description_html;   // sanitized by the server's allowlist (WEB.md)
    return box;
  }
  return h('div', { class: 'notes notes-text' }, item.description || 'No show notes.');
}

function chapters(item, ctx) {
  const list = Array.isArray(item.chapters) ? item.chapters : [];
  if (!list.length) return null;
  return h('section', {}, h('h2', {}, 'Chapters'),
    h('ol', { class: 'chapters' }, list.map((c) => {
      const start = Number(c.start_seconds ?? c.start ?? 0);
      const link = safeURL(c.url);
      return h('li', {}, h('button', {
        type: 'button',
        'data-start': String(start),
        onclick: () => (ctx.player.current?.id === item.id ? ctx.player.seek(start) : ctx.player.play(item, { start })),
      }, `${formatDuration(start)} ${c.title || ''}`),
      link ? h('a', { href: link, target: '_blank', rel: 'noopener noreferrer nofollow', class: 'text-link' }, ' (link)') : null);
    })));
}

/** The server's download of the item (`download` {state, bytes}), else where it streams from. */
function downloadState(item) {
  const d = item.download;
  if (d?.state === 'downloaded') return `Downloaded on the server${d.bytes ? ` (${formatBytes(d.bytes)})` : ''}`;
  if (d?.state === 'partial') return `Partly downloaded on the server${d.bytes ? ` (${formatBytes(d.bytes)} so far)` : ''}`;
  const source = item.audio_url ? 'streams from the feed' : 'streams from its site';
  return d ? `Not downloaded: ${source}` : source[0].toUpperCase() + source.slice(1);
}

function formatBytes(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} KB`;
  return `${n} bytes`;
}
