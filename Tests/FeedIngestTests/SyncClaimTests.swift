import FeedIngest
import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// One sync scheduler however many processes run (issue 15): a channel is claimed in the library
/// before it is polled, so two pollers on one library file never fetch the same feed at once.
final class SyncClaimTests: XCTestCase {
    private func feed(_ n: Int) -> String {
        "<rss><channel><title>Feed \(n)</title><item><guid>g\(n)</guid><title>Episode \(n)</title></item></channel></rss>"
    }

    /// `count` one-item feeds on the test server, `f0.xml`…; their paths under `prefix` (`/delay/0.3`
    /// makes each fetch last long enough for syncs to overlap).
    private func serveFeeds(_ h: SyncHarness, count: Int, under prefix: String = "") throws -> [String] {
        try (0..<count).map { n in
            try h.server.write("f\(n).xml", feed(n))
            return "\(prefix)/f\(n).xml"
        }
    }

    /// A scheduler round as the daemon runs it: claim the due channels, then poll them under
    /// that claim (the sync releases what it did not store).
    private static func round(_ library: SQLiteLibrary, _ claimant: String) async throws -> [Int64] {
        let due = try await library.polling.claimDueChannels(now: 2000, claimant: claimant)
        let report = await Syncer(store: library, reach: .anyAddress).sync(due, claimant: claimant, now: 2000)
        XCTAssertFalse(report.channels.contains { $0.status == .busy }, "its own claim")
        return due.map(\.id)
    }

    /// Two store values on one file (each its own connection pool, as two processes have), each
    /// running a scheduler round at the same moment: every feed is fetched exactly once.
    func testTwoPollersSyncingAtOnceFetchEachFeedOnce() async throws {
        let h = try SyncHarness()
        defer { h.server.stop() }
        let count = 24
        for path in try serveFeeds(h, count: count) { try await h.addChannel(path) }
        let one = h.library, other = try SQLiteLibrary(path: h.library.path)
        async let first = Self.round(one, "first")
        async let second = Self.round(other, "second")
        let (a, b) = try await (first, second)
        XCTAssertEqual((a + b).sorted(), Array(1...Int64(count)), "every due channel was polled by one of them")
        XCTAssertTrue(Set(a).isDisjoint(with: b))
        let stats = try h.server.stats()
        for n in 0..<count { XCTAssertEqual(stats.hits["/f\(n).xml"], 1, "/f\(n).xml") }
        // Storing a poll released its claim, and a later round finds nothing due.
        let claimed = try await h.library.polling.claimDueChannels(now: 2001, claimant: "third")
        XCTAssertEqual(claimed.map(\.id), [])
    }

    func testAClaimBlocksOthersUntilReleasedOrLapsed() async throws {
        let h = try SyncHarness()
        defer { h.server.stop() }
        let a = try await h.addChannel("/a.xml"), b = try await h.addChannel("/b.xml")
        let got1 = try await h.library.polling.claimDueChannels(now: 2000, claimant: "crashed").map(\.id)
        XCTAssertEqual(got1, [a.id, b.id])
        let got2 = try await h.library.polling.claimDueChannels(now: 2000, claimant: "other").map(\.id)
        XCTAssertEqual(got2, [])
        let got3 = try await h.library.polling.claimChannels([a.id, b.id], now: 2000, claimant: "other")
        XCTAssertEqual(got3, [], "held by another")
        let got4 = try await h.library.polling.claimChannels([a.id], now: 2000, claimant: "crashed")
        XCTAssertEqual(got4, [a.id], "its own claim")
        // Only the holder releases.
        try await h.library.polling.releaseClaims([a.id], claimant: "other")
        let got5 = try await h.library.polling.claimChannels([a.id], now: 2000, claimant: "other")
        XCTAssertEqual(got5, [])
        try await h.library.polling.releaseClaims([a.id], claimant: "crashed")
        let got6 = try await h.library.polling.claimChannels([a.id], now: 2000, claimant: "other")
        XCTAssertEqual(got6, [a.id])
        // A claim whose holder died lapses: b (and a, claimed at the same time) are free after PollLease.standard.seconds.
        let later = 2000 + PollLease.standard.seconds
        let got7 = try await h.library.polling.claimDueChannels(now: later - 1, claimant: "other").map(\.id)
        XCTAssertEqual(got7, [])
        let got8 = try await h.library.polling.claimDueChannels(now: later, claimant: "other").map(\.id)
        XCTAssertEqual(got8, [a.id, b.id], "both claims have lapsed")
    }

    /// A sync asked for channels (`sync ID`, the API's channel sync, `channel add` of a feed
    /// followed already) claims them too: one another sync holds is not fetched, and is reported busy.
    func testASyncSkipsAChannelAnotherSyncHolds() async throws {
        let h = try SyncHarness()
        defer { h.server.stop() }
        try h.server.write("a.xml", feed(1))
        try h.server.write("b.xml", feed(2))
        let a = try await h.addChannel("/a.xml"), b = try await h.addChannel("/b.xml")
        let held = try await h.library.polling.claimChannels([a.id], now: 2000, claimant: "another process")
        XCTAssertEqual(held, [a.id])
        let report = await h.syncer.sync([a, b], now: 2000)
        XCTAssertEqual(report.channels.map(\.id), [a.id, b.id])
        XCTAssertEqual(report.channels.map(\.status), [.busy, .updated])
        XCTAssertEqual(report.errors, 0)
        XCTAssertEqual(report.channels.map(\.succeeded), [false, true])
        XCTAssertNil(try h.server.stats().hits["/a.xml"])
        XCTAssertEqual(try h.server.stats().hits["/b.xml"], 1)
        // Pasting the held feed again does not fetch it either: it is subscribed already.
        let again = try await h.subscriber.add(h.server.url("/a.xml"), now: 2000)
        XCTAssertEqual(again.map(\.alreadySubscribed), [true])
        XCTAssertEqual(again.map(\.newItems), [0])
        XCTAssertNil(try h.server.stats().hits["/a.xml"])
        // Released, it is polled; storing the poll left no claim behind.
        try await h.library.polling.releaseClaims([a.id], claimant: "another process")
        let pasted = try await h.subscriber.add(h.server.url("/a.xml"), now: 2001)
        XCTAssertEqual(pasted.map(\.newItems), [1])
        XCTAssertEqual(try h.server.stats().hits["/a.xml"], 1)
        let free = try await h.library.polling.claimChannels([a.id, b.id], now: 2001, claimant: "later")
        XCTAssertEqual(free, [a.id, b.id], "no claim left behind")
    }

    /// Two syncs in one process at once (the server's scheduler and a request's sync): each has
    /// a claim of its own, so every feed is fetched once.
    func testTwoSyncsInOneProcessFetchEachFeedOnce() async throws {
        let h = try SyncHarness()
        defer { h.server.stop() }
        let count = 8
        for path in try serveFeeds(h, count: count, under: "/delay/0.3") { try await h.addChannel(path) }
        let channels = try await h.library.allChannels()
        XCTAssertEqual(channels.count, count)
        let syncer = h.syncer
        async let first = syncer.sync(channels, now: 2000)
        async let second = syncer.sync(channels, now: 2000)
        let (x, y) = await (first, second)
        for (one, other) in zip(x.channels, y.channels) {
            XCTAssertEqual(one.id, other.id)
            XCTAssertEqual([one.status, other.status].filter { $0 == .busy }.count, 1, "channel \(one.id): \(one.status), \(other.status)")
        }
        let stats = try h.server.stats()
        for n in 0..<count { XCTAssertEqual(stats.hits["/delay/0.3/f\(n).xml"], 1, "f\(n)") }
    }

    /// Subscribing feeds (an OPML import, a gpodder upload) records them due, then fetches them:
    /// a poller in another process running meanwhile never fetches one of them as well.
    func testSubscribingWhileAnotherProcessPollsFetchesEachFeedOnce() async throws {
        let h = try SyncHarness()
        defer { h.server.stop() }
        let count = 12
        let feeds = try serveFeeds(h, count: count, under: "/delay/0.3").enumerated().map { n, path in
            NewChannel(platform: .podcast, sourceURL: h.server.url(path), feedURL: h.server.url(path), name: "Feed \(n)", reach: .anyAddress)
        }
        let other = try SQLiteLibrary(path: h.library.path), syncer = h.syncer
        async let imported = syncer.subscribe(feeds, now: 2000)
        async let polledElsewhere: [Int64] = {
            var polled: [Int64] = []
            for round in 0..<25 {
                polled += try await Self.round(other, "poller \(round)")
                try await Task.sleep(for: .milliseconds(20))
            }
            return polled
        }()
        let (report, elsewhere) = try await (imported, polledElsewhere)
        XCTAssertEqual(report.channels.count, count)
        XCTAssertEqual(report.errors, 0)
        let busy = report.channels.filter { $0.status == .busy }.map(\.id)
        XCTAssertEqual(Set(busy), Set(elsewhere), "what the other poller took, the import left to it")
        let stats = try h.server.stats()
        for n in 0..<count { XCTAssertEqual(stats.hits["/delay/0.3/f\(n).xml"], 1, "f\(n)") }
    }
}
