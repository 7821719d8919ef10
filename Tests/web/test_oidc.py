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
             and any('Sign out dana' == b.text for b in p.all('.topbar-actions button.text-button')))
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
