import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// The library's change log (`ChangeFeed`, issue 27): every change to a user's state is a row,
/// whoever writes it, with the `/api/events` payload; polls that change nothing write none; the
/// log is pruned to `ChangeFeedRule.kept` and a reader from before that is told it is gone.
final class StoreChangeFeedTests: XCTestCase {
    /// The changes after `seq`, as (user, kind, payload: the wire's JSON as written).
    private func changes(_ feed: any ChangeFeed, after seq: Int64,
                         file: StaticString = #filePath, line: UInt = #line) async throws -> [(user: Int64, kind: String, data: String)] {
        guard case .changes(let changes) = try await feed.changes(after: seq, limit: 1_000) else {
            XCTFail("the log says changes after \(seq) are gone", file: file, line: line)
            return []
        }
        return changes.map { ($0.user.rawValue, $0.kind.rawValue, $0.payload) }
    }

    private static func item(_ id: String) -> Item {
        Item(id: id, title: "Episode \(id)", enclosure: Enclosure(url: "https://example.com/\(id).mp3"))
    }

    func testEveryKindOfChangeIsLoggedForItsUserWithItsPayload() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let log = db.database.changes
            var seen = try await log.latestChange()
            XCTAssertEqual(seen, 0)
            func next(line: UInt = #line) async throws -> [(user: Int64, kind: String, data: String)] {
                let found = try await changes(log, after: seen, line: line)
                seen = try await log.latestChange()
                return found
            }

            // subscription added; a first poll's items: sync.
            let channel = try await library.addChannel(platform: .podcast, sourceURL: "https://example.com/feed",
                                                       feedURL: "https://example.com/feed", name: "Show", now: 10)
            var found = try await next()
            XCTAssertEqual(found.map(\.kind), ["subscription"])
            XCTAssertEqual(found.first?.data, #"{"channel_id":\#(channel.id),"action":"added"}"#)
            XCTAssertEqual(found.first?.user, LibraryUsers.ownerID)
            let changed = Poll(subject: .channel(id: channel.id),
                               outcome: .changed(Validators(etag: "1"), Feed(kind: .rss, title: "Show", items: [Self.item("a"), Self.item("b")])))
            _ = try await library.apply([changed], now: 20)[0].get()
            found = try await next()
            XCTAssertEqual(found.map(\.kind), ["sync"])
            XCTAssertEqual(found.first?.data, #"{"channel_id":\#(channel.id),"new_items":2,"error":null}"#)

            // The same feed again, a 304, and a poll not fetched: nothing.
            _ = await library.apply([changed, Poll(subject: .channel(id: channel.id), outcome: .unchanged(Validators())),
                                     Poll(subject: .channel(id: channel.id), outcome: .notFetched)], now: 30)
            await assertTrue(try await next().isEmpty)
            // A failure: its error; the same failure again: nothing; recovered: the error cleared.
            let failed = Poll(subject: .channel(id: channel.id), outcome: .failed(message: "https://example.com/feed: 503", retryAfter: nil))
            _ = await library.apply([failed], now: 40)
            found = try await next()
            XCTAssertEqual(found.map(\.data), [#"{"channel_id":\#(channel.id),"new_items":0,"error":"https://example.com/feed: 503"}"#])
            _ = await library.apply([failed], now: 50)
            await assertTrue(try await next().isEmpty)
            _ = try await library.apply([Poll(subject: .channel(id: channel.id), outcome: .unchanged(Validators()))], now: 60)[0].get()
            found = try await next()
            XCTAssertEqual(found.map(\.data), [#"{"channel_id":\#(channel.id),"new_items":0,"error":null}"#])

            // watch: a mark, a progress, the same progress again (nothing), unwatched.
            let items = try await library.itemIDs(channelID: channel.id)
            let (a, b) = (items[0], items[1])
            try await library.setWatched([a], watched: true, now: 70)
            try await library.setProgress(b, seconds: 30, now: 71)
            try await library.setProgress(b, seconds: 30, now: 72)
            try await library.setWatched([a], watched: false, now: 73)
            found = try await next()
            XCTAssertEqual(found.map(\.kind), ["watch", "watch", "watch"])
            XCTAssertEqual(found.map(\.data), [#"{"item_id":\#(a),"watched":true,"progress_seconds":0}"#,
                                               #"{"item_id":\#(b),"watched":false,"progress_seconds":30}"#,
                                               #"{"item_id":\#(a),"watched":false,"progress_seconds":0}"#])

            // saved: added, updated (notes), removed.
            let (saved, _) = try await library.saveVideo(item: a, notes: nil, now: 80)
            _ = try await library.updateSavedVideo(id: saved.id, SavedVideoChange(notes: "good"), now: 81)
            try await library.deleteSavedVideo(id: saved.id)
            found = try await next()
            XCTAssertEqual(found.map(\.data), [#"{"saved_id":\#(saved.id),"item_id":\#(a),"action":"added"}"#,
                                               #"{"saved_id":\#(saved.id),"item_id":\#(a),"action":"updated"}"#,
                                               #"{"saved_id":\#(saved.id),"item_id":\#(a),"action":"removed"}"#])

            // collection: created, items (each added, reordered), updated (renamed), deleted (and no
            // `items` for the items that went with it).
            let collection = try await library.createCollection("Mix", description: nil, now: 90)
            _ = try await library.addToCollection(id: collection.id, item: a, now: 91)
            _ = try await library.addToCollection(id: collection.id, item: b, now: 92)
            try await library.reorderCollection(id: collection.id, items: [b, a], now: 93)
            _ = try await library.updateCollection(id: collection.id, CollectionChange(name: "Mixed"), now: 94)
            try await library.deleteCollection(id: collection.id)
            found = try await next()
            XCTAssertTrue(found.map(\.kind).allSatisfy { $0 == "collection" })
            // Created; two added and one reorder (one row each); the new name; deleted, without a row
            // for each item that went with it.
            XCTAssertEqual(found.map(\.data), ["created", "items", "items", "items", "updated", "deleted"].map {
                #"{"collection_id":\#(collection.id),"action":"\#($0)"}"#
            })

            // subscription updated (paused), removed.
            try await library.setActive(channelID: channel.id, false)
            try await library.setActive(channelID: channel.id, false)
            try await library.removeChannel(id: channel.id)
            found = try await next()
            XCTAssertEqual(found.map(\.data), [#"{"channel_id":\#(channel.id),"action":"updated"}"#,
                                               #"{"channel_id":\#(channel.id),"action":"removed"}"#])
        }
    }

    func testEachChangeIsItsUsersAndAPollsIsEverySubscribers() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let bobUser = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let bob = db.store(for: bobUser.id)
            let feed = "https://example.com/shared"
            let channel = try await library.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Shared", now: 10)
            _ = try await bob.apply([Poll(subject: .subscription(NewChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Shared",
                                                                            reach: .publicOnly)), outcome: .notFetched)], now: 11)[0].get()
            let start = try await db.database.changes.latestChange()
            _ = try await library.apply([Poll(subject: .channel(id: channel.id),
                                              outcome: .changed(Validators(), Feed(kind: .rss, items: [Self.item("x")])))], now: 20)[0].get()
            let item = try await unwrap(try await library.itemIDs(channelID: channel.id).first)
            try await bob.setWatched([item], watched: true, now: 21)
            let found = try await changes(db.database.changes, after: start)
            XCTAssertEqual(found.filter { $0.kind == "sync" }.map(\.user).sorted(), [LibraryUsers.ownerID, bobUser.id.rawValue])
            XCTAssertEqual(found.filter { $0.kind == "watch" }.map(\.user), [bobUser.id.rawValue])
            // Bob leaves the library: his rows stay until pruned.
            try await library.removeUser(named: "bob")
            await assertTrue(try await db.database.changes.latestChange() > start)
        }
    }

    /// More changes than the log keeps: one channel's backlog of `ChangeFeedRule.kept + 2 ×
    /// pruneEvery` items marked watched at once (a change each), then one more.
    func testTheLogIsPrunedAndAReaderFromBeforeItIsToldItIsGone() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let log = db.database.changes
            let channel = try await library.addChannel(platform: .podcast, sourceURL: "https://e/f", feedURL: "https://e/f", name: "F", now: 1)
            let total = ChangeFeedRule.kept + 2 * ChangeFeedRule.pruneEvery
            try await library.ingest(items: (1...total).map { Self.item("e\($0)") }, channelID: channel.id, now: 2)
            await assertEqual(try await library.setWatched(channelID: channel.id, publishedBefore: nil, now: 10), Int(total))
            let item = try await unwrap(try await library.itemIDs(channelID: channel.id).first)
            try await library.setWatched([item], watched: false, now: 11)
            let latest = try await log.latestChange()
            XCTAssertEqual(latest, total + 3)   // with the subscription's, its items' (a sync) and the last one
            // The oldest change kept: reading from just before it is not `gone`, from before that it is.
            var (low, high) = (Int64(0), latest)   // low: gone; high: not
            await assertEqual(try await log.changes(after: low, limit: 1), .gone(latest: latest))
            while high - low > 1 {
                let middle = (low + high) / 2
                if case .gone = try await log.changes(after: middle, limit: 1) { low = middle } else { high = middle }
            }
            let oldest = high + 1
            let kept = latest - oldest + 1
            XCTAssertTrue(kept >= ChangeFeedRule.kept && kept < ChangeFeedRule.kept + ChangeFeedRule.pruneEvery, "\(kept) kept")
            // From before what is kept, or past the latest: gone. From the oldest kept's predecessor on: the rest.
            await assertEqual(try await log.changes(after: 0, limit: 10), .gone(latest: latest))
            await assertEqual(try await log.changes(after: latest + 1, limit: 10), .gone(latest: latest))
            await assertEqual(try await log.changes(after: oldest - 2, limit: 10), .gone(latest: latest))
            let page = try await unwrap(try await log.changes(after: oldest - 1, limit: 10).changes)
            XCTAssertEqual(page.map(\.seq), Array(oldest..<(oldest + 10)))
            await assertEqual(try await log.changes(after: latest, limit: 10), .changes([]))
            let last = try await unwrap(try await log.changes(after: latest - 1, limit: 10).changes)
            XCTAssertEqual(last.map(\.payload), [#"{"item_id":\#(item),"watched":false,"progress_seconds":0}"#])
        }
    }
}

extension ChangeBatch {
    var changes: [Change]? { if case .changes(let changes) = self { changes } else { nil } }
}
