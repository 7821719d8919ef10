import XCTest
@testable import FeedParsing

final class TextCleanerFastPathTests: XCTestCase {
    /// The byte-level collapse agrees with Unicode's White_Space property on every whitespace
    /// scalar and on neighbours that are not whitespace.
    func testCollapseMatchesUnicodeWhitespace() {
        let whitespace = (0...0x3000).compactMap(Unicode.Scalar.init).filter { $0.properties.isWhitespace }
        XCTAssertEqual(whitespace.count, 25)
        for ws in whitespace {
            XCTAssertEqual(TextCleaner.collapse("a\(ws)\(ws)b\(ws)"), "a b", "U+\(String(ws.value, radix: 16))")
        }
        for scalar in ["\u{200B}", "\u{2030}", "\u{1681}", "\u{3001}", "é", "東", "🐟", "\u{C2}"] {
            XCTAssertEqual(TextCleaner.collapse(" x\(scalar)y "), "x\(scalar)y")
        }
        XCTAssertEqual(TextCleaner.collapse("a\u{0}b"), "a b")
        XCTAssertNil(TextCleaner.collapse(" \u{A0}\n\t "))
    }

    func testPlainTextTagsByteKeys() {
        XCTAssertEqual(TextCleaner.plainText(fromHTML: "fan<B>tastic</b> <P>next</p><SCRIPT>x()</Script>end"), "fantastic next end")
        XCTAssertEqual(TextCleaner.plainText(fromHTML: "<blockquote>a</blockquote>b<h1>c</h1>"), "a b c")
        XCTAssertEqual(TextCleaner.plainText(fromHTML: "<strong>x</strong>y<!-- c -->z&amp;&eacute;"), "xyz&é", "a comment renders as nothing")
    }
}
