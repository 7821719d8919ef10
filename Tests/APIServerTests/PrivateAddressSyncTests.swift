import Accounts
import APIServer
import FeedIngest
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Issue 26, item 1 (the audit's SSRF through the daemon's sync): a feed subscribed through a
/// server without --allow-private-feeds (an OPML import, a gpodder upload) is kept public-only
/// in the library, so every poller
/// refuses it when its name resolves to a local address: the server's own sync and the daemon's
/// scheduler over the same library. `feeds.localhost` stands for a name that resolves to
/// loopback only later: the server's up-front check (the system resolver) does not know it,
/// libcurl resolves it to 127.0.0.1 itself at fetch time.
final class PrivateAddressSyncTests: XCTestCase {
    /// A server as `feedctl serve --open` runs it, without `--allow-private-feeds`.
    private func harness() async throws -> APIHarness {
        try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true, version: "test"))
    }

    func testAFeedImportedThroughTheServerIsNeverFetchedFromAPrivateAddressByAnyPoller() async throws {
        let h = try await harness()
        let url = "http://feeds.localhost:\(h.feeds.port)/podcast.xml"
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><body><outline text="Later private" type="rss" xmlUrl="\(url)"/></body></opml>
            """
        let imported = try await h.object("POST", "/api/channels/opml", body: opml)
        XCTAssertEqual(imported["imported"] as? Int, 1, "\(imported)")
        let channels = try await h.owner.allChannels()
        let channel = try XCTUnwrap(channels.first)
        XCTAssertEqual(channel.reach, .publicOnly, "kept, public only")
        try await assertNoPollerFetches(url, h)
    }

    /// The other way the audit named: a phone's podcast app uploads the subscription (gpodder.net
    /// sync). The fetch at upload is refused; the feed is kept with that error, as `channel import`
    /// keeps one, and public only, so no poller fetches it later either.
    func testAFeedUploadedFromAPhoneIsKeptPublicOnlyAndNeverFetchedFromAPrivateAddress() async throws {
        let h = try await harness()
        let owner = try await h.owner.user(id: .owner).name
        try await h.owner.setPasswordHash(try Password.hash("owner password", cost: 4), for: owner)
        let url = "http://feeds.localhost:\(h.feeds.port)/podcast.xml"
        let basic = "Basic " + Data("\(owner):owner password".utf8).base64EncodedString()
        let uploaded = try await h.curl("POST", "/api/2/subscriptions/\(owner)/phone.json", body: #"{"add": ["\#(url)"], "remove": []}"#,
                                        headers: ["Authorization": basic])
        XCTAssertEqual(uploaded.status, 200, uploaded.text)
        let channels = try await h.owner.allChannels()
        let channel = try XCTUnwrap(channels.first, "the upload is kept")
        XCTAssertEqual(channel.feedURL, url)
        XCTAssertEqual(channel.reach, .publicOnly, "kept, public only")
        XCTAssertTrue(channel.lastError?.contains("is a local address") ?? false, channel.lastError ?? "no error kept")
        try await assertNoPollerFetches(url, h)
    }

    /// The server's own sync and the daemon's scheduler over the same library both refuse the
    /// channel at `url`, nothing is requested from the feed server, and nothing reaches the feed.
    private func assertNoPollerFetches(_ url: String, _ h: APIHarness) async throws {
        // The server's own sync refuses it.
        let synced = try await h.call("POST", "/api/feed/sync")
        XCTAssertEqual(synced.status, 200, synced.text)
        XCTAssertTrue(synced.text.contains("is a local address"), synced.text)

        // So does the daemon's scheduler over the same library (it used to fetch it).
        try h.database.execute("UPDATE channels SET next_poll = NULL")
        let lines = LogLines()
        let scheduler = SyncScheduler.start(polling: h.database.database.polling, every: 0.2, report: { lines.append($0) })
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
