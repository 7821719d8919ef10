// Playback defaults kept in this browser (localStorage), beside what ui.js (the theme) and
// player.js (the speed, `feedctl.rate`) keep: how far Back and Forward skip.

const KEY = 'feedctl.prefs';
export const SKIP_CHOICES = [5, 10, 15, 30, 45, 60];
export const SPEED_CHOICES = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3];
const DEFAULTS = Object.freeze({ skipBack: 15, skipForward: 15 });

// Each value checked where it is read: a hand-edited or old entry falls back to the default.
const valid = {
  skipBack: (v) => SKIP_CHOICES.includes(v),
  skipForward: (v) => SKIP_CHOICES.includes(v),
};

export function readPrefs() {
  let stored = {};
  try { stored = JSON.parse(localStorage.getItem(KEY) || '{}') || {}; } catch { stored = {}; }
  const prefs = { ...DEFAULTS };
  for (const name of Object.keys(valid)) if (valid[name](stored[name])) prefs[name] = stored[name];
  return prefs;
}

// Stores one setting and tells the page (`feedctl-prefs` on window, for the player).
export function writePref(name, value) {
  if (!valid[name] || !valid[name](value)) throw new Error(`${name}: ${value} is not a choice`);
  const prefs = { ...readPrefs(), [name]: value };
  localStorage.setItem(KEY, JSON.stringify(prefs));
  window.dispatchEvent(new CustomEvent('feedctl-prefs', { detail: prefs }));
  return prefs;
}

// The accounts signed in on this browser, most recent first (names only: never a token or a
// password), for the user switcher: a family's shared tablet goes from one person to another.
const ACCOUNTS = 'feedctl.accounts';
const MAX_ACCOUNTS = 6;

export function rememberedAccounts() {
  let stored = [];
  try { stored = JSON.parse(localStorage.getItem(ACCOUNTS) || '[]'); } catch { stored = []; }
  return Array.isArray(stored) ? stored.filter((name) => typeof name === 'string' && name).slice(0, MAX_ACCOUNTS) : [];
}

export function rememberAccount(name) {
  const names = [name, ...rememberedAccounts().filter((other) => other !== name)].slice(0, MAX_ACCOUNTS);
  try { localStorage.setItem(ACCOUNTS, JSON.stringify(names)); } catch { /* a full or private store: no list */ }
}

export function forgetAccount(name) {
  try { localStorage.setItem(ACCOUNTS, JSON.stringify(rememberedAccounts().filter((other) => other !== name))); } catch { /* as above */ }
}
