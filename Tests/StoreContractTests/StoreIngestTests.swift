import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Storing a feed's items: every field, dedup by item id per channel, updates of what changed,
/// values the library refuses, and a batch of polls.
final class StoreIngestTests: XCTestCase {
    private struct Show {
        let library: any UserLibrary
        let channel: Int64
        init(_ db: TestDatabase) async throws {
            library = db.owner
            channel = try await library.addTestChannel("show")
        }

        /// Changed polls of these channels, applied as one batch.
        func apply(_ feeds: [(channelID: Int64, feed: Feed)], now: Int64) async -> [Result<IngestResult, LibraryError>] {
            let polls = feeds.map { Poll(subject: .channel(id: $0.channelID), outcome: .changed(Validators(), $0.feed)) }
            return await library.apply(polls, now: now).map { $0.map(\.ingest) }
        }
    }

    func testInsertsEveryFieldOfTheModel() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            let full = Item(id: "ep1", guid: "g-1", title: "Épisode 1 & “more”", url: "https://ex.com/1", published: 1_700_000_000,
                            updated: 1_700_000_100, duration: 3723,
                            enclosure: Enclosure(url: "https://cdn.ex.com/1.mp3", type: "audio/mpeg", length: 12345),
                            thumbnail: "https://ex.com/1.jpg", author: "Ann", description: "Notes", views: 99, isShort: false,
                            episode: 1, season: 2, chaptersURL: "https://ex.com/c.json", transcriptURL: "https://ex.com/t.vtt")
            let feed = Feed(kind: .podcast, title: "The Show", image: "https://ex.com/show.jpg", items: [full])
            await assertEqual(try await library.ingest(feed, channelID: s.channel, now: 5000), IngestResult(new: 1, updated: 0))
            let id = try await library.id(of: "ep1")
            let details = try await library.itemDetails(id: id)
            XCTAssertEqual(details.item.title, "Épisode 1 & “more”")
            XCTAssertEqual(details.item.url, "https://ex.com/1")
            XCTAssertEqual(details.item.published, 1_700_000_000)
            XCTAssertEqual(details.item.duration, 3723)
            XCTAssertEqual(details.item.enclosureURL, "https://cdn.ex.com/1.mp3")
            XCTAssertEqual(details.enclosureType, "audio/mpeg")
            XCTAssertEqual(details.enclosureLength, 12345)
            XCTAssertEqual(details.item.thumbnail, "https://ex.com/1.jpg")
            XCTAssertEqual(details.author, "Ann")
            XCTAssertEqual(details.notes, "Notes")
            XCTAssertEqual(details.item.isShort, false)
            XCTAssertEqual(details.episode, 1)
            XCTAssertEqual(details.season, 2)
            XCTAssertEqual(details.chaptersURL, "https://ex.com/c.json")
            XCTAssertEqual(details.transcriptURL, "https://ex.com/t.vtt")
            XCTAssertEqual(details.item.channelID, s.channel)
            let record = try await unwrap(try await library.itemRecords(ids: [id]).first)
            XCTAssertEqual(record.views, 99)
            XCTAssertEqual(record.discoveredAt, 5000)
            // The guid is what a gpodder client names the episode by.
            try await library.setProgress(id, seconds: 7, now: 6000)
            await assertEqual(try await library.episodeActions(EpisodeActionQuery(since: 0)).actions.map(\.guid), ["g-1"])
            let stored = try await library.channel(id: s.channel)
            XCTAssertEqual(stored.name, "The Show")
            XCTAssertEqual(stored.image, "https://ex.com/show.jpg")
        }
    }

    /// An empty string stays an empty string (not NULL), and each field keeps its own text.
    func testEmptyAndLongTextSurvive() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            let long = String(repeating: "déjà vu ", count: 5000)
            let items = [Item(id: "e", title: "", description: "", isShort: false),
                         Item(id: "l", title: "Long", url: "https://ex.com/l", thumbnail: "https://ex.com/l.jpg",
                              author: "", description: long, isShort: false)]
            await assertEqual(try await library.ingest(items: items, channelID: s.channel, now: 1), IngestResult(new: 2, updated: 0))
            let e = try await library.itemDetails(id: try await library.id(of: "e"))
            XCTAssertEqual(e.item.title, "")
            XCTAssertEqual(e.notes, "")
            XCTAssertNil(e.item.url)
            let l = try await library.itemDetails(id: try await library.id(of: "l"))
            XCTAssertEqual(l.item.title, "Long")
            XCTAssertEqual(l.item.url, "https://ex.com/l")
            XCTAssertEqual(l.item.thumbnail, "https://ex.com/l.jpg")
            XCTAssertEqual(l.author, "")
            XCTAssertEqual(l.notes, long)
            await assertEqual(try await library.ingest(items: items, channelID: s.channel, now: 2), IngestResult(new: 0, updated: 0))
        }
    }

    func testReingestNeverDuplicatesAndUpdatesOnlyChanges() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            let first = [item("a", published: 100, views: 1), item("b", published: 200, views: 5), item("c", published: 300)]
            await assertEqual(try await library.ingest(items: first, channelID: s.channel, now: 1000), IngestResult(new: 3, updated: 0))
            await assertEqual(try await library.ingest(items: first, channelID: s.channel, now: 2000), IngestResult(new: 0, updated: 0))

            try await library.setWatched([try await library.id(of: "a")], now: 1500)
            try await library.setProgress(try await library.id(of: "b"), seconds: 30, now: 1600)

            // b's views and title change, c drops out of the feed, d is new.
            let second = [item("a", published: 100, views: 1), item("b", published: 200, title: "B renamed", views: 9),
                          item("d", published: 400)]
            await assertEqual(try await library.ingest(items: second, channelID: s.channel, now: 3000), IngestResult(new: 1, updated: 1))

            let items = try await library.feed(filter: FeedFilter(channelID: s.channel), now: 4000)
            XCTAssertEqual(items.map(\.itemID), ["d", "c", "b", "a"])
            let b = try XCTUnwrap(items.first { $0.itemID == "b" })
            XCTAssertEqual(b.title, "B renamed")
            XCTAssertEqual(b.progress, 30)
            XCTAssertFalse(b.watched)
            XCTAssertEqual(items.first { $0.itemID == "a" }?.watched, true)
            let records = try await library.itemRecords(ids: [b.id, try await library.id(of: "d")])
            XCTAssertEqual(records.map(\.views), [9, nil])
            XCTAssertEqual(records.map(\.discoveredAt), [1000, 3000])
            await assertEqual(try await library.channelSummary(id: s.channel).items, 4)
        }
    }

    /// A feed read again with the same Podcasting 2.0 lists (persons, funding) changes nothing:
    /// the lists are stored as the same text each time, so they compare equal.
    func testReingestOfItemsWithListsUpdatesNothing() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let items = (1...10).map { n in
                Item(id: "p\(n)", title: "P\(n)", persons: [Person(name: "Ann", role: "host", href: "https://ex.com/ann", image: "https://ex.com/a.jpg")],
                     funding: [Link(url: "https://ex.com/give", title: "Give")])
            }
            await assertEqual(try await s.library.ingest(items: items, channelID: s.channel, now: 1), IngestResult(new: 10, updated: 0))
            for now in Int64(2)...4 {
                await assertEqual(try await s.library.ingest(items: items, channelID: s.channel, now: now), IngestResult(new: 0, updated: 0))
            }
        }
    }

    func testSameIDInTwoChannelsIsTwoItems() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let other = try await s.library.addTestChannel("other")
            try await s.library.ingest(items: [item("same")], channelID: s.channel, now: 1)
            await assertEqual(try await s.library.ingest(items: [item("same")], channelID: other, now: 1), IngestResult(new: 1, updated: 0))
        }
    }

    func testRepeatedIDWithinOneFeedIsOneItem() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let result = try await s.library.ingest(items: [item("x", title: "first"), item("x", title: "second")], channelID: s.channel, now: 1)
            XCTAssertEqual(result, IngestResult(new: 1, updated: 0))
            await assertEqual(try await s.library.item(id: try await s.library.id(of: "x")).title, "first")
        }
    }

    func testValuesTheLibraryRefusesAreDroppedNotFatal() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            var bad = item("neg", duration: -5, views: -1)
            bad.enclosure = Enclosure(url: "https://x/1.mp3", length: -10)
            let result = try await s.library.ingest(items: [bad, item("")], channelID: s.channel, now: 1)
            XCTAssertEqual(result, IngestResult(new: 1, updated: 0))
            let id = try await s.library.id(of: "neg")
            let details = try await s.library.itemDetails(id: id)
            XCTAssertNil(details.item.duration)
            await assertNil(try await s.library.itemRecords(ids: [id]).first?.views)
            XCTAssertNil(details.enclosureLength)
        }
    }

    func testUnknownChannelIsATypedError() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            await assertThrows(LibraryError.noChannel(99)) { try await s.library.ingest(items: [item("x")], channelID: 99, now: 1) }
        }
    }

    func testEmptyFeedTitleKeepsTheChannelName() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            _ = try await s.library.ingest(Feed(kind: .rss, title: "  ", items: []), channelID: s.channel, now: 1)
            await assertEqual(try await s.library.channel(id: s.channel).name, "show")
        }
    }

    func testBatchIsOneTransactionAndABadPollFailsAlone() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let other = try await s.library.addTestChannel("other")
            let results = await s.apply([(channelID: s.channel, feed: Feed(kind: .rss, title: "One", items: [item("a"), item("b")])),
                                         (channelID: other, feed: Feed(kind: .rss, title: "Two", items: [item("a")]))], now: 1)
            XCTAssertEqual(try results.map { try $0.get() }, [IngestResult(new: 2, updated: 0), IngestResult(new: 1, updated: 0)])
            await assertEqual(try await s.library.channel(id: other).name, "Two")
            // An unknown channel fails the batch's transaction; then each poll is applied on its own,
            // so the good one is stored and only the bad one fails.
            let mixed = await s.apply([(channelID: s.channel, feed: Feed(kind: .rss, items: [item("c")])),
                                       (channelID: 99, feed: Feed(kind: .rss, items: [item("d")]))], now: 2)
            XCTAssertEqual(try mixed[0].get(), IngestResult(new: 1, updated: 0))
            XCTAssertThrowsError(try mixed[1].get()) { XCTAssertEqual($0 as? LibraryError, .noChannel(99)) }
            await assertEqual(try await s.library.channelSummary(id: s.channel).items, 3)
        }
    }

    func testItemsGetIDsInFeedOrderAndAFailedBatchLeavesNothingBehind() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            let other = try await library.addTestChannel("other")
            let failed = await s.apply([(channelID: s.channel, feed: Feed(kind: .rss, items: [item("first")])),
                                        (channelID: 99, feed: Feed(kind: .rss, items: [item("d")]))], now: 1)
            XCTAssertThrowsError(try failed[1].get()) { XCTAssertEqual($0 as? LibraryError, .noChannel(99)) }
            _ = await s.apply([(channelID: s.channel, feed: Feed(kind: .rss, items: [item("c"), item("a"), item("b")])),
                               (channelID: other, feed: Feed(kind: .rss, items: [item("z")]))], now: 2)
            // Every item of the library (its only two channels), by id.
            var stored: [(id: Int64, name: String)] = []
            for channel in [s.channel, other] {
                for id in try await library.itemIDs(channelID: channel) {
                    stored.append((id, "\(channel):\(try await library.item(id: id).itemID)"))
                }
            }
            // The rolled-back batch left nothing behind: "d" is nowhere.
            XCTAssertEqual(stored.sorted { $0.id < $1.id }.map(\.name),
                           ["\(s.channel):first", "\(s.channel):c", "\(s.channel):a", "\(s.channel):b", "\(other):z"])
        }
    }
}
