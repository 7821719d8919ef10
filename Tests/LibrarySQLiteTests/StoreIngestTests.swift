import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

@Suite struct StoreIngestTests {
    let t: TestLibrary
    let channel: Int64
    init() async throws {
        t = try TestLibrary()
        channel = try await t.library.addTestChannel("show")
    }

    /// The stored row (GRDB's synchronous read: a `Row` cannot leave an async read, it is not Sendable).
    private func row(_ itemID: String) throws -> Row? {
        try t.library.pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM items WHERE item_id = ?", arguments: [itemID]) }
    }

    @Test func insertsEveryFieldOfTheModel() async throws {
        let full = Item(id: "ep1", guid: "g-1", title: "Épisode 1 & “more”", url: "https://ex.com/1", published: 1_700_000_000,
                        updated: 1_700_000_100, duration: 3723,
                        enclosure: Enclosure(url: "https://cdn.ex.com/1.mp3", type: "audio/mpeg", length: 12345),
                        thumbnail: "https://ex.com/1.jpg", author: "Ann", description: "Notes", views: 99, isShort: false,
                        episode: 1, season: 2, chaptersURL: "https://ex.com/c.json", transcriptURL: "https://ex.com/t.vtt")
        let feed = Feed(kind: .podcast, title: "The Show", image: "https://ex.com/show.jpg", items: [full])
        #expect(try await t.library.ingest(feed, channelID: channel, now: 5000) == IngestResult(new: 1, updated: 0))
        let r = try #require(try row("ep1"))
        #expect(r["guid"] as String? == "g-1")
        #expect(r["title"] as String? == "Épisode 1 & “more”")
        #expect(r["published"] as Int64? == 1_700_000_000 && r["updated"] as Int64? == 1_700_000_100)
        #expect(r["duration"] as Int? == 3723)
        #expect(r["enclosure_url"] as String? == "https://cdn.ex.com/1.mp3")
        #expect(r["enclosure_type"] as String? == "audio/mpeg" && r["enclosure_length"] as Int64? == 12345)
        #expect(r["thumbnail"] as String? == "https://ex.com/1.jpg" && r["author"] as String? == "Ann")
        #expect(r["description"] as String? == "Notes" && r["views"] as Int64? == 99 && r["is_short"] as Bool? == false)
        #expect(r["episode"] as Int? == 1 && r["season"] as Int? == 2)
        #expect(r["chapters_url"] as String? == "https://ex.com/c.json" && r["transcript_url"] as String? == "https://ex.com/t.vtt")
        #expect(r["discovered_at"] as Int64? == 5000 && r["channel_id"] as Int64? == channel)
        let stored = try await t.library.channel(id: channel)
        #expect(stored.name == "The Show" && stored.image == "https://ex.com/show.jpg")
    }

    /// Text is bound straight from a shared buffer: an empty string must stay an empty string
    /// (a null pointer would bind NULL), and each column must get its own bytes.
    @Test func emptyAndLongTextSurviveTheRowBuffer() async throws {
        let long = String(repeating: "déjà vu ", count: 5000)
        let items = [Item(id: "e", title: "", description: "", isShort: false),
                     Item(id: "l", title: "Long", url: "https://ex.com/l", thumbnail: "https://ex.com/l.jpg",
                          author: "", description: long, isShort: false)]
        #expect(try await t.library.ingest(items: items, channelID: channel, now: 1) == IngestResult(new: 2, updated: 0))
        let e = try #require(try row("e"))
        #expect(e["title"] as String? == "" && e["description"] as String? == "" && e["url"] as String? == nil)
        let l = try #require(try row("l"))
        #expect(l["title"] as String? == "Long" && l["url"] as String? == "https://ex.com/l")
        #expect(l["thumbnail"] as String? == "https://ex.com/l.jpg" && l["author"] as String? == "")
        #expect(l["description"] as String? == long)
        #expect(try await t.library.ingest(items: items, channelID: channel, now: 2) == IngestResult(new: 0, updated: 0))
    }

    @Test func reingestNeverDuplicatesAndUpdatesOnlyChanges() async throws {
        let first = [item("a", published: 100, views: 1), item("b", published: 200, views: 5), item("c", published: 300)]
        #expect(try await t.library.ingest(items: first, channelID: channel, now: 1000) == IngestResult(new: 3, updated: 0))
        #expect(try await t.library.ingest(items: first, channelID: channel, now: 2000) == IngestResult(new: 0, updated: 0))

        try await t.library.setWatched([try await t.library.id(of: "a")], now: 1500)
        try await t.library.setProgress(try await t.library.id(of: "b"), seconds: 30, now: 1600)

        // b's views and title change, c drops out of the feed, d is new.
        let second = [item("a", published: 100, views: 1), item("b", published: 200, title: "B renamed", views: 9),
                      item("d", published: 400)]
        #expect(try await t.library.ingest(items: second, channelID: channel, now: 3000) == IngestResult(new: 1, updated: 1))

        let items = try await t.library.feed(filter: FeedFilter(channelID: channel), now: 4000)
        #expect(items.map(\.itemID) == ["d", "c", "b", "a"])
        let b = try #require(items.first { $0.itemID == "b" })
        #expect(b.title == "B renamed" && b.progress == 30 && !b.watched)
        #expect(items.first { $0.itemID == "a" }?.watched == true)
        #expect(try row("b")?["views"] as Int64? == 9)
        #expect(try row("b")?["discovered_at"] as Int64? == 1000)
        #expect(try row("d")?["discovered_at"] as Int64? == 3000)
        #expect(try await t.library.channelSummary(id: channel).items == 4)
    }

    @Test func sameIDInTwoChannelsIsTwoItems() async throws {
        let other = try await t.library.addTestChannel("other")
        _ = try await t.library.ingest(items: [item("same")], channelID: channel, now: 1)
        #expect(try await t.library.ingest(items: [item("same")], channelID: other, now: 1) == IngestResult(new: 1, updated: 0))
    }

    @Test func repeatedIDWithinOneFeedIsOneItem() async throws {
        let result = try await t.library.ingest(items: [item("x", title: "first"), item("x", title: "second")], channelID: channel, now: 1)
        #expect(result == IngestResult(new: 1, updated: 0))
        #expect(try row("x")?["title"] as String? == "first")
    }

    @Test func valuesTheSchemaForbidsAreDroppedNotFatal() async throws {
        var bad = item("neg", duration: -5, views: -1)
        bad.enclosure = Enclosure(url: "https://x/1.mp3", length: -10)
        let result = try await t.library.ingest(items: [bad, item("")], channelID: channel, now: 1)
        #expect(result == IngestResult(new: 1, updated: 0))
        let r = try #require(try row("neg"))
        #expect(r["duration"] as Int? == nil && r["views"] as Int64? == nil && r["enclosure_length"] as Int64? == nil)
    }

    @Test func unknownChannelIsATypedError() async {
        await #expect(throws: LibraryError.noChannel(99)) {
            try await t.library.ingest(items: [item("x")], channelID: 99, now: 1)
        }
    }

    @Test func emptyFeedTitleKeepsTheChannelName() async throws {
        _ = try await t.library.ingest(Feed(kind: .rss, title: "  ", items: []), channelID: channel, now: 1)
        #expect(try await t.library.channel(id: channel).name == "show")
    }

    /// Changed polls of these channels, applied as one batch.
    private func apply(_ feeds: [(channelID: Int64, feed: Feed)], now: Int64) async -> [Result<IngestResult, LibraryError>] {
        let polls = feeds.map { Poll(subject: .channel(id: $0.channelID), outcome: .changed(Validators(), $0.feed)) }
        return await t.library.apply(polls, now: now).map { $0.map(\.ingest) }
    }

    @Test func batchIsOneTransactionAndABadPollFailsAlone() async throws {
        let other = try await t.library.addTestChannel("other")
        let results = await apply([(channelID: channel, feed: Feed(kind: .rss, title: "One", items: [item("a"), item("b")])),
                                   (channelID: other, feed: Feed(kind: .rss, title: "Two", items: [item("a")]))], now: 1)
        #expect(try results.map { try $0.get() } == [IngestResult(new: 2, updated: 0), IngestResult(new: 1, updated: 0)])
        #expect(try await t.library.channel(id: other).name == "Two")
        // An unknown channel fails the batch's transaction; then each poll is applied on its own,
        // so the good one is stored and only the bad one fails.
        let mixed = await apply([(channelID: channel, feed: Feed(kind: .rss, items: [item("c")])),
                                 (channelID: 99, feed: Feed(kind: .rss, items: [item("d")]))], now: 2)
        #expect(try mixed[0].get() == IngestResult(new: 1, updated: 0))
        #expect(throws: LibraryError.noChannel(99)) { try mixed[1].get() }
        #expect(try await t.library.channelSummary(id: channel).items == 3)
    }

    @Test func itemsGetIDsInFeedOrderAndAFailedBatchLeavesNothingStaged() async throws {
        let other = try await t.library.addTestChannel("other")
        let failed = await apply([(channelID: channel, feed: Feed(kind: .rss, items: [item("first")])),
                                  (channelID: 99, feed: Feed(kind: .rss, items: [item("d")]))], now: 1)
        #expect(throws: LibraryError.noChannel(99)) { try failed[1].get() }
        _ = await apply([(channelID: channel, feed: Feed(kind: .rss, items: [item("c"), item("a"), item("b")])),
                         (channelID: other, feed: Feed(kind: .rss, items: [item("z")]))], now: 2)
        let stored = try await t.library.read { db in
            try Row.fetchAll(db, sql: "SELECT channel_id, item_id FROM items ORDER BY id").map { "\($0["channel_id"] as Int64):\($0["item_id"] as String)" }
        }
        // The rolled-back batch left nothing in the staging table: "d" is nowhere.
        #expect(stored == ["\(channel):first", "\(channel):c", "\(channel):a", "\(channel):b", "\(other):z"])
    }
}
