// Offline (issue 27, the guide's SyncService strategy), the page's half; web/sw.js is the other.
// - Registers the service worker and says "Offline" while answers come from what was kept.
// - The outbox: a write the app makes while the server cannot be reached (watched, unwatched,
//   progress, save) is kept in IndexedDB for the signed-in user and sent when the network is back
//   (the `online` event, the service worker seeing an answer again, the app's start), retried with
//   backoff. The server wins a conflict: an item the server says was watched after the action was
//   taken keeps the server's state, and a write the server refuses is dropped; afterwards the
//   items concerned are read again and shown as the server has them.
// - Downloads: an episode kept in this browser (Cache Storage, `feedctl-media-<user>`), which the
//   service worker answers the <audio> element with, Range requests included.
import { h, iconButton, toast as showToast } from './ui.js';

const MEDIA_PREFIX = 'feedctl-media-';
const DB_NAME = 'feedctl-offline';
const OUTBOX = 'outbox';
const FIRST_RETRY_MS = 2000;
const LAST_RETRY_MS = 5 * 60_000;

/** The writes kept while offline, and how each is grouped: a later one of a group replaces the
 * earlier (the last watched/unwatched mark of an item, its last position). */
const QUEUEABLE = [
  [/^PUT \/api\/feed\/items\/(\d+)\/(?:watched|unwatched)$/, 'watched'],
  [/^PATCH \/api\/feed\/(\d+)\/watched$/, 'watched'],
  [/^PUT \/api\/feed\/items\/(\d+)\/progress(?:\?.*)?$/, 'progress'],
  [/^PATCH \/api\/feed\/(\d+)\/progress$/, 'progress'],
  [/^POST \/api\/saved-videos()$/, 'save'],
  [/^POST \/api\/queue()$/, 'queue'],            // each kept (an add names its item in its body)
  [/^DELETE \/api\/queue\/(\d+)$/, 'queue-remove'],
];

const state = {
  userKey: null,
  offline: false,
  banner: null,
  replaying: false,
  retryTimer: 0,
  retryDelay: FIRST_RETRY_MS,
  events: null,
  toast: showToast,
};

/** The key every kept thing of a user is filed under (the service worker's is the same). */
function keyOf(user) {
  return user && user.id != null ? `u${user.id}` : null;
}

// --- IndexedDB -----------------------------------------------------------------------------

let dbPromise = null;
function db() {
  dbPromise ??= new Promise((resolve, reject) => {
    const open = indexedDB.open(DB_NAME, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(OUTBOX, { keyPath: 'id', autoIncrement: true });
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => { dbPromise = null; reject(open.error); };
  });
  return dbPromise;
}

async function store(mode, work) {
  const database = await db();
  return new Promise((resolve, reject) => {
    const tx = database.transaction(OUTBOX, mode);
    let result;
    Promise.resolve(work(tx.objectStore(OUTBOX))).then((r) => { result = r; }, reject);
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

function requestOf(request) {
  return new Promise((resolve, reject) => { request.onsuccess = () => resolve(request.result); request.onerror = () => reject(request.error); });
}

/** The signed-in user's kept writes, oldest first. */
async function pending() {
  if (!state.userKey) return [];
  const all = await store('readonly', (s) => requestOf(s.getAll()));
  return all.filter((entry) => entry.user === state.userKey).sort((a, b) => a.id - b.id);
}

// --- the outbox ----------------------------------------------------------------------------

function groupOf(method, path) {
  const line = `${method} ${path}`;
  for (const [pattern, kind] of QUEUEABLE) {
    const found = pattern.exec(line);
    if (found) return { kind, itemId: found[1] ? Number(found[1]) : null };
  }
  return null;
}

/** What the item looked like when last seen (the service worker's copy), or null. */
async function lastSeen(itemId) {
  if (!itemId || !state.userKey) return null;
  try {
    const kept = await (await caches.open(`feedctl-api-${state.userKey}`)).match(`/api/feed/items/${itemId}`);
    return kept ? await kept.json() : null;
  } catch { return null; }
}

/**
 * api.js calls this when a write could not reach the server. A write of the kinds above is kept
 * (answered with what the app would show meanwhile); any other: undefined (the app says it failed).
 */
async function keepWrite(method, path, body) {
  const group = groupOf(method, path);
  if (!group || !state.userKey || !('indexedDB' in self)) return undefined;
  const entry = { user: state.userKey, method, path, body: body ?? null, at: Date.now(), kind: group.kind, itemId: group.itemId };
  try {
    await store('readwrite', async (s) => {
      if (group.itemId !== null) {
        const all = await requestOf(s.getAll());
        for (const old of all) if (old.user === entry.user && old.kind === entry.kind && old.itemId === entry.itemId) s.delete(old.id);
      }
      s.add(entry);
    });
  } catch (error) {
    console.warn('offline: the write was not kept:', error);
    return undefined;
  }
  setOffline(true);
  scheduleReplay();
  const seen = (await lastSeen(group.itemId)) || { id: group.itemId };
  if (/\/unwatched$/.test(path) || (body && body.is_watched === false)) return { ...seen, is_watched: false, kept_offline: true };
  if (/\/watched$/.test(path)) return { ...seen, is_watched: true, kept_offline: true };
  if (group.kind === 'progress') return { ...seen, watch_progress_seconds: body?.watch_progress_seconds ?? Number(new URL(path, location.origin).searchParams.get('progress_seconds')), kept_offline: true };
  return { kept_offline: true };
}

function scheduleReplay(delay = state.retryDelay) {
  clearTimeout(state.retryTimer);
  state.retryTimer = setTimeout(replay, delay);
}

class Unreachable extends Error {}

/** A request straight to the network (not through api.js, so it is never kept again). */
async function send(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method, credentials: 'same-origin', cache: 'no-store',
      headers: body === null || body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === null || body === undefined ? undefined : JSON.stringify(body),
    });
  } catch { throw new Unreachable(); }
  // An answer the service worker made from its cache is no answer from the server.
  if (response.headers.has('X-Feedctl-Offline')) throw new Unreachable();
  return response;
}

/** Sends the kept writes in order; stops at the first the network or server cannot take now. */
async function replay() {
  if (state.replaying || !state.userKey) return;
  state.replaying = true;
  clearTimeout(state.retryTimer);
  const changed = new Set();
  let left = 0;
  try {
    const entries = await pending();
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry.itemId !== null && entry.kind !== 'save') {
        const now = await send('GET', `/api/feed/items/${entry.itemId}`);
        if (now.status === 404) { await now.body?.cancel(); await drop(entry); continue; }
        if (!now.ok) { await now.body?.cancel(); left = entries.length - i; break; }
        const item = await now.json();
        // The server wins: marked watched (here or elsewhere) after this was done offline.
        const watchedAt = item.watched_at ? Date.parse(item.watched_at) : NaN;
        if (item.is_watched && watchedAt > entry.at) { await drop(entry); changed.add(entry.itemId); continue; }
      }
      const response = await send(entry.method, entry.path, entry.body);
      if (response.ok || (response.status >= 400 && response.status < 500 && ![401, 403, 408, 429].includes(response.status))) {
        // Done, or refused by the server (its state stands): either way not sent again.
        if (!response.ok) console.warn(`offline: the server refused a kept write (${entry.method} ${entry.path}: ${response.status})`);
        await response.body?.cancel();
        await drop(entry);
        if (entry.itemId !== null) changed.add(entry.itemId);
        continue;
      }
      await response.body?.cancel();
      left = entries.length - i;   // 401 (sign in again), 5xx, throttled: later
      break;
    }
  } catch (error) {
    if (!(error instanceof Unreachable)) console.warn('offline: replay stopped:', error);
    left = Math.max(left, 1);
  } finally {
    state.replaying = false;
  }
  if (changed.size) await refetch(changed);
  if (left > 0) {
    scheduleReplay(state.retryDelay);
    state.retryDelay = Math.min(LAST_RETRY_MS, state.retryDelay * 2);
  } else {
    state.retryDelay = FIRST_RETRY_MS;
    if (changed.size) state.toast(`Sent what was done offline (${changed.size} item${changed.size === 1 ? '' : 's'})`);
  }
}

async function drop(entry) {
  await store('readwrite', (s) => { s.delete(entry.id); });
}

/** Reads the changed items again and tells the screens (as the event stream does). */
async function refetch(ids) {
  for (const id of ids) {
    try {
      const response = await send('GET', `/api/feed/items/${id}`);
      if (!response.ok) continue;
      const item = await response.json();
      state.events?.emit?.('watch', { item_id: item.id, watched: item.is_watched, progress_seconds: item.watch_progress_seconds });
    } catch { return; }
  }
}

// --- online / offline ----------------------------------------------------------------------

function setOffline(offline) {
  if (state.offline === offline) return;
  state.offline = offline;
  document.documentElement.classList.toggle('is-offline', offline);
  if (!state.banner) return;
  state.banner.hidden = !offline;
  if (!offline) scheduleReplay(0);
}

function banner() {
  const el = h('div', { class: 'offline-banner', id: 'offline-banner', role: 'status' },
    h('span', {}, 'Offline: showing what was last seen. Changes are sent when the server can be reached. '),
    h('a', { href: '/downloads', 'data-link': true }, 'Downloads'));
  el.hidden = !state.offline;
  return el;
}

function loadStyle() {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL('./offline.css', import.meta.url).href;
  document.head.append(link);
}

// --- downloads -----------------------------------------------------------------------------

function mediaCache() {
  if (!state.userKey) throw new Error('Sign in to keep episodes in this browser.');
  return caches.open(MEDIA_PREFIX + state.userKey);
}
const mediaPath = (id) => `/api/items/${id}/audio`;

/** Keeps `item`'s audio in this browser; `onProgress(received, total|null)`. */
async function download(item, onProgress = () => {}) {
  const cache = await mediaCache();
  let response = await fetch(mediaPath(item.id), { credentials: 'same-origin' }).catch(() => null);
  if (!response || !response.ok) {
    await response?.body?.cancel();
    // Until the server serves /api/items/{id}/audio (the `audio` part), a same-origin enclosure will do.
    const audio = item.audio_url ? new URL(item.audio_url, location.origin) : null;
    if (audio && audio.origin === location.origin) response = await fetch(audio.href, { credentials: 'same-origin' }).catch(() => null);
  }
  if (!response || !response.ok) {
    throw new Error(response ? `This episode could not be downloaded (the server answered ${response.status}).` : 'This episode could not be downloaded: the server cannot be reached.');
  }
  const total = response.headers.get('Content-Encoding') ? null : Number(response.headers.get('Content-Length')) || null;
  const type = (response.headers.get('Content-Type') || 'audio/mpeg').split(';')[0];
  const about = { id: item.id, title: item.title, channel_name: item.channel_name, duration_seconds: item.duration_seconds, thumbnail_url: item.thumbnail_url, at: new Date().toISOString() };
  // Streamed into the cache (an episode of hours never sits in the page's memory), counted on the way.
  let received = 0;
  const counted = response.body.pipeThrough(new TransformStream({
    transform(chunk, controller) { received += chunk.byteLength; onProgress(received, total); controller.enqueue(chunk); },
  }));
  const headers = { 'Content-Type': type, 'X-Feedctl-Item': encodeURIComponent(JSON.stringify(about)) };
  if (total) headers['Content-Length'] = String(total);
  await cache.put(mediaPath(item.id), new Response(counted, { headers }));
  if (total && received !== total) {
    await cache.delete(mediaPath(item.id));
    throw new Error(`This episode could not be downloaded whole (${formatSize(received)} of ${formatSize(total)}): try again.`);
  }
  try { await navigator.storage?.persist?.(); } catch { /* best effort */ }
  return { ...about, size: received };
}

/** The episodes kept in this browser: [{id, title, channel_name, size, at}], newest first. */
async function downloads() {
  if (!state.userKey) return [];
  const cache = await mediaCache();
  const list = [];
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    if (!response) continue;
    let about = {};
    try { about = JSON.parse(decodeURIComponent(response.headers.get('X-Feedctl-Item') || '{}')); } catch { /* shown by its id */ }
    const id = about.id ?? Number(/\/items\/(\d+)\//.exec(new URL(request.url).pathname)?.[1]);
    list.push({ ...about, id, size: Number(response.headers.get('Content-Length')) || (await response.blob()).size });
  }
  return list.sort((a, b) => String(b.at || '').localeCompare(String(a.at || '')));
}

async function isDownloaded(id) {
  if (!state.userKey) return false;
  return !!(await (await mediaCache()).match(mediaPath(id)));
}

async function removeDownload(id) {
  return (await mediaCache()).delete(mediaPath(id));
}

/** "12.3 MB" */
export function formatSize(bytes) {
  if (!Number.isFinite(bytes)) return '';
  const units = ['bytes', 'kB', 'MB', 'GB'];
  let value = bytes, unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit++; }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** The item page's control: "Download for offline", its progress, or "Remove download". */
export function downloadControl(item, ctx) {
  const status = h('span', { class: 'download-status', role: 'status' });
  const box = h('span', { class: 'download-control' });
  const render = async () => {
    const kept = await isDownloaded(item.id).catch(() => false);
    const button = kept
      ? h('button', { type: 'button', onclick: async () => { await removeDownload(item.id); ctx.toast('Download removed'); render(); } }, 'Remove download')
      : h('button', {
        type: 'button',
        onclick: async () => {
          button.disabled = true;
          try {
            const done = await download(item, (received, total) => {
              status.textContent = total ? `Downloading… ${Math.floor(100 * received / total)} %` : `Downloading… ${formatSize(received)}`;
            });
            status.textContent = '';
            ctx.toast(`Downloaded for offline (${formatSize(done.size)})`);
          } catch (error) {
            status.textContent = '';
            ctx.toast(error.message || String(error));
          }
          render();
        },
      }, 'Download for offline');
    box.replaceChildren(button, status, ' ', h('a', { href: '/downloads', 'data-link': true, class: 'text-link' }, 'Downloads'));
  };
  render();
  return box;
}

// --- the app's hooks -----------------------------------------------------------------------

export const offline = {
  /** The app's start: the service worker's messages, the banner, the replay triggers. */
  start({ toast, events } = {}) {
    if (toast) state.toast = toast;
    state.events = events || null;
    loadStyle();
    state.banner = banner();
    const skip = document.querySelector('.skip-link');
    if (skip) skip.after(state.banner); else document.body.prepend(state.banner);
    addEventListener('online', () => { setOffline(false); scheduleReplay(0); });
    addEventListener('offline', () => setOffline(true));
    if (navigator.onLine === false) setOffline(true);
    if ('serviceWorker' in navigator) {
      navigator.serviceWorker.addEventListener('message', (event) => {
        const data = event.data || {};
        if (data.type === 'offline') setOffline(true);
        if (data.type === 'online') setOffline(false);
      });
      // app.js registers /sw.js (scope /).
    }
  },
  /** Who is signed in (null: nobody): the outbox and downloads are theirs; the worker is told. */
  setUser(user) {
    state.userKey = keyOf(user);
    navigator.serviceWorker?.ready.then((registration) => registration.active?.postMessage({ type: 'user', key: state.userKey })).catch(() => {});
    if (state.userKey) scheduleReplay(0);
  },
  /** The signed-in user's account was deleted: what this browser kept for them (downloaded
   *  episodes, writes waiting for the network) goes too, and nobody is signed in. */
  async forgetUser() {
    const key = state.userKey;
    if (key) {
      try {
        await caches.delete(MEDIA_PREFIX + key);
        for (const entry of await pending()) await drop(entry);
      } catch (error) { console.warn('offline: what was kept for the deleted account stays:', error); }
    }
    this.setUser(null);
  },
  keepWrite,
  replay,
  download,
  downloads,
  isDownloaded,
  removeDownload,
  get offline() { return state.offline; },
};

export default offline;
