import FeedModel
import XCTest
@testable import FeedParsing

/// `FeedParser.read`: one parse says what a fetched document is (what `channel add` needs).
final class DocumentContentTests: XCTestCase {
    private let channel = "UCabcdefghijklmnopqrstuv"

    func testFeedIsAFeed() throws {
        let rss = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Show</title></channel></rss>"
        guard case .feed(let feed) = try FeedParser.read(Array(rss.utf8)) else { return XCTFail("not a feed") }
        XCTAssertEqual(feed.title, "Show")
    }

    func testYouTubePageNamesItsChannel() throws {
        let page = "<!DOCTYPE html><html><head><link rel=\"canonical\" href=\"https://www.youtube.com/channel/\(channel)\">"
            + "<link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed.xml\"></head><body></body></html>"
        XCTAssertEqual(try FeedParser.read(Array(page.utf8)), .youTubeChannel(channel))
    }

    func testBlogPageLinksItsFeed() throws {
        let page = "<!DOCTYPE html><html><head><link rel=\"alternate\" type=\"application/atom+xml\" href=\"/atom.xml\">"
            + "</head><body><p>blog</p></body></html>"
        XCTAssertEqual(try FeedParser.read(Array(page.utf8), options: ParseOptions(documentURL: "https://blog.example/post")),
                       .feedLink("https://blog.example/atom.xml"))
    }

    func testRumbleListingIsAFeed() throws {
        let page = #"<html><body><div class="videostream thumbnail__grid--item"><a class="videostream__link" href="/v9zz1-a.html">a</a></div></body></html>"#
        guard case .feed(let feed) = try FeedParser.read(Array(page.utf8)) else { return XCTFail("not a feed") }
        XCTAssertEqual(feed.items.map(\.id), ["v9zz1"])
    }

    func testPageWithoutAFeed() {
        XCTAssertThrowsError(try FeedParser.read(Array("<!DOCTYPE html><html><body>hi</body></html>".utf8))) { error in
            XCTAssertEqual(error as? FeedError, .notAFeed("an HTML page without a feed"))
        }
    }
}
