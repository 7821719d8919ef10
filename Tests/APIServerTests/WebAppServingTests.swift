import APIServer
import Foundation
import TestSupport
import XCTest

/// `feedctl serve` serves the web app (WEB.md "Serving"): the shell at `/` and for any page path
/// a browser asks for, its assets under `/assets/<hash>` for good, the root files, the page's
/// CSP; API paths stay JSON; a missing web root is said, with where it was looked for.
final class WebAppServingTests: XCTestCase {
    static let csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; "
        + "media-src 'self' blob: https: http:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
        + "form-action 'self'; frame-ancestors 'none'; manifest-src 'self'; worker-src 'self'"

    /// A web root of the test's own: a shell naming one script, the root files, a stylesheet.
    static let script = String(repeating: "console.log('the app');\n", count: 100)

    func webRoot(script: String = WebAppServingTests.script) throws -> TempDir {
        let dir = TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("app"), withIntermediateDirectories: true)
        try #"<!DOCTYPE html><html><head><link rel="stylesheet" href="%ASSETS%/app/style.css"><script type="module" src="%ASSETS%/app/app.js"></script></head><body></body></html>"#
            .write(toFile: dir.file("index.html"), atomically: true, encoding: .utf8)
        try script.write(toFile: dir.file("app/app.js"), atomically: true, encoding: .utf8)
        try "body { color: red }".write(toFile: dir.file("app/style.css"), atomically: true, encoding: .utf8)
        try "self.addEventListener('install', () => {})".write(toFile: dir.file("sw.js"), atomically: true, encoding: .utf8)
        try #"{"name": "feedctl"}"#.write(toFile: dir.file("manifest.webmanifest"), atomically: true, encoding: .utf8)
        return dir
    }

    func server(webRoots: [String], logins: Bool = false) async throws -> APIHarness {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: true, version: "test")
        configuration.webRoots = webRoots
        return try await APIHarness(configuration: configuration, logins: logins)
    }

    /// The asset prefix the shell names (`/assets/<hash>`).
    func prefix(of shell: String) throws -> String {
        let range = try XCTUnwrap(shell.range(of: #"/assets/[0-9a-f]+"#, options: .regularExpression), shell)
        return String(shell[range])
    }

    func testTheShellIsRevalidatedAndItsAssetsAreCachedForGood() async throws {
        let root = try webRoot()
        let h = try await server(webRoots: ["/nonexistent/web", root.path], logins: true)
        let shell = try await h.curl("GET", "/", headers: ["Accept": "text/html"])
        XCTAssertEqual(shell.status, 200, shell.text)
        XCTAssertEqual(shell.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertEqual(shell.headers["cache-control"], "no-cache")
        XCTAssertEqual(shell.headers["content-security-policy"], Self.csp)
        XCTAssertEqual(shell.headers["referrer-policy"], "same-origin")
        XCTAssertEqual(shell.headers["x-content-type-options"], "nosniff")
        XCTAssertFalse(shell.text.contains("%ASSETS%"), shell.text)
        let prefix = try prefix(of: shell.text)
        XCTAssertTrue(shell.text.contains(#"src="\#(prefix)/app/app.js""#), shell.text)
        let etag = try XCTUnwrap(shell.headers["etag"])

        // The browser's copy is still good: 304, no body.
        let again = try await h.curl("GET", "/", headers: ["Accept": "text/html", "If-None-Match": etag])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.body.count, 0)
        XCTAssertEqual(again.headers["etag"], etag)

        // Assets: immutable under the build's prefix, with their types; another build's prefix is not served.
        let script = try await h.curl("GET", "\(prefix)/app/app.js")
        XCTAssertEqual(script.status, 200, script.text)
        XCTAssertEqual(script.text, Self.script)
        XCTAssertEqual(script.headers["vary"], "Accept-Encoding")
        XCTAssertNil(script.headers["content-encoding"], "not asked for gzip")

        // Gzipped for a browser that takes it (made once at start): another representation, another tag.
        let zipped = try await h.curl("GET", "\(prefix)/app/app.js", headers: ["Accept-Encoding": "br, gzip, deflate"])
        XCTAssertEqual(zipped.headers["content-encoding"], "gzip")
        XCTAssertEqual(zipped.headers["vary"], "Accept-Encoding")
        XCTAssertLessThan(zipped.body.count, Self.script.utf8.count / 5)
        XCTAssertNotEqual(zipped.headers["etag"], script.headers["etag"])
        let dir = TempDir()
        try zipped.body.write(to: URL(fileURLWithPath: dir.file("app.js.gz")))
        let unzipped = try ProcessRunner.capture("/bin/gzip", ["-dc", dir.file("app.js.gz")])
        XCTAssertEqual(unzipped.status, 0, unzipped.stderr)
        XCTAssertEqual(unzipped.stdout, Self.script)
        let refused = try await h.curl("GET", "\(prefix)/app/app.js", headers: ["Accept-Encoding": "gzip;q=0, identity"])
        XCTAssertNil(refused.headers["content-encoding"])
        let gzipShell = try await h.curl("GET", "/", headers: ["Accept": "text/html", "Accept-Encoding": "gzip"])
        XCTAssertEqual(gzipShell.status, 200)
        XCTAssertEqual(script.headers["content-type"], "text/javascript; charset=utf-8")
        XCTAssertEqual(script.headers["cache-control"], "public, max-age=31536000, immutable")
        XCTAssertNotNil(script.headers["etag"])
        let style = try await h.curl("GET", "\(prefix)/app/style.css")
        XCTAssertEqual(style.headers["content-type"], "text/css; charset=utf-8")
        for stale in ["/assets/0123456789abcdef/app/app.js", "\(prefix)/app/missing.js", "\(prefix)/../../etc/passwd", "\(prefix)/index.html"] {
            let reply = try await h.curl("GET", stale)
            XCTAssertEqual(reply.status, 404, "\(stale): \(reply.text)")
            XCTAssertNotNil(try? reply.object()["detail"], stale)
        }

        // The root files: at the root (a service worker's scope), revalidated.
        let worker = try await h.curl("GET", "/sw.js")
        XCTAssertEqual(worker.status, 200)
        XCTAssertEqual(worker.headers["cache-control"], "no-cache")
        XCTAssertEqual(worker.headers["content-type"], "text/javascript; charset=utf-8")
        let manifest = try await h.curl("GET", "/manifest.webmanifest")
        XCTAssertEqual(manifest.headers["content-type"], "application/manifest+json; charset=utf-8")
        XCTAssertEqual(manifest.headers["cache-control"], "no-cache")

        // A changed file is a new build: a new prefix, and the old one is gone.
        let changed = try webRoot(script: "console.log('app 2')")
        let h2 = try await server(webRoots: [changed.path])
        let shell2 = try await h2.curl("GET", "/", headers: ["Accept": "text/html"])
        let prefix2 = try self.prefix(of: shell2.text)
        XCTAssertNotEqual(prefix2, prefix)
        XCTAssertNotEqual(shell2.headers["etag"], etag)
        let old = try await h2.curl("GET", "\(prefix)/app/app.js")
        XCTAssertEqual(old.status, 404)
    }

    /// The app's own paths (`/feed`, `/item/42`) are the shell for a browser; the API's stay JSON.
    func testAPageNoRouteServesIsTheShellButTheAPIAnswersJSON() async throws {
        let root = try webRoot()
        let h = try await server(webRoots: [root.path], logins: true)
        let html = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"   // what Chromium sends
        for path in ["/feed", "/item/42", "/collections/7", "/settings", "/login?next=/feed", "/no/such/page"] {
            let page = try await h.curl("GET", path, headers: ["Accept": html])
            XCTAssertEqual(page.status, 200, "\(path): \(page.text)")
            XCTAssertTrue(page.text.hasPrefix("<!DOCTYPE html>"), path)
            XCTAssertEqual(page.headers["content-security-policy"], Self.csp, path)
            XCTAssertEqual(page.headers["referrer-policy"], "same-origin", path)
        }
        // Not a browser's page: the JSON 404 as before.
        for (path, accept) in [("/api/nope", html), ("/api/feed/items/1/nope", html), ("/feed", "application/json"), ("/assets/x/app.js", html)] {
            let reply = try await h.curl("GET", path, headers: ["Accept": accept])
            XCTAssertEqual(reply.status, 404, "\(path) \(accept): \(reply.text)")
            XCTAssertEqual(reply.headers["content-type"], "application/json; charset=utf-8", path)
            XCTAssertNotNil(try reply.object()["detail"], path)
        }
        // A private route still wants its login, whatever the Accept.
        let feed = try await h.curl("GET", "/api/feed", headers: ["Accept": html])
        XCTAssertEqual(feed.status, 401, feed.text)
        // Other methods are not pages.
        let post = try await h.curl("POST", "/feed", body: "{}", headers: ["Accept": html])
        XCTAssertEqual(post.status, 404, post.text)
    }

    /// No web root: `/` says the files are missing and where they were looked for; nothing crashes.
    func testAMissingWebRootIsSaidWithWhereItWasLookedFor() async throws {
        let empty = TempDir()
        let h = try await server(webRoots: ["/nonexistent/share/feedctl/web", empty.path])
        let page = try await h.curl("GET", "/", headers: ["Accept": "text/html"])
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertTrue(page.text.contains("The web app's files are missing"), page.text)
        XCTAssertTrue(page.text.contains("/nonexistent/share/feedctl/web"), page.text)
        XCTAssertTrue(page.text.contains(empty.path), page.text)
        XCTAssertTrue(page.text.contains("/api/openapi.json"), page.text)
        XCTAssertTrue(page.text.contains("--web-root"), page.text)
        let other = try await h.curl("GET", "/feed", headers: ["Accept": "text/html"])
        XCTAssertEqual(other.status, 404, other.text)
        let health = try await h.call("GET", "/health")
        XCTAssertEqual(health.status, 200)
    }

    /// The repository's own `web/`: every asset its shell names is served.
    func testTheRepositorysWebAppIsServedWhole() async throws {
        let h = try await server(webRoots: [PackagePaths.root.appendingPathComponent("web").path])
        let shell = try await h.curl("GET", "/", headers: ["Accept": "text/html"])
        XCTAssertEqual(shell.status, 200)
        let prefix = try prefix(of: shell.text)
        let regex = try NSRegularExpression(pattern: #"(?:src|href)="([^"]+)""#)
        let links = regex.matches(in: shell.text, range: NSRange(shell.text.startIndex..., in: shell.text))
            .compactMap { Range($0.range(at: 1), in: shell.text).map { String(shell.text[$0]) } }
        XCTAssertTrue(links.contains("\(prefix)/app/app.js"), "\(links)")
        for link in links where link.hasPrefix("/") {
            // The tabs' links are the app's pages: the shell, for a browser.
            let reply = try await h.curl("GET", link, headers: ["Accept": "text/html"])
            XCTAssertEqual(reply.status, 200, "\(link): \(reply.text)")
        }
        XCTAssertFalse(shell.text.contains("<script>"), "no inline script (the CSP refuses it)")
        XCTAssertFalse(shell.text.contains("style=\""), "no inline style")
    }
}
