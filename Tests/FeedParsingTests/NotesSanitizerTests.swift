import FeedModel
import XCTest
@testable import FeedParsing

/// The show-notes sanitizer (issue 27, "Security"): hostile input comes out as allowlisted,
/// well-formed HTML; real podcast notes keep their paragraphs and links.
final class NotesSanitizerTests: XCTestCase {
    private let base = "https://show.example/episodes/12"

    private func clean(_ html: String, base: String? = "https://show.example/episodes/12",
                       file: StaticString = #filePath, line: UInt = #line) -> String? {
        let result = NotesSanitizer.sanitize(html, base: base)
        if let result { assertSafe(result, file: file, line: line) }
        return result
    }

    // MARK: What the parser keeps

    /// The parser keeps the notes' markup as the feed wrote it (bounded), unsanitized: sanitizing
    /// waits until one item is shown. Plain notes keep none.
    func testTheParserKeepsTheRawMarkupBoundedAndPlainNotesNone() throws {
        let hostile = #"<p onclick="x()">Hi <a href="javascript:alert(1)">there</a></p><script>alert(2)</script><p><b>Bye</b></p>"#
        let huge = "<p>" + String(repeating: "a", count: FieldLimits.maxNotesHTMLBytes) + "</p>"
        func item(_ description: String) -> String {
            "<item><guid>\(description.count)</guid><title>T</title><description><![CDATA[\(description)]]></description></item>"
        }
        let feed = try FeedParser.parse(Array("""
            <?xml version="1.0"?><rss version="2.0"><channel><title>S</title>
            \(item(hostile))\(item("Just words &amp; more"))\(item(huge))</channel></rss>
            """.utf8))
        XCTAssertEqual(feed.items.map(\.notesMarkup?.utf8.count),
                       [hostile.utf8.count, nil, FieldLimits.maxNotesHTMLBytes])
        XCTAssertEqual(feed.items[0].notesMarkup, hostile, "kept as the feed wrote it: sanitized only when shown")
        XCTAssertEqual(feed.items[2].notesMarkup?.hasSuffix(FieldLimits.marker), true)
        XCTAssertEqual(clean(feed.items[0].notesMarkup ?? ""), "<p>Hi there</p><p><b>Bye</b></p>")
    }

    // MARK: Real notes

    func testRealPodcastNotesKeepTheirParagraphsListsAndLinks() {
        let notes = """
            <p>This week we talk to <strong>Jane Doe</strong> about <em>sourdough</em>.</p>
            <p>Links:</p>
            <ul>
              <li><a href="https://janedoe.example/book?a=1&amp;b=2" target="_self" class="link">Her book</a></li>
              <li><a href="mailto:show@show.example">Write to us</a></li>
              <li><a href="/episodes/11">Last week&#8217;s episode</a></li>
            </ul>
            <p>Support the show at <a href='https://patreon.example/show' onclick="track()">Patreon</a><br/>Thanks!</p>
            """
        let html = clean(notes)
        XCTAssertEqual(html, """
            <p>This week we talk to <strong>Jane Doe</strong> about <em>sourdough</em>.</p>
            <p>Links:</p>
            <ul>
              <li><a href="https://janedoe.example/book?a=1&amp;b=2" rel="noopener noreferrer nofollow" target="_blank">Her book</a></li>
              <li><a href="mailto:show@show.example" rel="noopener noreferrer nofollow" target="_blank">Write to us</a></li>
              <li><a href="https://show.example/episodes/11" rel="noopener noreferrer nofollow" target="_blank">Last week’s episode</a></li>
            </ul>
            <p>Support the show at <a href="https://patreon.example/show" rel="noopener noreferrer nofollow" target="_blank">Patreon</a><br>Thanks!</p>
            """)
    }

    func testNotesWithoutMarkupWorthKeepingAreNil() {
        XCTAssertNil(clean("Just a plain description &amp; nothing else."), "no tag")
        XCTAssertNil(clean("<p>One paragraph, nothing more.</p>"), "one paragraph says no more than its text")
        XCTAssertNil(clean("<span style='color:red'>Styled</span> text"), "only unwrapped elements")
        XCTAssertNil(clean("<p> </p><br>"), "no text")
        XCTAssertNil(clean("<script>alert(1)</script>"))
        XCTAssertNotNil(clean("<p>One</p><p>Two</p>"))
        XCTAssertNotNil(clean("A <b>bold</b> claim"))
    }

    func testHeadingsMoveDownAndUnknownBlocksAreUnwrapped() {
        XCTAssertEqual(clean("<h1>Title</h1><h2>Part</h2><h6>Small</h6>"), "<h3>Title</h3><h4>Part</h4><h6>Small</h6>")
        XCTAssertEqual(clean("<section><b>a</b></section><article>b</article>"), "\n<b>a</b>\nb")
        XCTAssertEqual(clean("<font face=x><b>a</b></font><strike>gone</strike>"), "<b>a</b><s>gone</s>")
    }

    // MARK: Hostile input

    func testScriptsStylesAndEmbeddedDocumentsAreDroppedWithTheirContent() {
        let html = clean("""
            <p>a</p><script>alert(1)</script><SCRIPT SRC=//evil.example/x.js></SCRIPT>
            <style>body{display:none}</style><iframe src="https://evil.example">frame text</iframe>
            <object data="x.swf">object text</object><embed src="x.swf"><template><b>t</b></template>
            <noscript><b>ns</b></noscript><textarea><b>ta</b></textarea><title>title</title><p>b</p>
            """)
        XCTAssertEqual(html?.contains("alert"), false)
        for dropped in ["display", "frame text", "object text", ">t<", "ns", "ta", "title", "evil"] {
            XCTAssertEqual(html?.contains(dropped), false, dropped)
        }
        XCTAssertEqual(html?.contains("<p>a</p>"), true)
        XCTAssertEqual(html?.contains("<p>b</p>"), true)
        // Void elements libxml2 2.9 does not know as void: what follows them is kept.
        XCTAssertEqual(clean("<p>a<embed src=x.swf>b</p><p>c<wbr>d<source src=y><track src=z>e<image src=q>f</p>"),
                       "<p>ab</p><p>cdef</p>")
    }

    func testEventHandlersStylesClassesAndIDsAreDropped() {
        let html = clean("""
            <p onclick="alert(1)" style="background:url(javascript:alert(2))" class="x" id="y">a</p>
            <b onmouseover=alert(3) ONLOAD='alert(4)'>b</b><img src=x onerror=alert(5)>
            <a href="https://ok.example" onfocus="alert(6)" autofocus style="position:fixed">c</a>
            <body onload=alert(7)><div/onclick=alert(8)>d</div>
            """)
        XCTAssertEqual(html, """
            <p>a</p>
            <b>b</b>
            <a href="https://ok.example" rel="noopener noreferrer nofollow" target="_blank">c</a>
            <div>d</div>
            """)
    }

    func testDangerousSchemesAreNotLinkedHoweverTheyAreSpelled() {
        let hrefs = [
            "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "\tjavascript:alert(1)",
            "jav&#x09;ascript:alert(1)", "jav&#9;ascript:alert(1)", "jav&#x0A;ascript:alert(1)", "jav&#13;ascript:alert(1)",
            "&#106;avascript:alert(1)", "&#x6A;&#x61;&#x76;&#x61;script:alert(1)", "&#0000106avascript:alert(1)",
            "java\nscript:alert(1)", "&#x01;javascript:alert(1)", "\u{01}javascript:alert(1)",
            "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "DATA:text/html,<script>alert(1)</script>",
            "vbscript:msgbox(1)", "VBScript:msgbox(1)", "file:///etc/passwd", "feed:https://x", "javascript&colon;alert(1)",
        ]
        for href in hrefs {
            let html = clean(#"<p>x</p><p><a href="\#(href)">link</a></p>"#, base: nil)
            XCTAssertEqual(html, "<p>x</p><p>link</p>", href)
        }
        // With a base, what is not a scheme is a relative path: harmless under http(s).
        let relative = clean(#"<b>x</b><a href="javascript&colon;alert(1)">link</a>"#)
        XCTAssertEqual(relative?.contains(#"href="https://show.example/episodes/javascript&amp;colon;alert(1)""#), true, relative ?? "nil")
        XCTAssertEqual(clean(#"<b>x</b><a href="//cdn.example/a">y</a>"#),
                       #"<b>x</b><a href="https://cdn.example/a" rel="noopener noreferrer nofollow" target="_blank">y</a>"#)
        XCTAssertEqual(clean(##"<b>x</b><a href="#t=90">1:30</a>"##, base: nil), "<b>x</b>1:30", "relative without a base is unwrapped")
    }

    func testSVGAndMathMLAreDroppedWholeIncludingKnownMutationTricks() {
        let html = clean("""
            <p>a</p><svg onload=alert(1)><script>alert(2)</script><a xlink:href="javascript:alert(3)">s</a></svg>
            <math><mtext><table><mglyph><style><img src=x onerror=alert(4)></style></mglyph></table></mtext></math>
            <svg><style><img src=x onerror=alert(5)></style></svg>
            <math href="javascript:alert(6)">m</math><p>b</p>
            """)
        XCTAssertEqual(html?.contains("alert"), false, html ?? "nil")
        XCTAssertEqual(html?.contains("<p>a</p>"), true)
        XCTAssertEqual(html?.contains("<p>b</p>"), true)
    }

    func testEntitiesAreDecodedAndEscapedAgainSoTheyCannotMakeMarkup() {
        XCTAssertEqual(clean("<b>&lt;script&gt;alert(1)&lt;/script&gt;</b> &amp;lt;img&amp;gt; &#60;i&#62; &quot;q&quot;"),
                       "<b>&lt;script&gt;alert(1)&lt;/script&gt;</b> &amp;lt;img&amp;gt; &lt;i&gt; \"q\"")
        XCTAssertEqual(clean(#"<b>x</b><a href="https://a.example/?q=&quot;&gt;&lt;script&gt;">y</a>"#),
                       #"<b>x</b><a href="https://a.example/?q=&quot;&gt;&lt;script&gt;" rel="noopener noreferrer nofollow" target="_blank">y</a>"#)
    }

    func testUnclosedMisnestedAndStrayTagsComeOutWellFormed() {
        for input in ["<b>bold <i>both</b> italic?", "<p>one<p>two<ul><li>a<li>b", "</p></b>text<b>", "<a href='https://x.example'><b>x</a>y",
                      "<table><tr><td>a<td>b</table>", "<b><b><b><b>deep", "<p>unclosed <a href=\"https://x.example\">link",
                      "<b>x</b><b attr=\"unterminated>y", "<<b>>x<</b>>", "<div><p>a</div></p>"] {
            let html = clean(input)
            if let html { assertBalanced(html, input) }
        }
        XCTAssertEqual(clean("<b>bold <i>both</b> italic"), "<b>bold <i>both</i></b> italic")
    }

    func testCommentsAndCDATAHideNothing() {
        XCTAssertEqual(clean("<b>a</b><!-- <script>alert(1)</script> --><i>b</i>"), "<b>a</b><i>b</i>")
        XCTAssertEqual(clean("<b>a</b><!--[if IE]><script>alert(1)</script><![endif]-->"), "<b>a</b>")
        let cdata = clean("<![CDATA[<p>Show <b>notes</b></p><script>alert(1)</script>]]>")
        XCTAssertEqual(cdata, "<p>Show <b>notes</b></p>")
        XCTAssertEqual(clean("<b>x</b><![CDATA[<img src=x onerror=alert(1)>]]><i>y</i>"), "<b>x</b><i>y</i>")
    }

    func testHugeNotesAreCutToTheBoundAndStillClosed() {
        let paragraph = "<p>Word <b>bold <a href=\"https://x.example/\(String(repeating: "p", count: 40))\">link</a></b> and more text here.</p>\n"
        let huge = String(repeating: paragraph, count: 20_000)   // ~2.4 MB
        guard let html = clean(huge) else { return XCTFail("nil") }
        XCTAssertLessThanOrEqual(html.utf8.count, FieldLimits.maxNotesHTMLBytes)
        XCTAssertGreaterThan(html.utf8.count, FieldLimits.maxNotesHTMLBytes - 500)
        XCTAssertTrue(html.contains(FieldLimits.marker))
        assertBalanced(html, "huge")
        // One long text node, cut inside a multi-byte character's run.
        let long = "<b>x</b><p>" + String(repeating: "é€😀", count: 60_000) + "</p>"
        guard let cut = clean(long) else { return XCTFail("nil") }
        XCTAssertLessThanOrEqual(cut.utf8.count, FieldLimits.maxNotesHTMLBytes)
        XCTAssertTrue(cut.hasSuffix(FieldLimits.marker + "</p>"), String(cut.suffix(20)))
        XCTAssertFalse(cut.contains("\u{FFFD}"), "cut at a character boundary")
    }

    func testDeepNestingAndManyAttributesStayBounded() {
        let deep = String(repeating: "<div><b>", count: 5_000) + "x"
        if let html = clean("<p>a</p>" + deep) { assertBalanced(html, "deep") }
        let attributes = (0..<2_000).map { " a\($0)=x" }.joined()
        XCTAssertNil(NotesSanitizer.sanitize(bytes: Array("<b\(attributes)>x</b>".utf8), base: base),
                     "libxml2's path: over ParseLimits.maxAttributes, nothing kept")
        XCTAssertEqual(clean("<b\(attributes)>x</b>"), "<b>x</b>", "the fast path reads them in one pass (and keeps none)")
        let links = String(repeating: "<b>", count: 150) + String(repeating: "<a href='/x'>l</a>", count: 20_000)
        XCTAssertNotNil(clean(links), "many links under many open elements: no scan of the open elements per tag")
    }

    func testInvalidUTF8ComesOutAsValidTextAndNoMarkup() {
        var bytes = Array("<p>caf".utf8) + [0xC3] + Array("</p><p>".utf8) + [0xFF, 0xFE, 0xC0, 0xAF]
        bytes += Array("<scr".utf8) + [0xE2, 0x82] + Array("ipt>alert(1)</script><b>ok</b></p>".utf8)
        bytes += [0xED, 0xA0, 0x80, 0x00] + Array("<i onclick=x>end</i>".utf8)
        guard let html = NotesSanitizer.sanitize(bytes: bytes, base: base) else { return XCTFail("nil") }
        XCTAssertFalse(html.utf8.contains(0), "no NUL byte comes through")
        assertSafe(html)
        XCTAssertTrue(html.contains("<b>ok</b>"), html)
    }

    func testEveryByteStringIsSafe() {
        // A cheap in-test fuzz (scripts/fuzz.sh runs the real one): random tag soup from
        // hostile pieces, each output checked by the same rules.
        let pieces = ["<", ">", "</", "/>", "a", "b", "p", "script", "svg", "math", "style", "img", " href=", " onclick=",
                      "\"", "'", "javascript:", "jav&#x09;ascript:", "&lt;", "&amp;", "&#60;", "<!--", "-->", "<![CDATA[",
                      "]]>", "x", " ", "\n", "é", "<a href=\"", "https://ok.example", "data:", "=", "&", "#"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let input = (0..<Int.random(in: 1...60, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            if let html = clean(input) { assertBalanced(html, input) }
        }
    }

    // MARK: Checks

    private static let allowedTags: Set<String> = [
        "p", "div", "br", "hr", "a", "b", "strong", "i", "em", "u", "s", "del", "ins", "sub", "sup", "small", "mark", "q",
        "cite", "code", "pre", "kbd", "samp", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "h3", "h4", "h5", "h6",
        "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td",
    ]

    /// Every `<` in the output starts a tag (text has them escaped); every tag is allowlisted;
    /// only `a` has attributes, exactly href (http, https, mailto) then the fixed rel and target.
    private func assertSafe(_ html: String, file: StaticString = #filePath, line: UInt = #line) {
        let tag = try! Regex(#"<(/?)([a-z0-9]+)((?: [^>]*)?)>"#)
        let link = try! Regex(#"^ href="(https?:|mailto:)[^"<>]*" rel="noopener noreferrer nofollow" target="_blank"$"#)
        var rest = Substring(html)
        while let lt = rest.firstIndex(of: "<") {
            XCTAssertFalse(rest[..<lt].contains(">"), "an unescaped > in text of \(html)", file: file, line: line)
            guard let match = rest[lt...].prefixMatch(of: tag) else {
                return XCTFail("a < that starts no allowed tag in \(html)", file: file, line: line)
            }
            let name = String(match.output[2].substring ?? "")
            let attributes = String(match.output[3].substring ?? "")
            XCTAssertTrue(Self.allowedTags.contains(name), "tag \(name) in \(html)", file: file, line: line)
            if name == "a" && match.output[1].substring?.isEmpty == true {
                XCTAssertNotNil(attributes.wholeMatch(of: link), "link attributes \(attributes)", file: file, line: line)
            } else {
                XCTAssertEqual(attributes, "", "attributes on \(name)", file: file, line: line)
            }
            rest = rest[match.range.upperBound...]
        }
        XCTAssertFalse(rest.contains(">"), "an unescaped > in text of \(html)", file: file, line: line)
    }

    /// Start and end tags pair up (br and hr have none).
    private func assertBalanced(_ html: String, _ input: String, file: StaticString = #filePath, line: UInt = #line) {
        let tag = try! Regex(#"<(/?)([a-z0-9]+)[^>]*>"#)
        var open: [String] = []
        for match in html.matches(of: tag) {
            let name = String(match.output[2].substring ?? "")
            if name == "br" || name == "hr" { continue }
            if match.output[1].substring?.isEmpty == false {
                XCTAssertEqual(open.popLast(), name, "\(html) from \(input)", file: file, line: line)
            } else {
                open.append(name)
            }
        }
        XCTAssertEqual(open, [], "unclosed in \(html) from \(input)", file: file, line: line)
    }
}

/// The fast path (`SimpleNotes`) reads what it accepts exactly as libxml2's path does.
final class SimpleNotesTests: XCTestCase {
    private let base = "https://show.example/episodes/12"

    private func assertSameAsLibXML2(_ input: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let bytes = Array(input.utf8)
        guard let simple = bytes.withUnsafeBufferPointer({ SimpleNotes.sanitize($0, base: base) }) else { return false }
        XCTAssertEqual(simple, NotesSanitizer.sanitize(bytes: bytes, base: base), "from \(input.debugDescription)", file: file, line: line)
        return true
    }

    func testTypicalNotesTakeTheFastPathWithTheSameResult() {
        let typical = [
            #"<p>Battery information back force.</p><p>Guest: <a href="https://example.org/people/aisha-bello">Noah Smith</a> &amp; friends.</p>"#,
            "<h2>Show notes</h2><p>Intro &#8217;s &eacute;t&eacute;</p>\n<ul>\n  <li><a href='/ep/1'>One</a></li>\n  <li><b>Two</b> <em>x</em></li>\n</ul>\n<p>Bye<br>now<br/>.</p>\n",
            "<p>Only one paragraph</p>", "<b>bold</b> tail", "<ul><li><p>a</p><ul><li>b</li></ul></li></ul>",
            #"<p><a HREF="javascript:alert(1)" onclick="x">x</a> <A href=https://ok.example/a>y</A></p>"#,
            "<blockquote><p>q</p></blockquote><hr><h6>end</h6>   ",
        ]
        for input in typical {
            XCTAssertTrue(assertSameAsLibXML2(input), "not simple: \(input)")
        }
        XCTAssertFalse(assertSameAsLibXML2("<ul><li><p>a</p><ul><li>b</li></ul></li></ol>"), "a mismatched end tag goes to libxml2")
    }

    func testWhatLibXML2WouldMendGoesToIt() {
        for input in ["text first <b>x</b>", "<p>a<p>b", "<p>a<ul><li>b</li></ul>", "<b>x<p>y</p></b>", "<ul>text<li>a</li></ul>",
                      "<p>a &amp b</p>", "<p>&nosuch;</p>", "<p>&#x80;</p>", "<!-- c --><p>x</p>", "<div>x</div>", "<p>a\r\nb</p>",
                      "<a href=\"x&amp;y\">l</a>", "<a href='/x'><a href='/y'>n</a></a>", "<p/>", "<script>x</script>", "<p>3 < 4</p>"] {
            XCTAssertFalse(assertSameAsLibXML2(input), input)
        }
    }

    func testRandomSimpleSoupAgreesWithLibXML2() {
        let pieces = ["<p>", "</p>", "<b>", "</b>", "<i>", "</i>", "<ul>", "</ul>", "<li>", "</li>", "<br>", "<br/>", "<hr>",
                      "<h1>", "</h1>", "<blockquote>", "</blockquote>", "<a href=\"https://x.example/\">", "<a href='/rel'>",
                      "<a href=javascript:x>", "</a>", "text", " ", "\n", "&amp;", "&lt;", "&#233;", "&eacute;", "é", "x y",
                      "<span>", "</span>", "<EM>", "</EM>"]
        var generator = SystemRandomNumberGenerator()
        var simple = 0
        for _ in 0..<3_000 {
            let input = (0..<Int.random(in: 1...25, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            if assertSameAsLibXML2(input) { simple += 1 }
        }
        XCTAssertGreaterThan(simple, 100, "the fast path was exercised")
    }
}
