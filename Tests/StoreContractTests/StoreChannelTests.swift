import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Subscribing, listing with counts, removing, and a poll's bookkeeping (outcomes, backoff, a moved feed).
final class StoreChannelTests: XCTestCase {
    func testAddIsAnUpsertOnTheFeedURL() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let a = try await library.addChannel(platform: .youtube, sourceURL: "https://www.youtube.com/@a",
                                                 feedURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UCa", name: "A", now: 10)
            XCTAssertEqual(a.id, 1)
            XCTAssertEqual(a.platform, .youtube)
            XCTAssertTrue(a.active)
            XCTAssertNil(a.nextPoll)
            XCTAssertEqual(a.addedAt, 10)
            XCTAssertNil(a.speed)
            let again = try await library.addChannel(platform: .youtube, sourceURL: "https://www.youtube.com/channel/UCa",
                                                     feedURL: a.feedURL, name: "", image: "https://i/a.jpg", now: 20)
            XCTAssertEqual(again.id, 1)
            XCTAssertEqual(again.name, "A")
            XCTAssertEqual(again.sourceURL, "https://www.youtube.com/channel/UCa")
            XCTAssertEqual(again.image, "https://i/a.jpg")
            XCTAssertEqual(again.addedAt, 10)
            await assertEqual(try await library.allChannels().count, 1)
            await assertEqual(try await library.channel(feedURL: a.feedURL)?.id, 1)
            await assertNil(try await library.channel(feedURL: "https://nope"))
        }
    }

    func testListWithCountsAndRemoveKeepsHistory() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let b = try await library.addTestChannel("beta")
            let a = try await library.addTestChannel("Alpha", platform: .rumble)
            try await library.ingest(items: [item("1"), item("2"), item("3")], channelID: b, now: 1)
            try await library.ingest(items: [item("4")], channelID: a, now: 1)
            let one = try await library.id(of: "1")
            try await library.setWatched([one], now: 5)
            try await library.save(one, now: 5)
            try await library.appendHistory(item: one, position: 12, now: 6)
            let two = try await library.id(of: "2")
            try await library.createCollection("Later", now: 6)
            try await library.addToCollection(item: two, collection: "Later", now: 6)

            let list = try await library.channelSummaries()
            XCTAssertEqual(list.map(\.name), ["Alpha", "beta"])
            XCTAssertEqual(list.map(\.items), [1, 3])
            XCTAssertEqual(list.map(\.unwatched), [1, 2])
            XCTAssertEqual(list.first?.platform, .rumble)
            XCTAssertEqual(list.first?.url, "https://example.com/Alpha")

            try await library.removeChannel(id: b)
            await assertThrows(LibraryError.noChannel(b)) { try await library.channelSummary(id: b) }
            await assertThrows(LibraryError.noItem(one)) { try await library.item(id: one) }
            await assertTrue(try await library.saved().isEmpty)
            await assertEqual(try await library.collection("Later").map(\.id), [two], "a collection keeps its items (ChannelRemoval)")
            let history = try await library.history()
            XCTAssertEqual(history.count, 1)
            XCTAssertNil(history.first?.item)
            XCTAssertEqual(history.first?.title, "Title 1")
            XCTAssertEqual(history.first?.channel, "beta")
            XCTAssertEqual(history.first?.url, "https://example.com/1")
            XCTAssertEqual(history.first?.position, 12)
            await assertThrows(LibraryError.noChannel(b)) { try await library.removeChannel(id: b) }
        }
    }

    /// Applies one poll of channel `id`; returns the channel's next poll time.
    private func poll(_ library: any UserLibrary, _ id: Int64, _ outcome: Poll.Outcome, now: Int64,
                      interval: Int64 = 600) async throws -> Int64? {
        _ = try await library.apply([Poll(subject: .channel(id: id), outcome: outcome, pollInterval: interval)], now: now)[0].get()
        return try await library.channel(id: id).nextPoll
    }

    func testSyncOutcomesAndBackoff() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let id = try await library.addTestChannel("c")
            await assertEqual(try await library.polling.dueChannels(now: 0).map(\.id), [id])
            let validators = Validators(etag: "\"e1\"", lastModified: "Mon", bodyHash: "h1")
            await assertEqual(try await poll(library, id, .unchanged(validators), now: 1000), 1600)
            await assertTrue(try await library.polling.dueChannels(now: 1599).isEmpty)
            await assertEqual(try await library.polling.dueChannels(now: 1600).map(\.id), [id])

            // Failures back off 600, 1200, 2400… from the poll interval, keep validators and items.
            await assertEqual(try await poll(library, id, .failed(message: "HTTP 500", retryAfter: nil), now: 2000), 2600)
            await assertEqual(try await poll(library, id, .failed(message: "HTTP 502", retryAfter: nil), now: 3000), 4200)
            var c = try await library.channel(id: id)
            XCTAssertEqual(c.consecutiveErrors, 2)
            XCTAssertEqual(c.lastError, "HTTP 502")
            XCTAssertEqual(c.etag, "\"e1\"")
            XCTAssertEqual(c.lastSynced, 1000)
            // Retry-After wins when longer; a day is the cap.
            await assertEqual(try await poll(library, id, .failed(message: "HTTP 429", retryAfter: 7200), now: 5000), 12200)
            await assertEqual(try await poll(library, id, .failed(message: "x", retryAfter: 999_999), now: 0), 86_400)
            XCTAssertEqual(SyncPolicy.backoff(consecutiveErrors: 60, pollInterval: 3600, retryAfter: nil), 86_400)
            XCTAssertEqual(SyncPolicy.backoff(consecutiveErrors: 1, pollInterval: 3600, retryAfter: nil), 3600)

            // A 304 passes no validators: the stored ones stay; errors reset.
            await assertEqual(try await poll(library, id, .unchanged(Validators()), now: 9000), 9600)
            c = try await library.channel(id: id)
            XCTAssertEqual(c.consecutiveErrors, 0)
            XCTAssertNil(c.lastError)
            XCTAssertEqual(c.etag, "\"e1\"")
            XCTAssertEqual(c.bodyHash, "h1")
            XCTAssertEqual(c.lastModified, "Mon")
            XCTAssertEqual(c.lastSynced, 9000)
            XCTAssertEqual(c.nextPoll, 9600)
            await assertEqual(try await library.channelSummary(id: id).nextPoll, 9600)

            try await library.setActive(channelID: id, false)
            await assertTrue(try await library.polling.dueChannels(now: 100_000).isEmpty)
            await assertThrows(LibraryError.noChannel(77)) { try await poll(library, 77, .failed(message: "x", retryAfter: nil), now: 1) }
        }
    }

    /// A permanent redirect moves the feed URL, unless another channel already polls the new
    /// one (then the channel keeps its URL: the redirect is followed again next time).
    func testMovedFeedURL() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let a = try await library.addTestChannel("a")
            _ = try await library.addTestChannel("b")
            _ = try await poll(library, a, .unchanged(Validators(movedTo: "https://new.example.com/a.xml")), now: 10)
            await assertEqual(try await library.channel(id: a).feedURL, "https://new.example.com/a.xml")
            _ = try await poll(library, a, .unchanged(Validators(movedTo: "https://example.com/b.xml")), now: 20)
            await assertEqual(try await library.channel(id: a).feedURL, "https://new.example.com/a.xml")
            await assertThrows(LibraryError.noChannel(9)) {
                try await poll(library, 9, .unchanged(Validators(movedTo: "https://z")), now: 30)
            }
        }
    }

    /// A remembered speed is within `PlaybackSpeed.range`.
    func testSpeedIsThePlaybackRange() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let id = try await library.addTestChannel("fast")
            for outside in [0.25, 3.5] {
                await assertThrows(LibraryError.invalid("speed \(outside) is outside 0.5…3.0")) {
                    try await library.setSpeed(channelID: id, outside)
                }
            }
            try await library.setSpeed(channelID: id, 3)
            await assertEqual(try await library.channel(id: id).speed, 3)
        }
    }
}
