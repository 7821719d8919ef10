@testable import FeedIngest
import FeedParsing
import XCTest

/// Every URL form of issue 3's "Subscriptions" section.
final class SubscribeURLTests: XCTestCase {
    let channel = "UCBJycsmduvYEL83R_U4JriQ"      // UC + 22

    func testPodcastFeeds() async {
        XCTAssertEqual(SubscriptionURL.classify("https://feeds.example.com/show.xml"), .feed(url: "https://feeds.example.com/show.xml"))
        XCTAssertEqual(SubscriptionURL.classify("http://example.org/atom?x=1&y=2"), .feed(url: "http://example.org/atom?x=1&y=2"))
        XCTAssertEqual(SubscriptionURL.classify("  https://example.com/rss  \n"), .feed(url: "https://example.com/rss"))
    }

    func testPodcastAppSchemesAreRewritten() async {
        XCTAssertEqual(SubscriptionURL.classify("itpc://feeds.example.com/show.xml"), .feed(url: "https://feeds.example.com/show.xml"))
        XCTAssertEqual(SubscriptionURL.classify("feed://example.com/rss"), .feed(url: "https://example.com/rss"))
        XCTAssertEqual(SubscriptionURL.classify("pcast://example.com/podcast.xml"), .feed(url: "https://example.com/podcast.xml"))
        XCTAssertEqual(SubscriptionURL.classify("feed:https://example.com/rss"), .feed(url: "https://example.com/rss"))
        XCTAssertEqual(SubscriptionURL.classify("feed:http://example.com/rss"), .feed(url: "http://example.com/rss"))
    }

    func testSchemelessURLsAreHTTPS() async {
        XCTAssertEqual(SubscriptionURL.classify("example.com/feed.xml"), .feed(url: "https://example.com/feed.xml"))
        XCTAssertEqual(SubscriptionURL.classify("www.youtube.com/@veritasium"), .youtubePage(url: "https://www.youtube.com/@veritasium"))
        XCTAssertEqual(SubscriptionURL.classify("rumble.com/c/CafeTalks"), .rumbleChannel(listingURL: "https://rumble.com/c/CafeTalks/videos"))
    }

    func testNonURLsAreNil() async {
        for text in ["", "   ", "not a url", "hello", "mailto:someone@example.com", "ftp://example.com/feed.xml",
                     "file:///etc/passwd", "javascript:alert(1)", "https://", "https:///path", ".com/x", "UC"] {
            XCTAssertNil(SubscriptionURL.classify(text), text)
        }
    }

    func testYouTubeChannelURLs() async {
        XCTAssertEqual(SubscriptionURL.classify("https://www.youtube.com/channel/\(channel)"), .youtubeChannel(channelID: channel))
        XCTAssertEqual(SubscriptionURL.classify("https://youtube.com/channel/\(channel)/videos"), .youtubeChannel(channelID: channel))
        XCTAssertEqual(SubscriptionURL.classify("http://m.youtube.com/channel/\(channel)?feature=x"), .youtubeChannel(channelID: channel))
        // Not UC + 22: a page to resolve, never a bogus id.
        XCTAssertEqual(SubscriptionURL.classify("https://www.youtube.com/channel/UCshort"),
                       .youtubePage(url: "https://www.youtube.com/channel/UCshort"))
    }

    func testYouTubeFeedURLs() async {
        XCTAssertEqual(SubscriptionURL.classify("https://www.youtube.com/feeds/videos.xml?channel_id=\(channel)"),
                       .youtubeChannel(channelID: channel))
        XCTAssertEqual(SubscriptionURL.classify("https://www.youtube.com/feeds/videos.xml?playlist_id=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI"),
                       .youtubePlaylist(playlistID: "PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI"))
        XCTAssertEqual(SubscriptionURL.classify("https://www.youtube.com/feeds/videos.xml?playlist_id=UUSHBJycsmduvYEL83R_U4JriQ"),
                       .youtubePlaylist(playlistID: "UUSHBJycsmduvYEL83R_U4JriQ"))
        XCTAssertEqual(SubscriptionURL.classify("https://www.youtube.com/feeds/videos.xml?user=GoogleDevelopers"),
                       .feed(url: "https://www.youtube.com/feeds/videos.xml?user=GoogleDevelopers"))
    }

    func testYouTubePlaylistPage() async {
        XCTAssertEqual(SubscriptionURL.classify("https://www.youtube.com/playlist?list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI"),
                       .youtubePlaylist(playlistID: "PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI"))
    }

    func testYouTubePagesToResolve() async {
        let cases: [(String, String)] = [
            ("https://www.youtube.com/@veritasium", "https://www.youtube.com/@veritasium"),
            ("https://www.youtube.com/@veritasium/videos", "https://www.youtube.com/@veritasium"),
            ("https://m.youtube.com/@veritasium?si=abc", "https://www.youtube.com/@veritasium"),
            ("https://www.youtube.com/c/Veritasium", "https://www.youtube.com/c/Veritasium"),
            ("https://www.youtube.com/c/Veritasium/featured", "https://www.youtube.com/c/Veritasium"),
            ("https://www.youtube.com/user/1veritasium", "https://www.youtube.com/user/1veritasium"),
            ("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
            ("https://www.youtube.com/watch?app=desktop&v=dQw4w9WgXcQ&t=42s", "https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
            ("https://youtu.be/dQw4w9WgXcQ?si=xyz", "https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
            ("https://www.youtube.com/shorts/abcDEF12345", "https://www.youtube.com/watch?v=abcDEF12345"),
            ("https://www.youtube.com/Veritasium", "https://www.youtube.com/Veritasium"),
        ]
        for (input, page) in cases {
            XCTAssertEqual(SubscriptionURL.classify(input), .youtubePage(url: page), input)
        }
    }

    func testRumbleChannels() async {
        let cases: [(String, String)] = [
            ("https://rumble.com/c/CafeTalks", "https://rumble.com/c/CafeTalks/videos"),
            ("https://rumble.com/c/CafeTalks/videos", "https://rumble.com/c/CafeTalks/videos"),
            ("https://rumble.com/c/CafeTalks/videos?page=3", "https://rumble.com/c/CafeTalks/videos"),
            ("http://www.rumble.com/c/CafeTalks/livestreams", "https://rumble.com/c/CafeTalks/videos"),
            ("https://rumble.com/user/OldSchool", "https://rumble.com/user/OldSchool"),
            ("https://rumble.com/user/OldSchool?page=2", "https://rumble.com/user/OldSchool"),
        ]
        for (input, listing) in cases {
            XCTAssertEqual(SubscriptionURL.classify(input), .rumbleChannel(listingURL: listing), input)
        }
        // A video page is not a channel: left to the feed fetch, which reports what it is.
        XCTAssertEqual(SubscriptionURL.classify("https://rumble.com/v5abc04-q-a.html"), .feed(url: "https://rumble.com/v5abc04-q-a.html"))
    }

    func testYouTubeFeedURLsAreBuiltFromIDs() async {
        XCTAssertEqual(YouTubeFeeds.channelFeedURL(channel), "https://www.youtube.com/feeds/videos.xml?channel_id=UCBJycsmduvYEL83R_U4JriQ")
        XCTAssertEqual(YouTubeFeeds.playlistFeedURL("PLx_1-y"), "https://www.youtube.com/feeds/videos.xml?playlist_id=PLx_1-y")
        XCTAssertEqual(YouTubeFeeds.shortsPlaylistID(forChannel: channel), "UUSHBJycsmduvYEL83R_U4JriQ")
        XCTAssertEqual(YouTubeFeeds.shortsPlaylistID(forChannel: "BJycsmduvYEL83R_U4JriQ"), "UUSHBJycsmduvYEL83R_U4JriQ")
        // Round trip: the Shorts playlist's feed URL classifies back as that playlist.
        XCTAssertEqual(SubscriptionURL.classify(YouTubeFeeds.playlistFeedURL(YouTubeFeeds.shortsPlaylistID(forChannel: channel))),
                       .youtubePlaylist(playlistID: "UUSHBJycsmduvYEL83R_U4JriQ"))
    }
}

extension SubscribeURLTests {
    func testNonASCIIHandlesArePercentEncoded() async {
        XCTAssertEqual(SubscriptionURL.classify("https://www.youtube.com/@名前"),
                       .youtubePage(url: "https://www.youtube.com/@%E5%90%8D%E5%89%8D"))
        XCTAssertEqual(SubscriptionURL.classify("https://www.youtube.com/@%E5%90%8D%E5%89%8D"),
                       .youtubePage(url: "https://www.youtube.com/@%E5%90%8D%E5%89%8D"))
    }
}
