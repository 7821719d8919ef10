#!/usr/bin/env python3
"""Browser tests of the Discover, Saved, Collections, History, Channels and Settings screens.

Each screen does its main job in headless Chromium against a real `feedctl serve` (the built
program, a temporary library, users made with the CLI), with real feeds served on 127.0.0.1 by
Tests/Support/http_server.py, and the API is asked afterwards whether it happened. axe-core finds
no serious or critical violation on any of these screens, and each is photographed at phone
(390x844) and desktop (1280x800) width.

Discover's Apple Podcasts search is answered by a stand-in (a file on the local feed server,
in the iTunes Search API's shape): the real service cannot be reached from here. Its Rumble
search is pointed at a closed port, so one platform fails and the screen must say so.
"""
import json
import os
import time
import unittest

from screens_site import Site, By, Keys, Select

ADMIN, ADMIN_PASSWORD = 'alice', 'alice password 1'
OTHER, OTHER_PASSWORD = 'bob', 'bob password 12'


class ScreensTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.site = Site(users=[(ADMIN, ADMIN_PASSWORD, True), (OTHER, OTHER_PASSWORD, False)])
        cls.site.login(ADMIN, ADMIN_PASSWORD)

    @classmethod
    def tearDownClass(cls):
        cls.site.close()

    # -- helpers -----------------------------------------------------------------------------
    def open(self, path, ready):
        """Opens an app path and waits until `ready` (a CSS selector) is on the screen."""
        self.site.open(path)
        return self.site.wait_for(ready)

    def check_screen(self, name):
        """axe finds nothing serious or critical, at both widths; a screenshot of each."""
        for width, height, label in [(390, 844, 'phone'), (1280, 800, 'desktop')]:
            self.site.driver.set_window_size(width, height)
            time.sleep(0.3)
            serious = self.site.axe_serious()
            self.assertEqual(serious, [], f'{name} at {label} width: {json.dumps(serious, indent=1)}')
            self.site.screenshot(f'{name}-{label}')
        self.site.driver.set_window_size(1280, 800)

    def subscribe_demo(self):
        channel = self.site.api('POST', '/api/channels', {'channel_url': self.site.feeds_url('/podcast.xml')})
        return channel, self.site.api('GET', '/api/feed', query={'channel_ids': channel['id']})['items']

    # -- Discover ----------------------------------------------------------------------------
    def test_discover_shows_each_platform_as_it_answers_and_subscribes(self):
        self.site.write_feed_file('itunes/search', json.dumps({'resultCount': 1, 'results': [{
            'wrapperType': 'track', 'kind': 'podcast', 'collectionId': 7, 'collectionName': 'Atom Blog Audio',
            'artistName': 'Example', 'feedUrl': self.site.feeds_url('/atom.xml'),
            'collectionViewUrl': 'https://podcasts.apple.com/us/podcast/id7'}]}))
        self.open('/discover', 'input[name=q]')
        d = self.site.driver
        d.find_element(By.NAME, 'q').send_keys('blog')
        Select(d.find_element(By.NAME, 'type')).select_by_value('channels')
        d.find_element(By.NAME, 'q').send_keys(Keys.ENTER)
        self.site.wait_until(lambda: not d.find_elements(By.CSS_SELECTOR, '.platform.searching'))
        statuses = {e.get_attribute('data-platform'): e.text for e in d.find_elements(By.CSS_SELECTOR, '.platform')}
        self.assertRegex(statuses['itunes'], r'1 result in \d+ ms')
        self.assertRegex(statuses['library'], r'\d+ results? in \d+ ms')
        self.assertIn('failed', statuses['rumble'])
        d.find_element(By.CSS_SELECTOR, '[aria-label="Subscribe to Atom Blog Audio"]').click()
        self.site.wait_for('[aria-label="Subscribed to Atom Blog Audio"]')
        names = [c['feed_url'] for c in self.site.api('GET', '/api/channels')['items']]
        self.assertIn(self.site.feeds_url('/atom.xml'), names)
        self.check_screen('discover')

    def test_discover_subscribes_and_plays_an_episode_the_library_lacks(self):
        media = self.site.feeds_url('/media/night-walk.mp3')
        self.site.write_feed_file('walks.xml', '<?xml version="1.0"?><rss version="2.0"><channel><title>Walks</title>'
                                  '<item><title>Night walk</title><guid>walk-1</guid>'
                                  f'<enclosure url="{media}" type="audio/mpeg" length="1000"/></item></channel></rss>')
        self.site.write_feed_file('itunes/search', json.dumps({'resultCount': 1, 'results': [{
            'wrapperType': 'podcastEpisode', 'kind': 'podcast-episode', 'trackId': 501, 'trackName': 'Night walk',
            'collectionId': 50, 'collectionName': 'Walks', 'feedUrl': self.site.feeds_url('/walks.xml'),
            'episodeUrl': media, 'trackTimeMillis': 60000}]}))
        self.open('/discover?q=night%20walk', '[aria-label="Subscribe to Walks and play Night walk"]')
        self.site.driver.find_element(By.CSS_SELECTOR, '[aria-label="Subscribe to Walks and play Night walk"]').click()
        self.site.wait_until(lambda: self.site.driver.find_element(By.CSS_SELECTOR, '.mini-title').text == 'Night walk')
        self.assertIn(self.site.feeds_url('/walks.xml'), [c['feed_url'] for c in self.site.api('GET', '/api/channels')['items']])

    def test_discover_plays_and_saves_a_library_result(self):
        _, items = self.subscribe_demo()
        episode = next(i for i in items if i['title'] == 'Episode 3: Four tones')
        self.open('/discover?q=four%20tones', '[aria-label="Play Episode 3: Four tones"]')
        d = self.site.driver
        d.find_element(By.CSS_SELECTOR, '[aria-label="Save Episode 3: Four tones"]').click()
        self.site.wait_until(lambda: episode['id'] in [v['item_id'] for v in self.site.api('GET', '/api/saved-videos')['items']])
        self.site.wait_for('[aria-label="Saved Episode 3: Four tones"]')
        d.find_element(By.CSS_SELECTOR, '[aria-label="Play Episode 3: Four tones"]').click()
        # The player (webapp's) takes it: the mini player shows its title.
        self.site.wait_until(lambda: d.find_element(By.CSS_SELECTOR, '.mini-title').text == 'Episode 3: Four tones')

    # -- Channels ----------------------------------------------------------------------------
    def test_channels_add_sync_pause_speed_and_items(self):
        self.open('/channels', 'input[name=url]')
        d = self.site.driver
        d.find_element(By.NAME, 'url').send_keys(self.site.feeds_url('/podcast.xml'), Keys.ENTER)
        self.site.wait_until(lambda: 'Added' in d.find_element(By.CSS_SELECTOR, '.report').text)
        channel = next(c for c in self.site.api('GET', '/api/channels')['items'] if c['name'] == 'The Tone Show')
        self.site.wait_for(f'[data-channel-id="{channel["id"]}"]')

        d.find_element(By.CSS_SELECTOR, '[aria-label="Sync The Tone Show now"]').click()
        self.site.wait_until(lambda: 'Synced' in d.find_element(By.CSS_SELECTOR, f'[data-channel-id="{channel["id"]}"] .sync-result').text)
        d.find_element(By.CSS_SELECTOR, '[aria-label="Pause The Tone Show"]').click()
        self.site.wait_for('[aria-label="Resume The Tone Show"]')
        self.assertFalse(self.site.api('GET', f'/api/channels/{channel["id"]}')['is_active'])
        Select(d.find_element(By.CSS_SELECTOR, f'[data-channel-id="{channel["id"]}"] select[name=speed]')).select_by_value('1.5')
        self.site.wait_until(lambda: self.site.api('GET', f'/api/channels/{channel["id"]}')['speed'] == 1.5)
        self.check_screen('channels')

        # Its page lists its items, by their titles from the feed.
        d.find_element(By.LINK_TEXT, 'The Tone Show').click()
        self.site.wait_for('.item-list li')
        self.assertIn('Episode 3: Four tones', d.find_element(By.CSS_SELECTOR, '.item-list').text)
        self.check_screen('channel')

        # Remove, confirmed in the dialog: the API no longer lists it.
        d.find_element(By.CSS_SELECTOR, '[aria-label="Remove The Tone Show"]').click()
        self.site.confirm()
        self.site.wait_until(lambda: all(c['id'] != channel['id'] for c in self.site.api('GET', '/api/channels')['items']))

    def test_channels_show_errors_and_parse_warnings_and_import_opml(self):
        self.site.write_feed_file('cut.xml', '<?xml version="1.0"?><rss version="2.0"><channel><title>Cut Short</title>'
                                  '<item><title>Whole</title><guid>w</guid></item><item><title>Cut')
        opml = os.path.join(self.site.tmp, 'subscriptions.opml')
        with open(opml, 'w') as f:
            f.write('<?xml version="1.0"?><opml version="2.0"><body>'
                    f'<outline type="rss" text="Cut" xmlUrl="{self.site.feeds_url("/cut.xml")}"/>'
                    f'<outline type="rss" text="Gone" xmlUrl="{self.site.feeds_url("/status/404")}"/>'
                    '</body></opml>')
        self.open('/channels', 'input[name=url]')
        d = self.site.driver
        d.find_element(By.CSS_SELECTOR, 'input[type=file]').send_keys(opml)
        self.site.wait_until(lambda: 'Imported' in d.find_element(By.CSS_SELECTOR, '.report').text)
        self.site.wait_until(lambda: 'Cut Short' in d.find_element(By.CSS_SELECTOR, '.channel-list').text)
        text = d.find_element(By.CSS_SELECTOR, '.channel-list').text
        self.assertRegex(text, r'\d+ parse warnings?')
        self.assertIn('Last sync failed', text)
        d.find_element(By.CSS_SELECTOR, 'details.warnings summary').click()
        self.assertIn('the document ends inside an item', d.find_element(By.CSS_SELECTOR, 'details.warnings').text)
        self.check_screen('channels-warnings')

    # -- Collections -------------------------------------------------------------------------
    def test_collections_create_reorder_by_keyboard_and_drag_and_delete(self):
        _, items = self.subscribe_demo()
        self.open('/collections', 'input[name=name]')
        d = self.site.driver
        d.find_element(By.NAME, 'name').send_keys('Road trip', Keys.ENTER)
        self.site.wait_until(lambda: 'Road trip' in d.find_element(By.CSS_SELECTOR, '.collection-list').text)
        collection = next(c for c in self.site.api('GET', '/api/collections')['items'] if c['name'] == 'Road trip')
        for item in items:
            self.site.api('POST', f'/api/collections/{collection["id"]}/items', {'item_id': item['id']})
        self.check_screen('collections')

        d.find_element(By.LINK_TEXT, 'Road trip').click()
        self.site.wait_for('.collection-item')
        order = lambda: [i['id'] for i in self.site.api('GET', f'/api/collections/{collection["id"]}')['items']]
        ids = order()
        self.assertEqual(len(ids), 3)
        # Alt+Up on the last row: it moves up one, keeps the focus, and the server keeps the order.
        last = d.find_element(By.CSS_SELECTOR, f'[data-item-id="{ids[2]}"]')
        last.send_keys(Keys.ALT, Keys.ARROW_UP)
        self.site.wait_until(lambda: order() == [ids[0], ids[2], ids[1]])
        self.assertEqual(d.switch_to.active_element.get_attribute('data-item-id'), str(ids[2]))
        d.switch_to.active_element.send_keys(Keys.ALT, Keys.ARROW_UP)
        self.site.wait_until(lambda: order() == [ids[2], ids[0], ids[1]])
        # The named buttons do the same.
        first_title = next(i['title'] for i in items if i['id'] == ids[2])
        d.find_element(By.CSS_SELECTOR, f'[aria-label="Move {first_title} down"]').click()
        self.site.wait_until(lambda: order() == [ids[0], ids[2], ids[1]])
        # A drag (HTML5 drag and drop, dispatched as the browser would) moves the first onto the last.
        self.site.drag(f'[data-item-id="{ids[0]}"]', f'[data-item-id="{ids[1]}"]')
        self.site.wait_until(lambda: order() == [ids[2], ids[1], ids[0]])
        self.check_screen('collection')

        d.find_element(By.CSS_SELECTOR, '[aria-label="Export Road trip"]').click()
        d.find_element(By.CSS_SELECTOR, '[aria-label="Delete Road trip"]').click()
        self.site.confirm()
        self.site.wait_until(lambda: all(c['name'] != 'Road trip' for c in self.site.api('GET', '/api/collections')['items']))

    # -- Saved -------------------------------------------------------------------------------
    def test_saved_notes_are_edited_and_kept(self):
        _, items = self.subscribe_demo()
        saved = self.site.api('POST', '/api/saved-videos', {'video_url': items[0]['video_url']})
        self.open('/saved', f'[data-saved-id="{saved["id"]}"] textarea')
        d = self.site.driver
        notes = d.find_element(By.CSS_SELECTOR, f'[data-saved-id="{saved["id"]}"] textarea')
        notes.clear()
        notes.send_keys('Play again at <b>2x</b>')
        d.find_element(By.CSS_SELECTOR, f'[data-saved-id="{saved["id"]}"] .notes button[type=submit]').click()
        self.site.wait_until(lambda: self.site.api('GET', f'/api/saved-videos/{saved["id"]}')['notes'] == 'Play again at <b>2x</b>')
        d.find_element(By.CSS_SELECTOR, f'[data-saved-id="{saved["id"]}"] [aria-label^="Mark watched"]').click()
        self.site.wait_until(lambda: self.site.api('GET', f'/api/saved-videos/{saved["id"]}')['is_watched'])
        self.check_screen('saved')

    # -- History -----------------------------------------------------------------------------
    def test_history_lists_what_was_played(self):
        _, items = self.subscribe_demo()
        # A play is recorded by the player daemon as it plays (PulseAudio, the owner's player); the
        # daemon's own record is written here as it writes it, into the real library, for alice.
        me = self.site.api('GET', '/api/auth/me')['user']
        self.site.record_play(me['id'], items[1]['id'], position=20)
        self.open('/history', '.item-list li')
        self.assertIn(items[1]['title'], self.site.driver.find_element(By.CSS_SELECTOR, '.item-list').text)
        self.assertNotIn(items[0]['title'], self.site.driver.find_element(By.CSS_SELECTOR, '.item-list').text)
        self.check_screen('history')

    # -- Settings ----------------------------------------------------------------------------
    def test_settings_sessions_users_theme_and_playback(self):
        phone = self.site.login_token(ADMIN, ADMIN_PASSWORD, device='Phone')
        self.open('/settings', '[aria-label="Sign out Phone"]')
        d = self.site.driver
        self.assertIn('(this browser)', d.find_element(By.CSS_SELECTOR, '.session-list').text)
        d.find_element(By.CSS_SELECTOR, '[aria-label="Sign out Phone"]').click()
        self.site.wait_until(lambda: self.site.status('GET', '/api/feed', token=phone) == 401)
        self.site.wait_until(lambda: 'Phone' not in d.find_element(By.CSS_SELECTOR, '.session-list').text)

        d.find_element(By.NAME, 'new-username').send_keys('carol')
        d.find_element(By.NAME, 'new-user-password').send_keys('carol password 1', Keys.ENTER)
        self.site.wait_until(lambda: 'carol' in [u['username'] for u in self.site.api('GET', '/api/users')['users']])
        carol = next(u for u in self.site.api('GET', '/api/users')['users'] if u['username'] == 'carol')
        self.site.wait_for(f'[aria-label="Remove user carol"]').click()
        self.site.confirm()
        self.site.wait_until(lambda: 'carol' not in [u['username'] for u in self.site.api('GET', '/api/users')['users']])
        self.assertEqual(self.site.status('GET', f'/api/users/{carol["id"]}'), 404)

        d.find_element(By.CSS_SELECTOR, 'input[name=theme][value=dark]').click()
        self.assertEqual(d.execute_script('return document.documentElement.dataset.theme'), 'dark')
        Select(d.find_element(By.NAME, 'skipForward')).select_by_value('30')
        self.assertEqual(json.loads(d.execute_script('return localStorage.getItem("feedctl.prefs")'))['skipForward'], 30)
        self.check_screen('settings')
        d.find_element(By.CSS_SELECTOR, 'input[name=theme][value=system]').click()


class AccountTest(unittest.TestCase):
    """Settings for someone who is no admin: their own password, and no users section."""

    def setUp(self):
        self.site = Site(users=[(ADMIN, ADMIN_PASSWORD, True), (OTHER, OTHER_PASSWORD, False)])
        self.site.login(OTHER, OTHER_PASSWORD)

    def tearDown(self):
        self.site.close()

    def test_a_user_changes_their_password_with_the_current_one(self):
        site, d = self.site, self.site.driver
        elsewhere = site.login_token(OTHER, OTHER_PASSWORD, device='Laptop')
        site.open('/settings')
        site.wait_for('input[name=current-password]')
        self.assertEqual(d.find_elements(By.NAME, 'new-username'), [], 'only admins manage users')
        status = lambda: d.find_element(By.CSS_SELECTOR, 'form.stacked [role=status]').text

        d.find_element(By.NAME, 'current-password').send_keys('not my password')
        d.find_element(By.NAME, 'new-password').send_keys('a new password 1')
        d.find_element(By.NAME, 'confirm-password').send_keys('a new password 1', Keys.ENTER)
        site.wait_until(lambda: 'PIN' in status() or 'password' in status().lower())
        self.assertNotIn('changed', status())
        self.assertEqual(site.status('GET', '/api/feed', token=elsewhere), 200, 'nothing changed')

        d.find_element(By.NAME, 'current-password').clear()
        d.find_element(By.NAME, 'current-password').send_keys(OTHER_PASSWORD)
        d.find_element(By.NAME, 'new-password').clear()
        d.find_element(By.NAME, 'new-password').send_keys('a new password 1')
        d.find_element(By.NAME, 'confirm-password').clear()
        d.find_element(By.NAME, 'confirm-password').send_keys('a new password 1', Keys.ENTER)
        site.wait_until(lambda: 'Password changed' in status())
        self.assertEqual(site.status('GET', '/api/feed', token=elsewhere), 401, 'the other sessions ended')
        site.login_token(OTHER, 'a new password 1')
        site.screenshot('settings-user-desktop')


if __name__ == '__main__':
    unittest.main()
