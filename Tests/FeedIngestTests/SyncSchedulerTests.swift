@testable import FeedIngest
import FeedModel
import Foundation
import GRDB
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// The daemon's scheduler (`SyncScheduler`), run for real over a library and a feed server on
/// 127.0.0.1. `feeds.localhost` stands for a name that resolves to a loopback address only at
/// fetch time: the system resolver does not know it, libcurl resolves it to 127.0.0.1 itself.
final class SyncSchedulerTests: XCTestCase {
    private static let feed = """
        <rss version="2.0"><channel><title>Private show</title>
        <item><guid>e1</guid><title>From the LAN</title><enclosure url="http://feeds.localhost/e1.mp3" type="audio/mpeg"/></item>
        </channel></rss>
        """

    /// Lines `report` was given, for the test to wait on.
    private final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    private func waitUntil(_ what: String, timeout: Double = 20, _ done: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try await !done() {
            guard Date() < deadline else { return XCTFail("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Issue 26, item 1: a feed a server user subscribed to (public addresses only) is refused
    /// when the daemon polls it and its name resolves to a loopback address, while the owner's
    /// own subscription on the same server is fetched. Nothing is requested from the server for
    /// the refused one, and its followers see no item.
    func testTheDaemonsScheduledSyncKeepsAServerUsersFeedOffPrivateAddresses() async throws {
        let h = try SyncHarness()
        try h.server.write("owner.xml", Self.feed)
        try h.server.write("bob.xml", Self.feed)
        let owned = "http://feeds.localhost:\(h.server.port)/owner.xml", bobs = "http://feeds.localhost:\(h.server.port)/bob.xml"
        let ownerChannel = try await h.library.addChannel(platform: .podcast, sourceURL: owned, feedURL: owned, name: "Mine", now: 1000)
        let bobUser = try await h.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1000)
        let bob = h.library.acting(as: bobUser.id)
        let bobChannel = try await bob.addChannel(platform: .podcast, sourceURL: bobs, feedURL: bobs, name: "Bob's",
                                                  reach: .publicOnly, now: 1000)

        let lines = Lines()
        let scheduler = SyncScheduler.start(polling: h.library.polling, every: 0.2, report: { lines.append($0) })
        try await waitUntil("both channels polled") {
            let a = try await h.library.channel(id: ownerChannel.id), b = try await bob.channel(id: bobChannel.id)
            return a.lastSynced != nil && b.lastError != nil
        }
        scheduler.cancel()
        await scheduler.value

        let refused = try await bob.channel(id: bobChannel.id)
        // libcurl tries both loopback addresses (127.0.0.1, ::1); the error names the last refused.
        let error = try XCTUnwrap(refused.lastError)
        XCTAssertTrue(error.hasPrefix("\(bobs): refused: ") && error.hasSuffix(
            " is a local address (loopback, private or link-local), and only public addresses may be fetched here"), error)
        XCTAssertEqual(try h.server.stats().hits["/bob.xml"] ?? 0, 0, "no request reached the private feed")
        let bobsFeed = try await bob.feed(now: 2000), ownersFeed = try await h.library.feed(now: 2000)
        XCTAssertEqual(bobsFeed.count, 0, "Bob's feed shows nothing from it")
        XCTAssertEqual(ownersFeed.map(\.title), ["From the LAN"], "the owner's own feed is fetched")
        XCTAssertTrue(lines.all.contains("sync: \(error)"), lines.all.joined(separator: "\n"))
    }

    /// A round whose library read fails is reported, not dropped, and the next round goes on.
    func testALibraryErrorIsReportedAndTheNextRoundSyncs() async throws {
        let h = try SyncHarness()
        try h.server.write("feed.xml", Self.feed)
        let channel = try await h.addChannel("/feed.xml")
        try await h.library.write { db in try db.execute(sql: "ALTER TABLE channels RENAME TO channels_away") }

        let lines = Lines()
        let scheduler = SyncScheduler.start(polling: h.library.polling, every: 0.1, report: { lines.append($0) })
        try await waitUntil("the failure reported") { lines.all.contains { $0.hasPrefix("sync: cannot read the due channels: ") } }
        try await h.library.write { db in try db.execute(sql: "ALTER TABLE channels_away RENAME TO channels") }
        try await waitUntil("the channel synced") { try await h.library.channel(id: channel.id).lastSynced != nil }
        scheduler.cancel()
        await scheduler.value
        let failure = try XCTUnwrap(lines.all.first { $0.hasPrefix("sync: cannot read the due channels: ") })
        XCTAssertTrue(failure.contains("no such table: channels"), failure)
        XCTAssertTrue(failure.hasSuffix("(trying again in 1 s)"), failure)
        XCTAssertTrue(lines.all.contains("sync: 1 channels, 1 new items, 0 errors"), lines.all.joined(separator: "\n"))
    }
}
