import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The chapters cache goes with its item (the cache's behaviour is StoreContractTests').
@Suite struct StoreChaptersTests {
    @Test func theCacheGoesWithTheItem() async throws {
        let t = try TestLibrary()
        let channel = try await t.library.addTestChannel("show")
        _ = try await t.library.ingest(items: [item("ep1")], channelID: channel, now: 1)
        let id = try await t.library.id(of: "ep1")
        try await t.library.cacheChapters(itemID: id, url: "https://example.com/ep1.json", body: Array("{}".utf8), now: 5)
        let before = try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chapters_cache") }
        #expect(before == 1)
        try await t.library.removeChannel(id: channel)
        let rows = try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chapters_cache") }
        #expect(rows == 0)
    }
}
