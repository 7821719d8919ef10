// Small pieces the Discover, Saved, Collections, History, Channels and Settings screens share.
import { h } from '../ui.js';

// The screens' own stylesheet, linked once (relative to this module, so under the same
// /assets/<hash> prefix; a <link> is allowed by the CSP's style-src 'self').
if (!document.querySelector('link[data-screens-css]')) {
  document.head.append(h('link', { rel: 'stylesheet', href: new URL('./library.css', import.meta.url).href, 'data-screens-css': '' }));
}

// The line to show for a failed call: the server's own `detail`, else the error's message.
export function problem(error) {
  return (error && (error.detail || error.message)) || String(error);
}

// Runs `work` with `button` disabled and marked busy; a failure is shown with `toast`.
export async function busy(button, work, toast) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } catch (error) {
    if (toast) toast(problem(error));
    else throw error;
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

// A section with a heading (named for assistive technology by that heading).
let sectionCount = 0;
export function section(title, ...children) {
  const id = `section-${++sectionCount}`;
  return h('section', { class: 'panel', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

// A polite live region: `announce(text)` is read out by screen readers.
export function liveRegion() {
  const region = h('p', { class: 'visually-hidden announcer', 'aria-live': 'polite', role: 'status' });
  region.announce = (text) => { region.textContent = ''; setTimeout(() => { region.textContent = text; }, 30); };
  return region;
}

// A labelled form field: `<label>` tied to its control by id.
let fieldCount = 0;
export function field(labelText, control) {
  const id = control.id || `field-${++fieldCount}`;
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, labelText), control);
}

// Saves `text` as a download named `filename` (the browser's own save dialog or folder).
export function download(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h('a', { href: url, download: filename, hidden: '' });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// A POST of a document that is not JSON (an OPML file), answered with JSON.
export async function postDocument(path, text, type) {
  const response = await fetch(path, { method: 'POST', credentials: 'same-origin', body: text,
                                       headers: { 'Content-Type': type, Accept: 'application/json' } });
  const body = await response.text();
  let parsed = null;
  try { parsed = JSON.parse(body); } catch { /* not JSON */ }
  if (!response.ok) {
    const detail = (parsed && parsed.detail) || `${path}: HTTP ${response.status}`;
    throw Object.assign(new Error(detail), { status: response.status, detail });
  }
  return parsed;
}

// The links between the Saved tab's screens; the current one is marked for assistive technology.
export function savedTabs(current) {
  const links = [['/saved', 'Saved'], ['/collections', 'Collections'], ['/followed', 'Followed'], ['/history', 'History']];
  return h('nav', { class: 'subtabs', 'aria-label': 'Saved, collections, followed and history' },
           ...links.map(([href, label]) => h('a', href === current ? { href, 'aria-current': 'page' } : { href }, label)));
}

// Calls `reload` when any of `kinds` arrives on the event stream (another device, the CLI);
// returns the unsubscribe function. Bursts are folded into one reload.
export function reloadOn(ctx, kinds, reload) {
  let timer = null;
  const run = async () => {
    if (document.querySelector('#main [aria-busy="true"]')) return;   // our own change is still on its way
    // The focus stays on the control of the same name, so an echo of our own change does not lose it.
    const focused = document.activeElement && document.activeElement.getAttribute('aria-label');
    await reload();
    if (focused) document.querySelector(`#main [aria-label="${CSS.escape(focused)}"]`)?.focus();
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(() => run().catch(() => {}), 250); };
  const offs = kinds.map((kind) => ctx.events.on(kind, later));
  return () => { clearTimeout(timer); offs.forEach((off) => off()); };
}

// The library item with this id, ready for the player (the feed's item shape).
export async function playItem(ctx, itemID) {
  const item = await ctx.api.get(`/api/feed/items/${itemID}`);
  await ctx.player.play(item);
  return item;
}
