"""Single sign-on in Chromium (issue 29): the login page's "Sign in with PROVIDER" button, the
real OpenID provider's own form (oidc-provider-mock, on 127.0.0.1), and back in the app signed in
as the user the sign-in made, on the page the person was going to."""
from selenium.webdriver.common.by import By

from harness import check, wait_for

WORLD = {'oidc': True}


def test_sign_in_with_the_provider(w):
    p = w.page
    w.oidc.set_claims('dana-sub', {'email': 'dana@example.com', 'email_verified': True, 'preferred_username': 'dana'})
    p.go('/login?next=/collections')
    button = p.find('#sso-button')
    check(button.text == 'Sign in with Mock ID', f'the button says {button.text!r}')
    check(p.find('input[name="password"]').is_displayed(), 'passwords still work beside it')
    p.screenshots('oidc-login')
    button.click()

    # The provider's own page: the person says who they are there.
    field = wait_for("the provider's form", lambda: p.d.find_element(By.CSS_SELECTOR, 'input[name="sub"]'))
    check(p.d.current_url.startswith(w.oidc.issuer + '/oauth2/authorize?'), f'at {p.d.current_url}')
    field.send_keys('dana-sub')
    p.d.find_element(By.XPATH, '//button[normalize-space()="Authorize"]').click()

    wait_for('the collections page, signed in', lambda: p.d.current_url == w.server.base + '/collections'
             and any('Sign out dana' == b.get_attribute('aria-label') for b in p.all('.topbar-actions button.text-button')))
    me = p.js("return fetch('/api/auth/me', {credentials: 'same-origin'}).then(r => r.json())")
    check(me['authenticated'] and me['user']['username'] == 'dana', f'/api/auth/me: {me}')
    check(not p.d.get_cookie('feedctl_sso'), "the sign-in's cookie is gone")


def test_a_refused_sign_in_says_why_on_the_login_page(w):
    """The sign-in is finished in a browser without the cookie that started it (as a link made
    to sign someone into another's account would be): refused, and the login page says why."""
    p = w.page
    p.press('Sign out dana')
    wait_for('signed out', lambda: not p.all('.topbar-actions button.text-button'))
    p.go('/login?next=/history')
    p.find('#sso-button').click()
    field = wait_for("the provider's form", lambda: p.d.find_element(By.CSS_SELECTOR, 'input[name="sub"]'))
    p.d.execute_cdp_cmd('Network.deleteCookies', {'name': 'feedctl_sso', 'domain': '127.0.0.1', 'path': '/api/auth/oidc'})
    field.send_keys('dana-sub')
    p.d.find_element(By.XPATH, '//button[normalize-space()="Authorize"]').click()
    message = wait_for('the login page saying why', lambda: p.d.current_url.startswith(w.server.base + '/login?')
                       and p.find('#login-error').text)
    check(message == 'Single sign-on did not work: this sign-in was started in another browser (its cookie is missing): start again here',
          f'the message: {message!r}')
    me = p.js("return fetch('/api/auth/me', {credentials: 'same-origin'}).then(r => r.json())")
    check(not me['authenticated'], f'nobody signed in: {me}')


def test_a_single_sign_on_user_confirms_with_the_provider_then_deletes_their_account(w):
    """Erin signs in through the provider only (no password): Settings' "Delete my account"
    asks her to confirm with the provider, which asks her to sign in again; back in Settings she
    may delete, and her account goes."""
    p = w.page
    w.oidc.set_claims('erin-sub', {'preferred_username': 'erin'})
    if p.all('.topbar-actions button.text-button'):
        p.press(p.find('.topbar-actions button.text-button').text)
        wait_for('signed out', lambda: not p.all('.topbar-actions button.text-button'))

    def at_the_provider_as(subject, asked_again=False):
        field = wait_for("the provider's form", lambda: p.d.find_element(By.CSS_SELECTOR, 'input[name="sub"]'))
        check(p.d.current_url.startswith(w.oidc.issuer + '/oauth2/authorize?'), f'at {p.d.current_url}')
        check(not asked_again or 'prompt=login' in p.d.current_url, f'asked to sign in again: {p.d.current_url}')
        field.send_keys(subject)
        p.d.find_element(By.XPATH, '//button[normalize-space()="Authorize"]').click()

    p.go('/login?next=/settings')
    p.find('#sso-button').click()
    at_the_provider_as('erin-sub')
    wait_for('Settings, signed in as erin', lambda: p.d.current_url == w.server.base + '/settings'
             and any('Sign out erin' == b.get_attribute('aria-label') for b in p.all('.topbar-actions button.text-button')))

    p.find('form[aria-label="Delete my account"]')
    check(not p.all('input[name="delete-password"]') and not p.all('input[name="delete-username"]'),
          'no password or user name to type')
    p.press('Confirm with Mock ID', within='form[aria-label="Delete my account"]')
    at_the_provider_as('erin-sub', asked_again=True)
    wait_for('back in Settings, confirmed', lambda: p.d.current_url == w.server.base + '/settings?reauthenticated=1'
             and 'Confirmed with Mock ID' in p.find('form[aria-label="Delete my account"]').text)
    p.screenshots('oidc-delete-confirmed')
    p.press('Delete my account', within='form[aria-label="Delete my account"]')
    p.find('dialog[open] button[value="ok"]').click()
    wait_for('signed out, at the login page', lambda: '/login' in p.d.current_url)
    check('erin' not in [u['username'] for u in w.server.api('GET', '/api/users')['users']], 'erin is gone')
