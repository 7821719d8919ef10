"""The user switcher (a family's shared tablet): the accounts signed in on this browser are
offered by name; choosing one signs the current one out and asks that person's password, with
their name filled in; Forget drops a name from this device's list. The browser keeps names only,
never a password or a token."""
from harness import PASSWORD, check, wait_for

KID, KID_PASSWORD = 'kim', 'kim password 12'


def setup(w):
    w.server.cli('user', 'add', KID, '--password-stdin', input=KID_PASSWORD + '\n')
    w.page.login(w.server.user, PASSWORD)


def accounts(p):
    return [b.get_attribute('data-name') for b in p.all('dialog[open] .account-list li button:first-child')]


def test_switch_between_the_accounts_used_on_this_device(w):
    p = w.page
    owner = w.server.user
    p.press('Switch user')
    wait_for('the switcher', lambda: p.all('dialog[open]'))
    check(accounts(p) == [], 'no other account yet')
    check(f'Signed in as {owner}' in p.find('dialog[open]').text, 'who is signed in')
    p.axe('switcher-empty')
    p.press('Another account', within='dialog[open]')
    wait_for('the login page', lambda: '/login' in p.d.current_url)
    check(p.js('return fetch("/api/auth/me").then(r => r.json())').get('authenticated') is not True, 'the browser is signed out')
    p.login(KID, KID_PASSWORD)

    # Kim hands the tablet back: the owner is offered by name, and only their password is asked.
    p.press('Switch user')
    wait_for('the owner offered', lambda: accounts(p) == [owner])
    p.screenshots('switcher')
    p.axe('switcher')
    p.click('dialog[open] .account-list li button:first-child')
    wait_for('the login page for the owner', lambda: '/login' in p.d.current_url)
    check(p.find('input[name="username"]').get_attribute('value') == owner, 'the name is filled in')
    check(p.js('return document.activeElement && document.activeElement.name') == 'password', 'the password asked')
    p.find('input[name="password"]').send_keys(PASSWORD)
    p.press('Sign in')
    wait_for('the owner\'s feed', lambda: p.d.current_url.endswith('/feed'))
    me = p.js('return fetch("/api/auth/me").then(r => r.json())')
    check(me['user']['username'] == owner, f'signed in as the owner: {me}')
    kept = p.js('return localStorage.getItem("feedctl.accounts")')
    check(PASSWORD not in kept and KID_PASSWORD not in kept and 'token' not in kept, f'names only: {kept}')

    # Forget: kim is no longer offered on this device.
    p.press('Switch user')
    wait_for('kim offered', lambda: accounts(p) == [KID])
    p.press(f'Forget {KID} on this device', within='dialog[open]')
    wait_for('kim forgotten', lambda: p.all('dialog[open]') and accounts(p) == [])
    p.press('Cancel', within='dialog[open]')
    wait_for('still signed in', lambda: not p.all('dialog[open]'))
    check(p.d.current_url.endswith('/feed'), 'nothing else happened')
