import XCTest
@testable import FeedText

final class TextURLsTests: XCTestCase {
    func testRelativeReferences() {
        let base = "https://example.com/feed/rss.xml"
        XCTAssertEqual(URLs.resolve("/ep1.mp3", against: base), "https://example.com/ep1.mp3")
        XCTAssertEqual(URLs.resolve("ep1.mp3", against: base), "https://example.com/feed/ep1.mp3")
        XCTAssertEqual(URLs.resolve("../a.mp3", against: "https://example.com/feed/sub/"), "https://example.com/feed/a.mp3")
        XCTAssertEqual(URLs.resolve("./b.mp3", against: "https://example.com/feed/sub/"), "https://example.com/feed/sub/b.mp3")
        XCTAssertEqual(URLs.resolve("//cdn.example.net/a.mp3", against: base), "https://cdn.example.net/a.mp3")
        XCTAssertEqual(URLs.resolve("?page=2", against: "https://rumble.com/c/X/videos"), "https://rumble.com/c/X/videos?page=2")
        XCTAssertEqual(URLs.resolve("#notes", against: base), "https://example.com/feed/rss.xml#notes")
        XCTAssertEqual(URLs.resolve("  /padded.mp3\n", against: base), "https://example.com/padded.mp3")
    }

    func testAbsoluteReferencesAreUnchanged() {
        XCTAssertEqual(URLs.resolve("https://other.org/x?a=1&b=2", against: "https://example.com/"), "https://other.org/x?a=1&b=2")
        XCTAssertEqual(URLs.resolve("mailto:host@example.com", against: "https://example.com/"), "mailto:host@example.com")
        XCTAssertEqual(URLs.resolve("HTTP://Example.com/A", against: nil), "HTTP://Example.com/A")
    }

    func testXMLBaseLikeBases() {
        // xml:base nests: each level is resolved against the one above, then the reference.
        let document = "http://example.org/blog/index.atom"
        let entryBase = URLs.resolve("entries/", against: URLs.resolve("/blog/", against: document))
        XCTAssertEqual(entryBase, "http://example.org/blog/entries/")
        XCTAssertEqual(URLs.resolve("1.html", against: entryBase), "http://example.org/blog/entries/1.html")
        XCTAssertEqual(URLs.resolve("1.html", against: "http://example.org/a/b"), "http://example.org/a/1.html")
        XCTAssertEqual(URLs.resolve("x", against: "https://other.net"), "https://other.net/x")
    }

    func testNoUsableBase() {
        XCTAssertEqual(URLs.resolve(" a.mp3 ", against: nil), "a.mp3")
        XCTAssertEqual(URLs.resolve("a.mp3", against: "not a url"), "a.mp3")
        XCTAssertEqual(URLs.resolve("a.mp3", against: "/local/path/"), "a.mp3")
        XCTAssertEqual(URLs.resolve("", against: "https://example.com/"), "")
    }

    func testCharactersURLsRejectAreEncoded() {
        XCTAssertEqual(URLs.resolve("my episode.mp3", against: "https://example.com/dir/"), "https://example.com/dir/my%20episode.mp3")
        XCTAssertEqual(URLs.resolve("épisode.mp3", against: "https://example.com/dir/"), "https://example.com/dir/%C3%A9pisode.mp3")
    }

    func testPodcastAppSchemes() {
        XCTAssertEqual(URLs.resolve("itpc://example.com/feed.xml", against: nil), "https://example.com/feed.xml")
        XCTAssertEqual(URLs.resolve("feed://example.com/feed.xml", against: nil), "https://example.com/feed.xml")
        XCTAssertEqual(URLs.resolve("pcast://example.com/feed.xml", against: nil), "https://example.com/feed.xml")
        XCTAssertEqual(URLs.resolve("podcast://example.com/feed.xml", against: nil), "https://example.com/feed.xml")
        XCTAssertEqual(URLs.resolve("ITPC://example.com/Feed.xml", against: nil), "https://example.com/Feed.xml")
        XCTAssertEqual(URLs.resolve("feed:https://example.com/feed.xml", against: nil), "https://example.com/feed.xml")
        XCTAssertEqual(URLs.resolve("feed:http://example.com/feed.xml", against: nil), "http://example.com/feed.xml")
        XCTAssertEqual(URLs.resolve("ep.mp3", against: "itpc://example.com/show/feed.xml"), "https://example.com/show/ep.mp3")
        XCTAssertEqual(URLs.rewritePodcastScheme("https://feedburner.com/feed"), "https://feedburner.com/feed")
        XCTAssertEqual(URLs.rewritePodcastScheme("feedback://x"), "feedback://x")
    }
}

/// Issue 14, item 9: only http(s) and relative URLs are handed on from a feed.
final class KeepableURLTests: XCTestCase {
    func testOnlyHTTPAndRelativeURLsAreKept() {
        for url in ["https://a.example/x.mp3", "HTTP://a.example/", "episode.mp3", "/ep/1", "?page=2"] {
            XCTAssertTrue(URLs.isKeepable(url), url)
        }
        for url in ["file:///etc/passwd", "FILE:/etc/passwd", "javascript:alert(1)", "data:text/html,x", "ftp://a/b"] {
            XCTAssertFalse(URLs.isKeepable(url), url)
        }
    }
}
