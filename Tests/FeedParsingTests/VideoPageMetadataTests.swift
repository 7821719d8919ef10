import FeedModel
import XCTest
@testable import FeedParsing

/// `VideoPageMetadata`: what a video page says about itself, read the way pages really are.
final class VideoPageMetadataTests: XCTestCase {
    private func read(_ html: String, url: String = "https://v.example/watch/1") -> VideoPageMetadata {
        VideoPageMetadata.parse(html: Array(html.utf8), documentURL: url)
    }

    func testOpenGraphWinsAndLinksResolve() {
        let page = read("""
            <html><head><title>Site | Title</title>
            <meta property="og:title" content="OG title"><meta property="og:image" content="//cdn.example/p.jpg">
            <meta property="og:video:duration" content="95"><meta property="og:url" content="/watch/1?canonical">
            <meta property="og:site_name" content="The Site">
            <script type="application/ld+json">{"@type": "VideoObject", "name": "LD title", "duration": "PT2M"}</script>
            </head></html>
            """)
        XCTAssertEqual(page.title, "OG title")
        XCTAssertEqual(page.thumbnailURL, "https://cdn.example/p.jpg")
        XCTAssertEqual(page.durationSeconds, 95)
        XCTAssertEqual(page.canonicalURL, "https://v.example/watch/1?canonical")
        XCTAssertEqual(page.channelName, "The Site")
    }

    func testJSONLDFillsWhatOpenGraphLeavesOut() {
        let page = read("""
            <html><head><title> Plain   title </title>
            <script type="application/ld+json">not json at all</script>
            <script type="application/ld+json">[{"@type": ["VideoObject"], "name": "LD title", "thumbnailUrl": ["/a.jpg", "/b.jpg"],
              "duration": "PT1H2M3S", "uploadDate": "2026-01-02", "author": {"name": "Author"}}]</script>
            </head></html>
            """)
        XCTAssertEqual(page.title, "LD title")
        XCTAssertEqual(page.thumbnailURL, "https://v.example/a.jpg")
        XCTAssertEqual(page.durationSeconds, 3723)
        XCTAssertEqual(page.uploadDate, 1_767_312_000)
        XCTAssertEqual(page.channelName, "Author")
    }

    func testTitleAndOEmbedLinkAndNothingAtAll() {
        let page = read(#"<html><head><title> Plain   title </title><link rel="alternate" type="application/json+oembed" href="/oembed?u=1"></head></html>"#)
        XCTAssertEqual(page.title, "Plain title")
        XCTAssertEqual(page.oEmbedURL, "https://v.example/oembed?u=1")
        XCTAssertNil(page.thumbnailURL)
        var filled = page
        filled.fill(fromOEmbed: Array(#"{"title": "ignored", "thumbnail_url": "https://i.example/t.jpg", "author_name": "A"}"#.utf8))
        XCTAssertEqual(filled.title, "Plain title", "the page's own title stays")
        XCTAssertEqual(filled.thumbnailURL, "https://i.example/t.jpg")
        filled.fill(fromOEmbed: Array("<html>".utf8))
        XCTAssertEqual(filled.channelName, "A")
        let huge = read(#"<meta property="og:description" content="\#(String(repeating: "word ", count: 100_000))">"#)
        XCTAssertEqual(huge.description?.count, SavedPageRule.maxFieldCharacters)
        for junk in ["", "\u{0}\u{1}", "<<<>>>", String(repeating: "<div>", count: 5000)] {
            XCTAssertEqual(read(junk), VideoPageMetadata(), "nothing named, nothing invented: \(junk.prefix(20))")
        }
    }
}
