@testable import FeedIngest
import FeedModel
import FeedParsing
import Foundation
import GRDB
import LibraryStore
import XCTest

/// A synced feed's items keep their show notes' markup as the feed wrote it, unsanitized
/// (`items.notes_markup`: sanitizing waits until one item is shown), beside the plain text that
/// search and the CLI read; items stored before v20 get it with the next body.
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
            let rows = try Row.fetchAll(db, sql: "SELECT item_id, notes_markup FROM items WHERE channel_id = ?", arguments: [channel])
            return Dictionary(rows.map { ($0["item_id"] as String, $0["notes_markup"] as String?) }, uniquingKeysWith: { a, _ in a })
        }
    }

    func testASyncedItemKeepsItsNotesRawAndTheyAreSanitizedWhenRead() async throws {
        let h = try SyncHarness()
        try h.server.write("notes.xml", Self.feed())
        let channel = try await h.addChannel("/notes.xml")
        let report = await h.syncer.sync([channel], now: 2000)
        XCTAssertEqual(report.channels.first?.status, .updated, report.channels.first?.error ?? "")

        let stored = try await notes(h, channel: channel.id)
        XCTAssertEqual(stored["rich"], """
            <p>Guest: <a href="/guests/jane" onclick="steal()">Jane</a></p><script>alert(1)</script><p>More at <a href="javascript:alert(2)">here</a>.</p>
            """, "the feed's markup as it is: parsing and ingest do not sanitize")
        XCTAssertEqual(stored["plain"], .some(nil), "plain notes: the description says it all")
        let details = try await h.library.itemDetails(id: try await h.library.id(of: "rich"))
        XCTAssertEqual(details.notes, "Guest: Jane More at here.", "the plain text stays as it was")
        let notes = try XCTUnwrap(details.storedNotes)
        XCTAssertEqual(notes, StoredNotes(markup: try XCTUnwrap(stored["rich"] ?? nil), base: "https://notes.example/ep/1"),
                       "relative links resolve against the item's page")
        XCTAssertEqual(NotesSanitizer.sanitize(notes.markup, base: notes.base), """
            <p>Guest: <a href="https://notes.example/guests/jane" rel="noopener noreferrer nofollow" target="_blank">Jane</a></p><p>More at here.</p>
            """)
        let plain = try await h.library.itemDetails(id: try await h.library.id(of: "plain"))
        XCTAssertNil(plain.storedNotes)
    }

    func testItemsStoredBeforeTheColumnGetTheirNotesWhenTheBodyNextChanges() async throws {
        let h = try SyncHarness(pollInterval: 0)
        try h.server.write("notes.xml", Self.feed())
        let channel = try await h.addChannel("/notes.xml")
        _ = await h.syncer.sync([channel], now: 2000)
        // As an item synced by a feedctl before v20 has it.
        _ = try await h.library.write { db in try db.execute(sql: "UPDATE items SET notes_markup = NULL") }

        let synced = try await h.library.allChannels()   // with the body's hash
        _ = await h.syncer.sync(synced, now: 3000)
        let unchanged = try await notes(h, channel: channel.id)
        XCTAssertEqual(unchanged["rich"], .some(nil), "an unchanged body is not parsed again")

        try h.server.write("notes.xml", Self.feed("<description>Now with a description</description>"))
        let report = await h.syncer.sync(try await h.library.allChannels(), now: 4000)
        XCTAssertEqual(report.channels.first?.status, .updated, report.channels.first?.error ?? "")
        let changed = try await notes(h, channel: channel.id)
        XCTAssertEqual(changed["rich"]??.hasPrefix(#"<p>Guest: <a href="/guests/jane""#), true)
    }
}
