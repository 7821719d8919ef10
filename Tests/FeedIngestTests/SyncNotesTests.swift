@testable import FeedIngest
import FeedModel
import Foundation
import GRDB
import LibraryStore
import XCTest

/// A synced feed's items keep their show notes as sanitized HTML (`items.notes_html`) beside the
/// plain text that search and the CLI read; items stored before v20 get them with the next body.
final class SyncNotesTests: XCTestCase {
    private static func feed(_ extra: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Notes Show</title><link>https://notes.example/</link>\(extra)
          <item><guid>rich</guid><title>Rich</title><link>https://notes.example/ep/1</link>
            <description><![CDATA[<p>Guest: <a href="/guests/jane" onclick="steal()">Jane</a></p><script>alert(1)</script><p>More at <a href="javascript:alert(2)">here</a>.</p>]]></description>
          </item>
          <item><guid>plain</guid><title>Plain</title><description>Just words &amp; more.</description></item>
        </channel></rss>
        """
    }

    private func notes(_ h: SyncHarness, channel: Int64) async throws -> [String: String?] {
        try await h.library.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT item_id, notes_html FROM items WHERE channel_id = ?", arguments: [channel])
            return Dictionary(rows.map { ($0["item_id"] as String, $0["notes_html"] as String?) }, uniquingKeysWith: { a, _ in a })
        }
    }

    func testASyncedItemKeepsItsNotesAsSanitizedHTMLAndItsPlainText() async throws {
        let h = try SyncHarness()
        try h.server.write("notes.xml", Self.feed())
        let channel = try await h.addChannel("/notes.xml")
        let report = await h.syncer.sync([channel], now: 2000)
        XCTAssertEqual(report.channels.first?.status, .updated, report.channels.first?.error ?? "")

        let stored = try await notes(h, channel: channel.id)
        XCTAssertEqual(stored["rich"], """
            <p>Guest: <a href="https://notes.example/guests/jane" rel="noopener noreferrer nofollow" target="_blank">Jane</a></p><p>More at here.</p>
            """)
        XCTAssertEqual(stored["plain"], .some(nil), "plain notes: the description says it all")
        let details = try await h.library.itemDetails(id: try await h.library.id(of: "rich"))
        XCTAssertEqual(details.notes, "Guest: Jane More at here.", "the plain text stays as it was")
        XCTAssertEqual(details.notesHTML, stored["rich"] ?? nil)
    }

    func testItemsStoredBeforeTheColumnGetTheirNotesWhenTheBodyNextChanges() async throws {
        let h = try SyncHarness(pollInterval: 0)
        try h.server.write("notes.xml", Self.feed())
        let channel = try await h.addChannel("/notes.xml")
        _ = await h.syncer.sync([channel], now: 2000)
        // As an item synced by a feedctl before v20 has it.
        _ = try await h.library.write { db in try db.execute(sql: "UPDATE items SET notes_html = NULL") }

        let synced = try await h.library.allChannels()   // with the body's hash
        _ = await h.syncer.sync(synced, now: 3000)
        let unchanged = try await notes(h, channel: channel.id)
        XCTAssertEqual(unchanged["rich"], .some(nil), "an unchanged body is not parsed again")

        try h.server.write("notes.xml", Self.feed("<description>Now with a description</description>"))
        let report = await h.syncer.sync(try await h.library.allChannels(), now: 4000)
        XCTAssertEqual(report.channels.first?.status, .updated, report.channels.first?.error ?? "")
        let changed = try await notes(h, channel: channel.id)
        XCTAssertEqual(changed["rich"]??.hasPrefix("<p>Guest: <a href="), true)
    }
}
