import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

@Suite struct StoreChaptersTests {
    @Test func chaptersURLAndCacheKeyedByURL() async throws {
        let t = try TestLibrary()
        let channel = try await t.library.addTestChannel("show")
        var episode = item("ep1")
        episode.chaptersURL = "https://example.com/ep1.json"
        _ = try await t.library.ingest(items: [episode, item("ep2")], channelID: channel, now: 1)
        let id = try await t.library.id(of: "ep1")
        #expect(try await t.library.chaptersURL(itemID: id) == "https://example.com/ep1.json")
        #expect(try await t.library.chaptersURL(itemID: t.library.id(of: "ep2")) == nil)
        await #expect(throws: LibraryError.self) { try await t.library.chaptersURL(itemID: 999) }

        #expect(try await t.library.cachedChapters(itemID: id, url: "https://example.com/ep1.json") == nil)
        let body = Array("{\"chapters\":[]}".utf8)
        try await t.library.cacheChapters(itemID: id, url: "https://example.com/ep1.json", body: body, now: 5)
        #expect(try await t.library.cachedChapters(itemID: id, url: "https://example.com/ep1.json") == body)
        #expect(try await t.library.cachedChapters(itemID: id, url: "https://example.com/other.json") == nil)
        try await t.library.cacheChapters(itemID: id, url: "https://example.com/v2.json", body: Array("{}".utf8), now: 6)
        #expect(try await t.library.cachedChapters(itemID: id, url: "https://example.com/v2.json") == Array("{}".utf8))
        #expect(try await t.library.cachedChapters(itemID: id, url: "https://example.com/ep1.json") == nil)

        // The cache goes with the item.
        try await t.library.removeChannel(id: channel)
        let rows = try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chapters_cache") }
        #expect(rows == 0)
    }
}
