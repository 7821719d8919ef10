import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The library's change log (`ChangeFeed`, issue 27): every change to a user's state is a row,
/// whoever writes it, with the `/api/events` payload; polls that change nothing write none; the
/// log is pruned to `ChangeFeedRule.kept` and a reader from before that is told it is gone.
@Suite struct StoreChangeFeedTests {
    /// The changes after `seq`, as (user, kind, payload: the wire's JSON as written).
    static func changes(_ library: SQLiteLibrary, after seq: Int64) async throws -> [(user: Int64, kind: String, data: String)] {
        guard case .changes(let changes) = try await library.changes(after: seq, limit: 1_000) else {
            Issue.record("the log says changes after \(seq) are gone")
            return []
        }
        return changes.map { ($0.user.rawValue, $0.kind.rawValue, $0.payload) }
    }

    static func item(_ id: String) -> Item { Item(id: id, title: "Episode \(id)", enclosure: Enclosure(url: "https://example.com/\(id).mp3")) }

    @Test func everyKindOfChangeIsLoggedForItsUserWithItsPayload() async throws {
        let t = try TestLibrary()
        let library = t.library
        var seen = try await library.latestChange()
        #expect(seen == 0)
        func next() async throws -> [(user: Int64, kind: String, data: String)] {
            let found = try await Self.changes(library, after: seen)
            seen = try await library.latestChange()
            return found
        }

        // subscription added; a first poll's items: sync.
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: "https://example.com/feed", feedURL: "https://example.com/feed",
                                             name: "Show", now: 10)
        var found = try await next()
        #expect(found.map(\.kind) == ["subscription"])
        #expect(found.first?.data == #"{"channel_id":\#(channel.id),"action":"added"}"#)
        #expect(found.first?.user == LibraryUsers.ownerID)
        let changed = Poll(subject: .channel(id: channel.id),
                           outcome: .changed(Validators(etag: "1"), Feed(kind: .rss, title: "Show", items: [Self.item("a"), Self.item("b")])))
        _ = try await library.apply([changed], now: 20)[0].get()
        found = try await next()
        #expect(found.map(\.kind) == ["sync"])
        #expect(found.first?.data == #"{"channel_id":\#(channel.id),"new_items":2,"error":null}"#)

        // The same feed again, a 304, and a poll not fetched: nothing.
        _ = try await library.apply([changed, Poll(subject: .channel(id: channel.id), outcome: .unchanged(Validators())),
                                     Poll(subject: .channel(id: channel.id), outcome: .notFetched)], now: 30)
        #expect(try await next().isEmpty)
        // A failure: its error; the same failure again: nothing; recovered: the error cleared.
        let failed = Poll(subject: .channel(id: channel.id), outcome: .failed(message: "https://example.com/feed: 503", retryAfter: nil))
        _ = await library.apply([failed], now: 40)
        found = try await next()
        #expect(found.map(\.data) == [#"{"channel_id":\#(channel.id),"new_items":0,"error":"https://example.com/feed: 503"}"#])
        _ = await library.apply([failed], now: 50)
        #expect(try await next().isEmpty)
        _ = try await library.apply([Poll(subject: .channel(id: channel.id), outcome: .unchanged(Validators()))], now: 60)[0].get()
        found = try await next()
        #expect(found.map(\.data) == [#"{"channel_id":\#(channel.id),"new_items":0,"error":null}"#])

        // watch: a mark, a progress, the same progress again (nothing), unwatched.
        let items = try await library.itemIDs(channelID: channel.id)
        let (a, b) = (items[0], items[1])
        try await library.setWatched([a], watched: true, now: 70)
        try await library.setProgress(b, seconds: 30, now: 71)
        try await library.setProgress(b, seconds: 30, now: 72)
        try await library.setWatched([a], watched: false, now: 73)
        found = try await next()
        #expect(found.map(\.kind) == ["watch", "watch", "watch"])
        #expect(found.map(\.data) == [#"{"item_id":\#(a),"watched":true,"progress_seconds":0}"#,
                                      #"{"item_id":\#(b),"watched":false,"progress_seconds":30}"#,
                                      #"{"item_id":\#(a),"watched":false,"progress_seconds":0}"#])

        // saved: added, updated (notes), removed.
        let (saved, _) = try await library.saveVideo(item: a, notes: nil, now: 80)
        _ = try await library.updateSavedVideo(id: saved.id, SavedVideoChange(notes: "good"), now: 81)
        try await library.deleteSavedVideo(id: saved.id)
        found = try await next()
        #expect(found.map(\.data) == [#"{"saved_id":\#(saved.id),"item_id":\#(a),"action":"added"}"#,
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
        #expect(found.map(\.kind).allSatisfy { $0 == "collection" })
        // Created; two added and one reorder (one row each); the new name; deleted, without a row
        // for each item that went with it.
        #expect(found.map(\.data) == ["created", "items", "items", "items", "updated", "deleted"].map {
            #"{"collection_id":\#(collection.id),"action":"\#($0)"}"#
        })

        // subscription updated (paused), removed.
        try await library.setActive(channelID: channel.id, false)
        try await library.setActive(channelID: channel.id, false)
        try await library.removeChannel(id: channel.id)
        found = try await next()
        #expect(found.map(\.data) == [#"{"channel_id":\#(channel.id),"action":"updated"}"#,
                                      #"{"channel_id":\#(channel.id),"action":"removed"}"#])
    }

    @Test func eachChangeIsItsUsersAndAPollsIsEverySubscribers() async throws {
        let t = try TestLibrary()
        let bobUser = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let bob = t.library.acting(as: bobUser.id)
        let feed = "https://example.com/shared"
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Shared", now: 10)
        _ = try await bob.apply([Poll(subject: .subscription(NewChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Shared",
                                                                        reach: .publicOnly)), outcome: .notFetched)], now: 11)[0].get()
        let start = try await t.library.latestChange()
        _ = try await t.library.apply([Poll(subject: .channel(id: channel.id),
                                            outcome: .changed(Validators(), Feed(kind: .rss, items: [Self.item("x")])))], now: 20)[0].get()
        let item = try #require(try await t.library.itemIDs(channelID: channel.id).first)
        try await bob.setWatched([item], watched: true, now: 21)
        let found = try await Self.changes(t.library, after: start)
        #expect(found.filter { $0.kind == "sync" }.map(\.user).sorted() == [LibraryUsers.ownerID, bobUser.id.rawValue])
        #expect(found.filter { $0.kind == "watch" }.map(\.user) == [bobUser.id.rawValue])
        // Bob leaves the library: his rows stay (no foreign key to refuse the cascade's) until pruned.
        try await t.library.removeUser(named: "bob")
        #expect(try await t.library.latestChange() > start)
    }

    @Test func theLogIsPrunedAndAReaderFromBeforeItIsToldItIsGone() async throws {
        let t = try TestLibrary()
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: "https://e/f", feedURL: "https://e/f", name: "F", now: 1)
        try await t.library.ingest(items: [Self.item("a")], channelID: channel.id, now: 2)
        let item = try #require(try await t.library.itemIDs(channelID: channel.id).first)
        let total = ChangeFeedRule.kept + 2 * ChangeFeedRule.pruneEvery
        try await t.library.write { db in
            for second in 1...total { _ = try SQLiteLibrary.writeWatchState(.position(seconds: Int(second)), item: item, user: .owner, time: 10, db) }
        }
        let latest = try await t.library.latestChange()
        #expect(latest == total + 2)   // with the subscription's and its items' (a sync)
        let kept = try await t.library.read { db in try Int64.fetchOne(db, sql: "SELECT count(*) FROM changes") ?? 0 }
        #expect(kept >= ChangeFeedRule.kept && kept < ChangeFeedRule.kept + ChangeFeedRule.pruneEvery)
        // From before what is kept, or past the latest: gone. From the oldest kept's predecessor on: the rest.
        #expect(try await t.library.changes(after: 0, limit: 10) == .gone(latest: latest))
        #expect(try await t.library.changes(after: latest + 1, limit: 10) == .gone(latest: latest))
        let oldest = latest - kept + 1
        #expect(try await t.library.changes(after: oldest - 2, limit: 10) == .gone(latest: latest))
        let page = try #require(try await t.library.changes(after: oldest - 1, limit: 10).changes)
        #expect(page.map(\.seq) == Array(oldest..<(oldest + 10)))
        #expect(try await t.library.changes(after: latest, limit: 10) == .changes([]))
        let last = try #require(try await t.library.changes(after: latest - 1, limit: 10).changes)
        #expect(last.map(\.payload) == [#"{"item_id":\#(item),"watched":false,"progress_seconds":\#(total)}"#])
    }
}

extension ChangeBatch {
    var changes: [Change]? { if case .changes(let changes) = self { changes } else { nil } }
}
