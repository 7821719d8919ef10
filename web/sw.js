// The service worker (issue 27, "Offline"): the app opens with no network and shows what was
// last seen; downloaded episodes play from this browser.
//
// Caches (Cache Storage):
// - `feedctl-app-<build>`: the shell (the answer of `/`) and the assets it needs under
//   `/assets/<build>/…`, found by following the URLs the shell and its modules name. Assets are
//   immutable, so they are answered from the cache first; the shell from the network first. A new
//   build (another hash in the shell) is cached whole, then the old build's cache is dropped.
// - `feedctl-api-<user>`: the API GETs of the pages last seen (network first, this when the
//   network fails), one cache per signed-in user; emptied at sign-out and when another user signs
//   in, so nothing one user saw is shown to another.
// - `feedctl-media-<user>`: episodes downloaded for offline (web/app/offline.js fills it),
//   answered to the <audio> element, Range requests included, as 206 slices of the kept body.
// The signed-in user's key is learnt from `/api/auth/me` answers and kept in `feedctl-meta`.

const APP_PREFIX = 'feedctl-app-';
const API_PREFIX = 'feedctl-api-';
const MEDIA_PREFIX = 'feedctl-media-';
const META = 'feedctl-meta';
const OWNER_KEY = '/__feedctl/owner';
const SHELL_KEY = '/';
const BUILD_KEY = '/__feedctl/build';
/** How long a navigation waits for the network before the cached shell is shown. */
const NAVIGATION_TIMEOUT_MS = 4000;

/** The API GETs kept for offline: the feed, an item, the lists, who is signed in. */
const CACHED_API = [
  /^\/api\/feed$/, /^\/api\/feed\/items\/\d+$/, /^\/api\/feed\/history$/, /^\/api\/feed\/by-channel$/,
  /^\/api\/subscriptions(\/\d+)?$/, /^\/api\/channels(\/\d+)?$/, /^\/api\/saved-videos$/,
  /^\/api\/collections(\/\d+)?$/, /^\/api\/auth\/me$/, /^\/api\/auth\/mode$/,
];
const MEDIA = /^\/api\/items\/(\d+)\/audio$/;

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    try { await refreshShell(); } catch (error) { console.warn('offline: the shell was not cached:', error); }
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    await dropOldBuilds();
    await self.clients.claim();
  })());
});

self.addEventListener('message', (event) => {
  const data = event.data || {};
  // The page says who is signed in (at start and after signing in or out).
  if (data.type === 'user') event.waitUntil(setOwner(data.key ?? null));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method !== 'GET') {
    // Signing out (or in as someone, or deleting the account) ends what was kept for the
    // previous user, whatever the network says.
    if (url.pathname === '/api/auth/logout' || url.pathname === '/api/auth/login'
        || (url.pathname === '/api/account' && request.method === 'DELETE')) event.waitUntil(setOwner(null));
    return;
  }
  // A published collection's page (`/shared/…`) is the server's own, not the app's: left to the network.
  if (request.mode === 'navigate' && !url.pathname.startsWith('/api/') && !url.pathname.startsWith('/shared/')) {
    event.respondWith(navigation(event));
    return;
  }
  if (url.pathname.startsWith('/assets/')) { event.respondWith(asset(request)); return; }
  const media = MEDIA.exec(url.pathname);
  if (media) { event.respondWith(mediaAnswer(request, url.pathname)); return; }
  if (CACHED_API.some((pattern) => pattern.test(url.pathname))) { event.respondWith(api(event, url)); return; }
});

// --- the shell and its assets --------------------------------------------------------------

async function metaGet(key) {
  const response = await (await caches.open(META)).match(key);
  return response ? response.json() : null;
}
async function metaPut(key, value) {
  await (await caches.open(META)).put(key, new Response(JSON.stringify(value), { headers: { 'Content-Type': 'application/json' } }));
}

/** The build hash the shell names (`/assets/<hash>/…`), or null. */
function buildOf(html) {
  const found = /["'](\/assets\/([A-Za-z0-9_-]+))\//.exec(html);
  return found ? { prefix: found[1], hash: found[2] } : null;
}

/** Fetches the shell and, when it names a build not cached yet, caches that build whole. */
async function refreshShell() {
  const response = await fetch(SHELL_KEY, { headers: { Accept: 'text/html' }, cache: 'no-cache', credentials: 'same-origin' });
  if (!response.ok) throw new Error(`the shell answered ${response.status}`);
  return adoptShell(response);
}

async function adoptShell(response) {
  const html = await response.clone().text();
  const build = buildOf(html);
  if (!build) return response;
  const cache = await caches.open(APP_PREFIX + build.hash);
  if (await metaGet(BUILD_KEY) !== build.hash || !(await cache.match(SHELL_KEY))) {
    await precache(cache, build.prefix, html);
    await metaPut(BUILD_KEY, build.hash);
    await dropOldBuilds();
  }
  await cache.put(SHELL_KEY, response.clone());
  return response;
}

/**
 * Caches every asset the shell names and, from there, every file its modules and style sheets
 * name (static and dynamic imports, `url(…)`). A dynamic import built from a template
 * (`./screens/${name}.js`) is tried with each plain word the same module spells in quotes: the
 * misses are cheap 404s of the server's memory, and no list of files is kept twice.
 */
async function precache(cache, prefix, html) {
  const seen = new Set();
  const queue = [];
  const add = (href, base) => {
    let url;
    try { url = new URL(href, base); } catch { return; }
    if (url.origin !== self.location.origin || !url.pathname.startsWith(prefix + '/')) return;
    if (!seen.has(url.pathname)) { seen.add(url.pathname); queue.push(url.pathname); }
  };
  const origin = self.location.origin + '/';
  for (const match of html.matchAll(/(?:src|href)="([^"]+)"/g)) add(match[1], origin);
  while (queue.length) {
    const path = queue.shift();
    let response;
    try { response = await fetch(path, { credentials: 'same-origin' }); } catch { continue; }
    if (!response.ok) { await response.body?.cancel(); continue; }   // an unread body holds its connection
    const type = response.headers.get('Content-Type') || '';
    const text = type.includes('javascript') || type.includes('css') ? await response.clone().text() : null;
    await cache.put(path, response);
    if (text === null) continue;
    const base = self.location.origin + path;
    // Imports, static and dynamic, and any other relative file a module names in quotes.
    for (const match of text.matchAll(/['"](\.{1,2}\/[^'"\s]+\.(?:js|css|png|svg))['"]/g)) add(match[1], base);
    for (const match of text.matchAll(/url\(\s*['"]?(\.{0,2}\/?[^'")]+)['"]?\s*\)/g)) if (!match[1].startsWith('data:')) add(match[1], base);
    const words = [...new Set([...text.matchAll(/['"]([a-z][a-z0-9_-]{1,30})['"]/g)].map((m) => m[1]))];
    for (const match of text.matchAll(/import\(\s*`(\.{1,2}\/[^`$]*)\$\{[^}]+\}([^`$]*)`\s*\)/g)) {
      for (const word of words) add(match[1] + word + match[2], base);
    }
  }
}

async function dropOldBuilds() {
  const current = await metaGet(BUILD_KEY);
  for (const name of await caches.keys()) {
    if (name.startsWith(APP_PREFIX) && name !== APP_PREFIX + current) await caches.delete(name);
  }
}

async function cachedShell() {
  const current = await metaGet(BUILD_KEY);
  return current ? (await caches.open(APP_PREFIX + current)).match(SHELL_KEY) : undefined;
}

/** A page: the network's shell (kept), else the kept one (the app then says it is offline). */
async function navigation(event) {
  try {
    const response = await withTimeout(fetch(event.request), NAVIGATION_TIMEOUT_MS);
    const type = response.headers.get('Content-Type') || '';
    if (response.ok && type.includes('text/html')) {
      event.waitUntil(adoptShell(response.clone()).catch((error) => console.warn('offline: the shell was not cached:', error)));
    }
    return response;
  } catch (error) {
    const shell = await cachedShell();
    if (shell) { tellClients({ type: 'offline' }); return shell; }
    throw error;
  }
}

async function asset(request) {
  const kept = await caches.match(request, { ignoreVary: true });
  if (kept) return kept;
  const response = await fetch(request);
  const hash = /^\/assets\/([A-Za-z0-9_-]+)\//.exec(new URL(request.url).pathname)?.[1];
  if (response.ok && hash && hash === await metaGet(BUILD_KEY)) {
    const copy = response.clone();
    caches.open(APP_PREFIX + hash).then((cache) => cache.put(request, copy)).catch(() => {});
  }
  return response;
}

function withTimeout(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the network took too long')), ms);
    promise.then((v) => { clearTimeout(timer); resolve(v); }, (e) => { clearTimeout(timer); reject(e); });
  });
}

// --- who is signed in ----------------------------------------------------------------------

let owner;   // undefined: not read yet; null: nobody; else the user's key

async function currentOwner() {
  if (owner === undefined) owner = await metaGet(OWNER_KEY);
  return owner;
}

/** A change of user empties the previous one's API cache; downloads stay in their own cache
 * (`feedctl-media-<user>`), shown and played only while that user is signed in. */
async function setOwner(key) {
  const before = await currentOwner();
  if (before === key) return;
  owner = key;
  await metaPut(OWNER_KEY, key);
  for (const name of await caches.keys()) {
    if (name.startsWith(API_PREFIX) && name !== API_PREFIX + key) await caches.delete(name);
  }
  tellClients({ type: 'user', key });
}

function ownerOf(me) {
  return me && me.authenticated && me.user && me.user.id != null ? `u${me.user.id}` : null;
}

// --- the API -------------------------------------------------------------------------------

/** Network first; the kept answer (marked `X-Feedctl-Offline`) when the network fails. */
async function api(event, url) {
  const request = event.request;
  let response;
  try {
    response = await fetch(request);
  } catch {
    response = null;
  }
  if (response) {
    tellClients({ type: 'online' });
    if (url.pathname === '/api/auth/me' && response.ok) {
      const me = await response.clone().json().catch(() => null);
      await setOwner(ownerOf(me));
    }
    const key = await currentOwner();
    if (response.ok && (key || url.pathname === '/api/auth/mode')) {
      const copy = response.clone();
      const name = url.pathname === '/api/auth/mode' ? META : API_PREFIX + key;
      event.waitUntil(caches.open(name).then((cache) => cache.put(request, copy)).catch(() => {}));
    }
    if (response.status === 401 && url.pathname !== '/api/auth/me') event.waitUntil(setOwner(null));
    return response;
  }
  const key = await currentOwner();
  const kept = url.pathname === '/api/auth/mode'
    ? await (await caches.open(META)).match(request)
    : key ? await (await caches.open(API_PREFIX + key)).match(request, { ignoreVary: true }) : undefined;
  tellClients({ type: 'offline' });
  if (kept) {
    const headers = new Headers(kept.headers);
    headers.set('X-Feedctl-Offline', kept.headers.get('Date') || 'kept');
    return new Response(kept.body, { status: kept.status, statusText: kept.statusText, headers });
  }
  return new Response(JSON.stringify({ detail: 'You are offline, and this page was not opened before: it shows once the server can be reached.' }),
    { status: 503, headers: { 'Content-Type': 'application/json', 'X-Feedctl-Offline': 'none' } });
}

// --- downloaded episodes -------------------------------------------------------------------

/** A downloaded episode from this browser (a Range asked for is a 206 slice); else the network. */
async function mediaAnswer(request, path) {
  const key = await currentOwner();
  const kept = key ? await (await caches.open(MEDIA_PREFIX + key)).match(path) : undefined;
  if (!kept) return fetch(request);
  const blob = await kept.blob();
  const size = blob.size;
  const type = kept.headers.get('Content-Type') || 'audio/mpeg';
  const range = request.headers.get('Range');
  if (!range) {
    return new Response(blob, { status: 200, headers: { 'Content-Type': type, 'Content-Length': String(size), 'Accept-Ranges': 'bytes' } });
  }
  const wanted = /^bytes=(\d*)-(\d*)$/.exec(range.split(',')[0].trim());
  let start, end;
  if (wanted && wanted[1] !== '') {
    start = Number(wanted[1]);
    end = wanted[2] !== '' ? Math.min(Number(wanted[2]), size - 1) : size - 1;
  } else if (wanted && wanted[2] !== '') {
    start = Math.max(0, size - Number(wanted[2]));
    end = size - 1;
  }
  if (start === undefined || start > end || start >= size) {
    return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${size}` } });
  }
  return new Response(blob.slice(start, end + 1), {
    status: 206,
    headers: { 'Content-Type': type, 'Content-Length': String(end - start + 1), 'Content-Range': `bytes ${start}-${end}/${size}`, 'Accept-Ranges': 'bytes' },
  });
}

async function tellClients(message) {
  for (const client of await self.clients.matchAll({ type: 'window' })) client.postMessage(message);
}
