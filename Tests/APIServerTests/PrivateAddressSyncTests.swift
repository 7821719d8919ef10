import APIServer
import FeedIngest
import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// Issue 26, item 1 (the audit's SSRF through the daemon's sync): a feed subscribed through a
/// server without --allow-private-feeds is kept public-only in the library, so every poller
/// refuses it when its name resolves to a local address: the server's own sync and the daemon's
/// scheduler over the same library. `feeds.localhost` stands for a name that resolves to
/// loopback only later: the server's up-front check (the system resolver) does not know it,
/// libcurl resolves it to 127.0.0.1 itself at fetch time.
final class PrivateAddressSyncTests: XCTestCase {
    func testAFeedImportedThroughTheServerIsNeverFetchedFromAPrivateAddressByAnyPoller() async throws {
        let h = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true, version: "test"))
        let url = "http://feeds.localhost:\(h.feeds.port)/podcast.xml"
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><body><outline text="Later private" type="rss" xmlUrl="\(url)"/></body></opml>
            """
        let imported = try await h.object("POST", "/api/channels/opml", body: opml)
        XCTAssertEqual(imported["imported"] as? Int, 1, "\(imported)")
        let channels = try await h.library.library.allChannels()
        let channel = try XCTUnwrap(channels.first)
        XCTAssertEqual(channel.reach, .publicOnly, "kept, public only")

        // The server's own sync refuses it.
        let synced = try await h.call("POST", "/api/feed/sync")
        XCTAssertEqual(synced.status, 200, synced.text)
        XCTAssertTrue(synced.text.contains("is a local address"), synced.text)

        // So does the daemon's scheduler over the same library (it used to fetch it).
        try await h.library.library.write { db in try db.execute(sql: "UPDATE channels SET next_poll = NULL") }
        let lines = LogLines()
        let scheduler = SyncScheduler.start(polling: h.library.library.polling, every: 0.2, report: { lines.append($0) })
        let deadline = Date().addingTimeInterval(20)
        while !lines.all.contains(where: { $0.hasPrefix("sync: 1 channels") }), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        scheduler.cancel()
        await scheduler.value
        XCTAssertTrue(lines.all.contains("sync: 1 channels, 0 new items, 1 errors"), lines.all.joined(separator: "\n"))
        XCTAssertTrue(lines.all.contains { $0.hasPrefix("sync: \(url): refused: ") }, lines.all.joined(separator: "\n"))

        XCTAssertEqual(try h.feeds.stats().hits["/podcast.xml"] ?? 0, 0, "no poller requested it")
        let feed = try await h.object("GET", "/api/feed")
        XCTAssertEqual(feed["total"] as? Int, 0, "nothing from the private address reached the feed")
    }
}
