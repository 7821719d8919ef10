"""What test_screens.py runs against: a real `feedctl serve` (the built program) on a temporary
library with users made by the CLI, the test feed server (Tests/Support/http_server.py) and
headless Chromium driven by Selenium, with axe-core for accessibility.
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait
from axe_selenium_python import Axe

__all__ = ['Site', 'By', 'Keys', 'Select']

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
TIMEOUT = 15


def _feedctl():
    return os.environ.get('FEEDCTL_BIN') or os.path.join(REPO, '.build', 'debug', 'feedctl')


class Site:
    def __init__(self, users):
        self.tmp = tempfile.mkdtemp(prefix='feedctl-web-screens-')
        self.out = os.environ.get('FEEDCTL_WEB_OUT') or os.path.join(self.tmp, 'screenshots')
        os.makedirs(self.out, exist_ok=True)
        self.procs = []
        self.driver = None
        try:
            self._start(users)
        except BaseException:
            self.close()
            raise

    def _start(self, users):
        # Feeds: the demo fixtures, on a server of our own on 127.0.0.1.
        self.feed_root = os.path.join(self.tmp, 'feeds')
        shutil.copytree(os.path.join(REPO, 'fixtures', 'demo'), self.feed_root)
        feeds = subprocess.Popen(['python3', os.path.join(REPO, 'Tests', 'Support', 'http_server.py'), '--root', self.feed_root],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.procs.append(feeds)
        self.feed_base = f'http://127.0.0.1:{feeds.stdout.readline().strip()}'

        self.db = db = os.path.join(self.tmp, 'library.db')
        for name, password, admin in users:
            subprocess.run([_feedctl(), 'user', 'add', name, '--password-stdin', '--db', db] + (['--admin'] if admin else []),
                           input=password + '\n', text=True, check=True, capture_output=True)
        env = dict(os.environ,
                   FEEDCTL_DISCOVER_ITUNES_URL=self.feeds_url('/itunes'),
                   FEEDCTL_DISCOVER_RUMBLE_URL='http://127.0.0.1:9/rumble',   # nothing listens on port 9: a platform that fails
                   FEEDCTL_DISCOVER_YTDLP='/nonexistent/yt-dlp')
        self.log_path = os.path.join(self.tmp, 'serve.log')
        with open(self.log_path, 'w') as log:
            serve = subprocess.Popen([_feedctl(), 'serve', '--allow-private-feeds', '--listen', '127.0.0.1:0', '--db', db],
                                     stdout=log, stderr=subprocess.STDOUT, env=env)
        self.procs.append(serve)
        deadline = time.time() + TIMEOUT
        port = None
        while port is None:
            if time.time() > deadline or serve.poll() is not None:
                with open(self.log_path) as log:
                    raise RuntimeError(f'feedctl serve did not start: {log.read()}')
            with open(self.log_path) as log:
                found = re.search(r'listening on http://127\.0\.0\.1:(\d+)', log.read())
            port = found and found.group(1)
            time.sleep(0.05)
        self.base = f'http://127.0.0.1:{port}'

        options = Options()
        options.binary_location = '/usr/bin/chromium'
        for arg in ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--lang=en-US']:
            options.add_argument(arg)
        self.driver = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=options)
        self.driver.set_window_size(1280, 800)
        self.tokens = {}

    def close(self):
        if self.driver:
            self.driver.quit()
        for proc in reversed(self.procs):
            if proc.stdin:
                proc.stdin.close()
            if proc.stdout:
                proc.stdout.close()
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(self.tmp, ignore_errors=True) if not os.environ.get('FEEDCTL_WEB_KEEP') else None

    # -- the server --------------------------------------------------------------------------
    def feeds_url(self, path):
        return self.feed_base + path

    def write_feed_file(self, path, text):
        full = os.path.join(self.feed_root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)

    def record_play(self, user_id, item_id, position):
        """A play in the history, as SQLiteLibrary.appendHistory writes it (the daemon does, as it plays)."""
        with sqlite3.connect(self.db, timeout=10) as db:
            db.execute('INSERT INTO play_history (user_id, item, title, channel_name, url, position_seconds, played_at) '
                       'SELECT ?, i.id, i.title, c.name, coalesce(i.url, i.enclosure_url), ?, unixepoch() '
                       'FROM items i JOIN channels c ON c.id = i.channel_id WHERE i.id = ?', (user_id, position, item_id))

    def login_token(self, name, password, device='test'):
        answer = self._call('POST', '/api/auth/login', {'username': name, 'pin': password, 'device_name': device}, token=None)[1]
        assert answer['success'], answer
        return answer['token']

    def _call(self, method, path, body=None, query=None, token=None):
        url = self.base + path + ('?' + urllib.parse.urlencode(query) if query else '')
        request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
        request.add_header('Accept', 'application/json')
        if body is not None:
            request.add_header('Content-Type', 'application/json')
        if token:
            request.add_header('Authorization', f'Bearer {token}')
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                text = response.read()
                return response.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors='replace')

    def api(self, method, path, body=None, query=None, token=None):
        """A call as the signed-in user (through the API, not the page); fails unless 2xx."""
        status, answer = self._call(method, path, body, query, token or self.token)
        assert 200 <= status < 300, f'{method} {path}: {status} {answer}'
        return answer

    def status(self, method, path, token=None):
        return self._call(method, path, token=token or self.token)[0]

    # -- the browser -------------------------------------------------------------------------
    def login(self, name, password):
        """Signs the browser in through the login route (the cookie), and keeps a token for API checks."""
        self.token = self.login_token(name, password, device='API checks')
        self.driver.get(self.base + '/health')
        answer = self.driver.execute_async_script(
            'const [name, password, done] = arguments;'
            "fetch('/api/auth/login', {method: 'POST', headers: {'Content-Type': 'application/json'},"
            " body: JSON.stringify({username: name, password, device_name: 'Chromium'})}).then((r) => r.json()).then(done)",
            name, password)
        assert answer['success'], answer

    def open(self, path):
        self.driver.get(self.base + path)

    def wait_until(self, condition, timeout=TIMEOUT):
        WebDriverWait(self.driver, timeout, ignored_exceptions=(Exception,)).until(lambda _: condition())

    def wait_for(self, selector, timeout=TIMEOUT):
        found = []
        def present():
            elements = self.driver.find_elements(By.CSS_SELECTOR, selector)
            if elements and elements[0].is_displayed():
                found.append(elements[0])
                return True
            return False
        self.wait_until(present, timeout)
        return found[-1]

    def confirm(self):
        """Presses OK in the app's confirmation dialog."""
        self.wait_for('dialog[open] button[value=ok]').click()

    def drag(self, source, target):
        """HTML5 drag and drop from `source` onto `target` (CSS selectors), dispatched with one
        DataTransfer as Chromium does for a mouse drag (WebDriver's own actions do not start one)."""
        self.driver.execute_script(
            'const [from, to] = [document.querySelector(arguments[0]), document.querySelector(arguments[1])];'
            'const data = new DataTransfer();'
            'const fire = (el, type) => el.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: data}));'
            "fire(from, 'dragstart'); fire(to, 'dragenter'); fire(to, 'dragover'); fire(to, 'drop'); fire(from, 'dragend');",
            source, target)

    def axe_serious(self):
        axe = Axe(self.driver)
        axe.inject()
        result = axe.run()
        return [{'id': v['id'], 'impact': v['impact'], 'nodes': [n['html'][:200] for n in v['nodes'][:3]]}
                for v in result['violations'] if v['impact'] in ('serious', 'critical')]

    def screenshot(self, name):
        self.driver.save_screenshot(os.path.join(self.out, f'{name}.png'))
