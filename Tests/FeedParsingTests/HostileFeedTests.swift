import FeedModel
import Foundation
import HTTPFetch
import TestSupport
import XCTest
@testable import FeedParsing

/// Issue 14, items 6 and 9: entity amplification, field caps, lying charsets and `xml:base`
/// pointing at local files. Hostile documents are generated here or by the test server.
final class HostileFeedTests: XCTestCase {
    private func parse(_ text: String, options: ParseOptions = .init()) throws -> Feed {
        try FeedParser.parse(Array(text.utf8), options: options)
    }

    /// One internal entity of `kb` KB referenced `refs` times, as the server's /entity-bomb.
    private func bomb(kb: Int, refs: Int) -> String {
        let value = String(repeating: "x", count: kb * 1024)
        let items = (0..<refs).map { "<item><title>t\($0)</title><description>&e;</description></item>" }.joined()
        return "<?xml version=\"1.0\"?>\n<!DOCTYPE rss [<!ENTITY e \"\(value)\">]>\n"
            + "<rss version=\"2.0\"><channel><title>bomb</title>\(items)</channel></rss>\n"
    }

    private func isExpansionError(_ error: Error) -> Bool {
        guard case .overLimit(.entityExpansion)? = error as? FeedError else { return false }
        return true
    }

    func testFlatEntityAmplificationIsRefused() {
        // 100 KB × 300 = 30 MB of text from a ~110 KB document (it was parsed whole).
        XCTAssertThrowsError(try parse(bomb(kb: 100, refs: 300))) { error in
            XCTAssertTrue(isExpansionError(error), "\(error)")
            XCTAssertEqual((error as? FeedError)?.description.hasPrefix("entities expand to more than 1 MB"), true, "\(error)")
        }
    }

    /// The audit's document (100 KB × 22,000 = 2.2 GB), served over HTTP and fetched as sync does.
    func testServedEntityBombIsRefused() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let url = server.url("/entity-bomb?kb=100&refs=22000")
        let response = try await Fetcher().fetch(FetchRequest(url: url, maxBytes: FeedLimits.maxBytes))
        XCTAssertThrowsError(try FeedParser.parse(response.body, options: ParseOptions(documentURL: url))) { error in
            XCTAssertTrue(isExpansionError(error), "\(error)")
        }
    }

    func testOrdinaryEntitiesStillExpand() throws {
        let feed = try parse(bomb(kb: 1, refs: 20))
        XCTAssertEqual(feed.items.count, 20)
        XCTAssertEqual(feed.items.first?.description, String(repeating: "x", count: 1024))
    }

    /// Served deep HTML (the audit's quadratic page): refused by the depth bound.
    func testServedDeepHTMLIsRefused() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let url = server.url("/deep-html?depth=20000&strays=20000")
        let response = try await Fetcher().fetch(FetchRequest(url: url, maxBytes: FeedLimits.maxBytes))
        XCTAssertThrowsError(try FeedParser.read(response.body, options: ParseOptions(documentURL: url))) { error in
            XCTAssertEqual(error as? FeedError, .overLimit(.depth(ParseLimits.maxDepth)))
        }
    }

    func testLongFieldsAreCutWithAMarker() throws {
        let title = String(repeating: "é", count: 3_000)          // 6,000 bytes
        let description = String(repeating: "word ", count: 50_000)  // 250,000 bytes
        let longURL = "https://example.com/" + String(repeating: "a", count: 10_000) + ".mp3"
        let xml = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(title)</title>"
            + "<item><guid>g</guid><title>\(title)</title><description>\(description)</description>"
            + "<link>\(longURL)</link><enclosure url=\"\(longURL)\" type=\"audio/mpeg\"/></item></channel></rss>"
        let feed = try parse(xml)
        let item = try XCTUnwrap(feed.items.first)
        XCTAssertEqual(feed.title.utf8.count, FieldLimits.maxLineBytes - 1)  // "é" is 2 bytes, "…" 3
        XCTAssertTrue(feed.title.hasSuffix("é…"))
        XCTAssertEqual(item.title, feed.title)
        let text = try XCTUnwrap(item.description)
        XCTAssertLessThanOrEqual(text.utf8.count, FieldLimits.maxTextBytes)
        XCTAssertTrue(text.hasPrefix("word word") && text.hasSuffix("…"))
        XCTAssertNil(item.url)          // a cut URL leads nowhere: dropped
        XCTAssertNil(item.enclosure)
    }

    func testXMLBaseToAFileIsNotKept() throws {
        let xml = """
            <?xml version="1.0"?><rss version="2.0"><channel xml:base="file:///etc/"><title>t</title>
            <image><url>shadow.png</url></image>
            <item><guid>a</guid><title>a</title><link>passwd</link><enclosure url="passwd" type="audio/mpeg"/></item>
            <item xml:base="https://cdn.example/ep/"><guid>b</guid><title>b</title><enclosure url="b.mp3" type="audio/mpeg"/></item>
            <item><guid>c</guid><title>c</title><enclosure url="javascript:alert(1)" type="audio/mpeg"/></item>
            </channel></rss>
            """
        let feed = try parse(xml)
        XCTAssertFalse(feed.image?.lowercased().hasPrefix("file:") ?? false, feed.image ?? "")
        XCTAssertEqual(feed.items.map(\.id), ["a", "b", "c"])
        XCTAssertNil(feed.items[0].enclosure)
        XCTAssertNil(feed.items[0].url)
        XCTAssertEqual(feed.items[1].enclosure?.url, "https://cdn.example/ep/b.mp3")
        XCTAssertNil(feed.items[2].enclosure)
    }

    func testWideCharsetLabelOnUTF8IsIgnored() throws {
        let xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>Ünïcode – ok</title></channel></rss>"
        for label in ["utf-32", "UTF-32LE", "ucs-4", "utf-16"] {
            XCTAssertEqual(try parse(xml, options: ParseOptions(httpCharset: label)).title, "Ünïcode – ok", label)
        }
        // Without a declaration too.
        let bare = "<rss version=\"2.0\"><channel><title>Ünïcode</title></channel></rss>"
        XCTAssertEqual(try parse(bare, options: ParseOptions(httpCharset: "utf-32")).title, "Ünïcode")
    }
}
