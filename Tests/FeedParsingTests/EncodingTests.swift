@testable import FeedParsing
import TestSupport
import XCTest

/// BOM, XML declaration, HTTP charset; UTF-8, UTF-16, ISO-8859-1, Windows-1252.
final class EncodingTests: XCTestCase {
    func testLatin1() throws {
        let feed = try Fixtures.parse("latin1.xml")
        XCTAssertEqual(feed.title, "Café Olé")
        XCTAssertEqual(feed.items.map(\.title), ["Crème brûlée – part 1"])
    }

    func testWindows1252() throws {
        let feed = try Fixtures.parse("windows-1252.xml")
        XCTAssertEqual(feed.title, "“Quoted” €5")
        XCTAssertEqual(feed.items.map(\.title), ["It’s fine"])
    }

    func testUTF16WithBOM() throws {
        let feed = try Fixtures.parse("utf16.xml")
        XCTAssertEqual(feed.title, "Ünïcödé 16 ✓")
        XCTAssertEqual(feed.items.map(\.title), ["Zweite Folge – 東京"])
        XCTAssertEqual(feed.items.map(\.id), ["u16"])
    }

    func testUTF16BigEndianWithoutBOM() throws {
        let xml = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Big – endian</title></channel></rss>"
        var bytes: [UInt8] = []
        for unit in xml.utf16 { bytes.append(UInt8(unit >> 8)); bytes.append(UInt8(unit & 0xFF)) }
        XCTAssertEqual(try FeedParser.parse(bytes).title, "Big – endian")
    }

    func testValidUTF8DeclaredLatin1IsReadAsUTF8() throws {
        let feed = try Fixtures.parse("utf8-declared-latin1.xml")
        XCTAssertEqual(feed.title, "Déjà vu – 日本")
        XCTAssertEqual(feed.items.map(\.title), ["Ça va"])
    }

    func testUTF8BOM() throws {
        let feed = try Fixtures.parse("bom.xml")
        XCTAssertEqual(feed.title, "BOM ✓ feed")
        XCTAssertEqual(feed.items.map(\.title), ["After the BOM"])
    }

    func testHTTPCharsetOverridesDeclaration() throws {
        // Latin-1 bytes behind a UTF-8 declaration: the server's charset is the truth.
        let feed = try Fixtures.parse("http-charset-latin1.xml", options: .init(httpCharset: "ISO-8859-1"))
        XCTAssertEqual(feed.title, "Garçon")
        XCTAssertEqual(feed.items.map(\.title), ["Noël"])
    }

    func testHTTPUTF8OnALatin1BodyDeclaredLatin1ReadsTheDeclaration() throws {
        // A server-wide `charset=utf-8` on a Latin-1 feed: the bytes are not UTF-8, the
        // declaration is right. Read as UTF-8, libxml2 dropped the `&amp;` of the title.
        let xml = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss version=\"2.0\"><channel><title>Caf\u{E9}</title>"
            + "<item><guid>a</guid><title>Tom &amp; Jerry</title></item></channel></rss>"
        let bytes = xml.unicodeScalars.map { UInt8($0.value) }
        let feed = try FeedParser.parse(bytes, options: .init(httpCharset: "utf-8"))
        XCTAssertEqual(feed.title, "Café")
        XCTAssertEqual(feed.items.map(\.title), ["Tom & Jerry"])
        // Valid UTF-8 under the same labels stays UTF-8.
        let utf8 = try FeedParser.parse(Array(xml.utf8), options: .init(httpCharset: "utf-8"))
        XCTAssertEqual(utf8.title, "Café")
    }

    func testLatin1StreamedAcrossManyChunks() throws {
        // More than one 64 KiB chunk, a Latin-1 byte at every chunk boundary region.
        var xml = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss version=\"2.0\"><channel><title>Big</title>"
        for i in 0..<3000 { xml += "<item><guid>g\(i)</guid><title>Café \(i)</title><description>\(String(repeating: "é", count: 20))</description></item>" }
        xml += "</channel></rss>"
        let dir = try PackagePaths.temporaryDirectory(self)
        let file = dir.appendingPathComponent("big-latin1.xml")
        try Data(xml.unicodeScalars.map { UInt8($0.value) }).write(to: file)
        var titles: [String] = []
        _ = try FeedParser.parseFile(atPath: file.path) { titles.append($0.title) }
        XCTAssertEqual(titles.count, 3000)
        XCTAssertEqual(titles.first, "Café 0")
        XCTAssertEqual(titles.last, "Café 2999")
        XCTAssertTrue(titles.allSatisfy { $0.hasPrefix("Café ") })
    }
}
