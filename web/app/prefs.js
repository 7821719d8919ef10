// The person's own settings kept in this browser (localStorage): the theme and the playback
// defaults. One place reads and writes them, so the player and the Settings screen agree.

const KEY = 'feedctl.prefs';
export const SKIP_CHOICES = [5, 10, 15, 30, 45, 60];
export const SPEED_CHOICES = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3];
export const THEMES = ['system', 'light', 'dark'];
const DEFAULTS = Object.freeze({ theme: 'system', skipBack: 15, skipForward: 15, speed: 1 });

// Each value checked where it is read: a hand-edited or old entry falls back to the default.
const valid = {
  theme: (v) => THEMES.includes(v),
  skipBack: (v) => SKIP_CHOICES.includes(v),
  skipForward: (v) => SKIP_CHOICES.includes(v),
  speed: (v) => SPEED_CHOICES.includes(v),
};

export function readPrefs() {
  let stored = {};
  try { stored = JSON.parse(localStorage.getItem(KEY) || '{}') || {}; } catch { stored = {}; }
  const prefs = { ...DEFAULTS };
  for (const name of Object.keys(valid)) if (valid[name](stored[name])) prefs[name] = stored[name];
  return prefs;
}

/// Stores one setting and tells the page (`feedctl-prefs` on window: the player listens).
export function writePref(name, value) {
  if (!valid[name] || !valid[name](value)) throw new Error(`${name}: ${value} is not a choice`);
  const prefs = { ...readPrefs(), [name]: value };
  localStorage.setItem(KEY, JSON.stringify(prefs));
  if (name === 'theme') applyTheme(value);
  window.dispatchEvent(new CustomEvent('feedctl-prefs', { detail: prefs }));
  return prefs;
}

/// `light` or `dark` sets `data-theme` on <html>; `system` removes it (the stylesheet follows
/// prefers-color-scheme).
export function applyTheme(theme = readPrefs().theme) {
  const root = document.documentElement;
  if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  else delete root.dataset.theme;
}
