// History: what the person played, latest play first, a page at a time.
import { h, itemRow } from '../ui.js';
import { busy, problem, reloadOn, savedTabs } from './parts.js';

const PER_PAGE = 50;

export default {
  title: 'History',
  async mount(root, ctx) {
    const finished = h('input', { type: 'checkbox', id: 'history-finished', name: 'include_completed', checked: '' });
    const list = h('ul', { class: 'item-list', 'aria-label': 'History' });
    const more = h('button', { type: 'button', hidden: '' }, 'Load more');
    const count = h('p', { class: 'meta', role: 'status' });
    root.replaceChildren(savedTabs('/history'), h('h1', {}, 'History'),
                         h('div', { class: 'toolbar' }, finished, h('label', { for: 'history-finished' }, 'Include finished episodes')),
                         count, list, more);

    let page = 0;
    async function load(reset) {
      if (reset) { page = 0; list.replaceChildren(); }
      const answer = await ctx.api.get('/api/feed/history',
                                       { page: page + 1, per_page: PER_PAGE, include_completed: String(finished.checked) });
      page += 1;
      for (const item of answer.items) list.append(h('li', {}, itemRow(item, ctx)));
      more.hidden = !answer.has_more;
      count.textContent = `${answer.total} played`;
      if (!answer.total) list.replaceChildren(h('li', { class: 'empty' }, 'Nothing played yet.'));
    }
    finished.addEventListener('change', () => load(true).catch((error) => ctx.toast(problem(error))));
    more.addEventListener('click', () => busy(more, () => load(false), ctx.toast));
    try { await load(true); } catch (error) { list.replaceChildren(h('li', { class: 'error', role: 'alert' }, problem(error))); }
    return reloadOn(ctx, ['reset'], () => load(true));
  },
};
