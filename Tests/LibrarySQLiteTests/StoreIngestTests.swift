import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The stored row of an item, for what no reader of the store shows (storing and reading items
/// is StoreContractTests').
@Suite struct StoreIngestTests {
    @Test func theRowKeepsWhatNoReaderShows() async throws {
        let t = try TestLibrary()
        let channel = try await t.library.addTestChannel("show")
        let full = Item(id: "ep1", guid: "g-1", title: "Episode 1", published: 1_700_000_000, updated: 1_700_000_100)
        #expect(try await t.library.ingest(items: [full], channelID: channel, now: 5000) == IngestResult(new: 1, updated: 0))
        let row = try t.library.pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM items WHERE item_id = 'ep1'") }
        let r = try #require(row)
        #expect(r["guid"] as String? == "g-1")
        #expect(r["published"] as Int64? == 1_700_000_000 && r["updated"] as Int64? == 1_700_000_100)
    }
}
