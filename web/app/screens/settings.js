// Settings: the account (password), this user's sessions, their data (download it; delete the
// account), users (admins), the theme and the playback defaults (kept in this browser: prefs.js).
import { h, relativeDate, confirmDialog, showDialog, getTheme, setTheme } from '../ui.js';
import { busy, field, problem, section } from './parts.js';
import { readPrefs, writePref, forgetAccount, SKIP_CHOICES, SPEED_CHOICES } from '../prefs.js';
import { offline } from '../offline.js';

export default {
  title: 'Settings',
  async mount(root, ctx) {
    root.replaceChildren(h('h1', {}, 'Settings'));
    const open = ctx.mode === 'open';
    let me = ctx.user || null;
    if (!me) {
      try { me = (await ctx.api.get('/api/auth/me')).user; } catch { me = null; }
    }
    let users = [];
    try { users = (await ctx.api.get('/api/users')).users; } catch { users = []; }
    const self = me && users.find((user) => user.id === me.id);
    const isAdmin = open || Boolean(self && self.is_admin);

    root.append(accountSection(ctx, me, self, open));
    if (!open) root.append(sessionsSection(ctx));
    if (isAdmin) root.append(usersSection(ctx, me, users));
    root.append(themeSection(), playbackSection(ctx));
    // Last: what cannot be undone comes after everything a visit here is usually for.
    let proof = null;
    if (me && !open) {
      try { proof = await ctx.api.get('/api/account/reauthentication'); } catch { proof = null; }
    }
    if (me || open) root.append(dataSection(ctx, me, open, proof));
  },
};

function accountSection(ctx, me, self, open) {
  if (open) {
    return section('Account', h('p', {}, 'This server runs in open mode: no logins, every request acts for the library’s owner (loopback only).'));
  }
  if (!me) return section('Account', h('p', {}, 'Not signed in.'));
  const who = h('p', {}, 'Signed in as ', h('strong', {}, me.username), self && self.is_admin ? ' (admin)' : '');
  const current = h('input', { type: 'password', name: 'current-password', autocomplete: 'current-password' });
  const fresh = h('input', { type: 'password', name: 'new-password', autocomplete: 'new-password', required: '', minlength: '8' });
  const again = h('input', { type: 'password', name: 'confirm-password', autocomplete: 'new-password', required: '', minlength: '8' });
  const change = h('button', { type: 'submit', class: 'primary' }, 'Change password');
  const state = h('p', { role: 'status', class: 'meta' });
  // The account's name, for password managers (hidden: it is shown above).
  const username = h('input', { type: 'text', name: 'username', autocomplete: 'username', value: me.username, hidden: '', readonly: '' });
  const form = h('form', { class: 'stacked' }, username,
                 me.has_pin ? field('Current password', current) : '',
                 field('New password (8 characters or more)', fresh), field('New password again', again), change, state);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (fresh.value !== again.value) { state.textContent = 'The two new passwords differ: type the same one twice.'; again.focus(); return; }
    busy(change, async () => {
      try {
        await ctx.api.send('PUT', `/api/users/${me.id}/pin`, { current_pin: current.value || null, new_pin: fresh.value });
        state.textContent = 'Password changed; your other sessions were signed out.';
        form.reset();
      } catch (error) {
        state.textContent = problem(error);
      }
    });
  });
  const signOut = h('button', { type: 'button' }, 'Sign out');
  signOut.addEventListener('click', () => busy(signOut, async () => {
    await ctx.api.send('POST', '/api/auth/logout');
    ctx.navigate('/login');
  }, ctx.toast));
  return section('Account', who, form, signOut);
}

function sessionsSection(ctx) {
  const list = h('ul', { class: 'session-list', 'aria-label': 'Sessions' });
  async function load() {
    const answer = await ctx.api.get('/api/sessions');
    list.replaceChildren(...answer.sessions.map((session) => {
      const device = session.device || 'Unnamed device';
      const label = session.current ? `${device} (this browser)` : device;
      const used = session.last_used_at ? `last used ${relativeDate(session.last_used_at)}` : 'not used since signing in';
      const revoke = h('button', { type: 'button', class: 'danger', 'aria-label': `Sign out ${label}` }, 'Sign out');
      revoke.addEventListener('click', async () => {
        if (session.current && !(await confirmDialog('Sign out this browser?'))) return;
        busy(revoke, async () => {
          await ctx.api.send('DELETE', `/api/sessions/${session.id}`);
          if (session.current) { ctx.navigate('/login'); return; }
          ctx.toast(`Signed out ${device}`);
          await load();
        }, ctx.toast);
      });
      return h('li', { 'data-session-id': String(session.id) },
               h('span', { class: 'title' }, label), ' ',
               h('span', { class: 'meta' }, `signed in ${relativeDate(session.created_at)} · ${used}`), ' ', revoke);
    }));
  }
  load().catch((error) => list.replaceChildren(h('li', { class: 'error' }, problem(error))));
  return section('Sessions', h('p', { class: 'meta' }, 'Where you are signed in. Signing one out ends it at once.'), list);
}

// What goes with an account (the store's removeUser), said the same wherever one is deleted.
const EVERYTHING = ['subscriptions', 'watch progress and history', 'saved videos and their notes', 'collections',
                    'the queue and player settings', 'podcast app devices (gpodder sync)', 'sessions on every device',
                    'accounts at single sign-on providers linked to it'];

// Your data: everything that is yours to download (first), then deleting the account, which asks
// the person to prove again who they are (`proof`, GET /api/account/reauthentication): their
// password; with single sign-on, a fresh sign-in at the provider ("Confirm with PROVIDER" goes
// there and comes back here, ?reauthenticated=1 or ?sso_error=WHY); else their user name typed.
function dataSection(ctx, me, open, proof) {
  const downloads = h('p', { class: 'actions' },
    h('a', { class: 'button', href: '/api/account/export', download: 'feedctl-my-data.json' }, 'Download my data (JSON)'), ' ',
    h('a', { class: 'button', href: '/api/account/export.opml', download: 'feedctl-subscriptions.opml' }, 'Download my subscriptions (OPML)'));
  const intro = h('p', {}, 'Everything that is yours in this library, to keep or to take elsewhere: your profile, ',
                  `${EVERYTHING.join(', ')}. Passwords and session keys are never in it.`);
  if (open || !me) return section('Your data', intro, downloads);

  const kind = proof ? proof.proof : (me.has_pin ? 'password' : 'username');
  const remove = h('button', { type: 'submit', class: 'danger' }, 'Delete my account');
  const state = h('p', { role: 'status', class: 'meta' });
  let proofField = null;
  let parts;
  if (kind === 'single_sign_on') {
    const provider = proof.provider || 'your sign-in provider';
    const returned = new URLSearchParams(location.search);
    if (proof.reauthenticated) {
      parts = [h('p', {}, `Confirmed with ${provider}: you may delete your account now.`), remove, state];
    } else {
      const confirm = h('button', { type: 'button' }, `Confirm with ${provider}`);
      confirm.addEventListener('click', () => busy(confirm, async () => {
        try {
          const started = await ctx.api.send('POST', '/api/auth/oidc/reauthenticate', undefined, { query: { next: '/settings' } });
          location.assign(started.auth_url);
        } catch (error) {
          state.textContent = problem(error);
        }
      }));
      parts = [h('p', {}, `You sign in through ${provider}: sign in there again to confirm it is you, then come back here to delete.`),
               confirm, state];
    }
    if (returned.get('sso_error')) state.textContent = `${provider} did not confirm it: ${returned.get('sso_error')}`;
  } else {
    proofField = kind === 'password'
      ? h('input', { type: 'password', name: 'delete-password', autocomplete: 'current-password', required: '' })
      : h('input', { type: 'text', name: 'delete-username', autocomplete: 'off', required: '' });
    parts = [field(kind === 'password' ? 'Your password' : `Type your user name (${me.username}) to confirm`, proofField), remove, state];
  }
  const form = h('form', { class: 'stacked', 'aria-label': 'Delete my account' }, ...parts);
  if (kind === 'single_sign_on' && /[?&](reauthenticated|sso_error)=/.test(location.search)) {
    requestAnimationFrame(() => form.scrollIntoView({ block: 'center' }));
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    state.textContent = '';
    const body = h('div', {},
      h('p', {}, 'The account ', h('strong', {}, me.username), ' and everything that is yours go, for good:'),
      h('ul', {}, ...EVERYTHING.map((what) => h('li', {}, what))),
      h('p', {}, 'Downloaded your data? It cannot be had back afterwards.'));
    const answer = await showDialog('Delete your account?', body, [['Keep my account', 'cancel'], ['Delete my account', 'ok', true]]);
    if (answer !== 'ok') return;
    busy(remove, async () => {
      try {
        // With single sign-on the proof is this session's fresh sign-in at the provider: no body field.
        const given = kind === 'password' ? { password: proofField.value } : kind === 'username' ? { username: proofField.value } : {};
        await ctx.api.send('DELETE', '/api/account', given);
      } catch (error) {
        state.textContent = problem(error);
        return;
      }
      await offline.forgetUser();
      forgetAccount(me.username);   // gone from the user switcher too
      ctx.toast('Your account was deleted.');
      ctx.navigate('/login');
    });
  });
  return section('Your data', intro, downloads, h('h3', {}, 'Delete my account'),
                 h('p', {}, 'Download your data first: deleting the account cannot be undone.'), form);
}

function usersSection(ctx, me, initial) {
  const list = h('ul', { class: 'user-list', 'aria-label': 'Users' });
  function render(users) {
    list.replaceChildren(...users.map((user) => {
      const facts = [user.is_admin ? 'admin' : null, user.has_pin ? 'has a password' : 'no password: cannot sign in',
                     user.last_login_at ? `last signed in ${relativeDate(user.last_login_at)}` : null].filter(Boolean).join(' · ');
      const row = h('li', { 'data-user-id': String(user.id) }, h('span', { class: 'title' }, user.username), ' ', h('span', { class: 'meta' }, facts));
      if (!me || user.id !== me.id) {
        const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Remove user ${user.username}` }, 'Remove');
        remove.addEventListener('click', async () => {
          if (!(await confirmDialog(`Remove ${user.username} with everything that is theirs (${EVERYTHING.join(', ')})? It cannot be undone.`,
                                    { ok: 'Remove' }))) return;
          busy(remove, async () => {
            await ctx.api.send('DELETE', `/api/users/${user.id}`);
            ctx.toast(`Removed ${user.username}`);
            await load();
          }, ctx.toast);
        });
        row.append(' ', remove);
      }
      return row;
    }));
  }
  async function load() { render((await ctx.api.get('/api/users')).users); }
  render(initial);

  const name = h('input', { type: 'text', name: 'new-username', autocomplete: 'off', required: '', maxlength: '64' });
  const password = h('input', { type: 'password', name: 'new-user-password', autocomplete: 'new-password', minlength: '8' });
  const admin = h('input', { type: 'checkbox', name: 'is_admin', id: 'new-user-admin' });
  const add = h('button', { type: 'submit', class: 'primary' }, 'Add user');
  const state = h('p', { role: 'status', class: 'meta' });
  const form = h('form', { class: 'stacked' }, field('User name', name), field('Password (8 characters or more; leave empty for none yet)', password),
                 h('div', { class: 'check' }, admin, h('label', { for: 'new-user-admin' }, 'Admin (may manage users)')), add, state);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(add, async () => {
      try {
        const body = { username: name.value.trim(), is_admin: admin.checked };
        if (password.value) body.password = password.value;
        const user = await ctx.api.send('POST', '/api/users', body);
        state.textContent = `Added ${user.username}`;
        form.reset();
        await load();
      } catch (error) {
        state.textContent = problem(error);
      }
    });
  });
  return section('Users', list, h('h3', {}, 'Add a user'), form);
}

function themeSection() {
  const current = getTheme();
  const choices = [['system', 'Same as this device'], ['light', 'Light'], ['dark', 'Dark']];
  const group = h('fieldset', { class: 'choices' }, h('legend', {}, 'Theme'),
                  ...choices.map(([value, label]) => {
                    const input = h('input', { type: 'radio', name: 'theme', value, id: `theme-${value}` });
                    input.checked = value === current;
                    input.addEventListener('change', () => { if (input.checked) setTheme(value); });
                    return h('div', { class: 'check' }, input, h('label', { for: `theme-${value}` }, label));
                  }));
  return section('Appearance', group);
}

function playbackSection(ctx) {
  const prefs = readPrefs();
  function select(name, label, choices, text, current, store) {
    const control = h('select', { name }, ...choices.map((value) => h('option', { value: String(value) }, text(value))));
    control.value = String(current);
    control.addEventListener('change', async () => {
      try {
        await store(Number(control.value));
        ctx.toast(`${label}: ${text(Number(control.value))}`);
      } catch (error) { ctx.toast(problem(error)); }
    });
    return field(label, control);
  }
  const seconds = (s) => `${s} seconds`;
  const rate = (r) => `${r}×`;
  const currentRate = SPEED_CHOICES.includes(ctx.player.rate) ? ctx.player.rate : 1;
  return section('Playback',
                 h('p', { class: 'meta' }, 'Kept in this browser.'),
                 select('skipBack', 'Skip back', SKIP_CHOICES, seconds, prefs.skipBack, (v) => writePref('skipBack', v)),
                 select('skipForward', 'Skip forward', SKIP_CHOICES, seconds, prefs.skipForward, (v) => writePref('skipForward', v)),
                 select('speed', 'Default speed', SPEED_CHOICES, rate, currentRate, (v) => ctx.player.setRate(v)));
}
