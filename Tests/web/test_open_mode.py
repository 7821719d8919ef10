"""`feedctl serve --open`: no login at all; the app opens on the feed and the login page moves on."""
from harness import check, wait_for

WORLD = {'open_mode': True}


def test_open_mode_needs_no_login(w):
    p = w.page
    p.go('/')
    wait_for('the feed', lambda: p.d.current_url.endswith('/feed') and p.find('main h1').text == 'Feed')
    check(not p.all('.topbar-actions button.text-button'), 'no sign out in open mode')
    p.go('/login?next=/player')
    wait_for('the login page to move on', lambda: p.d.current_url.endswith('/player'))
