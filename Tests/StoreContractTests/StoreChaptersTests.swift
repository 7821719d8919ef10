import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

final class StoreChaptersTests: XCTestCase {
    func testChaptersURLAndCacheKeyedByURL() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let channel = try await library.addTestChannel("show")
            var episode = item("ep1")
            episode.chaptersURL = "https://example.com/ep1.json"
            try await library.ingest(items: [episode, item("ep2")], channelID: channel, now: 1)
            let id = try await library.id(of: "ep1")
            await assertEqual(try await library.chaptersURL(itemID: id), "https://example.com/ep1.json")
            await assertNil(try await library.chaptersURL(itemID: library.id(of: "ep2")))
            await assertThrows(LibraryError.self) { try await library.chaptersURL(itemID: 999) }

            await assertNil(try await library.cachedChapters(itemID: id, url: "https://example.com/ep1.json"))
            let body = Array("{\"chapters\":[]}".utf8)
            try await library.cacheChapters(itemID: id, url: "https://example.com/ep1.json", body: body, now: 5)
            await assertEqual(try await library.cachedChapters(itemID: id, url: "https://example.com/ep1.json"), body)
            await assertNil(try await library.cachedChapters(itemID: id, url: "https://example.com/other.json"))
            try await library.cacheChapters(itemID: id, url: "https://example.com/v2.json", body: Array("{}".utf8), now: 6)
            await assertEqual(try await library.cachedChapters(itemID: id, url: "https://example.com/v2.json"), Array("{}".utf8))
            await assertNil(try await library.cachedChapters(itemID: id, url: "https://example.com/ep1.json"))
        }
    }
}
