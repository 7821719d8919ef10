import FeedModel
@testable import FeedParsing
import FeedText
import TestSupport
import XCTest

/// The word-at-a-time tests and the fast paths built on them must agree, byte for byte, with
/// the plain one-byte-at-a-time definitions they replace.
final class ByteFastPathTests: XCTestCase {
    /// Words mixing the bytes that matter (space, controls, quote, backslash, `<`, `&`, high
    /// bytes) with ordinary ones, from a fixed seed.
    private func words() -> [[UInt8]] {
        let interesting: [UInt8] = [0, 9, 10, 0x1F, 0x20, 0x21, 0x22, 0x26, 0x3C, 0x5C, 0x61, 0x7E, 0x7F, 0x80, 0xA0, 0xC2, 0xFF]
        var rng = SplitMix64(seed: 42)
        var out: [[UInt8]] = interesting.map { [UInt8](repeating: $0, count: 8) }
        for _ in 0..<20_000 {
            out.append((0..<8).map { _ in rng.next() % 3 == 0 ? interesting[Int(rng.next() % UInt64(interesting.count))] : UInt8(0x41 + rng.next() % 26) })
        }
        return out
    }

    func testWordTestsMatchByteDefinitions() {
        for word in words() {
            let w = word.withUnsafeBufferPointer { ByteWords.load($0.baseAddress!) }
            XCTAssertEqual(ByteWords.allVisibleASCII(w), word.allSatisfy { $0 > 0x20 && $0 < 0x80 }, "\(word)")
            XCTAssertEqual(ByteWords.plainJSON(w), word.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != 0x22 && $0 != 0x5C }, "\(word)")
            for byte: UInt8 in [0x20, 0x26, 0x3C] {
                XCTAssertEqual(ByteWords.matches(w, byte) != 0, word.contains(byte), "\(word) \(byte)")
            }
            let printable = word.allSatisfy { $0 >= 0x20 && $0 < 0x80 }
            let doubled = zip(word, word.dropFirst()).contains { $0 == 0x20 && $1 == 0x20 }
            XCTAssertEqual(ByteWords.collapsedASCII(w, spaceFirst: true), printable && !doubled && word[7] != 0x20, "\(word)")
            XCTAssertEqual(ByteWords.collapsedASCII(w, spaceFirst: false), printable && !doubled && word[7] != 0x20 && word[0] != 0x20, "\(word)")
        }
    }

    /// Long texts run through the word path; short ones and the tails through the byte path.
    func testCollapseAndQuoteMatchReferences() {
        var rng = SplitMix64(seed: 7)
        let pieces = ["a", "word", " ", "  ", "\t", "\n", "\u{A0}", "\u{2003}", "é", "東", "\"", "\\", "\u{1}", "<b>", "&amp;", "x y z"]
        for _ in 0..<3_000 {
            let text = (0..<Int(rng.next() % 40)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
            XCTAssertEqual(TextCleaner.collapse(text), referenceCollapse(text), text.debugDescription)
            var json: [UInt8] = []
            FeedJSON.quote(text, into: &json)
            XCTAssertEqual(String(decoding: json, as: UTF8.self), referenceQuote(text), text.debugDescription)
            var item = Item()
            item.id = text
            item.title = text
            var document: [UInt8] = []
            FeedJSON.item(item, index: 1, into: &document)
            XCTAssertTrue(String(decoding: document, as: UTF8.self).hasPrefix(",\n{\"id\": \(referenceQuote(text)), \"guid\": null, \"title\": \(referenceQuote(text)),"))
        }
    }

    func testNumbersInItemJSON() {
        var item = Item()
        item.id = "x"
        item.published = Int64.min
        item.updated = Int64.max
        item.duration = 0
        item.views = -7
        var document: [UInt8] = []
        FeedJSON.item(item, index: 0, into: &document)
        let text = String(decoding: document, as: UTF8.self)
        XCTAssertTrue(text.contains("\"published\": -9223372036854775808, \"updated\": 9223372036854775807, \"duration\": 0,"), text)
        XCTAssertTrue(text.contains("\"views\": -7,"), text)
    }

    func testDecodeEntitiesRuns() {
        XCTAssertEqual(TextCleaner.decodeEntities("https://x.org/?a=1&#38;b=2&amp;c=3&bogus;&"), "https://x.org/?a=1&b=2&c=3&bogus;&")
        XCTAssertEqual(TextCleaner.decodeEntities("&lt;&gt;&quot;&apos;&amp;&eacute;"), "<>\"'&é")
    }

    func testWholeFieldDurations() {
        let expected: [(String, Int?)] = [
            ("0", 0), ("59", 59), ("75:30", 4530), ("1:02:03", 3723), ("00:00:40", 40), ("123456789", 123_456_789),
            ("1:60", nil), ("1:2:3:4", nil), (":30", nil), ("30:", nil), ("1234567890", nil),
            ("0000000001", 1), ("1:30.5", 91), (" 12:00 ", 720),
        ]
        for (text, seconds) in expected { XCTAssertEqual(DurationParser.parse(text), seconds, text) }
    }

    func testMonthAndZoneNamesByBytes() {
        XCTAssertEqual(DateParser.parse("Wed, 14 Oct 2026 03:04:58 PST"), DateParser.parse("Wed, 14 Oct 2026 11:04:58 +0000"))
        XCTAssertEqual(DateParser.parse("14 OCTOBER 2026 03:04 edt"), DateParser.parse("14 Oct 2026 07:04 GMT"))
        XCTAssertEqual(DateParser.parse("14 Sept 2026 00:00 UTC"), 1_789_344_000)
        XCTAssertNil(DateParser.parse("14 Oc 2026"))
        XCTAssertEqual(DateParser.parse("14 Oct 2026 00:00 ABCDEFGHIJ"), DateParser.parse("14 Oct 2026 00:00"), "unknown zones are UTC")
    }

    /// plainText strips into the result's storage and collapses there in place: the same text
    /// as stripping into an array and collapsing that into a new string.
    func testPlainTextInPlaceMatchesTwoPasses() {
        var rng = SplitMix64(seed: 11)
        let pieces = ["a", "word", " ", "  ", "\t", "\n", "\u{A0}", "&nbsp;", "&#160;", "&#x2003;", "é", "東", "<b>", "</b>",
                      "<p>", "</p>", "<br/>", "<!-- c -->", "<![CDATA[", "]]>", "&amp;", "&amp;amp;", "&lt;i&gt;", "&#0;",
                      "&#128;", "&bogus;", "&", "<", "<script>x<y</script>", "x y z", "longer words here ", "🤯"]
        for _ in 0..<5_000 {
            let html = (0..<Int(rng.next() % 60)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
            var stripped: [UInt8] = []
            Array(html.utf8).withUnsafeBufferPointer { TextCleaner.stripMarkup($0, into: &stripped) }
            let twoPasses = stripped.withUnsafeBufferPointer(TextCleaner.collapse)
            XCTAssertEqual(TextCleaner.plainText(fromHTML: html), twoPasses, html.debugDescription)
        }
        XCTAssertEqual(TextCleaner.plainText(fromHTML: "<p>One&nbsp; two</p><p>three &amp;amp; four</p>"), "One two three &amp; four")
    }

    /// tagEnd jumps with memchr from quote to quote: the same end as the byte-by-byte scan.
    func testTagEndMatchesByteScan() {
        func reference(_ b: [UInt8], _ start: Int) -> Int {
            var quote: UInt8 = 0
            for i in start..<b.count {
                let c = b[i]
                if quote != 0 { if c == quote { quote = 0 } } else if c == 34 || c == 39 { quote = c } else if c == 62 { return i + 1 }
            }
            return b.count
        }
        var rng = SplitMix64(seed: 5)
        let alphabet = Array("a =\"'>/x".utf8)
        for _ in 0..<20_000 {
            let bytes = (0..<Int(rng.next() % 24)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            for start in 0...bytes.count {
                let end = bytes.withUnsafeBufferPointer { TextCleaner.tagEnd($0, from: start) }
                XCTAssertEqual(end, reference(bytes, start), "\(String(decoding: bytes, as: UTF8.self)) from \(start)")
            }
        }
        XCTAssertEqual(Array("a href=\"x>y\">z".utf8).withUnsafeBufferPointer { TextCleaner.tagEnd($0, from: 0) }, 13)
    }

    /// Dates, durations and episode numbers are read from the captured bytes: the same values
    /// as the String functions give for the same text.
    func testBytePathsMatchStringPaths() {
        let texts = ["", " ", "42", "0042", " 7 ", "+5", "-3", "12a", "99999999999999999999", "123456789012345678",
                     "1:02:03", " 1:02:03\n", "75:30", "1:30.5", "PT1H2M", "\u{A0}59\u{A0}", "east", "東",
                     "Mon, 12 Oct 2026 11:30:58 EST", "\n  Mon, 12 Oct 2026 11:30:58 EST  ", "12 Oct 2026 11:30 +0530",
                     "2026-10-01T12:00:00-04:00", "2026-10-01", "garbage", "Mon, 12 Oct 2026 11:30:58 EST\u{A0}"]
        for text in texts {
            Array(text.utf8).withUnsafeBufferPointer { b in
                XCTAssertEqual(DateParser.parse(bytes: b), DateParser.parse(text), text.debugDescription)
                XCTAssertEqual(DurationParser.parse(bytes: b), DurationParser.parse(text), text.debugDescription)
                XCTAssertEqual(DurationParser.integer(bytes: b), Int(text.trimmingWhitespace()), text.debugDescription)
            }
        }
        let integers: [(String, Int?)] = [("0042", 42), (" 7 ", 7), ("+5", 5), ("12a", nil), ("99999999999999999999", nil), ("", nil)]
        for (text, value) in integers {
            XCTAssertEqual(Array(text.utf8).withUnsafeBufferPointer(DurationParser.integer(bytes:)), value, text)
        }
        XCTAssertEqual(Array("Mon, 12 Oct 2026 11:30:58 EST".utf8).withUnsafeBufferPointer(DateParser.parse(bytes:)), 1_791_822_658)
    }

    private func referenceQuote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
