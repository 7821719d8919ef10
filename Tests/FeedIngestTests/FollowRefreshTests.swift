@testable import FeedIngest
import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// The long-running pollers read followed collections of other servers again when they are due:
/// the daemon's scheduler and a sync worker's rounds. The other server here is the test's HTTP
/// server on 127.0.0.1 answering what a feedctl server answers (its JSON, written by the same
/// `SharedCollectionDocument`, or 410 once withdrawn): a stand-in, since a feedctl server cannot
/// run in this test target (APIServerTests follow a real one).
final class FollowRefreshTests: XCTestCase {
    private static let collection = SharedCollection(name: "Far", description: nil, coverURL: nil, ownerName: "dora", updatedAt: 1, items: [
        SharedItem(title: "One", channelName: "Show", platform: .podcast, published: 1, duration: 60, enclosureURL: "https://far.example/1.mp3",
                   enclosureType: "audio/mpeg", enclosureLength: 1, thumbnail: nil, url: nil, guid: "g1", addedAt: 1),
    ])

    /// Bob, following three collections of the server, read long ago (so due now): one that
    /// changed since (two items now), one withdrawn (410), one whose server answers junk.
    private func followDueCollections(_ h: SyncHarness) async throws -> (bob: SQLiteLibrary, ids: [Int64]) {
        var changed = Self.collection
        changed.items.append(SharedItem(title: "Two", channelName: "Show", platform: .podcast, published: 2, duration: nil,
                                        enclosureURL: "https://far.example/2.mp3", enclosureType: nil, enclosureLength: nil, thumbnail: nil,
                                        url: nil, guid: "g2", addedAt: 2))
        try h.server.write("changed.json", try JSONEncoder().encode(SharedCollectionDocument(changed, url: nil, rssURL: nil, jsonURL: nil)))
        try h.server.write("junk.json", "<html>moved</html>")
        let bobUser = try await h.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let bob = h.library.acting(as: bobUser.id)
        var ids: [Int64] = []
        for path in ["/changed.json", "/status/410", "/junk.json"] {
            let new = NewRemoteFollow(url: h.server.url(path), sourceURL: h.server.url(path), reach: .anyAddress, collection: Self.collection)
            ids.append(try await bob.follow(remote: new, now: 1).id)
        }
        return (bob, ids)
    }

    private func waitUntil(_ what: String, timeout: Double = 20, _ done: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try await !done() {
            guard Date() < deadline else { return XCTFail("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func assertRefreshed(_ bob: SQLiteLibrary, _ ids: [Int64], file: StaticString = #filePath, line: UInt = #line) async throws {
        let (changed, items) = try await bob.followedCollection(id: ids[0])
        XCTAssertEqual(items.map(\.title), ["One", "Two"], file: file, line: line)
        XCTAssertNil(changed.lastError, file: file, line: line)
        let withdrawn = try await bob.followedCollection(id: ids[1])
        XCTAssertNotNil(withdrawn.collection.withdrawnAt, file: file, line: line)
        let junk = try await bob.followedCollection(id: ids[2])
        XCTAssertEqual(junk.collection.lastError?.hasPrefix("\(try XCTUnwrap(junk.collection.sourceURL)): not a published collection's JSON"), true,
                       "\(String(describing: junk.collection.lastError))", file: file, line: line)
        XCTAssertEqual(junk.items.map(\.title), ["One"], "kept as it was", file: file, line: line)
    }

    func testTheDaemonsSchedulerReadsDueFollowedCollectionsAgain() async throws {
        let h = try SyncHarness()
        let (bob, ids) = try await followDueCollections(h)
        let lines = Lines()
        let scheduler = SyncScheduler.start(polling: h.library.polling, follows: h.library.sharedCollections, every: 0.2,
                                            report: { lines.append($0) })
        try await waitUntil("the follows read") { try await bob.followedCollection(id: ids[2]).collection.lastError != nil }
        scheduler.cancel()
        await scheduler.value
        try await assertRefreshed(bob, ids)
        XCTAssertTrue(lines.all.contains("sync: followed collections: 1 read, 1 withdrawn, 1 failed"), "\(lines.all)")
    }

    func testAWorkersRoundReadsDueFollowedCollectionsAgain() async throws {
        let h = try SyncHarness()
        let (bob, ids) = try await followDueCollections(h)
        let lines = Lines()
        let poller = Poller(polling: h.library.polling, reach: .anyAddress)
        let worker = PollWorker(poller: poller, follows: FollowRefresher(store: h.library.sharedCollections, reach: .anyAddress),
                                batch: 10, log: { lines.append($0) })
        let run = Task { await worker.run() }
        try await waitUntil("the follows read") { try await bob.followedCollection(id: ids[2]).collection.lastError != nil }
        worker.stop()
        _ = await run.value
        try await assertRefreshed(bob, ids)
        XCTAssertTrue(lines.all.contains("worker: followed collections: 1 read, 1 withdrawn, 1 failed"), "\(lines.all)")
        // Read once: not due again for an interval, so no round reads them again.
        XCTAssertEqual(lines.all.filter { $0.hasPrefix("worker: followed collections") }.count, 1, "\(lines.all)")
    }

    /// Lines a log was given.
    private final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }
}
