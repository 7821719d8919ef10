import XCTest
@testable import FeedParsing

final class TextCleanerTests: XCTestCase {
    private func plain(_ html: String) -> String? { TextCleaner.plainText(fromHTML: html) }

    func testTagsAreStripped() {
        XCTAssertEqual(plain("<p>Hello <b>world</b></p>"), "Hello world")
        XCTAssertEqual(plain("fan<b>tastic</b>"), "fantastic", "inline tags do not separate words")
        XCTAssertEqual(plain("<p>one</p><p>two</p>"), "one two", "block tags do")
        XCTAssertEqual(plain("line<br>break<br/>again"), "line break again")
        XCTAssertEqual(plain(#"<a href="https://x.org/?a=1&amp;b=2" title="x>y">link</a> text"#), "link text")
        XCTAssertEqual(plain("<IMG SRC=x.png ALT='a > b'>caption"), "caption")
        XCTAssertEqual(plain("<ul><li>a</li><li>b</li></ul>"), "a b")
        XCTAssertEqual(plain("unclosed <b tag"), "unclosed")
    }

    func testTextThatLooksLikeTagsIsKept() {
        XCTAssertEqual(plain("3 < 4 and 5 > 2"), "3 < 4 and 5 > 2")
        XCTAssertEqual(plain("x<4"), "x<4")
    }

    func testEntitiesAreDecoded() {
        XCTAssertEqual(plain("Tom &amp; Jerry &lt;3"), "Tom & Jerry <3")
        XCTAssertEqual(plain("it&#8217;s &#x2019;quoted&#X2019; caf&eacute; &quot;x&quot; &apos;y&apos;"), "it’s ’quoted’ café \"x\" 'y'")
        XCTAssertEqual(plain("&amp;amp; is decoded once"), "&amp; is decoded once")
        XCTAssertEqual(plain("&#150; &#x80;"), "– €", "C1 references are Windows-1252")
        XCTAssertEqual(plain("&#0;x"), "\u{FFFD}x")
        XCTAssertEqual(plain("&nosuchentity; &#xZZ; & alone"), "&nosuchentity; &#xZZ; & alone")
        XCTAssertEqual(plain("&#1114112; too big"), "&#1114112; too big")
        XCTAssertEqual(plain("&#x1F600;"), "😀")
        XCTAssertEqual(TextCleaner.decodeEntities("a &lt;b&gt; &mdash; &hellip;"), "a <b> — …")
        XCTAssertEqual(TextCleaner.decodeEntities("no entities"), "no entities")
    }

    func testWhitespaceIsCollapsed() {
        XCTAssertEqual(plain("  a \n\t b  "), "a b")
        XCTAssertEqual(plain("a&nbsp;&nbsp;b\u{00A0}c"), "a b c")
        XCTAssertEqual(TextCleaner.collapse(" \u{2003}x\r\n y\u{0} "), "x y")
        XCTAssertNil(TextCleaner.collapse(" \n\t "))
        XCTAssertNil(plain(""))
        XCTAssertNil(plain("<p> </p><br>"))
    }

    func testScriptStyleAndCommentsAreDropped() {
        XCTAssertEqual(plain("before<script>var x = '<p>no</p>';</script>after"), "before after")
        XCTAssertEqual(plain("<style>p { color: red }</style>text"), "text")
        XCTAssertEqual(plain("<SCRIPT type=text/javascript>alert(1)</SCRIPT>ok"), "ok")
        XCTAssertEqual(plain("a<script>never closed"), "a")
        XCTAssertEqual(plain("one<!-- hidden <b>x</b> -->two"), "onetwo", "a comment renders as nothing")
        XCTAssertEqual(plain("<!DOCTYPE html><p>doc</p>"), "doc")
        XCTAssertEqual(plain("a<!-- never closed"), "a")
    }

    func testCDATASectionsKeepTheirText() {
        // Feeds that double-wrap show notes leave a literal CDATA section in the HTML.
        XCTAssertEqual(plain("<![CDATA[<p>Show &amp; tell</p>]]> after"), "Show & tell after")
        XCTAssertEqual(plain("a ]]> b"), "a ]]> b", "outside a CDATA section it is text")
        XCTAssertEqual(plain("x <![CDATA[unterminated"), "x unterminated")
    }
}

extension TextCleanerTests {
    /// The byte-level collapse must agree with a plain Unicode-property reference on every ASCII
    /// byte and on the non-ASCII whitespace it special-cases.
    func testByteCollapseAgreesWithUnicodeWhitespace() {
        var samples: [String] = []
        for c in UInt8(0)..<128 { samples.append(String(UnicodeScalar(c))) }
        samples += ["\u{00A0}", "\u{0085}", "\u{1680}", "\u{2000}", "\u{200A}", "\u{2028}", "\u{2029}",
                    "\u{202F}", "\u{205F}", "\u{3000}", "é", "😀", "\u{200B}"]
        for s in samples {
            for text in [" a" + s + s + "b" + s, s, s + "x"] {
                XCTAssertEqual(TextCleaner.collapse(text), referenceCollapse(text), "sample \(s.unicodeScalars.map { $0.value })")
            }
        }
    }
}
