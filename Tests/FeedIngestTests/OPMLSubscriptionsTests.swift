import FeedIngest
import FeedParsing
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
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n"))
        #expect(xml.contains("<dateCreated>Thu, 15 Oct 2026 12:00:00 +0000</dateCreated>"))
        let back = try OPML.parse(Array(xml.utf8))
        #expect(back == [
            OPMLFeed(title: "A & B <\"quoted\">\tshow", xmlURL: "https://feeds.example.com/a.xml"),
            OPMLFeed(title: "Tiny東京\nRadio", xmlURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UCx&x=1",
                     htmlURL: "https://www.youtube.com/@tiny"),
        ])
        #expect(try await OPMLSubscriptions.feeds(of: t.library).map(\.xmlURL) == back.map(\.xmlURL))
    }
}
