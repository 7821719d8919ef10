// Saved: what the person saved, newest first, each with notes they can edit.
import { h, formatDuration, relativeDate, artwork, safeURL } from '../ui.js';
import { busy, playItem, problem, reloadOn, savedTabs } from './parts.js';

const PAGE = 50;

export default {
  title: 'Saved',
  async mount(root, ctx) {
    const filter = h('select', { name: 'filter' }, h('option', { value: '' }, 'All'),
                     h('option', { value: 'false' }, 'Not watched'), h('option', { value: 'true' }, 'Watched'));
    const filterLabel = h('label', { for: 'saved-filter' }, 'Show');
    filter.id = 'saved-filter';
    const count = h('p', { class: 'meta', role: 'status' });
    const list = h('ul', { class: 'saved-list', 'aria-label': 'Saved' });
    const more = h('button', { type: 'button', hidden: '' }, 'Load more');
    root.replaceChildren(savedTabs('/saved'), h('h1', {}, 'Saved'), h('div', { class: 'toolbar' }, filterLabel, filter), count, list, more);

    let offset = 0;
    let total = 0;
    async function load(reset) {
      if (reset) { offset = 0; list.replaceChildren(); }
      const query = { limit: PAGE, offset };
      if (filter.value) query.is_watched = filter.value;
      const page = await ctx.api.get('/api/saved-videos', query);
      total = page.total;
      for (const saved of page.items) list.append(savedRow(saved, ctx, () => { total -= 1; showCount(); }));
      offset += page.items.length;
      more.hidden = offset >= total || page.items.length === 0;
      showCount();
      if (!total) list.replaceChildren(h('li', { class: 'empty' }, 'Nothing saved yet: save an episode from the feed or Discover.'));
    }
    function showCount() { count.textContent = `${total} saved`; }

    filter.addEventListener('change', () => load(true).catch((e) => ctx.toast(problem(e))));
    more.addEventListener('click', () => busy(more, () => load(false), ctx.toast));
    try {
      await load(true);
    } catch (error) {
      list.replaceChildren(h('li', { class: 'error', role: 'alert' }, problem(error)));
    }
    // Another device's save or unsave; a note being typed here is not thrown away for it.
    return reloadOn(ctx, ['saved', 'reset'], async () => {
      if (list.contains(document.activeElement) && document.activeElement.tagName === 'TEXTAREA') return;
      await load(true);
    });
  },
};

function savedRow(saved, ctx, onRemoved) {
  const title = saved.title || saved.video_url;
  const link = saved.item_id != null ? `/item/${saved.item_id}` : safeURL(saved.video_url);
  const heading = h('h2', { class: 'title' }, link
    ? h('a', saved.item_id != null ? { href: link } : { href: link, rel: 'noopener noreferrer nofollow', target: '_blank' }, title)
    : title);
  const meta = [saved.channel_name, saved.duration_seconds ? formatDuration(saved.duration_seconds) : null,
                `saved ${relativeDate(saved.saved_at)}`].filter(Boolean).join(' · ');

  const actions = h('div', { class: 'actions' });
  if (saved.item_id != null) {
    const play = h('button', { type: 'button', 'aria-label': `Play ${title}` }, 'Play');
    play.addEventListener('click', () => busy(play, () => playItem(ctx, saved.item_id), ctx.toast));
    actions.append(play);
  }
  let watched = saved.is_watched;
  const watch = h('button', { type: 'button' });
  const showWatched = () => {
    watch.textContent = watched ? 'Mark unwatched' : 'Mark watched';
    watch.setAttribute('aria-label', `${watched ? 'Mark unwatched' : 'Mark watched'}: ${title}`);
  };
  showWatched();
  watch.addEventListener('click', () => busy(watch, async () => {
    await ctx.api.send('PUT', `/api/saved-videos/${saved.id}/${watched ? 'unwatched' : 'watched'}`);
    watched = !watched;
    showWatched();
  }, ctx.toast));
  const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${title} from saved` }, 'Remove');
  const row = h('li', { class: 'saved', 'data-saved-id': String(saved.id) });
  remove.addEventListener('click', () => busy(remove, async () => {
    await ctx.api.send('DELETE', `/api/saved-videos/${saved.id}`);
    row.remove();
    onRemoved();
    ctx.toast(`Removed “${title}” from saved`);
  }, ctx.toast));
  actions.append(watch, remove);

  // Notes: edited in place, saved with the button (or Ctrl/⌘+Enter).
  const notesID = `notes-${saved.id}`;
  const notes = h('textarea', { id: notesID, name: 'notes', rows: '2' });
  notes.value = saved.notes || '';
  const saveNotes = h('button', { type: 'submit', 'aria-label': `Save notes for ${title}` }, 'Save notes');
  const noteState = h('span', { class: 'meta', role: 'status' });
  const form = h('form', { class: 'notes' }, h('label', { for: notesID }, `Notes for ${title}`), notes,
                 h('div', { class: 'actions' }, saveNotes, noteState));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(saveNotes, async () => {
      const updated = await ctx.api.send('PUT', `/api/saved-videos/${saved.id}`, { notes: notes.value });
      notes.value = updated.notes || '';
      noteState.textContent = 'Notes saved';
    }, ctx.toast);
  });
  notes.addEventListener('input', () => { noteState.textContent = 'Not saved yet'; });
  notes.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });

  row.append(artwork(saved.thumbnail_url, 'art'), h('div', { class: 'card-body' }, heading, h('p', { class: 'meta' }, meta), actions, form));
  return row;
}
