import FeedModel
#if canImport(Glibc)
import Glibc
#endif

/// Counts the attributes of each start tag before libxml2 sees them, fed the same chunks.
///
/// Why before: libxml2 (XML and HTML alike) checks each new attribute of a tag against all
/// earlier ones, so one tag with n attributes costs n² inside a single call that no callback
/// interrupts (320,000 attributes took 18 s); the only place to stop it is ahead of the parser.
/// It mirrors the tokenizer enough to count: text is skipped with `memchr`, comments, CDATA
/// sections, declarations and processing instructions are skipped, HTML `<script>`/`<style>`
/// content is skipped to its end tag, and inside a start tag it counts runs of non-blank bytes
/// outside quotes (each attribute is at least one run). Counting too many is harmless (the
/// bound is far above real tags); the time budget backs up anything it miscounts.
struct AttributeScan {
    private enum Mode {
        case text
        /// After `<`, before deciding what it opens (the bytes so far are in `opener`).
        case open
        /// Inside a start tag: runs of non-blank bytes after the name, the open quote (or 0),
        /// whether the last byte was blank.
        case tag(runs: Int, quote: UInt8, blank: Bool)
        /// Skipping to the end of `needle` (`-->`, `]]>`, `>`, `</script`), `matched` bytes of it found.
        case skip(needle: Needle, matched: Int)
    }

    enum Needle {
        case commentEnd, cdataEnd, tagEnd, scriptEnd, styleEnd
        /// Shared constants: this runs for every end tag, so nothing here may allocate.
        var bytes: [UInt8] {
            switch self {
            case .commentEnd: return AttributeScan.commentEnd
            case .cdataEnd: return AttributeScan.cdataEnd
            case .tagEnd: return AttributeScan.tagEnd
            case .scriptEnd: return AttributeScan.scriptEnd
            case .styleEnd: return AttributeScan.styleEnd
            }
        }
    }

    private static let commentEnd = Array("-->".utf8), cdataEnd = Array("]]>".utf8), tagEnd = [UInt8(ascii: ">")]
    private static let scriptEnd = Array("</script".utf8), styleEnd = Array("</style".utf8)
    private static let commentOpener = Array("!--".utf8), cdataOpener = Array("![CDATA[".utf8)
    /// `![CDATA[` as one little-endian word, to compare in one load.
    private static let cdataWord: UInt64 = "![CDATA[".utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) }

    private let html: Bool
    private let limit: Int
    private var mode = Mode.text
    /// The opener after `<` (up to 9 bytes: `![CDATA[`), and the tag name's first bytes.
    private var opener: [UInt8] = []
    private var name: [UInt8] = []
    private var nameOpen = false
    private static let script = Array("script".utf8), style = Array("style".utf8)
    private(set) var exceeded = false

    init(html: Bool, limit: Int = ParseLimits.maxAttributes) {
        self.html = html
        self.limit = limit
    }

    /// Scans the next chunk; false once a tag has more than `limit` attributes.
    mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !exceeded, let base = chunk.baseAddress else { return !exceeded }
        let n = chunk.count
        var i = 0
        while i < n {
            switch mode {
            case .text:
                guard let lt = memchr(base + i, 0x3C, n - i) else { return true }
                i = base.distance(to: lt.assumingMemoryBound(to: UInt8.self)) + 1
                // The common cases without the opener's bookkeeping: an end tag, skipped to its
                // `>`, and an XML start tag (whose name matters to nobody).
                if i < n, base[i] == UInt8(ascii: "/") {
                    if let gt = memchr(base + i, 0x3E, n - i) {
                        i = base.distance(to: gt.assumingMemoryBound(to: UInt8.self)) + 1
                    } else {
                        i = n
                        mode = .skip(needle: .tagEnd, matched: 0)
                    }
                    continue
                }
                if !html, i < n, isNameStart(base[i]) {
                    // Most XML tags hold no attribute (`<title>`): read the name to its first
                    // byte that is not a name's, a compare per byte; `>` ends the tag. Anything
                    // else (a blank, `/`, a quote, the chunk's end) goes on in `.tag`.
                    var j = i + 1
                    while j < n, !Self.endsName(base[j]) { j += 1 }
                    if j < n, base[j] == UInt8(ascii: ">") {
                        i = j + 1
                        continue
                    }
                    i = j
                    nameOpen = true
                    mode = .tag(runs: 0, quote: 0, blank: false)
                    continue
                }
                // CDATA sections and comments, whole in the chunk, without the opener's
                // bookkeeping (podcast descriptions are mostly CDATA).
                if i + 8 <= n, base[i] == UInt8(ascii: "!") {
                    if UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) == Self.cdataWord {
                        i += 8
                        mode = .skip(needle: .cdataEnd, matched: 0)
                        continue
                    }
                    if base[i + 1] == UInt8(ascii: "-"), base[i + 2] == UInt8(ascii: "-") {
                        i += 3
                        mode = .skip(needle: .commentEnd, matched: 0)
                        continue
                    }
                }
                opener.removeAll(keepingCapacity: true)
                mode = .open
            case .open:
                let c = base[i]
                opener.append(c)
                i += 1
                if opener.count == 1 {
                    if isNameStart(c) {
                        name.removeAll(keepingCapacity: true)
                        name.append(lower(c))
                        nameOpen = true
                        mode = .tag(runs: 0, quote: 0, blank: false)
                    } else if c == UInt8(ascii: "!") || c == UInt8(ascii: "?") {
                        if c == UInt8(ascii: "?") { mode = .skip(needle: .tagEnd, matched: 0) }
                    } else if c == UInt8(ascii: "<") {
                        opener.removeAll(keepingCapacity: true)   // `<<`: the second may open
                    } else {
                        mode = c == UInt8(ascii: "/") ? .skip(needle: .tagEnd, matched: 0) : .text
                    }
                } else if opener == Self.commentOpener {
                    mode = .skip(needle: .commentEnd, matched: 0)
                } else if opener == Self.cdataOpener {
                    mode = .skip(needle: .cdataEnd, matched: 0)
                } else if !(Self.commentOpener.starts(with: opener) || Self.cdataOpener.starts(with: opener)) {
                    mode = c == UInt8(ascii: ">") ? .text : .skip(needle: .tagEnd, matched: 0)
                }
            case .tag(var runs, var quote, var blank):
                while i < n {
                    let c = base[i]
                    i += 1
                    if c > 0x3E && quote == 0 {
                        // A name's byte (letters, UTF-8): the common case, first.
                        if nameOpen {
                            if html && name.count < 8 { name.append(lower(c)) }
                        } else if blank {
                            runs += 1
                            blank = false
                            if runs > limit {
                                exceeded = true
                                return false
                            }
                        }
                        continue
                    }
                    if quote != 0 {
                        // A value (most of a tag's bytes): jump to its closing quote.
                        if c == quote { quote = 0; continue }
                        guard let close = memchr(base + i, Int32(quote), n - i) else { i = n; break }
                        i = base.distance(to: close.assumingMemoryBound(to: UInt8.self)) + 1
                        quote = 0
                        continue
                    }
                    if c == UInt8(ascii: ">") {
                        mode = !html ? .text : name == Self.script ? .skip(needle: .scriptEnd, matched: 0)
                            : name == Self.style ? .skip(needle: .styleEnd, matched: 0) : .text
                        break
                    }
                    if isBlank(c) || c == UInt8(ascii: "/") {
                        nameOpen = false
                        blank = isBlank(c) || blank
                        continue
                    }
                    if nameOpen {
                        if html && name.count < 8 { name.append(lower(c)) }
                        continue
                    }
                    if blank {
                        runs += 1
                        blank = false
                        if runs > limit {
                            exceeded = true
                            return false
                        }
                    }
                    if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { quote = c }
                }
                if case .tag = mode { mode = .tag(runs: runs, quote: quote, blank: blank) }
            case .skip(let needle, var matched):
                let bytes = needle.bytes
                while i < n {
                    if matched == 0 {
                        // Jump to the needle's first byte.
                        guard let p = memchr(base + i, Int32(bytes[0]), n - i) else { i = n; break }
                        i = base.distance(to: p.assumingMemoryBound(to: UInt8.self)) + 1
                        matched = 1
                    } else {
                        let c = lower(base[i])
                        if c == bytes[matched] {
                            matched += 1
                            i += 1
                        } else {
                            // `--->`, `]]]>`: the last two still count.
                            let repeats = matched == 2 && bytes[0] == bytes[1] && c == bytes[1]
                            matched = repeats ? 2 : c == bytes[0] ? 1 : 0
                            i += 1
                        }
                    }
                    if matched == bytes.count {
                        mode = .text
                        break
                    }
                }
                if case .skip = mode { mode = .skip(needle: needle, matched: matched) }
            }
        }
        return true
    }

    /// Scans a whole document.
    static func withinLimit(_ bytes: UnsafeBufferPointer<UInt8>, html: Bool) -> Bool {
        var scan = AttributeScan(html: html)
        return scan.feed(bytes)
    }

    @inline(__always) private func isNameStart(_ c: UInt8) -> Bool {
        (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c >= 0x80
    }
    /// `>`, a blank, `/`, a quote (or any other byte below `0`): the XML fast path stops there.
    /// Name bytes are letters, digits, `:`, `_`, `-`, `.` and UTF-8 (≥ 0x80): all but `-` and
    /// `.` (0x2D, 0x2E) above 0x2F, and those two only continue a name.
    @inline(__always) private static func endsName(_ c: UInt8) -> Bool {
        c <= 0x3E && (c == 0x3E || c <= 0x2F && c != 0x2D && c != 0x2E)
    }
    @inline(__always) private func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
    @inline(__always) private func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
}
