import CLibXML2
import FeedModel
import FeedText
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An item's show notes as HTML a page may put into its DOM as it is, made from the stored
/// markup (`Item.notesMarkup`) when one item is shown (the API's `description_html`).
///
/// An allowlist, written out from libxml2's parse (never the input's bytes): the output holds
/// only the elements below, `href` on `a` (http, https, mailto, or relative and resolved to
/// http(s)), escaped text, and the fixed `rel`/`target` of links. So no script, style, event
/// handler, foreign content (SVG, MathML) or entity trick survives, whatever the parser made of
/// the input. docs/reliability.md ("Show notes") states the list.
public enum NotesSanitizer {
    /// The sanitized notes, or nil when `html` holds no markup worth keeping (its plain text,
    /// `Item.description`, says it all). `base` resolves relative links (the item's page, else
    /// the document's URL); without one they are unwrapped.
    public static func sanitize(_ html: String, base: String?) -> String? {
        guard hasMarkup(html) else { return nil }
        if let simple = html.withBytes({ SimpleNotes.sanitize($0, base: base) }) { return simple }
        return sanitize(bytes: Array(html.utf8), base: base)
    }

    /// Whether `html` holds a tag at all: most descriptions of big feeds are plain text, with
    /// nothing to keep (the parser keeps `Item.notesMarkup` only when this holds).
    public static func hasMarkup(_ html: String) -> Bool {
        html.withBytes { b in b.baseAddress.map { memchr($0, Int32(UInt8(ascii: "<")), b.count) != nil } ?? false }
    }

    /// `sanitize` over raw bytes (read as UTF-8; the fuzz target and tests hand it anything).
    package static func sanitize(bytes: [UInt8], base: String?) -> String? {
        let writer = NotesWriter(base: base, inputSize: bytes.count)
        do {
            try HTMLSAXParser.parse(withoutCDATAMarkers(bytes), into: writer)
        } catch {
            // A broken bound (depth, time, attributes): what was written before it stands.
        }
        return writer.finish()
    }

    /// Double-wrapped notes carry a literal `<![CDATA[…]]>` around their HTML, which an HTML
    /// parser reads as a bogus comment: the markers go, their content is read like the rest.
    static func withoutCDATAMarkers(_ bytes: [UInt8]) -> [UInt8] {
        let open = Array("<![CDATA[".utf8), close = Array("]]>".utf8)
        // memchr from `<` to `<`: most notes have no marker, and this scan is all they pay.
        let first: Int? = bytes.withUnsafeBufferPointer { b -> Int? in
            guard let base = b.baseAddress else { return nil }
            var i = 0
            while i + open.count <= b.count, let hit = memchr(base + i, Int32(UInt8(ascii: "<")), b.count - i) {
                let at = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
                if at + open.count <= b.count, memcmp(base + at, open, open.count) == 0 { return at }
                i = at + 1
            }
            return nil
        }
        guard let first else { return bytes }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        out.append(contentsOf: bytes[..<first])
        var i = first + open.count
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "<"), matches(open, in: bytes, at: i) { i += open.count; continue }
            if bytes[i] == UInt8(ascii: "]"), matches(close, in: bytes, at: i) { i += close.count; continue }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    private static func matches(_ needle: [UInt8], in bytes: [UInt8], at i: Int) -> Bool {
        i + needle.count <= bytes.count && bytes[i ..< i + needle.count].elementsEqual(needle)
    }

    /// What becomes of an element.
    enum Rule {
        /// Written out as `name`, without attributes.
        case keep(StaticString)
        /// Written out as `name`, which has no end tag.
        case void(StaticString)
        /// `a`: kept with a safe `href`, else unwrapped.
        case link
        /// Dropped with everything inside it.
        case drop
        /// Its content kept, the element not; `separates` writes a line break in its place
        /// (a block's words must not run into the next block's).
        case unwrap(separates: Bool)
    }

    /// The allowlist. Headings move down (h1 → h3 … h4–h6 → h6): the page's own h1/h2 are the
    /// item's title and sections. No `img` (remote images in notes are trackers, and load on
    /// opening the page), no forms, no media, no frames.
    static let rules: [String: Rule] = {
        var rules: [String: Rule] = [
            "a": .link, "br": .void("br"), "hr": .void("hr"),
            "h1": .keep("h3"), "h2": .keep("h4"), "h3": .keep("h5"), "h4": .keep("h6"), "h5": .keep("h6"), "h6": .keep("h6"),
            "strike": .keep("s"),
        ]
        let kept: [StaticString] = [
            "p", "div", "b", "strong", "i", "em", "u", "s", "del", "ins", "sub", "sup", "small", "mark", "q", "cite",
            "code", "pre", "kbd", "samp", "blockquote", "ul", "ol", "li", "dl", "dt", "dd",
            "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td",
        ]
        for name in kept { rules[name.description] = .keep(name) }
        // Dropped with their content: code, styles, foreign content, embedded documents, and
        // text that is not meant to show (head, title, fallback content, form controls).
        for name in ["script", "style", "iframe", "frame", "frameset", "object", "applet", "param",
                     "svg", "math", "template", "noscript", "noembed", "noframes", "head", "title", "meta",
                     "link", "base", "textarea", "select", "option", "input", "img", "audio", "video",
                     "canvas", "map", "area", "xmp", "plaintext", "listing", "xml", "button"] {
            rules[name] = .drop
        }
        // Unwrapped without a break: inline wrappers, and the document around the fragment.
        // libxml2 2.9 does not know embed, source, track, wbr, keygen and image as void: what
        // follows them arrives as their content, so they are unwrapped, not dropped.
        for name in ["html", "body", "span", "font", "abbr", "acronym", "bdi", "bdo", "big", "tt", "time",
                     "data", "dfn", "var", "label", "nobr", "wbr", "embed", "source", "track", "keygen", "image",
                     "picture"] {
            rules[name] = .unwrap(separates: false)
        }
        return rules
    }()

    /// Block wrappers: notes made of one of them and text say no more than the text.
    static func isWrapper(_ name: StaticString) -> Bool { name == "p" || name == "div" }

    static let allowedSchemes: [[UInt8]] = ["http", "https", "mailto"].map { Array($0.utf8) }

    /// `raw` (an `href` as libxml2 decoded it) as a link target to write, or nil. Tabs and
    /// line breaks go (browsers ignore them: `jav&#x09;ascript:` is `javascript:`), any other
    /// control character refuses the link, then the scheme decides: http, https and mailto are
    /// kept, a relative URL is resolved against `base` and kept if it became http(s).
    static func safeHref(_ raw: UnsafePointer<UInt8>, base: String?) -> String? {
        let count = strlen(UnsafeRawPointer(raw).assumingMemoryBound(to: CChar.self))
        guard count <= FieldLimits.maxURLBytes else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        for i in 0 ..< count {
            let c = raw[i]
            if c == 9 || c == 10 || c == 13 { continue }
            if c < 0x20 || c == 0x7F { return nil }
            bytes.append(c)
        }
        while bytes.last == 32 { bytes.removeLast() }
        let start = bytes.firstIndex { $0 != 32 } ?? bytes.endIndex
        var cleaned = [UInt8]()
        cleaned.reserveCapacity(bytes.count - start)
        for c in bytes[start...] {
            if c == 32 { cleaned.append(contentsOf: "%20".utf8) } else { cleaned.append(c) }
        }
        guard !cleaned.isEmpty else { return nil }
        let url = String(decoding: cleaned, as: UTF8.self)
        if URLs.hasScheme(url) {
            let scheme = cleaned.prefix { $0 != UInt8(ascii: ":") }.map { $0 | 0x20 }
            return allowedSchemes.contains(scheme) ? url : nil
        }
        guard let base else { return nil }
        let resolved = URLs.resolve(url, against: base)
        return URLs.isHTTP(resolved) && resolved.utf8.count <= FieldLimits.maxURLBytes ? resolved : nil
    }
}

/// Writes the allowed part of libxml2's events as HTML, within `FieldLimits.maxNotesHTMLBytes`.
/// Every element written is closed (libxml2 reports an end for every start, implied ones
/// included; `finish` closes what a stopped parse left open).
final class NotesWriter: HTMLSAXHandler {
    private enum Frame {
        case open(StaticString)
        case void
        case unwrapped
        case dropped
    }

    let base: String?
    private var out: [UInt8] = []
    private var stack: [Frame] = []
    /// Dropped elements open around the current event: their content is not written.
    private var dropping = 0
    /// Bytes the end tags of the open elements take: always kept free, so the notes close.
    private var closingBytes = 0
    /// The cap was reached: nothing more is written.
    private var full = false
    private var wrappers = 0
    private var formatting = 0
    private var hasText = false

    private static let marker = Array(FieldLimits.marker.utf8)
    private static let linkAttributes = Array("\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">".utf8)

    init(base: String?, inputSize: Int) {
        self.base = base
        out.reserveCapacity(min(inputSize + 64, FieldLimits.maxNotesHTMLBytes))
    }

    /// The notes, or nil when nothing worth keeping was written (no text, or only text in at
    /// most one paragraph).
    func finish() -> String? {
        while let frame = stack.popLast() { close(frame) }
        guard hasText, formatting > 0 || wrappers > 1 else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    func startElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
        if dropping > 0 { return push(.dropped) }
        start(NotesSanitizer.rules[name.string] ?? .unwrap(separates: true)) {
            attributes.rawValue("href").flatMap { NotesSanitizer.safeHref($0, base: base) }
        }
    }

    /// An element under `rule`; `href` is asked for a link's safe target.
    func start(_ rule: NotesSanitizer.Rule, href: () -> String?) {
        switch rule {
        case .drop:
            push(.dropped)
        case .unwrap(let separates):
            if separates { _ = write([10]) }
            push(.unwrapped)
        case .void(let tag):
            _ = write(tag: tag, href: nil, end: false)
            push(.void)
        case .keep(let tag):
            push(write(tag: tag, href: nil, end: true) ? .open(tag) : .unwrapped)
        case .link:
            guard let href = href() else { return push(.unwrapped) }
            push(write(tag: "a", href: href, end: true) ? .open("a") : .unwrapped)
        }
    }

    func endElement(_ name: HTMLName) { end() }

    func end() {
        guard let frame = stack.popLast() else { return }
        close(frame)
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard dropping == 0, !full, let base = bytes.baseAddress else { return }
        // Escaping at most quintuples the text (`&amp;`): when even that fits, no byte is
        // checked against the bound. The buffer is moved out while it is written, so the loop
        // pays no exclusivity check per byte (it did: a tenth of a big feed's parse).
        var text = [UInt8]()
        swap(&text, &out)
        defer { swap(&text, &out) }
        let room = FieldLimits.maxNotesHTMLBytes - text.count - closingBytes - Self.marker.count
        guard bytes.count * 5 <= room else { return charactersNearTheBound(bytes, into: &text) }
        if !hasText { hasText = bytes.contains { $0 > 32 } }
        var run = 0
        for i in 0 ..< bytes.count {
            let c = base[i]
            if c > UInt8(ascii: ">") { continue }      // above every byte that is escaped
            guard let escaped = Self.escaped(c) else { continue }
            text.append(contentsOf: UnsafeBufferPointer(start: base + run, count: i - run))
            text.append(contentsOf: UnsafeBufferPointer(start: escaped.utf8Start, count: escaped.utf8CodeUnitCount))
            run = i + 1
        }
        text.append(contentsOf: UnsafeBufferPointer(start: base + run, count: bytes.count - run))
    }

    @inline(__always) private static func escaped(_ c: UInt8) -> StaticString? {
        switch c {
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case 0: "\u{FFFD}"
        default: nil
        }
    }

    /// `characters` byte by byte against the bound, cut at a character boundary when it is met.
    private func charactersNearTheBound(_ bytes: UnsafeBufferPointer<UInt8>, into text: inout [UInt8]) {
        let limit = FieldLimits.maxNotesHTMLBytes - closingBytes - Self.marker.count
        for i in 0 ..< bytes.count {
            let c = bytes[i]
            let escaped = Self.escaped(c)
            guard text.count + (escaped?.utf8CodeUnitCount ?? 1) <= limit else {
                // A partly written UTF-8 sequence is taken back (its bytes were written as they are).
                var start = i
                while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
                text.removeLast(i - start)
                text.append(contentsOf: Self.marker)
                full = true
                return
            }
            if let escaped {
                text.append(contentsOf: UnsafeBufferPointer(start: escaped.utf8Start, count: escaped.utf8CodeUnitCount))
            } else {
                text.append(c)
                if c > 32 { hasText = true }
            }
        }
    }

    // MARK: Writing

    private func push(_ frame: Frame) {
        if case .dropped = frame { dropping += 1 }
        stack.append(frame)
    }

    private func close(_ frame: Frame) {
        switch frame {
        case .dropped: dropping -= 1
        case .open(let tag):
            closingBytes -= tag.utf8CodeUnitCount + 3
            out.append(contentsOf: "</".utf8)
            append(tag)
            out.append(UInt8(ascii: ">"))
        case .void, .unwrapped: break
        }
    }

    /// Whether `size` more bytes fit with the end tags still to come and a final marker.
    private func fits(_ size: Int) -> Bool {
        out.count + size + closingBytes + Self.marker.count <= FieldLimits.maxNotesHTMLBytes
    }

    private func cutOff() {
        out.append(contentsOf: Self.marker)
        full = true
    }

    /// Writes `bytes` if they fit; false (and the notes cut off) if not.
    private func write(_ bytes: [UInt8]) -> Bool {
        guard !full else { return false }
        guard fits(bytes.count) else { cutOff(); return false }
        out.append(contentsOf: bytes)
        return true
    }

    /// Writes a start tag; `end` reserves room for its end tag. False when it did not fit.
    private func write(tag: StaticString, href: String?, end: Bool) -> Bool {
        guard !full else { return false }
        var size = tag.utf8CodeUnitCount + 2 + (end ? tag.utf8CodeUnitCount + 3 : 0)
        var escapedHref: [UInt8] = []
        if let href {
            escapedHref = Self.attributeEscaped(href)
            size += 8 + escapedHref.count + Self.linkAttributes.count
        }
        guard fits(size) else { cutOff(); return false }
        out.append(UInt8(ascii: "<"))
        append(tag)
        if href != nil {
            out.append(contentsOf: " href=\"".utf8)
            out.append(contentsOf: escapedHref)
            out.append(contentsOf: Self.linkAttributes)
        } else {
            out.append(UInt8(ascii: ">"))
        }
        if end { closingBytes += tag.utf8CodeUnitCount + 3 }
        if NotesSanitizer.isWrapper(tag) { wrappers += 1 } else { formatting += 1 }
        return true
    }

    private func append(_ tag: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: tag.utf8Start, count: tag.utf8CodeUnitCount))
    }

    private static func attributeEscaped(_ value: String) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(value.utf8.count)
        for c in value.utf8 {
            switch c {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): bytes.append(contentsOf: "&#39;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            default: bytes.append(c)
            }
        }
        return bytes
    }
}

private func == (lhs: StaticString, rhs: StaticString) -> Bool {
    lhs.utf8CodeUnitCount == rhs.utf8CodeUnitCount
        && memcmp(lhs.utf8Start, rhs.utf8Start, lhs.utf8CodeUnitCount) == 0
}
