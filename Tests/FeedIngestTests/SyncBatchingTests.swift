@testable import FeedIngest
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// A sync stores each result soon after it completes (batches close by time as well as by
/// count), so one slow feed holds back neither the progress nor the library; and a cancelled
/// sync (the CLI's Ctrl-C, the daemon's shutdown) stores what finished and leaves the rest alone.
final class SyncBatchingTests: XCTestCase {
    static let goodFeeds = ["podcast/feed-0000.xml", "podcast/feed-0001.xml", "youtube/channel-0000.xml"]

    /// Fast feeds and one that answers nothing for a minute (the transfer's limit is 40 s).
    private func harness(batchDelay: Duration? = nil) async throws -> (SyncHarness, Syncer, good: [Channel], slow: Channel) {
        let (corpus, _) = try SyncCorpus.shared()
        let h = try SyncHarness(limits: SyncLimits(connectTimeout: 5, totalTimeout: 40))
        try h.copy(Self.goodFeeds, from: corpus)
        let good = try await Self.goodFeeds.asyncMap { try await h.addChannel("/" + $0) }
        let slow = try await h.addChannel("/hang?seconds=60")
        let syncer = batchDelay.map { Syncer(store: h.library, reach: .anyAddress, pollInterval: 3600, limits: h.syncer.limits, batchDelay: $0) } ?? h.syncer
        return (h, syncer, good, slow)
    }

    func testFinishedPollsAreStoredWhileASlowFeedIsStillFetching() async throws {
        let (h, syncer, good, slow) = try await harness()
        let progress = Progress()
        let finished = Progress()
        let sync = Task {
            let report = await syncer.sync(good + [slow], now: 2000) { _, done, _ in progress.set(done) }
            finished.set(1)
            return report
        }

        // Before the fix the batch waited for 16 results (or the last): nothing was stored, and
        // the progress stood still, until the slow feed gave up 40 s later.
        var stored: [Channel] = []
        for _ in 0..<750 where finished.value == 0 {   // at most 15 s
            stored = try await h.library.allChannels().filter { $0.lastSynced != nil }
            if stored.count == good.count { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertEqual(stored.map(\.id), good.map(\.id), "the fast feeds are in the library")
        XCTAssertEqual(finished.value, 0, "…while the slow one is still being fetched")
        XCTAssertEqual(progress.value, good.count, "the progress counts them")

        sync.cancel()
        let report = await sync.value
        XCTAssertEqual(report.channels.map(\.id), good.map(\.id), "the cancelled poll is not in the report")
        XCTAssertEqual(report.channels.map(\.status), [.updated, .updated, .updated])
        let untouched = try await h.library.channel(id: slow.id)
        XCTAssertNil(untouched.lastError, "a cancelled fetch is not the feed's failure")
        XCTAssertEqual(untouched.consecutiveErrors, 0)
        XCTAssertNil(untouched.lastSynced)
    }

    /// Cancelled while finished polls wait for their batch (here the batch would wait an hour):
    /// they are stored before the sync returns.
    func testCancellingStoresWhatFinished() async throws {
        let (h, syncer, good, slow) = try await harness(batchDelay: .seconds(3600))
        let sync = Task { await syncer.sync(good + [slow], now: 2000) }
        // The fast feeds have been served (the server logs a request once it answered it);
        // a moment more for the client to read and parse them (not a timing assertion: a late
        // parse would only make the assertion below fail loudly).
        for path in Self.goodFeeds { _ = try h.server.stats(afterLogging: 1, of: "/" + path) }
        try await Task.sleep(for: .seconds(1))
        let before = try await h.library.allChannels().filter { $0.lastSynced != nil }
        XCTAssertEqual(before, [], "nothing stored yet: the batch is waiting")

        sync.cancel()
        let report = await sync.value

        XCTAssertEqual(report.channels.map(\.id), good.map(\.id))
        // A result's seconds are its fetch and parse (a local file: milliseconds), not the
        // second and more it then waited for its batch (issue 14: they were the latter).
        for result in report.channels { XCTAssertLessThan(result.seconds, 1, "\(result.name): \(result.seconds) s") }
        let stored = try await h.library.allChannels().filter { $0.lastSynced != nil }
        XCTAssertEqual(stored.map(\.id), good.map(\.id), "what finished is stored")
        let items = try await h.titles(channel: good[0].id)
        XCTAssertFalse(items.isEmpty, "with its items")
        let untouched = try await h.library.channel(id: slow.id)
        XCTAssertNil(untouched.lastError)
        XCTAssertNil(untouched.lastSynced)
    }
}

/// A counter the progress callback writes and the test reads.
private final class Progress: @unchecked Sendable {
    private var stored = 0
    private let lock = NSLock()
    var value: Int { lock.withLock { stored } }
    func set(_ value: Int) { lock.withLock { stored = value } }
}
