import Foundation
import LibrarySQLite
import TestSupport
import XCTest

/// A broken feed says so before it loses episodes, and what the parser reads reaches the user
/// (issue 17): the built `feedctl` against a feed served from 127.0.0.1 and a library in a temp dir.
final class FeedDetailsCLITests: XCTestCase {
    private var server: TestHTTPServer!
    private var db = ""

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        db = server.root.appendingPathComponent("library.sqlite").path
    }

    override func tearDown() {
        server.stop()
    }

    /// The feed, with undeclared `itunes:` and `podcast:` prefixes when `broken`.
    private static func feed(broken: Bool) -> String {
        let ns = broken ? "" : #" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0""#
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"\(ns) xmlns:atom="http://www.w3.org/2005/Atom"><channel>
            <title>Details Show</title><link>https://details.example.com/</link>
            <atom:link rel="next" href="https://details.example.com/feed.xml?page=2"/>
            <podcast:funding url="https://details.example.com/support">Support the show</podcast:funding>
            <item><title>Episode 1</title><guid isPermaLink="false">d-1</guid>
            <enclosure url="https://cdn.example.com/1.mp3" type="audio/mpeg" length="1000"/>
            <itunes:explicit>yes</itunes:explicit><itunes:episodeType>trailer</itunes:episodeType>
            <podcast:person role="host" href="https://details.example.com/ann">Ann Host</podcast:person>
            <podcast:funding url="https://details.example.com/tip/1">Tip</podcast:funding>
            <description>&lt;p onclick="x()"&gt;Notes with &lt;a href="https://details.example.com/more"&gt;a link&lt;/a&gt;&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;</description>
            </item></channel></rss>
            """
    }

    private static let warnings = [
        "undeclared namespace prefix podcast (first on <podcast:funding>): read as https://podcastindex.org/namespace/1.0",
        "undeclared namespace prefix itunes (first on <itunes:explicit>): read as http://www.itunes.com/dtds/podcast-1.0.dtd",
    ]

    func testWarningsAndDetailsReachChannelShowListAndShow() async throws {
        try server.write("feed.xml", Self.feed(broken: true))
        let add = try feedctl(["channel", "add", server.url("/feed.xml")])
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stdout, """
            added 1: Details Show [podcast] — 1 new item
              the feed has 2 warnings: feedctl channel show 1

            """)

        let list = try feedctl(["channel", "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let channel = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])?.first)
        XCTAssertEqual(channel["warnings"] as? [String], Self.warnings)
        XCTAssertEqual(channel["next_page"] as? String, "https://details.example.com/feed.xml?page=2")
        XCTAssertTrue(channel["self_url"] is NSNull)
        XCTAssertEqual(channel["funding"] as? [[String: String]], [["url": "https://details.example.com/support", "title": "Support the show"]])

        let show = try feedctl(["channel", "show", "1"])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.hasSuffix("""
            next page:   https://details.example.com/feed.xml?page=2
            funding:     https://details.example.com/support  Support the show
            warnings:    the feed's last parse recovered from:
              \(Self.warnings[0])
              \(Self.warnings[1])

            """), show.stdout)
        let text = try feedctl(["channel", "list"])
        XCTAssertTrue(text.stdout.contains("Details Show  (feed has 2 warnings: feedctl channel show 1)"), text.stdout)

        let item = try feedctl(["show", "1"])
        XCTAssertEqual(item.status, 0, item.stderr)
        for line in ["type:       trailer", "explicit:   yes", "person:     Ann Host (host)  https://details.example.com/ann",
                     "funding:    https://details.example.com/tip/1  Tip"] {
            XCTAssertTrue(item.stdout.contains(line + "\n"), "no \(line.debugDescription) in \(item.stdout)")
        }
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try feedctl(["show", "1", "--json"]).stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["explicit"] as? Bool, true)
        XCTAssertEqual(json["episode_type"] as? String, "trailer")
        XCTAssertTrue(json["live_status"] is NSNull)
        let person = try XCTUnwrap((json["persons"] as? [[String: Any]])?.first)
        XCTAssertEqual((json["persons"] as? [Any])?.count, 1)
        XCTAssertEqual(person["name"] as? String, "Ann Host")
        XCTAssertEqual(person["role"] as? String, "host")
        XCTAssertEqual(person["href"] as? String, "https://details.example.com/ann")
        XCTAssertTrue(person["image"] is NSNull)
        XCTAssertEqual(json["funding"] as? [[String: String]], [["url": "https://details.example.com/tip/1", "title": "Tip"]])
        XCTAssertEqual(json["notes_html"] as? String,
                       #"<p>Notes with <a href="https://details.example.com/more" rel="noopener noreferrer nofollow" target="_blank">a link</a></p>"#,
                       "the show notes as sanitized HTML")
        try await checkShowSanitizesStoredNotes()

        // The publisher mends the feed: the next sync that parses it clears the warnings.
        try server.write("feed.xml", Self.feed(broken: false))
        let sync = try feedctl(["sync", "1"])
        XCTAssertEqual(sync.status, 0, sync.stderr)
        let mended = try feedctl(["channel", "show", "1", "--json"])
        let after = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(mended.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(after["warnings"] as? [String], [])
        XCTAssertFalse(try feedctl(["channel", "show", "1"]).stdout.contains("warnings:"))
    }

    /// The library keeps the feed's markup; `show --json` sanitizes what it prints: the stored
    /// notes hold the feed's script, and hostile markup written straight into the store comes
    /// out sanitized.
    private func checkShowSanitizesStoredNotes() async throws {
        let library = try SQLiteLibrary(path: db)
        let stored = try await library.read { db in try String.fetchOne(db, sql: "SELECT notes_markup FROM items WHERE id = 1") }
        XCTAssertEqual(stored, #"<p onclick="x()">Notes with <a href="https://details.example.com/more">a link</a></p><script>alert(1)</script>"#,
                       "the library keeps the feed's markup as it is")
        let hostile = #"<h1 onclick="x()">Hi</h1><a href="java&#x09;script:alert(1)">a</a><svg><script>alert(2)</script></svg>"#
            + #"<iframe src="https://evil.example/"></iframe><a href="more">b</a>"#
        try await library.write { db in try db.execute(sql: "UPDATE items SET notes_markup = ? WHERE id = 1", arguments: [hostile]) }
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try feedctl(["show", "1", "--json"]).stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["notes_html"] as? String,
                       #"<h3>Hi</h3>a<a href="\#(server.url("/more"))" rel="noopener noreferrer nofollow" target="_blank">b</a>"#,
                       "stored notes are sanitized when shown; a relative link resolves against the item's feed (it has no page)")
    }

    private func feedctl(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db])
    }
}
