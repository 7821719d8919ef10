import FeedModel
import Foundation
import XCTest
@testable import FeedParsing

/// Issue 14, item 5: the work of parsing one document is bounded (`ParseLimits`), and a document
/// past a bound is an error naming it. The hostile documents are generated here.
final class ParseLimitTests: XCTestCase {
    private func error(_ text: String, options: ParseOptions = .init()) -> FeedError? {
        do {
            _ = try FeedParser.parse(Array(text.utf8), options: options)
            return nil
        } catch {
            return error
        }
    }

    private let rssHead = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>"
    private let rssTail = "</channel></rss>"

    func testDeepXMLIsRefused() throws {
        let deep = rssHead + String(repeating: "<x>", count: 300) + String(repeating: "</x>", count: 300) + rssTail
        XCTAssertEqual(error(deep), .overLimit(.depth(ParseLimits.maxDepth)))
        XCTAssertEqual(error(deep)?.description, "too deeply nested (more than 200 levels)")
        // Streamed from a file, the same.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("deep-\(UUID().uuidString).xml").path
        try Data(deep.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try FeedParser.parseFile(atPath: path) { _ in }) { error in
            XCTAssertEqual(error as? FeedError, .overLimit(.depth(ParseLimits.maxDepth)))
        }
    }

    func testDeepHTMLIsRefused() {
        let page = "<!DOCTYPE html><html><body>" + String(repeating: "<b>", count: 50_000) + String(repeating: "</i>", count: 50_000)
        XCTAssertEqual(error(page), .overLimit(.depth(ParseLimits.maxDepth)))
        // Every page reader goes through the same bound.
        XCTAssertThrowsError(try FeedParser.read(Array(page.utf8))) { error in
            XCTAssertEqual(error as? FeedError, .overLimit(.depth(ParseLimits.maxDepth)))
        }
    }

    /// Within the depth bound, stray end tags still cost depth each: the CPU budget ends it.
    func testStrayEndTagsRunOutTheTimeBudget() {
        let page = "<!DOCTYPE html><html><body>" + String(repeating: "<b>", count: 190) + String(repeating: "</i>", count: 3_000_000)
        XCTAssertEqual(error(page, options: ParseOptions(timeBudget: 0.2)), .overLimit(.time(0.2)))
        XCTAssertEqual(error(page, options: ParseOptions(timeBudget: 0.2))?.description, "took more than 0.2 s to parse")
    }

    func testManyAttributesAreRefusedBeforeLibxml2SeesThem() {
        let attributes = (0..<20_000).map { "a\($0)=\"1\"" }.joined(separator: " ")
        let xml = rssHead + "<item \(attributes)><title>x</title></item>" + rssTail
        XCTAssertEqual(error(xml), .overLimit(.attributes(ParseLimits.maxAttributes)))
        XCTAssertEqual(error(xml)?.description, "an element has more than 1000 attributes")
        let html = "<!DOCTYPE html><html><body><div \(attributes)></div></body></html>"
        XCTAssertEqual(error(html), .overLimit(.attributes(ParseLimits.maxAttributes)))
    }

    /// Attribute-like text inside scripts, comments and CDATA is not a tag.
    func testAttributeCountSkipsScriptsCommentsAndCDATA() {
        let junk = "<q " + String(repeating: "a ", count: 5_000) + ">"
        let html = "<!DOCTYPE html><html><head><script>var s = '\(junk)';</script><style>\(junk)</style>"
            + "<!-- \(junk) --></head><body><p>fine</p></body></html>"
        XCTAssertEqual(error(html), .notAFeed("an HTML page without a feed"))
        let xml = rssHead + "<description><![CDATA[\(junk)]]></description><!-- \(junk) -->" + rssTail
        XCTAssertNil(error(xml))
    }

    func testTooManyElementsAreRefused() {
        let xml = rssHead + String(repeating: "<a/>", count: ParseLimits.maxElements + 1) + rssTail
        XCTAssertEqual(error(xml), .overLimit(.elements(ParseLimits.maxElements)))
    }
}

extension ParseLimitTests {
    /// UTF-16 reaches libxml2 as it is (it converts): the attribute count must see through it.
    func testManyAttributesInUTF16AreRefused() {
        let attributes = (0..<20_000).map { "a\($0)=\"1\"" }.joined(separator: " ")
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss version=\"2.0\"><channel><title>t</title>"
            + "<item \(attributes)><title>x</title></item></channel></rss>"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in xml.utf16 { bytes.append(UInt8(unit & 0xFF)); bytes.append(UInt8(unit >> 8)) }
        XCTAssertThrowsError(try FeedParser.parse(bytes)) { error in
            XCTAssertEqual(error as? FeedError, .overLimit(.attributes(ParseLimits.maxAttributes)))
        }
    }
}

extension ParseLimitTests {
    /// Attribute-like text in CDATA sections and comments is not counted (the scan skips them
    /// whole), and a tag right after them still is; tags without attributes (`<title>`), read by
    /// the scan's fast path, change nothing either way.
    func testCDATAAndCommentsAreSkippedAndTheTagAfterThemCounted() throws {
        let many = (0..<3_000).map { "a\($0)=\"1\"" }.joined(separator: " ")
        let text = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>"
            + "<item><title>x</title><description><![CDATA[<p \(many)>]]></description><!-- <p \(many)> --><guid>g</guid></item>"
        let clean = try FeedParser.parse(Array((text + "</channel></rss>").utf8))
        XCTAssertEqual(clean.items.map(\.guid), ["g"])
        let hostile = text + "<!----><![CDATA[]]><item \(many)/></channel></rss>"
        XCTAssertThrowsError(try FeedParser.parse(Array(hostile.utf8))) { error in
            XCTAssertEqual(error as? FeedError, .overLimit(.attributes(ParseLimits.maxAttributes)))
        }
    }

    /// A `>` inside a quoted value does not end the tag for libxml2, so not for the count either.
    func testQuotedGreaterThanDoesNotHideAttributes() {
        let attributes = (0..<5_000).map { "a\($0)='>'" }.joined(separator: " ")
        let xml = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><item b=\">\" \(attributes)/></channel></rss>"
        XCTAssertThrowsError(try FeedParser.parse(Array(xml.utf8))) { error in
            XCTAssertEqual(error as? FeedError, .overLimit(.attributes(ParseLimits.maxAttributes)))
        }
    }
}
