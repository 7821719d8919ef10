#!/usr/bin/env python3
"""A small HTTP/1.1 server for feedctl's tests (standard library only).

Usage: http_server.py [--root DIR] [--tls]   # binds 127.0.0.1 on a free port
With --tls it speaks HTTPS with a fresh self-signed certificate (made with the openssl CLI).
Prints the port on its first stdout line; exits when stdin closes or on SIGTERM.

Files under --root are served with ETag, Last-Modified, 304s and byte ranges (`?type=T`: with
Content-Type T). Test routes:
  /count/PATH            the file PATH (every request is logged anyway; see /stats)
  /gzip/PATH             the file PATH, gzip-encoded when the client accepts gzip
  /plain/PATH            the file PATH without ETag or Last-Modified (never a 304)
  /norange/PATH          the file PATH as `python3 -m http.server` serves it: always whole
                         (200), no Accept-Ranges, a Range header ignored
  /redirect/CODE?to=URL  a CODE (301, 302, 303, 307, 308) redirect to URL (default /)
  /loop                  redirects to itself forever
  /slow?bytes=N&delay=D  N bytes (Content-Length N), one byte every D seconds
  /hang?seconds=S        reads the request, answers nothing for S seconds (default 60), closes
  /truncated             announces 1000 bytes, sends 100, closes
  /cut/PATH?after=N      the file PATH; a whole-file (200) answer announces every byte but
                         closes after N; a Range request is served whole (so a resume works)
  /status/CODE?retry_after=V[&retry_after_in=S]   an error status; Retry-After V, or an
                         HTTP-date S seconds from now
  /html                  an HTML page, not a feed
  /big?mb=N[&chunked=1]  N MB of zeros, with Content-Length (or without, closing at the end)
  /echo                  the request's headers as JSON (a POST's: its method and body too, under
                         "X-Echo-Method" and "X-Echo-Body"; any route takes a POST as a GET)
  /delay/S/PATH          the file PATH after S seconds (a provider that answers late; discovery)
  /hold/PATH             the file PATH once no file PATH.hold is under --root (a test holds a
                         feed's answer, e.g. while it kills the worker fetching it); a client
                         that hangs up meanwhile ends the request (status -2), so it counts as
                         in flight only while its client is connected. At most ?max=S (60) s.
  /feeds/videos.xml?channel_id=ID | ?playlist_id=ID
                         YouTube's feed URLs: the file youtube-feeds/ID.xml (so a test can
                         point Subscriber's youTubeOrigin here); pages such as /@handle or
                         /c/NAME/videos (Rumble) are plain files under --root
Hostile routes (issue 14: each is used by a test):
  /garbage               no HTTP at all: a line of text (as an SSH banner or HTTP/0.9), then closes
  /huge-header?kb=N[&lines=1]  a 200 whose head carries N KB of header: one field line, or
                         (lines=1) many 1 KB fields; then a short body
  /trickle-head?delay=D  the status line and header fields one byte every D seconds
  /entity-bomb?kb=K&refs=N  an RSS feed declaring one internal entity of K KB referenced N times
  /deep-html?depth=N&strays=M  an HTML page N elements deep followed by M stray end tags
  /silent-port           (plain text) the port of a TCP listener that accepts connections and
                         never says a word: an https:// URL to it is a TLS handshake that never
                         completes
  /stats                 JSON: {"hits": {path: n}, "log": [{path, status, encoding, sent,
                         started, ended}], "connections": n, "max_inflight": n,
                         "max_overlap": {path: n}, "inflight": {path: n}}: max_overlap is the most
                         requests for one path in flight at once (a feed fetched by two pollers
                         at the same time shows 2), started/ended Unix seconds
"""
import argparse, email.utils, gzip, hashlib, json, os, select, signal, socket, ssl, subprocess, sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

HTML = b"<!DOCTYPE html><html><head><title>Not a feed</title></head><body><p>Hello</p></body></html>\n"


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.hits, self.log = {}, []
        self.connections = self.inflight = self.max_inflight = 0
        self.path_inflight, self.max_overlap = {}, {}

    def begin(self, path):
        with self.lock:
            self.hits[path] = self.hits.get(path, 0) + 1
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
            self.path_inflight[path] = self.path_inflight.get(path, 0) + 1
            self.max_overlap[path] = max(self.max_overlap.get(path, 0), self.path_inflight[path])

    def end(self, entry):
        with self.lock:
            self.inflight -= 1
            self.path_inflight[entry["path"]] -= 1
            entry["ended"] = time.time()
            self.log.append(entry)

    def snapshot(self):
        with self.lock:
            return {"hits": self.hits, "log": self.log, "connections": self.connections,
                    "max_inflight": self.max_inflight, "max_overlap": self.max_overlap,
                    "inflight": {p: n for p, n in self.path_inflight.items() if n}}


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # tests open dozens of connections at once

    def handle_error(self, request, client_address):
        # A client that hangs up (the player daemon drops connections it no longer needs) is no
        # error of the server's: socketserver printed a 20-line traceback for each, in the middle
        # of the demo's output (scripts/demo.sh shows this server's stderr). Others as before.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so clients can reuse connections
    disable_nagle_algorithm = True  # else head and body in two writes cost a 40 ms delayed ACK

    def setup(self):
        super().setup()
        with self.server.stats.lock:
            self.server.stats.connections += 1

    def log_message(self, *args):  # quiet: the tests read /stats instead
        pass

    def do_POST(self):
        self.posted = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.do_GET()

    def do_GET(self):
        url = urlsplit(self.path)
        self.query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.entry = {"path": url.path, "status": 0, "encoding": None, "sent": 0,
                      "query": url.query, "headers": dict(self.headers.items()), "started": time.time()}
        if url.path == "/stats":
            return self.send(200, json.dumps(self.server.stats.snapshot()).encode(), "application/json")
        self.server.stats.begin(url.path)
        try:
            self.route(unquote(url.path))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (size cap, timeout): expected
        finally:
            self.server.stats.end(self.entry)
            self.__dict__.pop("posted", None)   # the handler serves the connection's next request too

    def route(self, path):
        q = self.query
        if path.startswith("/count/"):
            return self.serve_file(path[len("/count/"):])
        if path.startswith("/gzip/"):
            return self.serve_file(path[len("/gzip/"):], gzipped=True)
        if path.startswith("/plain/"):
            return self.serve_file(path[len("/plain/"):], conditional=False)
        if path.startswith("/norange/"):
            return self.serve_whole(path[len("/norange/"):])
        if path.startswith("/redirect/"):
            return self.send(int(path.rsplit("/", 1)[1]), b"", headers={"Location": q.get("to", "/")})
        if path.startswith("/delay/"):
            _, _, seconds, rest = path.split("/", 3)
            time.sleep(float(seconds))
            return self.serve_file(rest)
        if path.startswith("/hold/"):
            return self.hold(path[len("/hold/"):], float(q.get("max", "60")))
        if path == "/loop":
            return self.send(302, b"", headers={"Location": "/loop"})
        if path == "/slow":
            return self.trickle(int(q.get("bytes", "10")), float(q.get("delay", "1")))
        if path == "/hang":
            time.sleep(float(q.get("seconds", "60")))
            self.close_connection = True
            return
        if path == "/truncated":
            self.send_head(200, "application/xml", 1000)
            self.write(b"<" * 100)
            self.close_connection = True
            return
        if path.startswith("/cut/"):
            return self.cut_file(path[len("/cut/"):], int(q.get("after", "0")))
        if path.startswith("/status/"):
            headers = {}
            if "retry_after" in q:
                headers["Retry-After"] = q["retry_after"]
            if "retry_after_in" in q:
                headers["Retry-After"] = email.utils.formatdate(time.time() + int(q["retry_after_in"]), usegmt=True)
            return self.send(int(path.rsplit("/", 1)[1]), b"error\n", headers=headers)
        if path == "/html":
            return self.send(200, HTML, "text/html; charset=utf-8")
        if path == "/big":
            return self.big(int(q.get("mb", "1")) * 1_000_000, q.get("chunked") == "1")
        if path == "/echo":
            echoed = dict(self.headers.items())
            if hasattr(self, "posted"):
                echoed.update({"X-Echo-Method": "POST", "X-Echo-Body": self.posted.decode("utf-8", "replace")})
            return self.send(200, json.dumps(echoed).encode(), "application/json")
        if path == "/feeds/videos.xml":
            return self.youtube_feed()
        if path == "/garbage":
            self.entry["status"] = -1
            self.write(b"SSH-2.0-OpenSSH_9.2 not a web server\r\n")
            self.close_connection = True
            return
        if path == "/huge-header":
            return self.huge_header(int(q.get("kb", "1024")), q.get("lines") == "1")
        if path == "/trickle-head":
            return self.trickle_head(float(q.get("delay", "0.5")))
        if path == "/entity-bomb":
            return self.send(200, entity_bomb(int(q.get("kb", "100")), int(q.get("refs", "1000"))), "application/rss+xml")
        if path == "/deep-html":
            return self.send(200, deep_html(int(q.get("depth", "1000")), int(q.get("strays", "1000"))), "text/html")
        if path == "/silent-port":
            return self.send(200, str(self.server.silent_port).encode())
        return self.serve_file(path.lstrip("/"))

    # -- YouTube-like feed URLs ----------------------------------------------------------------

    def youtube_feed(self):
        ident = self.query.get("channel_id") or self.query.get("playlist_id") or ""
        if not ident or "/" in ident or ident.startswith("."):
            return self.send(404, b"not found\n")
        return self.serve_file("youtube-feeds/%s.xml" % ident)

    # -- responses ---------------------------------------------------------------------------

    def send_head(self, status, ctype, length, headers=None):
        self.entry["status"] = status
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        if length is not None:
            self.send_header("Content-Length", str(length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()

    def write(self, data):
        self.wfile.write(data)
        self.wfile.flush()
        self.entry["sent"] += len(data)

    def send(self, status, body, ctype="text/plain", headers=None):
        self.send_head(status, ctype if body else None, len(body), headers)
        if body:
            self.write(body)

    def file_under_root(self, rel):
        """The path of the file `rel` under --root, or None (missing, or outside the root)."""
        root = os.path.realpath(self.server.root)
        full = os.path.realpath(os.path.join(root, rel))
        return full if full.startswith(root + os.sep) and os.path.isfile(full) else None

    def serve_file(self, rel, gzipped=False, conditional=True):
        full = self.file_under_root(rel)
        if full is None:
            return self.send(404, b"not found\n")
        with open(full, "rb") as f:
            data = f.read()
        etag = '"%s"' % hashlib.sha1(data).hexdigest()[:16]
        mtime = int(os.path.getmtime(full))
        validators = {}
        if conditional:
            validators = {"ETag": etag, "Last-Modified": email.utils.formatdate(mtime, usegmt=True)}
            if self.not_modified(etag, mtime):
                return self.send(304, b"", headers=validators)
        ctype = "application/rss+xml; charset=utf-8" if full.endswith(".xml") else "application/octet-stream"
        ctype = self.query.get("type", ctype)  # a test names the Content-Type (?type=audio/mpeg)
        gzipped = gzipped and "gzip" in self.headers.get("Accept-Encoding", "")
        if gzipped:
            data = gzip.compress(data)
            validators["Content-Encoding"] = self.entry["encoding"] = "gzip"
        validators["Accept-Ranges"] = "bytes"
        rng = self.headers.get("Range", "")
        if rng.startswith("bytes=") and not gzipped:
            first, _, last = rng[6:].partition("-")
            start, end = int(first or 0), min(int(last) if last else len(data) - 1, len(data) - 1)
            if not first and last:  # a suffix: the last N bytes
                start, end = max(0, len(data) - int(last)), len(data) - 1
            if start >= len(data) or start > end:
                return self.send(416, b"", headers={"Content-Range": "bytes */%d" % len(data)})
            validators["Content-Range"] = "bytes %d-%d/%d" % (start, end, len(data))
            return self.send(206, data[start:end + 1], ctype, validators)
        self.send(200, data, ctype, validators)

    def serve_whole(self, rel):
        full = self.file_under_root(rel)
        if full is None:
            return self.send(404, b"not found\n")
        with open(full, "rb") as f:
            data = f.read()
        self.send(200, data, "application/octet-stream")

    def not_modified(self, etag, mtime):
        inm = self.headers.get("If-None-Match")
        if inm is not None:  # RFC 9110: If-None-Match wins over If-Modified-Since
            return etag in [t.strip() for t in inm.split(",")] or inm.strip() == "*"
        ims = self.headers.get("If-Modified-Since")
        try:
            return ims is not None and mtime <= email.utils.parsedate_to_datetime(ims).timestamp()
        except (TypeError, ValueError):
            return False

    def trickle(self, count, delay):
        self.send_head(200, "application/xml", count)
        for _ in range(count):
            self.write(b"x")
            time.sleep(delay)

    def huge_header(self, kb, many_lines):
        self.entry["status"] = 200
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: 2\r\n")
        if many_lines:
            for i in range(kb):
                self.wfile.write(b"X-Filler-%d: %s\r\n" % (i, b"a" * 1000))
        else:
            self.wfile.write(b"X-Big: ")
            for _ in range(kb):
                self.wfile.write(b"a" * 1024)
            self.wfile.write(b"\r\n")
        self.write(b"\r\nok")
        self.close_connection = True

    def trickle_head(self, delay):
        self.entry["status"] = 200
        for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: 2\r\n\r\nok":
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(delay)
        self.close_connection = True

    def big(self, size, chunked):
        self.send_head(200, "application/octet-stream", None if chunked else size)
        block = b"\0" * 65536
        while self.entry["sent"] < size:
            self.write(block[:size - self.entry["sent"]])
        if chunked:
            self.close_connection = True  # no Content-Length: the end of the body is the close

    def hold(self, rel, longest):
        hold = os.path.join(self.server.root, rel + ".hold")
        deadline = time.time() + longest
        while os.path.exists(hold) and time.time() < deadline:
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                self.entry["status"] = -2  # the client hung up (killed, or gave up)
                self.close_connection = True
                return
        return self.serve_file(rel)

    def cut_file(self, rel, after):
        if "Range" in self.headers:
            return self.serve_file(rel)
        full = self.file_under_root(rel)
        if full is None:
            return self.send(404, b"not found\n")
        with open(full, "rb") as f:
            data = f.read()
        self.send_head(200, "application/octet-stream", len(data), {"Accept-Ranges": "bytes"})
        self.write(data[:after])
        self.close_connection = True


def entity_bomb(kb, refs):
    """Flat entity amplification: one internal entity of `kb` KB, referenced `refs` times
    (100 KB × 22,000 made a 355 KB feed expand to 2.2 GB)."""
    value = "x" * (kb * 1024)
    per_item = max(1, refs // 100)
    items = "".join("<item><title>t%d</title><description>%s</description></item>" % (i, "&e;" * per_item)
                    for i in range(max(1, refs // per_item)))
    return ('<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY e "%s">]>\n'
            '<rss version="2.0"><channel><title>bomb</title>%s</channel></rss>\n' % (value, items)).encode()


def deep_html(depth, strays):
    """Deep nesting and stray end tags: libxml2's HTML parser scans its element stack for each
    stray end tag, so the cost is depth × strays."""
    return ("<!DOCTYPE html><html><body>" + "<b>" * depth + "</i>" * strays + "</body></html>").encode()


def silent_listener():
    """A TCP listener that accepts and never answers; its connections are kept open."""
    import socket
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held = []

    def accept():
        while True:
            conn, _ = listener.accept()
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    return listener.getsockname()[1]


def self_signed_context():
    with tempfile.TemporaryDirectory() as tmp:
        key, cert = os.path.join(tmp, "key.pem"), os.path.join(tmp, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1"],
                       check=True, capture_output=True)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        return context


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=".")
    parser.add_argument("--tls", action="store_true")
    args = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    if args.tls:
        server.socket = self_signed_context().wrap_socket(server.socket, server_side=True)
    server.root, server.stats = args.root, Stats()
    server.silent_port = silent_listener()
    print(server.server_address[1], flush=True)

    def stop(*_):
        os._exit(0)  # handler threads may be sleeping in /slow: don't wait for them

    signal.signal(signal.SIGTERM, stop)
    threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
