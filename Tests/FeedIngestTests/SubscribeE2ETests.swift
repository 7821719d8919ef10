@testable import FeedIngest
import FeedParsing
import Foundation
import XCTest

/// `channel add` end to end: YouTube pages and URLs resolved to channel feeds (YouTube's origin
/// is the local server), a Rumble page, feed autodiscovery, and what is refused.
final class SubscribeE2ETests: XCTestCase {
    /// A corpus YouTube feed served as the channel's feed, and another as its Shorts playlist.
    private func youTubeHarness() throws -> (h: SyncHarness, channel: Manifest.File, shorts: Manifest.File, id: String) {
        let (corpus, manifest) = try SyncCorpus.shared()
        let h = try SyncHarness()
        let channel = try manifest.file("youtube/channel-0003.xml"), shorts = try manifest.file("youtube/channel-0004.xml")
        let id = try XCTUnwrap(channel.channel.channel_id)
        try h.copy([channel.path, shorts.path], from: corpus)
        let feeds = h.server.root.appendingPathComponent("youtube-feeds")
        try FileManager.default.createDirectory(at: feeds, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: h.server.root.appendingPathComponent(channel.path),
                                        to: feeds.appendingPathComponent("\(id).xml"))
        try FileManager.default.moveItem(at: h.server.root.appendingPathComponent(shorts.path),
                                        to: feeds.appendingPathComponent("\(YouTubeFeeds.shortsPlaylistID(forChannel: id)).xml"))
        return (h, channel, shorts, id)
    }

    func testHandlePageResolvesToTheChannelFeedAndShortsAddTheUUSHPlaylist() async throws {
        let (h, channel, shorts, id) = try youTubeHarness()
        try h.server.write("@tinyradio", """
            <!DOCTYPE html><html><head><title>Tiny Radio - YouTube</title>
            <link rel="canonical" href="https://www.youtube.com/channel/\(id)">
            </head><body><script>var ytInitialData = {"metadata":{"externalId":"UCxxxxxxxxxxxxxxxxxxxxxx"}};</script></body></html>
            """)

        let added = try await h.subscriber.add("https://www.youtube.com/@tinyradio", includeShorts: true, now: 5000)

        XCTAssertEqual(added.count, 2)
        let main = try XCTUnwrap(added.first), short = try XCTUnwrap(added.last)
        XCTAssertEqual(main.channel.platform, .youtube)
        XCTAssertEqual(main.channel.name, channel.channel.title)
        XCTAssertEqual(main.channel.url, "https://www.youtube.com/@tinyradio")
        XCTAssertEqual(main.channel.feedURL, h.server.url("/feeds/videos.xml?channel_id=\(id)"))
        XCTAssertEqual(main.newItems, 15)
        try await assertLibrary(h, channel: main.channel.id, matches: channel)
        XCTAssertEqual(short.channel.feedURL, h.server.url("/feeds/videos.xml?playlist_id=UUSH\(id.dropFirst(2))"))
        XCTAssertEqual(short.channel.platform, .youtube)
        XCTAssertEqual(short.newItems, 15)
        try await assertLibrary(h, channel: short.channel.id, matches: shorts)
        XCTAssertEqual(try h.server.stats().hits["/@tinyradio"], 1, "the page is fetched once")
    }

    func testEveryYouTubeURLFormResolvesToTheSameChannel() async throws {
        let (h, channel, _, id) = try youTubeHarness()
        // Page data only (no canonical link): the id is in the embedded JSON.
        try h.server.write("c/TinyRadio", "<html><body><script>{\"channelId\":\"\(id)\",\"title\":\"x\"}</script></body></html>")
        // A video page names its channel in a <meta>.
        try h.server.write("watch", "<html><head><meta itemprop=\"channelId\" content=\"\(id)\"></head><body></body></html>")
        // A page on another host that turns out to be a YouTube page.
        try h.server.write("mirror/tinyradio.html", "<html><head><link rel=\"alternate\" type=\"application/rss+xml\" "
                           + "href=\"https://www.youtube.com/feeds/videos.xml?channel_id=\(id)\"></head></html>")
        let forms = [
            "https://www.youtube.com/channel/\(id)",
            "youtube.com/c/TinyRadio",
            "https://youtu.be/abcdefghijk",
            "https://www.youtube.com/feeds/videos.xml?channel_id=\(id)",
            h.server.url("/mirror/tinyradio.html"),
        ]
        for form in forms {
            let added = try await h.subscriber.add(form, now: 5000)
            XCTAssertEqual(added.map(\.channel.feedURL), [h.server.url("/feeds/videos.xml?channel_id=\(id)")], form)
            // The source URL is what was pasted first; a later form of the same channel is the
            // same subscription and changes nothing (it used to replace the URL: issue 13).
            XCTAssertEqual(added.map(\.channel.url), [forms[0]], form)
            XCTAssertEqual(added.map(\.alreadySubscribed), [form != forms[0]], form)
        }
        let value1 = try await h.library.allChannels().count
        XCTAssertEqual(value1, 1)
        try await assertLibrary(h, channel: try await h.library.allChannels()[0].id, matches: channel)
    }

    /// A channel without Shorts has no UUSH playlist (YouTube answers 404): the channel is
    /// still added, alone.
    func testShortsOfAChannelWithoutShortsAreSkipped() async throws {
        let (h, _, _, id) = try youTubeHarness()
        try FileManager.default.removeItem(at: h.server.root.appendingPathComponent("youtube-feeds/UUSH\(id.dropFirst(2)).xml"))
        let added = try await h.subscriber.add("https://www.youtube.com/channel/\(id)", includeShorts: true, now: 5000)
        XCTAssertEqual(added.map(\.channel.feedURL), [h.server.url("/feeds/videos.xml?channel_id=\(id)")])
        XCTAssertEqual(added.map(\.newItems), [15])
    }

    func testRumblePage() async throws {
        let (corpus, manifest) = try SyncCorpus.shared()
        let h = try SyncHarness()
        let file = try manifest.file("rumble/channel-0000.html")
        try h.copy([file.path], from: corpus)
        try FileManager.default.createDirectory(at: h.server.root.appendingPathComponent("c/TinyBriefing0"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: h.server.root.appendingPathComponent(file.path),
                                        to: h.server.root.appendingPathComponent("c/TinyBriefing0/videos"))

        let added = try await h.subscriber.add(h.server.url("/c/TinyBriefing0/videos"), now: 5000)

        XCTAssertEqual(added.count, 1)
        let entry = try XCTUnwrap(added.first)
        XCTAssertEqual(entry.channel.platform, .rumble)
        XCTAssertEqual(entry.channel.name, file.channel.title)
        XCTAssertEqual(entry.newItems, file.expectedTitles.count)
        try await assertLibrary(h, channel: entry.channel.id, matches: file)
    }

    func testHTMLPageWithAFeedLinkSubscribesTheFeed() async throws {
        let (root, manifest) = try SyncCorpus.shared()
        let h = try SyncHarness(root: root)
        let blog = root.appendingPathComponent("blog")
        try FileManager.default.createDirectory(at: blog, withIntermediateDirectories: true)
        try Data("""
            <!DOCTYPE html><html><head><title>The Show</title>
            <link rel="stylesheet" href="/style.css">
            <link rel="alternate" type="application/rss+xml" title="Episodes" href="../podcast/feed-0002.xml">
            </head><body><h1>The Show</h1></body></html>
            """.utf8).write(to: blog.appendingPathComponent("index.html"))

        let added = try await h.subscriber.add(h.server.url("/blog/index.html"), now: 5000)

        XCTAssertEqual(added.map(\.channel.feedURL), [h.server.url("/podcast/feed-0002.xml")])
        XCTAssertEqual(added.map(\.channel.url), [h.server.url("/blog/index.html")])
        XCTAssertEqual(added.map(\.channel.platform), [.podcast])
        try await assertLibrary(h, channel: added[0].channel.id, matches: try manifest.file("podcast/feed-0002.xml"))
    }

    /// Adding a feed that is already subscribed (pasted again, or through a page linking it)
    /// syncs that channel and says so; it used to report "added" and take the page as the
    /// channel's URL.
    func testReAddingASubscribedFeedChangesNothing() async throws {
        let (root, _) = try SyncCorpus.shared()
        let h = try SyncHarness(root: root)
        let blog = root.appendingPathComponent("blog-again")
        try FileManager.default.createDirectory(at: blog, withIntermediateDirectories: true)
        try Data("""
            <!DOCTYPE html><html><head><title>Again</title>
            <link rel="alternate" type="application/rss+xml" href="../podcast/feed-0003.xml"></head></html>
            """.utf8).write(to: blog.appendingPathComponent("index.html"))
        let feedURL = h.server.url("/podcast/feed-0003.xml")
        let first = try await h.subscriber.add(feedURL, now: 5000)
        XCTAssertEqual(first.map(\.alreadySubscribed), [false])

        for url in [feedURL, h.server.url("/blog-again/index.html")] {
            let again = try await h.subscriber.add(url, now: 6000)
            XCTAssertEqual(again.map(\.alreadySubscribed), [true], url)
            XCTAssertEqual(again.map(\.channel.id), first.map(\.channel.id), url)
            XCTAssertEqual(again.map(\.newItems), [0], url)
            XCTAssertEqual(again.map(\.channel.url), [feedURL], "the channel's URL stays what it was")
            XCTAssertEqual(again.map(\.channel.lastSynced), [6000], "it was synced")
        }
        let channels = try await h.library.allChannels()
        XCTAssertEqual(channels.count, 1)
    }

    func testWhatCannotBeSubscribedIsAClearErrorAndStoresNothing() async throws {
        let h = try SyncHarness()
        try h.server.write("@nobody", "<html><head><title>Nobody</title></head><body>no id here</body></html>")
        let cases: [(String, String)] = [
            ("not a url", "not a url: not an http(s) URL"),
            ("", ": not an http(s) URL"),
            ("ftp://example.com/feed.xml", "ftp://example.com/feed.xml: not an http(s) URL"),
            (h.server.url("/html"), "\(h.server.url("/html")): not a feed: an HTML page without a feed"),
            (h.server.url("/status/404"), "\(h.server.url("/status/404")): HTTP 404 Not Found"),
            ("https://www.youtube.com/@nobody", "https://www.youtube.com/@nobody: no YouTube channel id found on the page"),
        ]
        for (input, message) in cases {
            do {
                let added = try await h.subscriber.add(input, now: 5000)
                XCTFail("\(input.debugDescription) was subscribed: \(added)")
            } catch {
                XCTAssertEqual(error.description, message)
            }
        }
        let value2 = try await h.library.allChannels().count
        XCTAssertEqual(value2, 0)
    }
}
