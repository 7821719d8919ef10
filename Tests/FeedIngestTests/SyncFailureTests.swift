@testable import FeedIngest
import FeedModel
import FeedParsing
import Foundation
import GRDB
import LibraryStore
import TestSupport
import XCTest

/// A failing channel is confined to itself: its error, count and backoff are recorded, its
/// items are untouched, and every other channel syncs completely.
final class SyncFailureTests: XCTestCase {
    static let goodFeeds = ["podcast/feed-0000.xml", "youtube/channel-0000.xml", "rumble/channel-0000.html"]

    func testBrokenChannelsLeaveTheOthersCompleteAndKeepTheirItems() async throws {
        let (corpus, manifest) = try SyncCorpus.shared()
        // A 4 s budget per transfer (ample for the others, even on a loaded machine): /slow would take 20 s.
        let h = try SyncHarness(pollInterval: 600, limits: SyncLimits(connectTimeout: 4, totalTimeout: 4))
        try h.copy(Self.goodFeeds, from: corpus)
        try h.server.write("garbage.json", "{\"not\": \"a feed\"}\n")
        try h.server.write("broken.xml", "<!DOCTYPE html><html><body>Under maintenance</body></html>\n")
        let good = try await Self.goodFeeds.asyncMap { try await h.addChannel("/" + $0) }
        let brokenPaths = ["/status/404", "/status/500", "/html", "/truncated", "/slow?bytes=200&delay=0.1",
                           "/garbage.json", "/broken.xml", "/missing.xml"]
        let broken = try await brokenPaths.asyncMap { try await h.addChannel($0) }
        // Each broken channel had items from earlier syncs, one of them watched.
        for channel in broken {
            let ingest = try await h.library.ingest(items: [item("\(channel.id)-a", published: 100), item("\(channel.id)-b", published: 200)],
                                              channelID: channel.id, now: 1500)
            XCTAssertEqual(ingest.new, 2)
            try await h.library.setWatched([try await h.library.id(of: "\(channel.id)-a")], now: 1600)
        }
        let before = try await broken.asyncMap { try await h.snapshot(channel: $0.id) }

        let report = await h.syncer.sync(good + broken, now: 2000)

        for (path, result) in zip(Self.goodFeeds, report.channels) {
            XCTAssertEqual(result.status, .updated, "\(path): \(result.error ?? "")")
            try await assertLibrary(h, channel: result.id, matches: try manifest.file(path))
        }
        let url = h.server.url
        let expectedErrors = [
            "\(url("/status/404")): HTTP 404 Not Found",
            "\(url("/status/500")): HTTP 500 Internal Server Error",
            "\(url("/html")): not a feed: an HTML page without a feed",
            "\(url("/truncated")): connection closed after 100 of 1000 bytes",
            "\(url("/slow?bytes=200&delay=0.1")): timed out after 4 s",
            "\(url("/garbage.json")): not a feed: a JSON document",
            "\(url("/broken.xml")): not a feed: an HTML page without a feed",
            "\(url("/missing.xml")): HTTP 404 Not Found",
        ]
        let failed = Array(report.channels.dropFirst(good.count))
        XCTAssertEqual(failed.map(\.status), Array(repeating: .error, count: broken.count))
        XCTAssertEqual(failed.map(\.error), expectedErrors)
        XCTAssertEqual(failed.map(\.newItems), Array(repeating: 0, count: broken.count))
        XCTAssertEqual(report.errors, broken.count)
        for (index, channel) in broken.enumerated() {
            let stored = try await h.library.channel(id: channel.id)
            XCTAssertEqual(stored.lastError, expectedErrors[index])
            XCTAssertEqual(stored.consecutiveErrors, 1, stored.feedURL)
            XCTAssertEqual(stored.nextPoll, 2000 + 600, stored.feedURL)
            XCTAssertNil(stored.lastSynced, stored.feedURL)
            let value3 = try await h.snapshot(channel: channel.id)
            XCTAssertEqual(value3, before[index], "\(stored.feedURL): items untouched")
        }
        let value12 = try await h.library.polling.dueChannels(now: 2599).count
        XCTAssertEqual(value12, 0, "nothing is polled again before its backoff")

        // Failing again doubles the wait; a channel that recovers is cleared.
        try h.copy([Self.goodFeeds[0]], from: corpus)
        try FileManager.default.copyItem(at: h.server.root.appendingPathComponent(Self.goodFeeds[0]),
                                         to: h.server.root.appendingPathComponent("missing.xml"))
        let retry = await h.syncer.sync(try await broken.asyncMap { try await h.library.channel(id: $0.id) }, now: 3000)
        XCTAssertEqual(retry.channels.map(\.status), Array(repeating: .error, count: broken.count - 1) + [.updated])
        for channel in broken.dropLast() {
            let stored = try await h.library.channel(id: channel.id)
            XCTAssertEqual(stored.consecutiveErrors, 2, stored.feedURL)
            XCTAssertEqual(stored.nextPoll, 3000 + 1200, stored.feedURL)
        }
        let recovered = try await h.library.channel(id: broken[broken.count - 1].id)
        XCTAssertEqual(recovered.consecutiveErrors, 0)
        XCTAssertNil(recovered.lastError)
        XCTAssertEqual(recovered.lastSynced, 3000)
        XCTAssertEqual(recovered.nextPoll, 3000 + 600)
        let got1 = try await h.titles(channel: recovered.id).count
        XCTAssertEqual(got1, 2 + (try manifest.file(Self.goodFeeds[0])).expectedTitles.count,
                       "old items kept, new ones added")
    }

    /// Changed feeds are written in one transaction; if that fails (here a channel removed
    /// while its feed was being fetched), each is written on its own and only the bad one fails.
    func testAFeedThatCannotBeStoredDoesNotSinkItsBatch() async throws {
        let (root, manifest) = try SyncCorpus.shared()
        let h = try SyncHarness(root: root)
        let kept = try await h.addChannel("/podcast/feed-0000.xml"), removed = try await h.addChannel("/podcast/feed-0001.xml")
        let polls = try [kept, removed].map { channel in
            let path = String(channel.feedURL.dropFirst(h.server.base.count + 1))
            let feed = try FeedParser.parseFile(atPath: root.appendingPathComponent(path).path)
            return Poll(subject: .channel(id: channel.id), outcome: .changed(Validators(), feed))
        }
        try await h.library.removeChannel(id: removed.id)

        let results = await h.library.apply(polls, now: 2000)

        XCTAssertEqual(try results[0].get().ingest.new, try manifest.file("podcast/feed-0000.xml").expectedTitles.count)
        XCTAssertThrowsError(try results[1].get()) { XCTAssertEqual($0 as? LibraryError, .noChannel(removed.id)) }
        try await assertLibrary(h, channel: kept.id, matches: try manifest.file("podcast/feed-0000.xml"))
        let value13 = try await h.library.allChannels().map(\.id)
        XCTAssertEqual(value13, [kept.id])

        // A sync whose channel is gone by the time it stores reports it, in one line.
        let report = await h.syncer.sync([removed], now: 2100).channels[0]
        XCTAssertEqual(report.status, .error)
        XCTAssertEqual(report.error, "\(removed.feedURL): no channel \(removed.id)")
    }

    /// 429/503 with Retry-After: the next poll is no sooner than the server asked, and never
    /// more than a day away.
    func testRetryAfterIsHonouredInTheNextPoll() async throws {
        let h = try SyncHarness(pollInterval: 600)
        let seconds = try await h.addChannel("/status/429?retry_after=7200")
        let short = try await h.addChannel("/status/429?retry_after=60")
        let huge = try await h.addChannel("/status/503?retry_after=999999")
        let date = try await h.addChannel("/status/503?retry_after_in=5000")
        let now = Clock.now()
        let report = await h.syncer.sync([seconds, short, huge, date], now: now)

        XCTAssertEqual(report.channels.map(\.status), [.error, .error, .error, .error])
        XCTAssertEqual(report.channels[0].error, "\(seconds.feedURL): HTTP 429 Too Many Requests (retry after 7200 s)")
        let value14 = try await h.library.channel(id: seconds.id).nextPoll
        XCTAssertEqual(value14, now + 7200)
        let value15 = try await h.library.channel(id: short.id).nextPoll
        XCTAssertEqual(value15, now + 600, "the backoff still applies")
        let value16 = try await h.library.channel(id: huge.id).nextPoll
        XCTAssertEqual(value16, now + 86_400, "capped at a day")
        // An HTTP-date is converted against the clock when the response arrives.
        let value17 = try await h.library.channel(id: date.id).nextPoll
        let fromDate = try XCTUnwrap(value17)
        XCTAssertTrue((now + 4990...now + 5000).contains(fromDate), "next poll \(fromDate - now) s from now")
        let value18 = try await h.library.channel(id: date.id).consecutiveErrors
        XCTAssertEqual(value18, 1)
    }

    /// Only a redirect chain made of permanent redirects moves the stored feed URL.
    func testPermanentRedirectChainUpdatesTheFeedURLAndTemporaryDoesNot() async throws {
        let (root, manifest) = try SyncCorpus.shared()
        let h = try SyncHarness(root: root)
        func redirect(_ code: Int, to target: String) -> String {
            "/redirect/\(code)?to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        let moved = try await h.addChannel(redirect(301, to: redirect(308, to: "/podcast/feed-0003.xml")))
        let temporary = try await h.addChannel(redirect(302, to: "/podcast/feed-0004.xml"))
        let mixed = try await h.addChannel(redirect(301, to: redirect(302, to: "/podcast/feed-0005.xml")))
        let taken = try await h.addChannel("/podcast/feed-0006.xml")
        let clash = try await h.addChannel(redirect(301, to: "/podcast/feed-0006.xml"))

        let report = await h.syncer.sync([moved, temporary, mixed, taken, clash], now: 2000)
        XCTAssertEqual(report.channels.map(\.status), [.updated, .updated, .updated, .updated, .updated])
        let value19 = try await h.library.channel(id: moved.id).feedURL
        XCTAssertEqual(value19, h.server.url("/podcast/feed-0003.xml"))
        let value20 = try await h.library.channel(id: temporary.id).feedURL
        XCTAssertEqual(value20, temporary.feedURL)
        let value21 = try await h.library.channel(id: mixed.id).feedURL
        XCTAssertEqual(value21, mixed.feedURL)
        let value22 = try await h.library.channel(id: clash.id).feedURL
        XCTAssertEqual(value22, clash.feedURL, "another channel already polls the target")
        try await assertLibrary(h, channel: moved.id, matches: try manifest.file("podcast/feed-0003.xml"))
        try await assertLibrary(h, channel: temporary.id, matches: try manifest.file("podcast/feed-0004.xml"))

        // The moved channel now polls its new URL directly; the others still go through the
        // redirect, and all get a 304 thanks to the validators of the final response.
        let before = try h.server.stats().log.count
        let again = await h.syncer.sync(try await [moved, temporary, mixed].asyncMap { try await h.library.channel(id: $0.id) }, now: 3000)
        XCTAssertEqual(again.channels.map(\.status), [.unchanged, .unchanged, .unchanged])
        let log = try h.server.stats().log.dropFirst(before)
        XCTAssertEqual(log.filter { $0.path.hasPrefix("/redirect/") }.map(\.path).sorted(),
                       ["/redirect/301", "/redirect/302", "/redirect/302"])
        XCTAssertEqual(log.filter { !$0.path.hasPrefix("/redirect/") }.map(\.status), [304, 304, 304])
    }
}
