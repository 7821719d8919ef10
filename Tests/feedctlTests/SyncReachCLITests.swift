import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// Issue 26, item 1, through the built `feedctl` (a cron `sync`, `channel add`): the owner's own
/// subscriptions may be on private addresses; a feed a server user follows is fetched from
/// public addresses only, by whoever polls it. `feeds.localhost` stands for a name that resolves
/// to loopback only at fetch time (libcurl resolves it to 127.0.0.1 itself).
final class SyncReachCLITests: XCTestCase {
    func testACronSyncRefusesAServerUsersFeedOnAPrivateAddressAndFetchesTheOwnersOwn() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try server.write("mine.xml", LibraryCLITests.feed(episodes: 2))
        try server.write("bobs.xml", LibraryCLITests.feed(episodes: 3))
        let db = server.root.appendingPathComponent("library.sqlite").path
        func feedctl(_ arguments: String...) throws -> ProcessRunner.Result {
            try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db])
        }
        let mine = "http://feeds.localhost:\(server.port)/mine.xml", bobs = "http://feeds.localhost:\(server.port)/bobs.xml"

        // The owner subscribes from the CLI: a private address is theirs to reach.
        var run = try feedctl("channel", "add", mine)
        XCTAssertEqual(run.status, 0, run.stderr)
        // Bob subscribed through a server without --allow-private-feeds (recorded, not fetched: an
        // OPML import or a gpodder upload keeps such a feed).
        do {
            let library = try SQLiteLibrary(path: db)
            let bob = library.acting(as: try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: Clock.now()).id)
            _ = try await bob.addChannel(platform: .podcast, sourceURL: bobs, feedURL: bobs, name: bobs, reach: .publicOnly, now: Clock.now())
        }

        // `feedctl sync` (what cron runs) polls every due channel, whoever follows it.
        run = try feedctl("sync", "--json")
        XCTAssertEqual(run.status, 1, run.stdout)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let error = try XCTUnwrap((report["channels"] as? [[String: Any]])?.first?["error"] as? String, run.stdout)
        XCTAssertTrue(error.hasPrefix("\(bobs): refused: ") && error.contains(" is a local address"), error)
        XCTAssertEqual(try server.stats().hits["/bobs.xml"] ?? 0, 0, "nothing was requested for Bob's feed")
        XCTAssertEqual(try server.stats().hits["/mine.xml"], 1, "the owner's was fetched once, by channel add")

        // The owner adding Bob's feed fetches it for the channel Bob follows: public addresses only.
        run = try feedctl("channel", "add", bobs)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.hasPrefix("feedctl: \(bobs): refused: ") && run.stderr.contains(" is a local address"), run.stderr)
        XCTAssertEqual(try server.stats().hits["/bobs.xml"] ?? 0, 0)

        let library = try SQLiteLibrary(path: db)
        let bob = library.acting(as: try await library.user(named: "bob").id)
        let bobsFeed = try await bob.feed(now: Clock.now())
        XCTAssertEqual(bobsFeed.count, 0, "nothing from the private address reached Bob's feed")
    }
}
