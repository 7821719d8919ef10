// Small DOM helpers and the pieces screens share. Feed content is untrusted: it only ever
// becomes text nodes or checked attribute values (never innerHTML), except the server-sanitized
// `description_html` on the item page.

const SVG = 'http://www.w3.org/2000/svg';

/**
 * h('button', {class: 'x', onclick: fn, 'aria-label': 'Play'}, 'text', child, [more])
 * Strings become text nodes; null/false children are skipped; `on*` functions become listeners;
 * `dataset`/`style` objects are assigned; boolean true sets an empty attribute.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'style') Object.assign(el.style, value);
    else if (key === 'class') el.className = value;
    else if (key in el && typeof value !== 'string' && key !== 'list') el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const ICONS = {
  play: 'M8 5v14l11-7z',
  pause: 'M6 5h4v14H6zm8 0h4v14h-4z',
  queue: 'M3 6h12v2H3zm0 5h12v2H3zm0 5h8v2H3zm14-1v-3h2v3h3v2h-3v3h-2v-3h-3v-2z',
  check: 'M9 16.2 4.8 12l-1.4 1.4L9 19 21 7l-1.4-1.4z',
  circle: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zm0 2a7 7 0 1 1 0 14 7 7 0 0 1 0-14z',
  bookmark: 'M6 3h12v18l-6-4-6 4z',
  folder: 'M3 6h7l2 2h9v11H3zm11 4v3h-3v2h3v3h2v-3h3v-2h-3v-3z',
  back: 'M12 5V1L7 6l5 5V7a6 6 0 1 1-6 6H4a8 8 0 1 0 8-8z',
  forward: 'M12 5V1l5 5-5 5V7a6 6 0 1 0 6 6h2a8 8 0 1 1-8-8z',
  next: 'M6 6l8.5 6L6 18zm10 0h2v12h-2z',
  prev: 'M6 6h2v12H6zm3.5 6L18 6v12z',
  close: 'M19 6.4 17.6 5 12 10.6 6.4 5 5 6.4 10.6 12 5 17.6 6.4 19 12 13.4 17.6 19 19 17.6 13.4 12z',
  up: 'M7 14l5-5 5 5z',
  down: 'M7 10l5 5 5-5z',
  open: 'M14 3h7v7h-2V6.4l-9.3 9.3-1.4-1.4L17.6 5H14zM5 5h6v2H5v12h12v-6h2v8H3V5z',
  expand: 'M7 14l5-5 5 5z',
  theme: 'M12 3a9 9 0 1 0 9 9 7 7 0 0 1-9-9z',
  users: 'M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm0 2c-3.3 0-7 1.7-7 4v3h14v-3c0-2.3-3.7-4-7-4zm8-2a3 3 0 1 0 0-6 3 3 0 0 0 0 6zm1 2c-.5 0-1 0-1.5.1 1.5.9 2.5 2.2 2.5 3.9v3h4v-3c0-2.2-2.7-4-5-4z',
  keyboard: 'M3 6h18v12H3zm2 2v2h2V8zm3 0v2h2V8zm3 0v2h2V8zm3 0v2h2V8zm3 0v2h2V8zM7 14v2h10v-2z',
};

/** An SVG icon, hidden from assistive technology (its button carries the name). */
export function icon(name) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.setAttribute('class', 'icon');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', ICONS[name] || ICONS.circle);
  svg.append(path);
  return svg;
}

/** A button with an icon and the accessible name a person would say. */
export function iconButton(name, label, onclick, attrs = {}) {
  return h('button', { type: 'button', class: 'icon-button', 'aria-label': label, title: label, onclick, ...attrs }, icon(name));
}

/** 3725 → "1:02:05", 65 → "1:05"; empty for unknown. */
export function formatDuration(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(Number(seconds))) return '';
  let s = Math.max(0, Math.floor(Number(seconds)));
  const hours = Math.floor(s / 3600); s -= hours * 3600;
  const minutes = Math.floor(s / 60); s -= minutes * 60;
  const pad = (n) => String(n).padStart(2, '0');
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(s)}` : `${minutes}:${pad(s)}`;
}

const relative = typeof Intl !== 'undefined' && Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }) : null;

/** "3 days ago", "yesterday"; the date for anything older than a month. */
export function relativeDate(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const seconds = (date.getTime() - Date.now()) / 1000;
  const abs = Math.abs(seconds);
  if (!relative || abs > 30 * 86400) return date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86400), 'day');
}

/** An http(s) URL as it is, else null: feed links never become javascript: or data: hrefs. */
export function safeURL(text) {
  if (typeof text !== 'string') return null;
  try {
    const u = new URL(text, location.origin);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch { return null; }
}

/** A modal <dialog>; resolves with the value of the button that closed it ('' on Escape). */
export function showDialog(title, body, buttons) {
  return new Promise((resolve) => {
    const heading = h('h2', { id: `dlg-${Math.random().toString(36).slice(2)}` }, title);
    const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': heading.id },
      h('form', { method: 'dialog' }, heading, body,
        h('div', { class: 'dialog-buttons' },
          buttons.map(([label, value, primary]) => h('button', { value, class: primary ? 'primary' : '' }, label)))));
    dialog.addEventListener('close', () => { resolve(dialog.returnValue); dialog.remove(); });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** Asks yes or no; resolves true for yes. */
export async function confirmDialog(text, { ok = 'OK', cancel = 'Cancel' } = {}) {
  return (await showDialog('Are you sure?', h('p', {}, text), [[cancel, 'cancel'], [ok, 'ok', true]])) === 'ok';
}

let toastHost = null;
/** A short line at the bottom of the screen, read out by screen readers. */
export function toast(text) {
  toastHost = toastHost || document.getElementById('toasts');
  if (!toastHost) return;
  const line = h('div', { class: 'toast' }, text);
  // The newest two at most: a pile of them grows up the screen over what the person is using.
  while (toastHost.children.length >= 2) toastHost.firstElementChild.remove();
  toastHost.append(line);
  setTimeout(() => line.remove(), 4000);
}

/** Theme: 'light', 'dark' or 'system' (the default), kept in this browser. */
export function getTheme() {
  return localStorage.getItem('feedctl.theme') || 'system';
}
export function setTheme(choice) {
  const value = ['light', 'dark'].includes(choice) ? choice : 'system';
  localStorage.setItem('feedctl.theme', value);
  applyTheme();
}
export function applyTheme() {
  const value = getTheme();
  if (value === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = value;
}

/** Lets the person pick one of their collections (or make one) and adds the item to it. */
export async function addToCollection(item, ctx) {
  let collections;
  try { collections = (await ctx.api.get('/api/collections')).items || []; } catch (e) { ctx.toast(e.detail || String(e)); return; }
  const select = h('select', { name: 'collection', id: 'collection-choice' },
    collections.map((c) => h('option', { value: String(c.id) }, c.name)),
    h('option', { value: 'new' }, 'New collection…'));
  const name = h('input', { type: 'text', name: 'name', id: 'collection-name', autocomplete: 'off', placeholder: 'Name' });
  const nameField = h('p', { class: 'field' }, h('label', { for: 'collection-name' }, 'New collection name'), name);
  nameField.hidden = collections.length > 0;
  select.addEventListener('change', () => { nameField.hidden = select.value !== 'new'; });
  const body = h('div', {}, h('p', { class: 'field' }, h('label', { for: 'collection-choice' }, 'Collection'), select), nameField);
  if (await showDialog(`Add “${item.title}” to a collection`, body, [['Cancel', 'cancel'], ['Add', 'add', true]]) !== 'add') return;
  try {
    let id = select.value;
    if (id === 'new' || collections.length === 0) {
      const made = await ctx.api.send('POST', '/api/collections', { name: name.value.trim() });
      id = made.id;
    }
    await ctx.api.send('POST', `/api/collections/${id}/items`, { item_id: item.id });
    ctx.toast('Added to the collection');
  } catch (e) { ctx.toast(e.detail || String(e)); }
}

/** Saves the item (Saved tab). */
export async function saveItem(item, ctx) {
  try {
    // The platform and video id name this very item (several items may share one media URL).
    await ctx.api.send('POST', '/api/saved-videos', {
      platform: item.platform, video_id: item.video_id, video_url: item.video_url || item.audio_url, title: item.title,
      channel_name: item.channel_name, thumbnail_url: item.thumbnail_url, duration_seconds: item.duration_seconds,
    });
    ctx.toast('Saved');
  } catch (e) { ctx.toast(e.detail || String(e)); }
}

/** Marks the item watched or not; updates `item` and tells the row. */
export async function setWatched(item, watched, ctx) {
  try {
    const updated = await ctx.api.send('PUT', `/api/feed/items/${item.id}/${watched ? 'watched' : 'unwatched'}`);
    Object.assign(item, { is_watched: updated.is_watched, watch_progress_seconds: updated.watch_progress_seconds });
    ctx.toast(watched ? 'Marked watched' : 'Marked unwatched');
  } catch (e) { ctx.toast(e.detail || String(e)); }
  return item;
}

/** Artwork, or an empty square of the same size. */
export function artwork(src, className = 'art') {
  const url = safeURL(src);
  if (!url) return h('div', { class: `${className} art-empty`, 'aria-hidden': 'true' });
  return h('img', { class: className, src: url, alt: '', loading: 'lazy', decoding: 'async', referrerpolicy: 'no-referrer' });
}

/** "Channel · 3 days ago · 42:10 · 12:00 left" */
export function itemMeta(item) {
  const parts = [item.channel_name, relativeDate(item.upload_date), formatDuration(item.duration_seconds)];
  const progress = item.watch_progress_seconds;
  if (item.is_watched) parts.push('Watched');
  else if (progress && item.duration_seconds) parts.push(`${formatDuration(item.duration_seconds - progress)} left`);
  return parts.filter(Boolean).join(' · ');
}

/**
 * One item as a row: artwork, title (its page), channel and date, and its actions (play, queue,
 * watched, save, add to collection). The row is focusable (j/k move between rows, Enter opens).
 */
export function itemRow(item, ctx) {
  const href = `/item/${item.id}`;
  const watched = iconButton(item.is_watched ? 'check' : 'circle', item.is_watched ? 'Mark unwatched' : 'Mark watched', async () => {
    await setWatched(item, !item.is_watched, ctx);
    const fresh = itemRow(item, ctx);
    const hadFocus = row.contains(document.activeElement);
    row.replaceWith(fresh);
    if (hadFocus) fresh.querySelector('[aria-pressed]')?.focus();
  }, { 'aria-pressed': String(!!item.is_watched) });
  const progress = item.duration_seconds && item.watch_progress_seconds && !item.is_watched
    ? h('div', { class: 'row-progress', 'aria-hidden': 'true' }, h('span', { style: { width: `${Math.min(100, 100 * item.watch_progress_seconds / item.duration_seconds)}%` } }))
    : null;
  const row = h('article', { class: `row${item.is_watched ? ' watched' : ''}`, tabindex: '0', dataset: { href, itemId: String(item.id) }, 'aria-label': item.title },
    artwork(item.thumbnail_url, 'row-art'),
    h('div', { class: 'row-text' },
      h('a', { class: 'row-title', href, 'data-link': true, tabindex: '-1' }, item.title),
      h('div', { class: 'row-meta' }, itemMeta(item)),
      progress),
    h('div', { class: 'row-actions' },
      iconButton('play', 'Play', () => ctx.player.play(item)),
      iconButton('queue', 'Add to queue', () => { ctx.player.enqueue(item); ctx.toast('Added to the queue'); }),
      watched,
      iconButton('bookmark', 'Save', () => saveItem(item, ctx)),
      iconButton('folder', 'Add to collection', () => addToCollection(item, ctx))));
  return row;
}
