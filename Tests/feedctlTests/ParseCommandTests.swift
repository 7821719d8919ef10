import Foundation
import TestSupport
import XCTest

/// Runs the built `feedctl parse` binary on fixtures and on a real HTTP server on 127.0.0.1.
final class ParseCommandTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func fixture(_ name: String) -> String { packageRoot.appendingPathComponent("fixtures/feeds/\(name)").path }

    struct Run { var status: Int32; var stdout: Data; var stderr: String }

    /// Runs the built feedctl (bounded: a hang is a failure, not a stuck suite).
    func run(_ arguments: [String]) throws -> Run {
        let result = try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments)
        return Run(status: result.status, stdout: Data(result.stdout.utf8), stderr: result.stderr)
    }

    func json(_ data: Data) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testJSONContract() throws {
        let result = try run(["parse", Self.fixture("rss2-podcast.xml"), "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let feed = try json(result.stdout)
        XCTAssertEqual(Set(feed.keys), ["kind", "title", "link", "description", "author", "image", "language", "items",
                                        "self_url", "next_page", "funding", "warnings"])
        XCTAssertEqual(feed["warnings"] as? [String], [])
        XCTAssertEqual(feed["self_url"] as? String, "https://feeds.example.com/show.xml")
        XCTAssertTrue(feed["next_page"] is NSNull)
        XCTAssertEqual(feed["funding"] as? [[String: String]], [["url": "https://show.example.com/donate", "title": "Support us!"]])
        XCTAssertEqual(feed["kind"] as? String, "podcast")
        XCTAssertEqual(feed["title"] as? String, "The Example Show")
        XCTAssertEqual(feed["language"] as? String, "en")
        let items = try XCTUnwrap(feed["items"] as? [[String: Any]])
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(Set(items[0].keys), [
            "id", "guid", "title", "url", "published", "updated", "duration", "enclosure", "thumbnail", "author",
            "description", "views", "is_short", "episode", "season", "chapters_url", "transcript_url",
            "explicit", "episode_type", "live_status", "persons", "funding",
        ])
        XCTAssertEqual(items[0]["explicit"] as? Bool, false)
        XCTAssertEqual(items[0]["episode_type"] as? String, "full")
        XCTAssertTrue(items[0]["live_status"] is NSNull)
        XCTAssertEqual((items[0]["persons"] as? [[String: Any]])?.map { $0["name"] as? String }, ["Jane Host", "Sam Guest"])
        XCTAssertEqual((items[0]["funding"] as? [[String: Any]])?.first?["url"] as? String, "https://show.example.com/ep2/tip")
        XCTAssertEqual(items[1]["explicit"] as? Bool, true)
        XCTAssertEqual((items[1]["persons"] as? [Any])?.count, 0)
        XCTAssertEqual(items[0]["id"] as? String, "ep2-guid")
        XCTAssertEqual(items[0]["published"] as? Int, 1_773_129_600)
        XCTAssertEqual(items[0]["duration"] as? Int, 3723)
        XCTAssertEqual(items[0]["episode"] as? Int, 2)
        XCTAssertTrue(items[0]["updated"] is NSNull)
        XCTAssertTrue(items[0]["views"] is NSNull)
        XCTAssertEqual(items[0]["is_short"] as? Bool, false)
        XCTAssertEqual(items[0]["chapters_url"] as? String, "https://show.example.com/ep2/chapters.json")
        let enclosure = try XCTUnwrap(items[0]["enclosure"] as? [String: Any])
        XCTAssertEqual(enclosure["url"] as? String, "https://cdn.example.com/ep2.mp3")
        XCTAssertEqual(enclosure["type"] as? String, "audio/mpeg")
        XCTAssertEqual(enclosure["length"] as? Int, 12_345_678)
        let second = try XCTUnwrap(items[1]["enclosure"] as? [String: Any])
        XCTAssertTrue(second["length"] is NSNull)
    }

    func testReadableSummary() throws {
        let result = try run(["parse", Self.fixture("rss2-podcast.xml")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(String(decoding: result.stdout, as: UTF8.self), """
            kind:  podcast
            title: The Example Show
            items: 2
            2026-03-10   1:02:03  Episode 2: Chapters
            2026-03-03     45:30  Episode 1: Pilot

            """)
    }

    /// Titles that carry terminal escapes (OSC retitle, clear screen, a C1 CSI) are printed with
    /// the control characters replaced; the JSON keeps them, escaped (issue 14 item 8).
    func testTerminalEscapesInTitlesAreNotPrinted() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("escapes-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: path) }
        try """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Show&#x1B;]0;owned&#x7;</title>
            <item><title>&#x1B;[2JClear</title><guid>a</guid></item>
            <item><title>C1&#x9B;31mred</title><guid>b</guid></item></channel></rss>
            """.write(to: path, atomically: true, encoding: .utf8)
        let result = try run(["parse", path.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let text = String(decoding: result.stdout, as: UTF8.self)
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, text.debugDescription)
        // XML 1.0 forbids C0 characters even as references: the parser drops them; a C1 one is
        // legal XML and is replaced here.
        XCTAssertTrue(text.contains("title: Show]0;owned\n"), text.debugDescription)
        XCTAssertTrue(text.contains("C1\u{FFFD}31mred"), text.debugDescription)
        let json = try self.json(try run(["parse", "--json", path.path]).stdout)
        let items = try XCTUnwrap(json["items"] as? [[String: Any]])
        XCTAssertEqual(items.last?["title"] as? String, "C1\u{9B}31mred", "the JSON keeps the text as it is")
    }

    func testNotAFeedExitsWithOneLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("image.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]).write(to: png)
        let result = try run(["parse", png.path, "--json"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout.count, 0)
        XCTAssertEqual(result.stderr, "feedctl: \(png.path): not a feed: a PNG image\n")

        let empty = dir.appendingPathComponent("empty.xml")
        try Data().write(to: empty)
        let emptyRun = try run(["parse", empty.path])
        XCTAssertEqual(emptyRun.status, 1)
        XCTAssertEqual(emptyRun.stderr, "feedctl: \(empty.path): empty document (0 bytes)\n")

        let noName = try run(["parse", ""])
        XCTAssertEqual(noName.status, 1)
        XCTAssertEqual(noName.stderr, "feedctl: no file name given (an empty argument)\n")
    }

    /// A real HTTP server: a redirect, gzip, and a Content-Type charset that overrides the
    /// document's (wrong) UTF-8 declaration.
    func testURLIsFetchedWithRedirectGzipAndCharset() throws {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", Self.serverScript, Self.fixture("http-charset-latin1.xml")]
        let out = Pipe()
        server.standardOutput = out
        try server.run()
        addTeardownBlock { server.terminate(); server.waitUntilExit() }
        let portLine = TestHTTPServer.firstLine(of: out.fileHandleForReading, timeout: 20)
        let port = try XCTUnwrap(portLine.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) },
                                 "the server printed no port within 20 s (got \(portLine.debugDescription))")

        let result = try run(["parse", "http://127.0.0.1:\(port)/redirect", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let feed = try json(result.stdout)
        XCTAssertEqual(feed["title"] as? String, "Garçon")
        let items = try XCTUnwrap(feed["items"] as? [[String: Any]])
        XCTAssertEqual(items.first?["title"] as? String, "Noël")

        let missing = try run(["parse", "http://127.0.0.1:\(port)/missing"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "feedctl: can't fetch http://127.0.0.1:\(port)/missing: HTTP 404 Not Found\n")
    }

    static let serverScript = #"""
import gzip, http.server, sys
body = open(sys.argv[1], 'rb').read()
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        if self.path == '/redirect':
            self.send_response(302); self.send_header('Location', '/feed.xml'); self.end_headers(); return
        if self.path != '/feed.xml':
            self.send_response(404); self.end_headers(); return
        data = body
        self.send_response(200)
        self.send_header('Content-Type', 'application/rss+xml; charset="ISO-8859-1"')
        if 'gzip' in self.headers.get('Accept-Encoding', ''):
            data = gzip.compress(body); self.send_header('Content-Encoding', 'gzip')
        self.send_header('Content-Length', str(len(data))); self.end_headers(); self.wfile.write(data)
s = http.server.HTTPServer(('127.0.0.1', 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"""#
}
