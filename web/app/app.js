// The shell: tab bar, History API router, the mini player's place, keyboard, theme, login.
// Screens are modules in ./screens/ loaded on first use (WEB.md's screens contract):
// `export default { title, mount(root, ctx) }`, mount may return a cleanup function.
import { api, ApiError } from './api.js';
import { player, skipName } from './player.js';
import { h, toast, applyTheme, getTheme, setTheme, iconButton, showDialog } from './ui.js';
import { offline } from './offline.js';   // offline hook
import { sharedStream } from './stream.js';
import { rememberedAccounts, rememberAccount, forgetAccount } from './prefs.js';

/** The app's paths: the one list (the server answers the shell for any page path). */
const ROUTES = [
  ['/feed', 'feed'],
  ['/item/:id', 'item'],
  ['/discover', 'discover'],
  ['/saved', 'saved'],
  ['/collections', 'collections'],
  ['/collections/:id', 'collections'],
  ['/followed', 'followed'],
  ['/followed/:id', 'followed'],
  ['/history', 'history'],
  ['/channels', 'channels'],
  ['/channels/:id', 'channels'],
  ['/settings', 'settings'],
  ['/login', 'login'],
  ['/player', 'player'],
  ['/downloads', 'downloads'],   // offline hook
];
/** Which tab a screen belongs to. */
const TAB_OF = { feed: 'feed', item: 'feed', discover: 'discover', saved: 'saved', collections: 'saved', followed: 'saved', history: 'saved', channels: 'channels', settings: 'settings', player: 'feed', downloads: 'settings' };

function match(path) {
  if (path === '/' || path === '') return { name: 'feed', params: {} };
  const parts = path.replace(/\/+$/, '').split('/');
  for (const [pattern, name] of ROUTES) {
    const want = pattern.split('/');
    if (want.length !== parts.length) continue;
    const params = {};
    let ok = true;
    for (let i = 0; i < want.length && ok; i++) {
      if (want[i].startsWith(':')) {
        try { params[want[i].slice(1)] = decodeURIComponent(parts[i]); } catch { ok = false; }
      } else ok = want[i] === parts[i];
    }
    if (ok) return { name, params };
  }
  return null;
}

/**
 * The per-user event stream (`GET /api/events`, WEB.md): `events.on(kind, fn)` → unsubscribe.
 * One stream for all of this browser's pages of the user (stream.js): the page holding it passes
 * every event and notice on to the others; a page that takes it over from one that left tells
 * every page to `reset`. EventSource itself reconnects after a network error, with
 * Last-Event-ID; a stream the server refuses (429 past the per-user cap, 503 past the server's,
 * 404 on a server without the route) it gives up for good: the page says so once and asks again
 * later, with backoff, and on getting a stream again reloads the screen's data (what changed
 * meanwhile was not heard).
 */
const EVENT_KINDS = ['watch', 'saved', 'collection', 'subscription', 'sync', 'followed', 'reset'];
const EVENTS_FIRST_RETRY_MS = 2000;
const EVENTS_LAST_RETRY_MS = 5 * 60_000;
const events = (() => {
  const listeners = new Map();
  let shared = null, source = null, retryTimer = 0, retryDelay = EVENTS_FIRST_RETRY_MS, refused = false, tookOver = false;
  const emit = (kind, data) => { for (const fn of [...(listeners.get(kind) || [])]) { try { fn(data); } catch (e) { console.error(e); } } };
  // What this page's stream hears, here and on the user's other pages (`hear` below).
  const heard = (kind, data) => shared?.say({ kind, data });
  const notice = (text) => shared?.say({ notice: text });
  function open() {
    clearTimeout(retryTimer);
    const stream = new EventSource('/api/events');
    source = stream;
    for (const kind of EVENT_KINDS) {
      stream.addEventListener(kind, (event) => { let data = {}; try { data = JSON.parse(event.data); } catch { return; } heard(kind, data); });
    }
    stream.addEventListener('open', () => {
      retryDelay = EVENTS_FIRST_RETRY_MS;
      if (refused) { refused = false; notice('Live updates are back.'); heard('reset', {}); }
      else if (tookOver) heard('reset', {});
      tookOver = false;
    });
    stream.addEventListener('error', () => {
      if (stream.readyState !== EventSource.CLOSED || source !== stream) return;   // retrying by itself, or closed by us
      source = null;
      if (!refused) { refused = true; notice('Live updates paused: the server refused this browser\'s stream (too many open devices?). Trying again.'); }
      retryTimer = setTimeout(open, retryDelay);
      retryDelay = Math.min(EVENTS_LAST_RETRY_MS, retryDelay * 2);
    });
  }
  function stop() { clearTimeout(retryTimer); source?.close(); source = null; refused = false; }
  return {
    on(kind, fn) {
      if (!listeners.has(kind)) listeners.set(kind, new Set());
      listeners.get(kind).add(fn);
      return () => listeners.get(kind)?.delete(fn);
    },
    emit,
    connect() {
      const name = `events:${state.user?.id ?? 'open'}`;
      if (shared?.name === name || typeof EventSource === 'undefined') return;
      shared?.close();
      shared = sharedStream(name, {
        lead: (took) => { tookOver = took; open(); },
        stop,
        hear: (message) => { if (message.notice) toast(message.notice); else emit(message.kind, message.data); },
      });
    },
    close() { shared?.close(); shared = null; },
  };
})();
// A `reset` (the server no longer has what this page missed): the screen reloads its data.
events.on('reset', () => route());
// A page left for another stays open in the back/forward cache, with its stream: a browser
// allows six connections to one server, so a few pages kept that way would stall the next.
// Closed when the page is left, opened again if it is shown from that cache.
addEventListener('pagehide', () => events.close());
addEventListener('pageshow', (event) => { if (event.persisted && (state.user || state.mode === 'open')) events.connect(); });

const state = { user: null, mode: 'protected', singleSignOn: null, cleanup: null, generation: 0 };
const main = () => document.getElementById('main');

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else if (path !== location.pathname + location.search) history.pushState(null, '', path);
  route();
}

function context(params) {
  return {
    params,
    query: new URLSearchParams(location.search),
    api,
    player,
    navigate,
    toast,
    events,
    user: state.user,
    mode: state.mode,
    singleSignOn: state.singleSignOn,
  };
}

async function route() {
  const generation = ++state.generation;
  if (state.cleanup) { try { state.cleanup(); } catch (e) { console.error(e); } state.cleanup = null; }
  const root = main();
  const found = match(location.pathname);
  for (const tab of document.querySelectorAll('#tabs a')) {
    if (found && TAB_OF[found.name] === tab.dataset.tab) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  document.body.classList.toggle('is-login', found?.name === 'login');
  if (!found) {
    root.replaceChildren(h('h1', {}, 'Not found'), h('p', {}, `Nothing lives at ${location.pathname}. `, h('a', { href: '/feed', 'data-link': true }, 'Go to the feed')));
    document.title = 'Not found · feedctl';
    return;
  }
  if (found.name !== 'login' && state.mode !== 'open' && !state.user) {
    navigate(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    return;
  }
  let screen;
  try {
    screen = (await import(`./screens/${found.name}.js`)).default;
  } catch (error) {
    console.error(error);
    root.replaceChildren(h('h1', {}, 'This screen did not load'), h('p', {}, String(error.message || error)));
    return;
  }
  if (generation !== state.generation) return;
  document.title = `${screen.title} · feedctl`;
  root.replaceChildren();
  try {
    const cleanup = await screen.mount(root, context(found.params));
    if (generation !== state.generation) { if (typeof cleanup === 'function') cleanup(); return; }
    state.cleanup = typeof cleanup === 'function' ? cleanup : null;
  } catch (error) {
    if (generation !== state.generation) return;
    if (error instanceof ApiError && error.status === 401) return;   // the login screen takes over
    console.error(error);
    root.append(h('p', { class: 'error', role: 'alert' }, error instanceof ApiError ? error.detail : String(error.message || error)));
  }
}

/** Follows in-app links (`data-link`, or any same-origin link to an app path) without a reload. */
function interceptLinks(event) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = event.target.closest('a[href]');
  if (!link || link.target === '_blank' || link.hasAttribute('download')) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/') || !match(url.pathname)) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
}

// Keyboard: the keys `?` lists. Typing in a field, or a key on a focused button, is its own.
// ← and → skip by the intervals chosen in Settings, as the player's buttons do.
const keys = () => [
  ['j', 'Next item'], ['k', 'Previous item'], ['Enter', 'Open the item'], ['Space', 'Play or pause'],
  ['←', skipName('Back', player.skips.skipBack)], ['→', skipName('Forward', player.skips.skipForward)], ['?', 'Show these keys'],
];

export function showKeys() {
  const list = h('dl', { class: 'keys' }, keys().map(([key, what]) => [h('dt', {}, h('kbd', {}, key)), h('dd', {}, what)]));
  return showDialog('Keyboard shortcuts', list, [['Close', 'close', true]]);
}

function onKey(event) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target.closest('input, textarea, select, [contenteditable], dialog')) return;
  const onControl = target.closest('button, a, [role="slider"], audio');
  const rows = () => [...main().querySelectorAll('.row')];
  switch (event.key) {
    case 'j': case 'k': {
      const all = rows();
      if (!all.length) return;
      const current = target.closest('.row');
      let index = current ? all.indexOf(current) : -1;
      index = event.key === 'j' ? Math.min(all.length - 1, index + 1) : Math.max(0, index - 1);
      all[index].focus();
      all[index].scrollIntoView({ block: 'nearest' });
      event.preventDefault();
      break;
    }
    case 'Enter': {
      const row = target.classList?.contains('row') ? target : null;
      if (row?.dataset.href) { navigate(row.dataset.href); event.preventDefault(); }
      break;
    }
    case ' ':
      if (onControl) return;
      if (player.current) { player.toggle(); event.preventDefault(); }
      break;
    case 'ArrowLeft': case 'ArrowRight':
      if (target.closest('input[type="range"]')) return;
      if (player.current) { if (event.key === 'ArrowLeft') player.back(); else player.forward(); event.preventDefault(); }
      break;
    case '?':
      showKeys();
      event.preventDefault();
      break;
    default:
  }
}

const THEME_NAMES = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' };

function topbar() {
  const themeButton = iconButton('theme', THEME_NAMES[getTheme()], () => {
    const next = { system: 'light', light: 'dark', dark: 'system' }[getTheme()];
    setTheme(next);
    themeButton.setAttribute('aria-label', THEME_NAMES[next]);
    themeButton.title = THEME_NAMES[next];
    toast(THEME_NAMES[next]);
  });
  const actions = document.getElementById('topbar-actions');
  actions.replaceChildren(iconButton('keyboard', 'Keyboard shortcuts', showKeys), themeButton);
  if (state.user && state.mode !== 'open') {
    actions.append(iconButton('users', 'Switch user', switchUser),
                   // The name is shown where there is room (the switcher says who on a phone).
                   h('button', { type: 'button', class: 'text-button sign-out', 'aria-label': `Sign out ${state.user.username}`, onclick: () => logout() },
                     'Sign out', h('span', { class: 'who' }, ` ${state.user.username}`)));
  }
}

async function logout(next = '/login') {
  try { await api.send('POST', '/api/auth/logout'); } catch { /* signed out either way */ }
  state.user = null;
  events.close();
  player.stop();
  topbar();
  navigate(next, { replace: true });
}

// The user switcher: the accounts signed in on this browser (names kept here, never a password),
// one of which signs this one out and asks for theirs; or another account.
async function switchUser() {
  const me = state.user?.username;
  const others = rememberedAccounts().filter((name) => name !== me);
  const list = h('ul', { class: 'account-list', 'aria-label': 'Accounts used on this device' },
    ...others.map((name) => h('li', {},
      h('button', { type: 'submit', value: `to:${name}`, 'data-name': name, 'aria-label': `Switch to ${name}` },
        h('span', { class: 'avatar', 'aria-hidden': 'true' }, [...name][0].toUpperCase()), name),
      h('button', { type: 'submit', value: `forget:${name}`, class: 'text-button', 'aria-label': `Forget ${name} on this device` }, 'Forget'))));
  const body = h('div', {}, h('p', {}, `Signed in as ${me}. Switching signs you out here; the next person signs in.`),
    others.length ? list : h('p', { class: 'meta' }, 'No other account has signed in on this device yet.'));
  const answer = await showDialog('Switch user', body, [['Cancel', 'cancel'], ['Another account', 'other', true]]);
  if (answer.startsWith('forget:')) { forgetAccount(answer.slice('forget:'.length)); return switchUser(); }
  if (answer.startsWith('to:')) return logout(`/login?user=${encodeURIComponent(answer.slice('to:'.length))}`);
  if (answer === 'other') return logout();
}

/** Who is signed in (null: nobody); the login screen calls this after signing in. */
export async function refreshUser(asked = api.get('/api/auth/me')) {
  try {
    const me = await asked;
    state.user = me && me.authenticated ? me.user : null;
  } catch { state.user = null; }
  if (state.user && state.mode !== 'open') rememberAccount(state.user.username);
  offline.setUser(state.user);   // offline hook: the outbox and downloads are this user's
  player.setUser(state.user);
  if (state.user || state.mode === 'open') { events.connect(); player.refreshQueue(); } else events.close();
  topbar();
  return state.user;
}

export const app = { navigate, refreshUser, state, events };

async function start() {
  applyTheme();
  offline.start({ toast, events });   // offline hook: service worker, offline banner, outbox replay
  // The first screen waits for these: asked at once, not one after another (the screen's module
  // too: `route` imports it again from the module map).
  const mode = api.get('/api/auth/mode');
  const me = api.get('/api/auth/me');
  me.catch(() => {});   // refreshUser handles its failure
  const first = match(location.pathname);
  if (first) import(`./screens/${first.name}.js`).catch(() => {});   // route says why if it fails
  try {
    const answer = await mode;
    state.mode = answer.mode;
    state.singleSignOn = answer.single_sign_on || null;   // {provider, login_url}: the login page's button
  } catch { state.mode = 'protected'; }
  await refreshUser(me);
  document.addEventListener('click', interceptLinks);
  document.addEventListener('keydown', onKey);
  window.addEventListener('popstate', route);
  api.events.addEventListener('unauthorized', () => {
    state.user = null;
    events.close();
    topbar();
    if (location.pathname !== '/login') navigate(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
  });
  player.mount(document.getElementById('mini-player'), { navigate, toast });
  // The service worker (scope /): the offline part fills /sw.js.
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => {});
  if (location.pathname === '/' || location.pathname === '') history.replaceState(null, '', '/feed' + location.search);
  route();
}

start();
