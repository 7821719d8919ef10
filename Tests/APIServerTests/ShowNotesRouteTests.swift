import Foundation
import XCTest

/// `GET /api/feed/items/{id}` answers `description_html`: the item's stored notes (the feed's
/// markup, unsanitized) through the sanitizer, run for this answer (hostile markup gone, links
/// kept), null for plain notes; pages of items leave it out.
final class ShowNotesRouteTests: XCTestCase {
    private static let feed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Hostile Notes</title><link>https://notes.example/</link>
          <item><guid>hostile</guid><title>Hostile</title><link>https://notes.example/ep/1</link>
            <enclosure url="https://notes.example/1.mp3" type="audio/mpeg" length="1"/>
            <description>&lt;p onmouseover="alert(1)"&gt;Read &lt;a href="jav&amp;#x09;ascript:alert(2)"&gt;this&lt;/a&gt; and &lt;a href="https://ok.example/x?a=1&amp;amp;b=2"&gt;that&lt;/a&gt;&lt;/p&gt;&lt;svg&gt;&lt;script&gt;alert(3)&lt;/script&gt;&lt;/svg&gt;&lt;p&gt;&amp;lt;img src=x onerror=alert(4)&amp;gt;&lt;/p&gt;</description>
          </item>
          <item><guid>plain</guid><title>Plain</title><description>No markup here.</description></item>
        </channel></rss>
        """

    func testTheItemRouteServesSanitizedNotesAndPagesDoNot() async throws {
        let h = try await APIHarness()
        try h.feeds.write("notes.xml", Self.feed)
        _ = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/notes.xml"))"}"#, status: 201)
        let page = try await h.object("GET", "/api/feed?sort_by=oldest")
        let items = try XCTUnwrap(page["items"] as? [[String: Any]])
        XCTAssertEqual(items.count, 2)
        XCTAssertTrue(items.allSatisfy { $0["description_html"] == nil }, "feed pages do not carry the notes' HTML")
        let ids = Dictionary(uniqueKeysWithValues: items.map { ($0["video_id"] as? String ?? "", $0["id"] as? Int ?? 0) })

        let hostile = try await h.object("GET", "/api/feed/items/\(try XCTUnwrap(ids["hostile"]))")
        XCTAssertEqual(hostile["description_html"] as? String, """
            <p>Read this and <a href="https://ok.example/x?a=1&amp;b=2" rel="noopener noreferrer nofollow" target="_blank">that</a></p>\
            <p>&lt;img src=x onerror=alert(4)&gt;</p>
            """)
        XCTAssertEqual(hostile["description"] as? String, "Read this and that <img src=x onerror=alert(4)>", "the plain text is unchanged")

        let plain = try await h.object("GET", "/api/feed/items/\(try XCTUnwrap(ids["plain"]))")
        XCTAssertTrue(plain.keys.contains("description_html"))
        XCTAssertTrue(plain["description_html"] is NSNull, "plain notes: null, the description says it all")
        XCTAssertEqual(plain["description"] as? String, "No markup here.")
    }

    /// Whatever the library holds as notes (a feedctl of today stores the feed's markup as it
    /// is), the route sanitizes it: hostile markup written straight into the store comes out
    /// sanitized, and a relative link of an item without a page resolves against its feed.
    func testHostileStoredNotesComeOutSanitized() async throws {
        let h = try await APIHarness()
        try h.feeds.write("notes.xml", Self.feed)
        _ = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/notes.xml"))"}"#, status: 201)
        let stored = try h.database.strings("SELECT notes_markup FROM items WHERE item_id = 'hostile'").first
        XCTAssertEqual(stored?.contains(#"<p onmouseover="alert(1)">"#), true, "the library keeps the feed's markup: \(stored ?? "nil")")
        XCTAssertEqual(stored?.contains("<script>alert(3)</script>"), true)

        let hostile = #"<p>Hi <a href="/guests/jane" onclick="steal()">Jane</a><img src=x onerror=alert(1)></p><script>alert(2)</script>"#
            + #"<a href="javascript:alert(3)">x</a><svg><a href="https://evil.example/">y</a></svg><style>*{}</style>"#
        try h.database.execute("UPDATE items SET notes_markup = '\(hostile.replacingOccurrences(of: "'", with: "''"))' WHERE item_id = 'plain'")
        let id = try await h.owner.id(of: "plain")
        let item = try await h.object("GET", "/api/feed/items/\(id)")
        XCTAssertEqual(item["description_html"] as? String, #"<p>Hi <a href="\#(h.feeds.url("/guests/jane"))" rel="noopener noreferrer nofollow" target="_blank">Jane</a></p>x"#)
    }
}
