// Downloads: the episodes kept in this browser for offline, with their sizes; play or remove each.
import { h, iconButton, formatDuration } from '../ui.js';
import { offline, formatSize } from '../offline.js';

export default {
  title: 'Downloads',
  async mount(root, ctx) {
    const list = h('ul', { class: 'downloads', 'aria-label': 'Downloaded episodes' });
    const summary = h('p', { class: 'list-status', role: 'status' });
    const usage = h('p', { class: 'hint' });
    root.append(h('h1', {}, 'Downloads'),
      h('p', { class: 'hint' }, 'Episodes kept in this browser play with no network. Download one from its page.'),
      summary, list, usage);
    const render = async () => {
      const all = await offline.downloads();
      const total = all.reduce((sum, d) => sum + (d.size || 0), 0);
      summary.textContent = all.length ? `${all.length} episode${all.length === 1 ? '' : 's'}, ${formatSize(total)}` : 'Nothing downloaded yet.';
      list.replaceChildren(...all.map((d) => h('li', { class: 'download', dataset: { itemId: String(d.id) } },
        h('div', { class: 'download-text' },
          h('a', { href: `/item/${d.id}`, 'data-link': true }, d.title || `Item ${d.id}`),
          h('div', { class: 'hint' }, [d.channel_name, formatDuration(d.duration_seconds), formatSize(d.size)].filter(Boolean).join(' · '))),
        iconButton('play', `Play ${d.title || ''}`.trim(), () => ctx.player.play(d)),
        iconButton('close', `Remove the download of ${d.title || `item ${d.id}`}`, async () => {
          await offline.removeDownload(d.id);
          ctx.toast('Download removed');
          render();
        }))));
      try {
        const estimate = await navigator.storage?.estimate?.();
        usage.textContent = estimate?.quota ? `This browser lets the app keep up to ${formatSize(estimate.quota)}.` : '';
      } catch { usage.textContent = ''; }
    };
    await render();
  },
};
