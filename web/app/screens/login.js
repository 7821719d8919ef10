// Login (servers with logins; in --open mode there is none and this goes to the feed). With single
// sign-on configured, "Sign in with PROVIDER" first: a plain link to the server's route, which
// sends the browser to the provider and back here (`?sso_error=` says why it did not work).
import { h } from '../ui.js';
import { refreshUser } from '../app.js';

export default {
  title: 'Sign in',
  async mount(root, ctx) {
    const next = safeNext(ctx.query.get('next'));
    if (ctx.mode === 'open') { ctx.navigate(next); return; }
    const username = h('input', { id: 'username', name: 'username', type: 'text', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' });
    const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
    const message = h('p', { class: 'error', role: 'alert', id: 'login-error' });
    const ssoError = ctx.query.get('sso_error');
    if (ssoError) message.textContent = `Single sign-on did not work: ${ssoError}`;
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
    const form = h('form', { class: 'login-form', 'aria-describedby': 'login-error' },
      h('h1', {}, 'Sign in to feedctl'),
      ...singleSignOn(ctx.singleSignOn, next),
      h('p', { class: 'field' }, h('label', { for: 'username' }, 'User name'), username),
      h('p', { class: 'field' }, h('label', { for: 'password' }, 'Password'), password),
      message, submit,
      h('p', { class: 'hint' }, 'No account? The server\'s owner makes one with ', h('code', {}, 'feedctl user add NAME'), '.'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      message.textContent = '';
      submit.disabled = true;
      try {
        const answer = await ctx.api.send('POST', '/api/auth/login', { username: username.value.trim(), password: password.value });
        if (!answer || !answer.success) throw new Error(answer?.message || 'Invalid user name or password.');
        await refreshUser();
        ctx.navigate(next);
      } catch (error) {
        message.textContent = error.detail || error.message || String(error);
        password.select();
      } finally {
        submit.disabled = false;
      }
    });
    root.append(form);
    // From the user switcher: the account chosen, its password asked.
    const chosen = ctx.query.get('user');
    if (chosen) { username.value = chosen; password.focus(); } else (form.querySelector('#sso-button') || username).focus();
  },
};

/** The provider's button and a divider, or nothing when the server has no single sign-on. */
function singleSignOn(sso, next) {
  if (!sso || typeof sso.login_url !== 'string' || !sso.login_url.startsWith('/api/')) return [];
  const href = `${sso.login_url}?next=${encodeURIComponent(next)}`;
  return [
    h('a', { id: 'sso-button', class: 'button sso-button', href }, `Sign in with ${sso.provider}`),
    h('p', { class: 'divider', role: 'separator' }, 'or with a password'),
  ];
}

/** Only a path of this app: never another site (an open redirect). */
function safeNext(text) {
  return text && text.startsWith('/') && !text.startsWith('//') && !text.startsWith('/login') ? text : '/feed';
}
