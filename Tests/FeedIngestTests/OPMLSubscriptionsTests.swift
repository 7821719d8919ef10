import FeedIngest
import FeedModel
import FeedParsing
import LibraryStore
import TestSupport
import Testing

/// The library's subscriptions to OPML and back.
@Suite struct OPMLSubscriptionsTests {
    @Test func exportRoundTrips() async throws {
        let t = try TestLibrary()
        try await t.library.addChannel(platform: .podcast, sourceURL: "https://feeds.example.com/a.xml", feedURL: "https://feeds.example.com/a.xml",
                                 name: "A & B <\"quoted\">\tshow", now: 1)
        try await t.library.addChannel(platform: .youtube, sourceURL: "https://www.youtube.com/@tiny",
                                 feedURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UCx&x=1", name: "Tiny\u{1}東京\nRadio", now: 1)
        let xml = try await OPMLSubscriptions.export(t.library, now: 1_792_065_600)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\" xmlns:feedctl=\"urn:feedctl:opml\">\n"))
        #expect(xml.contains("<dateCreated>Thu, 15 Oct 2026 12:00:00 +0000</dateCreated>"))
        let back = try OPML.parse(Array(xml.utf8))
        #expect(back == [
            OPMLFeed(title: "A & B <\"quoted\">\tshow", xmlURL: "https://feeds.example.com/a.xml", platform: .podcast),
            OPMLFeed(title: "Tiny東京\nRadio", xmlURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UCx&x=1",
                     htmlURL: "https://www.youtube.com/@tiny", platform: .youtube),
        ])
        #expect(try await OPMLSubscriptions.feeds(of: t.library).map(\.xmlURL) == back.map(\.xmlURL))
    }

    /// Export, then import into a new library: YouTube and Rumble channels stayed podcasts when
    /// their feed URLs did not name YouTube's or Rumble's hosts (a test server, a mirror). Every
    /// platform, in the real URL forms and on a loopback server, comes back as it was; an outline
    /// from another program (no `feedctl:platform`) is still guessed from its URL.
    @Test func everyPlatformSurvivesARoundTrip() async throws {
        let t = try TestLibrary()
        let channels: [(Platform, source: String, feed: String)] = [
            (.youtube, "https://www.youtube.com/@tiny", "https://www.youtube.com/feeds/videos.xml?channel_id=UCuAXFkgsw1L7xaCfnd5JJOw"),
            (.youtube, "https://www.youtube.com/playlist?list=PLx", "https://www.youtube.com/feeds/videos.xml?playlist_id=PLx"),
            (.rumble, "https://rumble.com/c/NAME", "https://rumble.com/c/NAME"),
            (.rumble, "https://rumble.com/user/Other", "https://rumble.com/user/Other"),
            (.podcast, "https://feeds.example.com/show.xml", "https://feeds.example.com/show.xml"),
            (.youtube, "http://127.0.0.1:8123/@tiny", "http://127.0.0.1:8123/feeds/videos.xml?channel_id=UCx"),
            (.rumble, "http://127.0.0.1:8123/c/NAME", "http://127.0.0.1:8123/c/NAME"),
            (.podcast, "http://127.0.0.1:8123/show.xml", "http://127.0.0.1:8123/show.xml"),
        ]
        for (index, channel) in channels.enumerated() {
            _ = try await t.library.addChannel(platform: channel.0, sourceURL: channel.source, feedURL: channel.feed, name: "c\(index)", now: 1)
        }
        let feeds = try OPML.parse(Array(try await OPMLSubscriptions.export(t.library, now: 1).utf8))
        let other = try TestLibrary()
        let (new, known) = try await OPMLSubscriptions.newChannels(feeds, in: other.library, reach: .anyAddress)
        #expect(known == 0)
        let report = await Syncer(store: other.library, reach: .anyAddress).subscribe(new, fetch: false, now: 2)
        #expect(report.errors == 0)
        let imported = try await other.library.allChannels().sorted { $0.id < $1.id }
        #expect(imported.map(\.feedURL) == channels.map(\.feed))
        #expect(imported.map(\.sourceURL) == channels.map(\.source))
        #expect(imported.map(\.platform) == channels.map(\.0))

        let foreign = [OPMLFeed(title: "y", xmlURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UCy"),
                       OPMLFeed(title: "r", xmlURL: "https://rumble.com/c/R"), OPMLFeed(title: "p", xmlURL: "http://127.0.0.1:8123/p.xml")]
        #expect(try await OPMLSubscriptions.newChannels(foreign, in: other.library, reach: .anyAddress).channels.map(\.platform) == [.youtube, .rumble, .podcast])
    }
}

/// An import larger than one transaction (`Syncer.recordBatch`): every feed is recorded, in the
/// file's order, and one the store refuses is reported at its own place, the others recorded.
@Suite struct LargeImportTests {
    @Test func aLargeImportIsRecordedWholeInOrderAndARefusedFeedKeepsItsPlace() async throws {
        let t = try TestLibrary()
        let count = 2 * Syncer.recordBatch + 3, refusedAt = Syncer.recordBatch + 7
        let feeds = (0..<count).map { n in
            // An empty feed URL: the store's CHECK refuses it.
            let url = n == refusedAt ? "" : "https://feeds.example.com/\(n).xml"
            return NewChannel(platform: .podcast, sourceURL: url, feedURL: url, name: "Feed \(n)", reach: .publicOnly)
        }
        let report = await Syncer(store: t.library, reach: .anyAddress).subscribe(feeds, fetch: false, now: 2)
        #expect(report.channels.count == count)
        #expect(report.channels.map(\.name) == feeds.map(\.name))
        #expect(report.channels.indices.filter { report.channels[$0].status == .error } == [refusedAt])
        let stored = try await t.library.allChannels().sorted { $0.id < $1.id }
        #expect(stored.map(\.feedURL) == feeds.map(\.feedURL).filter { !$0.isEmpty })
    }
}
