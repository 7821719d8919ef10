import XCTest
@testable import FeedParsing

/// Resolving YouTube pages to their channel id (small hand-made pages in fixtures/pages/).
final class SubscribeYouTubePageTests: XCTestCase {
    private func channelID(_ fixture: String) throws -> String? {
        YouTubePage.channelID(fromHTML: try RumbleTestSupport.fixture("pages/" + fixture))
    }

    func testChannelPageCanonicalLink() throws {
        XCTAssertEqual(try channelID("youtube-handle.html"), "UCHnyfMqiRRG1u-2MsSQLbXA")
    }

    func testRSSAlternateLinkWhenTheCanonicalIsAHandle() throws {
        XCTAssertEqual(try channelID("youtube-rss-only.html"), "UC_x5XG1OV2P6uZZ5FSM9Ttw")
    }

    func testWatchPageUsesTheVideosChannelId() throws {
        // The canonical link is the video and `identifier` is the video id: neither counts.
        XCTAssertEqual(try channelID("youtube-watch.html"), "UCuAXFkgsw1L7xaCfnd5JJOw")
    }

    func testChannelIdMetaTag() throws {
        XCTAssertEqual(try channelID("youtube-meta.html"), "UCuAXFkgsw1L7xaCfnd5JJOw")
    }

    func testInvalidIdsAreRejected() throws {
        // Too short, too long (25 characters), a bad character, no UC prefix: nothing valid.
        XCTAssertNil(try channelID("youtube-invalid-ids.html"))
    }

    func testExternalIdInPageData() {
        let page = #"<html><body><script>window.x={"externalId":"UC-lHJZR3Gqxm24_Vd_AJ5Yw"};</script></body></html>"#
        XCTAssertEqual(YouTubePage.channelID(fromHTML: Array(page.utf8)), "UC-lHJZR3Gqxm24_Vd_AJ5Yw")
    }

    func testNoChannelAnywhere() {
        XCTAssertNil(YouTubePage.channelID(fromHTML: []))
        XCTAssertNil(YouTubePage.channelID(fromHTML: Array("<html><head><title>x</title></head></html>".utf8)))
        XCTAssertNil(YouTubePage.channelID(fromHTML: Array(#""channelId":"UC"#.utf8)), "cut off at the end")
    }
}
