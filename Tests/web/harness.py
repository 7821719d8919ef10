"""The browser tests' world (WEB.md "Browser tests"): a real `feedctl serve` (the built program)
over a temp library with a user made by the CLI, real feeds and MP3s (made with ffmpeg) served on
127.0.0.1, a private headless PulseAudio whose monitor proves the browser's audio arrived, and
Chromium driven by Selenium. Nothing outside the repository and scripts/install-deps.sh."""
import contextlib
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from email.utils import formatdate
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[2]
PHONE = (390, 844)
DESKTOP = (1280, 800)
PASSWORD = 'correct horse battery'


class Failure(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def wait_for(what, predicate, timeout=15.0, interval=0.1):
    """predicate() until it is truthy (returned) or `timeout` s pass (Failure naming `what`)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except Exception as error:   # a page mid-render: try again
            last = error
        time.sleep(interval)
    raise Failure(f'timed out after {timeout:.0f} s waiting for {what} (last: {last!r})')


def programs():
    """feedctl and feedctl-serve from the build the tests run (FEEDCTL_BIN_DIR, else .build/debug)."""
    for directory in [os.environ.get('FEEDCTL_BIN_DIR'), ROOT / '.build/debug']:
        if directory and (Path(directory) / 'feedctl-serve').exists():
            return Path(directory)
    raise SystemExit('web tests: no built feedctl-serve (build first, or set FEEDCTL_BIN_DIR)')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


# --- media and feeds ------------------------------------------------------------------------

def make_tone(path, frequency=440, seconds=90):
    """A deterministic MP3 of one sine tone (cached by path)."""
    if path.exists():
        return path
    subprocess.run(['ffmpeg', '-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi',
                    '-i', f'sine=frequency={frequency}:sample_rate=44100:duration={seconds}',
                    '-fflags', '+bitexact', '-flags:a', '+bitexact', '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '64k',
                    str(path)], check=True, timeout=60)
    return path


def rss(title, items, raw_title=False):
    """An RSS 2.0 document: items are dicts {guid, title, description, url?, enclosure?, length?,
    duration?, image?, link?}; text is escaped unless raw (a test of hostile markup writes CDATA)."""
    def text(value):
        return value if raw_title else escape(value)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>',
           f'<title>{text(title)}</title><link>http://127.0.0.1/</link><description>test feed</description>']
    now = time.time()
    for n, item in enumerate(items):
        date = formatdate(now - 3600 * (n + 1), usegmt=True)
        parts = [f'<item><guid isPermaLink="false">{escape(item["guid"])}</guid>',
                 f'<title>{text(item["title"])}</title>',
                 f'<description>{text(item.get("description", ""))}</description>',
                 f'<pubDate>{date}</pubDate>']
        if item.get('link'):
            parts.append(f'<link>{text(item["link"])}</link>')
        if item.get('enclosure'):
            parts.append(f'<enclosure url="{escape(item["enclosure"])}" length="{item.get("length", 1000)}" type="audio/mpeg"/>')
        if item.get('duration'):
            parts.append(f'<itunes:duration>{item["duration"]}</itunes:duration>')
        if item.get('image'):
            parts.append(f'<itunes:image href="{escape(item["image"])}"/>')
        parts.append('</item>')
        out.append(''.join(parts))
    out.append('</channel></rss>')
    return '\n'.join(out)


class FileServer:
    """Files on 127.0.0.1 with Range support (what an <audio> element seeks with)."""

    def __init__(self, directory):
        self.directory = Path(directory)
        root = self.directory

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                self.do_GET(head=True)

            def do_GET(self, head=False):
                path = (root / self.path.split('?')[0].lstrip('/')).resolve()
                if root.resolve() not in path.parents or not path.is_file():
                    self.send_response(404)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return
                data = path.read_bytes()
                start, end, status = 0, len(data) - 1, 200
                wanted = self.headers.get('Range', '')
                if wanted.startswith('bytes='):
                    first, _, last = wanted[6:].split(',')[0].partition('-')
                    if first:
                        start = int(first)
                        end = int(last) if last else end
                    else:
                        start = max(0, len(data) - int(last))
                    end = min(end, len(data) - 1)
                    status = 206
                body = data[start:end + 1]
                self.send_response(status)
                kind = 'audio/mpeg' if path.suffix == '.mp3' else 'application/rss+xml' if path.suffix == '.xml' else 'application/octet-stream'
                self.send_header('Content-Type', kind)
                self.send_header('Accept-Ranges', 'bytes')
                self.send_header('Content-Length', str(len(body)))
                if status == 206:
                    self.send_header('Content-Range', f'bytes {start}-{end}/{len(data)}')
                self.end_headers()
                if not head:
                    try:
                        self.wfile.write(body)
                    except (BrokenPipeError, ConnectionResetError):
                        pass

        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None   # a browser dropping a media request is not news
        self.base = f'http://127.0.0.1:{self.httpd.server_address[1]}'
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def write(self, name, text):
        (self.directory / name).write_text(text, encoding='utf-8')
        return f'{self.base}/{name}'

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# --- audio ----------------------------------------------------------------------------------

class Pulse:
    """A private headless PulseAudio (scripts/headless-pulse.sh) with a null sink."""

    def __init__(self, directory):
        self.directory = Path(directory)
        env = dict(os.environ, PULSE_SERVER='unix:/nonexistent/none')   # never an outside server
        out = subprocess.run(['bash', str(ROOT / 'scripts/headless-pulse.sh'), 'start', str(self.directory)],
                             env=env, capture_output=True, text=True, timeout=30)
        check(out.returncode == 0, f'headless PulseAudio did not start: {out.stderr.strip()}')
        self.env = {}
        for word in out.stdout.split():
            if '=' in word and word != 'export':
                key, _, value = word.partition('=')
                self.env[key] = value
        check('PULSE_SERVER' in self.env, f'headless-pulse.sh printed no PULSE_SERVER: {out.stdout!r} {out.stderr!r}')
        self.env.update(XDG_RUNTIME_DIR=str(self.directory), XDG_CONFIG_HOME=str(self.directory / 'config'))

    @contextlib.contextmanager
    def recording(self, path):
        """Records the null sink's monitor (raw s16le) while the block runs."""
        proc = subprocess.Popen(['parec', '-d', 'nullsink.monitor', '--raw', '--latency-msec=20', '--format=s16le',
                                 '--rate=48000', '--channels=2', str(path)], env={**os.environ, **self.env})
        try:
            yield path
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()

    def heard(self, path, expect):
        """scripts/tones.py's verdict on a recording: (ok, line)."""
        out = subprocess.run([sys.executable, str(ROOT / 'scripts/tones.py'), str(path), '--expect', expect],
                             capture_output=True, text=True, timeout=60)
        return out.returncode == 0, (out.stdout + out.stderr).strip()

    def stop(self):
        subprocess.run(['bash', str(ROOT / 'scripts/headless-pulse.sh'), 'stop', str(self.directory)],
                       env={**os.environ, **self.env}, capture_output=True, timeout=30)


# --- the server -----------------------------------------------------------------------------

class OpenIDProvider:
    """oidc-provider-mock (PyPI, in the tests' venv), a real OpenID provider on 127.0.0.1, started by
    Tests/Support/oidc_provider.py; it stops when its stdin closes."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, str(ROOT / 'Tests/Support/oidc_provider.py'), 'real'],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.isdigit():
            self.close()
            raise Failure(f'the OpenID provider did not start (printed {line!r}): is oidc-provider-mock installed (scripts/install-deps.sh)?')
        self.issuer = f'http://127.0.0.1:{line}'

    def set_claims(self, subject, claims):
        """What the provider says of `subject` (its PUT /users/{sub})."""
        request = urllib.request.Request(f'{self.issuer}/users/{urllib.parse.quote(subject, safe="")}', data=json.dumps(claims).encode(),
                                         method='PUT', headers={'Content-Type': 'application/json'})
        with urllib.request.urlopen(request, timeout=30) as response:
            check(response.status == 204, f'PUT /users answered {response.status}')

    def close(self):
        with contextlib.suppress(Exception):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Server:
    """`feedctl serve` over a fresh library whose owner has a password (set with the CLI); `config`:
    the text of its config file."""

    def __init__(self, directory, open_mode=False, pulse_env=None, config=None):
        self.bin = programs()
        self.directory = Path(directory)
        self.db = self.directory / 'library.db'
        self.env = dict(os.environ, HOME=str(self.directory), XDG_CONFIG_HOME=str(self.directory / 'config'),
                        XDG_STATE_HOME=str(self.directory / 'state'), XDG_DATA_HOME=str(self.directory / 'data'),
                        XDG_RUNTIME_DIR=str(self.directory / 'run'))
        self.env.update(pulse_env or {})
        (self.directory / 'run').mkdir(mode=0o700, parents=True, exist_ok=True)
        if config:
            # Named outright: PulseAudio's environment has an XDG_CONFIG_HOME of its own.
            self.env['FEEDCTL_CONFIG'] = str(self.directory / 'config.toml')
            (self.directory / 'config.toml').write_text(config)
        # The library's owner (the one the CLI acts for) gets a password: the browser signs in as
        # the owner, so `feedctl show` reads the same state.
        self.user = 'owner'
        self.cli('user', 'add', 'alice', '--password-stdin', input=PASSWORD + '\n')   # makes the library and its owner
        if not open_mode:
            self.cli('user', 'passwd', self.user, '--password-stdin', input=PASSWORD + '\n')
        self.port = free_port()
        self.base = f'http://127.0.0.1:{self.port}'
        args = [str(self.bin / 'feedctl-serve'), '--db', str(self.db), '--listen', f'127.0.0.1:{self.port}', '--allow-private-feeds',
                '--socket', str(self.directory / 'run/player.sock')]
        if open_mode:
            args.append('--open')
        self.log = open(self.directory / 'serve.log', 'w')
        self.proc = subprocess.Popen(args, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            wait_for('feedctl serve to answer /health', lambda: self.raw('GET', '/health')[0] == 200, timeout=30)
            self.token = None if open_mode else self.login()
        except BaseException:
            self.stop()
            raise

    def cli(self, *args, input=None):
        out = subprocess.run([str(self.bin / 'feedctl'), *args, '--db', str(self.db)], env=self.env, input=input,
                             capture_output=True, text=True, timeout=60)
        check(out.returncode == 0, f'feedctl {" ".join(args)} failed: {out.stderr.strip()}')
        return out.stdout

    def raw(self, method, path, body=None, token=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header('Accept', 'application/json')
        if data is not None:
            request.add_header('Content-Type', 'application/json')
        if token:
            request.add_header('Authorization', f'Bearer {token}')
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                payload = response.read()
                return response.status, json.loads(payload) if payload else None
        except urllib.error.HTTPError as error:
            payload = error.read()
            try:
                return error.code, json.loads(payload)
            except ValueError:
                return error.code, payload.decode(errors='replace')
        except (urllib.error.URLError, ConnectionError):
            return 0, None

    def api(self, method, path, body=None, status=(200, 201, 204)):
        code, answer = self.raw(method, path, body, self.token)
        check(code in status, f'{method} {path}: {code} {answer}')
        return answer

    def login(self):
        code, answer = self.raw('POST', '/api/auth/login', {'username': self.user, 'password': PASSWORD})
        check(code == 200 and answer.get('success'), f'login failed: {code} {answer}')
        return answer['token']

    def subscribe(self, url):
        """Subscribes (the API) and syncs; the channel."""
        channel = self.api('POST', '/api/subscriptions', {'url': url})
        return channel

    def stop(self):
        # A player daemon that /api/player/play started outlives the server, and so does one a CLI
        # command started on the environment's own socket (`queue add`): tell them to quit.
        for socket in {self.directory / 'run/player.sock', Path(self.env['XDG_RUNTIME_DIR']) / 'feedctl/player.sock'}:
            if socket.exists():
                subprocess.run([str(self.bin / 'feedctl'), 'quit', '--socket', str(socket), '--db', str(self.db)],
                               env=self.env, capture_output=True, timeout=30)
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


# --- the browser ----------------------------------------------------------------------------

def browser(env=None, size=DESKTOP):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = shutil.which('chromium') or '/usr/bin/chromium'
    for arg in ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                '--autoplay-policy=no-user-gesture-required', '--no-first-run', '--disable-extensions',
                f'--window-size={size[0]},{size[1]}']:
        options.add_argument(arg)
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    service = Service(shutil.which('chromedriver') or '/usr/bin/chromedriver', env={**os.environ, **(env or {})})
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_script_timeout(30)
    return driver


class Page:
    """Helpers over one driver."""

    def __init__(self, driver, base, out):
        self.d = driver
        self.base = base
        self.out = Path(out)

    def go(self, path):
        self.d.get(self.base + path)

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def find(self, css, timeout=15):
        from selenium.webdriver.common.by import By
        return wait_for(f'an element {css}', lambda: next(iter(self.d.find_elements(By.CSS_SELECTOR, css)), None), timeout)

    def all(self, css):
        from selenium.webdriver.common.by import By
        return self.d.find_elements(By.CSS_SELECTOR, css)

    def button(self, label, within=None, timeout=15):
        """The first visible button whose accessible name is `label`."""
        scope = f'{within} ' if within else ''
        return wait_for(f'a button "{label}"', lambda: next(
            (b for b in self.all(f'{scope}button[aria-label="{label}"], {scope}button') if
             (b.get_attribute('aria-label') or b.text.strip()) == label and b.is_displayed()), None), timeout)

    def press(self, label, within=None, timeout=15):
        """Clicks the button `button` finds, again if the page redrew it in between (the screens
        redraw on the live event stream, which can replace a button between finding and clicking)."""
        def attempt():
            button = self.button(label, within, timeout=2)
            # Centred first: WebDriver clicks a button it deems in view where it is, and one under
            # the sticky top bar (a taller page left scrolled) is then not the one clicked.
            self.js('arguments[0].scrollIntoView({block: "center"})', button)
            button.click()
            return True
        wait_for(f'a click on "{label}"', attempt, timeout)

    def click(self, css, timeout=15):
        """Clicks the element `css` finds, centred first as `press` does (not under the sticky top bar)."""
        element = self.find(css, timeout)
        self.js('arguments[0].scrollIntoView({block: "center"})', element)
        element.click()

    def login(self, user, password):
        self.go('/login')
        self.find('input[name="username"]').send_keys(user)
        self.find('input[name="password"]').send_keys(password)
        self.press('Sign in')
        wait_for('the feed after signing in', lambda: self.d.current_url.endswith('/feed'))

    def screenshots(self, name):
        """The current screen at phone and desktop width, into the run's output directory."""
        self.out.mkdir(parents=True, exist_ok=True)
        for label, (w, h) in [('phone', PHONE), ('desktop', DESKTOP)]:
            self.d.set_window_size(w, h)
            time.sleep(0.4)
            self.d.save_screenshot(str(self.out / f'{name}-{label}.png'))
        self.d.set_window_size(*DESKTOP)

    def axe(self, name):
        """axe-core on the current screen: no serious or critical violation."""
        from axe_selenium_python import Axe
        axe = Axe(self.d)
        axe.inject()
        result = axe.run()
        bad = [v for v in result['violations'] if v['impact'] in ('serious', 'critical')]
        (self.out / f'axe-{name}.json').write_text(json.dumps(result['violations'], indent=1))
        check(not bad, f'axe on {name}: ' + '; '.join(
            f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}" for v in bad))

    def stream_locks(self):
        """The Web Locks of the app's shared event streams (web/app/stream.js) in this browser:
        {'held': [names], 'pending': [names]}, one held per stream and a pending one per other page."""
        return self.d.execute_async_script(
            'const done = arguments[arguments.length - 1];'
            'navigator.locks.query().then((q) => done({held: q.held.map((l) => l.name), pending: q.pending.map((l) => l.name)}));')

    def console_errors(self):
        return [e for e in self.d.get_log('browser') if e['level'] == 'SEVERE']


class World:
    """One test file's world: pulse, a feed server, the server, a signed-in-able browser; with
    `oidc`, a real OpenID provider too, which the server signs people in at (`[oidc]`)."""

    def __init__(self, out, open_mode=False, oidc=False):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix='feedctl-web-world-'))
        self.pulse = self.files = self.server = self.driver = self.oidc = None
        try:
            self.pulse = Pulse(self.tmp / 'pulse')
            (self.tmp / 'files').mkdir()
            self.files = FileServer(self.tmp / 'files')
            config = None
            if oidc:
                self.oidc = OpenIDProvider()
                config = (f'[oidc]\nissuer = "{self.oidc.issuer}"\nclient_id = "feedctl-web"\nclient_secret = "web-secret"\n'
                          'provider_name = "Mock ID"\nallow_signup = true\n')
            self.server = Server(self.tmp / 'server', open_mode=open_mode, pulse_env=self.pulse.env, config=config)
            self.driver = browser(self.pulse.env)
        except BaseException:
            self.close()   # what started, stopped: nothing outlives a world that did not start
            raise
        self.page = Page(self.driver, self.server.base, self.out)

    def dump_logs(self, label):
        with contextlib.suppress(Exception):
            for entry in self.driver.get_log('browser'):
                print(f'  browser: {entry["level"]} {entry["message"][:400]}')
        with contextlib.suppress(Exception):
            lines = (self.server.directory / 'serve.log').read_text().splitlines()[-15:]
            for line in lines:
                print(f'  serve: {line}')
        with contextlib.suppress(Exception):
            self.driver.save_screenshot(str(self.out / f'failure-{label}.png'))

    def close(self):
        for part, step in ((self.driver, 'quit'), (self.server, 'stop'), (self.oidc, 'close'), (self.files, 'close'), (self.pulse, 'stop')):
            if part is not None:
                with contextlib.suppress(Exception):
                    getattr(part, step)()
        shutil.rmtree(self.tmp, ignore_errors=True)
