import APIServer
import Foundation
import TestSupport
import XCTest

/// `GET /`: a browser opening the server's address got `{"detail":"no such route"}`. Until the
/// web app is served there, a small page says what the server is and where to go.
final class HomePageTests: XCTestCase {
    func testABrowserOpeningTheServerLearnsWhatItIs() async throws {
        // A version with markup in it: what the page shows from the configuration is escaped.
        let version = #"9.9 <script>alert(1)</script> & "more""#
        let h = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: false, version: version), logins: true)
        let page = try await h.curl("GET", "/")
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertTrue(page.text.hasPrefix("<!DOCTYPE html>"), page.text)
        XCTAssertFalse(page.text.contains("<script"), page.text)

        // Read as a browser would (Python's HTML parser): nothing loaded from anywhere, every link
        // on this server, and the text a person reads.
        let script = """
            import json, sys
            from html.parser import HTMLParser
            class Page(HTMLParser):
                def __init__(self):
                    super().__init__(); self.tags = []; self.links = []; self.text = []
                def handle_starttag(self, tag, attrs):
                    self.tags.append(tag)
                    self.links += [v for k, v in attrs if k in ("href", "src", "action")]
                def handle_data(self, data):
                    self.text.append(data)
            p = Page(); p.feed(sys.stdin.read())
            print(json.dumps({"tags": p.tags, "links": p.links, "text": " ".join("".join(p.text).split())}))
            """
        let dir = TempDir()
        let body = dir.file("page.html")
        try page.body.write(to: URL(fileURLWithPath: body))
        let parsed = try ProcessRunner.capture("/bin/sh", ["-c", "/usr/bin/python3 -c \"$0\" < \"$1\"", script, body])
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        let read = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Any])
        let tags = try XCTUnwrap(read["tags"] as? [String]), links = try XCTUnwrap(read["links"] as? [String])
        let text = try XCTUnwrap(read["text"] as? String)
        XCTAssertEqual(Set(tags).intersection(["script", "style", "link", "img", "iframe", "object", "embed", "form"]), [], "\(tags)")
        XCTAssertEqual(Set(links), ["/api/openapi.json", "/health"])
        XCTAssertTrue(text.contains("feedctl \(version)"), text)
        XCTAssertTrue(text.contains("feedctl serve"), text)
        XCTAssertTrue(text.contains("gpodder.net"), text)
        XCTAssertTrue(text.contains("give them the server \(h.base) with your user name and password"), text)
        XCTAssertTrue(text.contains("The web app's files are missing"), text)

        // What it points to is served, and public.
        for link in links {
            let reply = try await h.call("GET", link)
            XCTAssertEqual(reply.status, 200, "\(link): \(reply.text)")
            XCTAssertNotNil(try reply.object(), link)
        }
    }

    /// In open mode the page says so.
    func testThePageSaysTheServersMode() async throws {
        let h = try await APIHarness()
        let page = try await h.curl("GET", "/")
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.text.contains("It runs in open mode"), page.text)
    }
}
