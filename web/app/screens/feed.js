// The feed: modes, filters, search over the library, and an endless list that keeps a bounded
// number of rows in the page (only the rows near the viewport exist; the rest is one spacer).
import { h, itemRow } from '../ui.js';

const MODES = [
  ['newest', 'Newest', 'Everything, newest first'],
  ['catch_up', 'Catch Up', 'What you started, then what you missed in the last two weeks, a channel at a time'],
  ['short_form', 'Short Form', 'Three minutes or less'],
  ['discovery', 'Discovery', 'Never-started items of the channels you play least'],
  ['quick_watch', 'Quick Watch', 'Unwatched, up to 10 minutes'],
  ['deep_dive', 'Deep Dive', 'Unwatched, 30 minutes or more'],
];
const PLATFORMS = [['', 'All platforms'], ['podcast', 'Podcasts'], ['youtube', 'YouTube'], ['rumble', 'Rumble']];
const DURATIONS = [['', 'Any length'], ['short', 'Under 10 minutes'], ['medium', '10 to 30 minutes'], ['long', 'Over 30 minutes']];
/** Catch Up and Discovery choose their own lengths (the server refuses a duration with them). */
const OWN_LENGTHS = new Set(['catch_up', 'discovery']);
const PER_PAGE = 50;
const OVERSCAN = 8;
/** The channel filter's choices come in pages this long, when the filter is first opened. */
const CHANNELS_PER_PAGE = 200;

export default {
  title: 'Feed',
  mount(root, ctx) {
    const q = ctx.query;
    const state = {
      mode: MODES.some(([m]) => m === q.get('mode')) ? q.get('mode') : 'newest',
      platform: q.get('platform') || '',
      unwatched: q.get('unwatched') === '1',
      channel: q.get('channel') || '',
      duration: q.get('duration') || '',
      search: q.get('q') || '',
    };

    const search = h('input', { type: 'search', id: 'feed-search', name: 'q', value: state.search, placeholder: 'Search the library', 'aria-label': 'Search the library', enterkeyhint: 'search' });
    const modeButtons = MODES.map(([value, label, hint]) => h('button', {
      type: 'button', class: 'chip', title: hint, 'aria-pressed': String(value === state.mode),
      onclick: () => { state.mode = value; state.search = ''; search.value = ''; changed(); },
    }, label));
    const platform = select('feed-platform', 'Platform', PLATFORMS, state.platform, (v) => { state.platform = v; changed(); });
    const duration = select('feed-duration', 'Length', DURATIONS, state.duration, (v) => { state.duration = v; changed(); });
    const channel = select('feed-channel', 'Channel', [['', 'All channels']], state.channel, (v) => { state.channel = v; changed(); });
    const unwatched = h('input', { type: 'checkbox', id: 'feed-unwatched', checked: state.unwatched, onchange: () => { state.unwatched = unwatched.checked; changed(); } });
    const status = h('p', { class: 'list-status', role: 'status' });
    const list = h('div', { class: 'vlist', role: 'feed', 'aria-label': 'Items', 'aria-busy': 'false' });

    let searchTimer;
    search.addEventListener('input', () => { clearTimeout(searchTimer); searchTimer = setTimeout(() => { state.search = search.value.trim(); changed(); }, 300); });
    search.addEventListener('keydown', (e) => { if (e.key === 'Enter') { clearTimeout(searchTimer); state.search = search.value.trim(); changed(); } });

    root.append(
      h('div', { class: 'screen-head' },
        h('h1', {}, 'Feed'),
        h('form', { class: 'search', role: 'search', onsubmit: (e) => e.preventDefault() },
          search)),
      h('div', { class: 'chips', role: 'group', 'aria-label': 'Mode' }, modeButtons),
      // Folded on a phone (the list comes first), open on a wide screen.
      h('details', { class: 'filters-box', open: matchMedia('(min-width: 900px)').matches || activeFilters(state) > 0 },
        h('summary', {}, 'Filters'),
        h('div', { class: 'filters' },
          platform.field, channel.field, duration.field,
          h('p', { class: 'field check' }, unwatched, h('label', { for: 'feed-unwatched' }, 'Unwatched only')))),
      status, list);

    // The channel filter's choices: the chosen channel's name now (one small answer), every
    // channel only when the filter is first used (a library may follow thousands of channels).
    const channelChoices = new ChannelChoices(channel.select, ctx.api, state.channel);

    const view = new VirtualList(list, (item) => itemRow(item, ctx));
    let generation = 0;
    let page = 0, hasMore = true, loading = false;

    function query(pageNumber) {
      const params = { page: pageNumber, per_page: PER_PAGE };
      if (state.search) params.search = state.search;
      else params.mode = state.mode;
      if (state.platform) params.platform = state.platform;
      if (state.unwatched) params.filter = 'unwatched';
      if (state.channel) params.channel_ids = state.channel;
      if (state.duration && !state.search && !OWN_LENGTHS.has(state.mode)) {
        if (state.duration === 'short') params.duration_max = 599;
        if (state.duration === 'medium') { params.duration_min = 600; params.duration_max = 1800; }
        if (state.duration === 'long') params.duration_min = 1801;
      }
      return params;
    }

    async function loadMore() {
      if (loading || !hasMore) return;
      loading = true;
      const mine = generation;
      list.setAttribute('aria-busy', 'true');
      try {
        const answer = await ctx.api.get('/api/feed', query(page + 1));
        if (mine !== generation) return;
        page += 1;
        hasMore = !!answer.has_more;
        view.append((answer.items || []).map(listed));
        const total = answer.total ?? view.items.length;
        status.textContent = view.items.length === 0
          ? (state.search ? `Nothing in the library matches “${state.search}”.` : 'Nothing here yet: add channels in Channels, or try another mode or filter.')
          : `${total} item${total === 1 ? '' : 's'}`;
      } catch (error) {
        if (mine !== generation) return;
        hasMore = false;
        status.textContent = error.detail || String(error.message || error);
        status.classList.add('error');
      } finally {
        if (mine === generation) {
          loading = false;
          list.setAttribute('aria-busy', 'false');
          // An empty feed is no list (its role needs articles): the status line says why.
          list.hidden = view.items.length === 0;
          view.refresh();
        }
      }
    }
    view.onNearEnd = loadMore;

    function changed() {
      for (const b of modeButtons) b.setAttribute('aria-pressed', String(!state.search && b.textContent === MODES.find(([m]) => m === state.mode)[1]));
      // A search comes best match first, with no length filter; Catch Up and Discovery choose their own.
      duration.select.disabled = !!state.search || OWN_LENGTHS.has(state.mode);
      const params = new URLSearchParams();
      if (state.search) params.set('q', state.search);
      if (state.mode !== 'newest') params.set('mode', state.mode);
      if (state.platform) params.set('platform', state.platform);
      if (state.unwatched) params.set('unwatched', '1');
      if (state.channel) params.set('channel', state.channel);
      if (state.duration) params.set('duration', state.duration);
      const url = '/feed' + (params.toString() ? `?${params}` : '');
      if (url !== location.pathname + location.search) history.replaceState(null, '', url);
      generation += 1;
      page = 0; hasMore = true; loading = false;
      status.classList.remove('error');
      status.textContent = 'Loading…';
      loadMore();    // the request leaves before the page is laid out (reset reads the layout)
      view.reset();
    }

    // Another device or the CLI changed an item: show it (the event stream, once served).
    const offWatch = ctx.events.on('watch', (data) => view.update(data.item_id, { is_watched: data.watched, watch_progress_seconds: data.progress_seconds }));
    changed();
    return () => { view.destroy(); channelChoices.stop(); offWatch(); clearTimeout(searchTimer); };
  },
};

/**
 * What the list keeps of an item: what its row shows and its actions send (play, queue, save;
 * the channel, whose own speed the player applies), never its show notes or the rest (the list
 * may hold tens of thousands).
 */
export function listed(item) {
  const { id, title, channel_id, channel_name, thumbnail_url, duration_seconds, upload_date, is_watched, watch_progress_seconds,
    platform, video_id, video_url, audio_url } = item;
  return { id, title, channel_id, channel_name, thumbnail_url, duration_seconds, upload_date, is_watched, watch_progress_seconds,
    platform, video_id, video_url, audio_url };
}

/**
 * The channel filter's options. The chosen channel (from the address) is named at once; the
 * rest are loaded page by page, by name, the first time the filter is focused or pressed.
 */
class ChannelChoices {
  constructor(select, api, chosen) {
    this.select = select;
    this.api = api;
    this.stopped = false;
    this.started = false;
    if (chosen) {
      const option = h('option', { value: chosen }, `Channel ${chosen}`);
      select.append(option);
      select.value = chosen;
      api.get(`/api/subscriptions/${encodeURIComponent(chosen)}`)
        .then((c) => { option.textContent = channelName(c); }).catch(() => {});
    }
    this.start = () => this.loadAll();
    for (const kind of ['focus', 'pointerdown', 'keydown']) select.addEventListener(kind, this.start);
  }
  async loadAll() {
    if (this.started) return;
    this.started = true;
    for (const kind of ['focus', 'pointerdown', 'keydown']) this.select.removeEventListener(kind, this.start);
    this.select.setAttribute('aria-busy', 'true');
    try {
      for (let page = 1; !this.stopped; page++) {
        const answer = await this.api.get('/api/subscriptions', { page, per_page: CHANNELS_PER_PAGE });
        if (this.stopped) return;
        const options = [];
        for (const c of answer.items || []) {
          const value = String(c.id);
          const known = this.select.querySelector(`option[value="${CSS.escape(value)}"]`);
          if (known) known.textContent = channelName(c);
          else options.push(h('option', { value }, channelName(c)));
        }
        this.select.append(...options);
        if (!answer.has_more) break;
      }
    } catch { /* the filter keeps what it has: "All channels" at least */ }
    this.select.removeAttribute('aria-busy');
  }
  stop() { this.stopped = true; }
}

function channelName(c) {
  return c.name || c.title || `Channel ${c.id}`;
}

function activeFilters(state) {
  return [state.platform, state.channel, state.duration, state.unwatched].filter(Boolean).length;
}

function select(id, label, options, value, onchange) {
  const el = h('select', { id, name: id }, options.map(([v, text]) => h('option', { value: v }, text)));
  el.value = value;
  el.addEventListener('change', () => onchange(el.value));
  return { select: el, field: h('p', { class: 'field' }, h('label', { for: id }, label), el) };
}

/**
 * A list of any length that keeps in the page only the rows near the viewport (plus OVERSCAN on
 * each side): fixed-height rows (`--row-h`) placed on a spacer as tall as the whole list. Rows
 * already shown are never moved, so focus stays where it is. The items are plain data: no element
 * or listener exists for an item off screen. A scroll costs one layout read (the list's top) and
 * the rows that came into view; the next page is asked for while a screenful is still ahead.
 */
export class VirtualList {
  constructor(container, render) {
    this.container = container;
    this.render = render;
    this.items = [];
    this.shown = new Map();   // index -> wrapper element
    this.onNearEnd = () => {};
    this.frame = 0;
    this.rowH = 0;       // read from the style once, again after a resize
    this.height = -1;    // the spacer's height as last set
    this.schedule = () => { if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.refresh(); }); };
    this.resized = () => { this.rowH = 0; this.schedule(); };
    addEventListener('scroll', this.schedule, { passive: true });
    addEventListener('resize', this.resized);
    container.addEventListener('focusin', this.schedule);
  }
  rowHeight() {
    if (!this.rowH) this.rowH = parseFloat(getComputedStyle(this.container).getPropertyValue('--row-h')) || 104;
    return this.rowH;
  }
  reset() {
    this.items = [];
    for (const el of this.shown.values()) el.remove();
    this.shown.clear();
    this.refresh();
  }
  append(items) { this.items.push(...items); this.refresh(); }
  update(id, changes) {
    const index = this.items.findIndex((item) => item.id === id);
    if (index < 0) return;
    Object.assign(this.items[index], changes);
    const wrapper = this.shown.get(index);
    if (wrapper) wrapper.replaceChildren(this.render(this.items[index]));
  }
  refresh() {
    const rowH = this.rowHeight();
    // Read the layout before changing it (a write then a read would lay the page out twice).
    const top = this.container.getBoundingClientRect().top;
    const height = this.items.length * rowH;
    if (height !== this.height) { this.height = height; this.container.style.height = `${height}px`; }
    const first = Math.max(0, Math.floor(-top / rowH) - OVERSCAN);
    const last = Math.min(this.items.length - 1, Math.ceil((innerHeight - top) / rowH) + OVERSCAN);
    for (const [index, el] of this.shown) {
      if (index < first || index > last) {
        if (el.contains(document.activeElement)) continue;   // the focused row stays until focus moves
        el.remove();
        this.shown.delete(index);
      }
    }
    let previous = null;
    for (let index = first; index <= last; index++) {
      let el = this.shown.get(index);
      if (!el) {
        el = document.createElement('div');
        el.className = 'vrow';
        el.style.transform = `translateY(${index * rowH}px)`;
        el.append(this.render(this.items[index]));
        if (previous) previous.after(el);
        else {
          // Only a kept focused row can sit outside the window: keep the DOM in index order.
          const kept = [...this.shown.keys()];
          const below = Math.max(-1, ...kept.filter((i) => i < index));
          const above = Math.min(Infinity, ...kept.filter((i) => i > index));
          if (below >= 0) this.shown.get(below).after(el);
          else if (above !== Infinity) this.shown.get(above).before(el);
          else this.container.append(el);
        }
        this.shown.set(index, el);
      }
      previous = el;
    }
    // A screenful (and the overscan) before the end, the next page is on its way.
    const ahead = Math.ceil(innerHeight / rowH) + OVERSCAN;
    if (last >= this.items.length - 1 - ahead) this.onNearEnd();
  }
  destroy() {
    removeEventListener('scroll', this.schedule);
    removeEventListener('resize', this.resized);
    cancelAnimationFrame(this.frame);
  }
}
