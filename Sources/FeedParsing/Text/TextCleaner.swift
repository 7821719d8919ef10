import FeedText
import CLibXML2
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns the HTML that feeds put in descriptions and titles into one line of plain text:
/// tags dropped (script/style/comments with their content), entities decoded, whitespace
/// (including NBSP) collapsed, trimmed. Never fails; empty results are nil.
public enum TextCleaner {
    public static func plainText(fromHTML html: String) -> String? {
        html.withBytes { bytes -> String? in
            // Most titles and many descriptions hold no markup at all: only whitespace to fix.
            guard let base = bytes.baseAddress,
                  memchr(base, Int32(UInt8(ascii: "<")), bytes.count) != nil
                    || memchr(base, Int32(UInt8(ascii: "&")), bytes.count) != nil else {
                return isCollapsed(bytes) ? html : collapse(bytes)
            }
            // Stripped, then collapsed in place, in the result's own storage: markup and
            // entities never take fewer bytes than the text they stand for, nor does collapsing
            // (`BufferSink` checks every write all the same).
            let result = String(unsafeUninitializedCapacity: max(bytes.count, 1)) { out -> Int in
                guard let outBase = out.baseAddress else { return 0 }
                var sink = BufferSink(base: outBase, capacity: out.count)
                stripMarkup(bytes, into: &sink)
                return collapse(from: UnsafePointer(outBase), count: sink.count, to: outBase)
            }
            return result.isEmpty ? nil : result
        }
    }

    /// Tags, comments and script/style content dropped, entities decoded; whitespace untouched.
    static func stripMarkup<Sink: ByteSink>(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout Sink) {
        var i = 0
        let n = bytes.count
        var inCDATA = false
        while i < n {
            let c = bytes[i]
            if inCDATA, c == UInt8(ascii: "]"), starts(bytes, at: i, with: "]]>") {
                inCDATA = false
                i += 3
                continue
            }
            if c == UInt8(ascii: "<"), i + 1 < n {
                let next = bytes[i + 1]
                if next == UInt8(ascii: "!") {
                    if starts(bytes, at: i, with: "<![CDATA[") {
                        // Double-wrapped show notes leave a literal CDATA section holding HTML:
                        // its markers go, its content is read like the rest.
                        inCDATA = true
                        i += 9
                    } else if starts(bytes, at: i, with: "<!--") {
                        // A comment renders as nothing: "one<!-- -->two" is one word.
                        i = find("-->", in: bytes, from: i + 4).map { $0 + 3 } ?? n
                    } else {
                        // Doctype or other declaration.
                        i = find(">", in: bytes, from: i).map { $0 + 1 } ?? n
                        out.append(32)
                    }
                    continue
                }
                if isLetter(next) || next == UInt8(ascii: "/") {
                    let nameStart = next == UInt8(ascii: "/") ? i + 2 : i + 1
                    var j = nameStart
                    while j < n, isLetter(bytes[j]) || isDigit(bytes[j]) { j += 1 }
                    let name = tagKey(bytes, nameStart, j)
                    let end = tagEnd(bytes, from: j)
                    if next != UInt8(ascii: "/") && (name == scriptKey || name == styleKey) {
                        // Skip the element's content up to its closing tag.
                        let closing: StaticString = name == scriptKey ? "</script" : "</style"
                        i = findCaseless(closing, in: bytes, from: end).map { tagEnd(bytes, from: $0 + closing.utf8CodeUnitCount) } ?? n
                    } else {
                        i = end
                    }
                    if !isInline(name) { out.append(32) }
                    continue
                }
            }
            if c == UInt8(ascii: "&"), let length = appendEntity(bytes, at: i, into: &out) {
                i += length
                continue
            }
            // Copy the run up to the next markup character in one go.
            var j = i + 1
            if let base = bytes.baseAddress {
                while j + 8 <= n {
                    let w = ByteWords.load(base + j)
                    if ByteWords.matches(w, UInt8(ascii: "<")) | ByteWords.matches(w, UInt8(ascii: "&")) != 0 { break }
                    j += 8
                }
            }
            while j < n, bytes[j] != UInt8(ascii: "<"), bytes[j] != UInt8(ascii: "&") { j += 1 }
            out.append(UnsafeBufferPointer(rebasing: bytes[i..<j]))
            i = j
        }
    }

    /// Collapses every run of whitespace (NBSP included) to one space and trims; nil when empty.
    /// Works on UTF-8 bytes: Unicode property lookups per scalar dominated parse time.
    public static func collapse(_ text: String) -> String? {
        text.withBytes { b in
            if b.isEmpty { return nil }
            return isCollapsed(b) ? text : collapse(b)
        }
    }

    /// True when `collapse` would return the text unchanged: no whitespace but single inner
    /// spaces (the usual title or author), so no new String needs to be built.
    static func isCollapsed(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var previousSpace = true   // a leading space is a change
        var i = 0
        guard let base = b.baseAddress else { return true }
        while i < b.count {
            if i + 8 <= b.count, ByteWords.collapsedASCII(ByteWords.load(base + i), spaceFirst: !previousSpace) {
                previousSpace = false; i += 8; continue
            }
            let c = b[i]
            if c > 32 && c < 0x80 { previousSpace = false; i += 1; continue }
            if c == 32 {
                if previousSpace { return false }
                previousSpace = true
            } else {
                if whitespaceLength(b, at: i) > 0 { return false }
                previousSpace = false
            }
            i += 1
        }
        return !previousSpace
    }

    static func collapse(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        // Writes straight into the String's storage: the result is never longer than the input.
        let result = String(unsafeUninitializedCapacity: max(b.count, 1)) { out -> Int in
            guard let inBase = b.baseAddress, let outBase = out.baseAddress else { return 0 }
            return collapse(from: inBase, count: b.count, to: outBase)
        }
        return result.isEmpty ? nil : result
    }

    /// Collapses `count` bytes at `from` into `to`, returning the bytes written. `to` may be
    /// `from` itself (collapsing in place): it never writes past the byte it has just read.
    static func collapse(from inBase: UnsafePointer<UInt8>, count total: Int, to outBase: UnsafeMutablePointer<UInt8>) -> Int {
        let b = UnsafeBufferPointer(start: inBase, count: total)
        var count = 0
        var pendingSpace = false
        var i = 0
        while i < b.count {
            // A word of text with single inner spaces comes out as it went in.
            if !pendingSpace, i + 8 <= b.count, ByteWords.collapsedASCII(ByteWords.load(inBase + i), spaceFirst: count > 0) {
                if UnsafePointer(outBase + count) != inBase + i { memmove(outBase + count, inBase + i, 8) }
                count += 8; i += 8
                continue
            }
            let c = b[i]
            if c > 32 && c < 0x80 {                      // fast path: visible ASCII
                if pendingSpace { outBase[count] = 32; count += 1; pendingSpace = false }
                outBase[count] = c; count += 1; i += 1
                continue
            }
            let n = whitespaceLength(b, at: i)
            if n > 0 {
                pendingSpace = count > 0
                i += n
                continue
            }
            if pendingSpace { outBase[count] = 32; count += 1; pendingSpace = false }
            outBase[count] = c; count += 1; i += 1
        }
        return count
    }

    /// The byte length of the White_Space character (or NUL) at `i`, else 0.
    @inline(__always)
    static func whitespaceLength(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let c = b[i]
        if c < 0x80 { return c == 32 || (c >= 9 && c <= 13) || c == 0 ? 1 : 0 }
        guard c == 0xC2 || c == 0xE1 || c == 0xE2 || c == 0xE3 else { return 0 }
        let c1: UInt8 = i + 1 < b.count ? b[i + 1] : 0
        if c == 0xC2 { return c1 == 0x85 || c1 == 0xA0 ? 2 : 0 }
        let c2: UInt8 = i + 2 < b.count ? b[i + 2] : 0
        switch (c, c1) {
        case (0xE1, 0x9A): return c2 == 0x80 ? 3 : 0                                    // U+1680
        case (0xE2, 0x80): return (0x80...0x8A).contains(c2) || c2 == 0xA8 || c2 == 0xA9 || c2 == 0xAF ? 3 : 0
        case (0xE2, 0x81): return c2 == 0x9F ? 3 : 0                                    // U+205F
        case (0xE3, 0x80): return c2 == 0x80 ? 3 : 0                                    // U+3000
        default: return 0
        }
    }

    /// `collapse` for pure-ASCII text, byte by byte (Unicode properties are slow to query);
    /// nil when the text is not ASCII.
    static func collapseASCII(_ text: String) -> String? {
        var out = [UInt8]()
        var pendingSpace = false
        for c in text.utf8 {
            guard c < 0x80 else { return nil }
            // ASCII White_Space (TAB…CR, space), and NUL, as in the general path.
            if c == 32 || (9...13).contains(c) || c == 0 {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(32); pendingSpace = false }
            out.append(c)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes HTML character references left in text (`&amp;`, `&#8217;`, `&eacute;`).
    public static func decodeEntities(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { bytes -> String in
            guard var amp = firstIndex(of: UInt8(ascii: "&"), in: bytes, from: 0) else { return text }
            var out = [UInt8]()
            out.reserveCapacity(bytes.count)
            var i = 0
            while true {
                // Copy up to the next `&` in one go, then decode the reference there (if it is one).
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<amp]))
                if let length = appendEntity(bytes, at: amp, into: &out) {
                    i = amp + length
                } else {
                    out.append(UInt8(ascii: "&"))
                    i = amp + 1
                }
                guard let next = firstIndex(of: UInt8(ascii: "&"), in: bytes, from: i) else { break }
                amp = next
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<bytes.count]))
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The index of the first `byte` at or after `start` (memchr: vector speed).
    static func firstIndex(of byte: UInt8, in b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < b.count, let base = b.baseAddress, let hit = memchr(base + start, Int32(byte), b.count - start) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
    }

    // Tags that do not separate words ("fan<b>tastic</b>" stays one word).
    static let inlineTags: [String] = [
        "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd",
        "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var",
    ]
    /// Sorted, for a binary search without hashing.
    static let inlineTagKeys: [UInt64] = inlineTags.map { key(Array($0.utf8)) }.sorted()
    static let scriptKey = key(Array("script".utf8))
    static let styleKey = key(Array("style".utf8))

    static func isInline(_ name: UInt64) -> Bool {
        var lo = 0, hi = inlineTagKeys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if inlineTagKeys[mid] < name { lo = mid + 1 } else { hi = mid }
        }
        return lo < inlineTagKeys.count && inlineTagKeys[lo] == name
    }

    /// A tag name of up to 8 ASCII characters, lowercased, packed in a UInt64 (0 when longer):
    /// compares names without building Strings.
    static func tagKey(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt64 {
        guard end - start <= 8 else { return 0 }
        var k: UInt64 = 0
        for i in start..<end { k = k << 8 | UInt64(b[i] | 0x20) }
        return k
    }

    private static func key(_ name: [UInt8]) -> UInt64 { name.withUnsafeBufferPointer { tagKey($0, 0, $0.count) } }

    /// The index just past the `>` that ends a tag, honouring quoted attribute values.
    static func tagEnd(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        // The first `>` outside a quoted value; memchr jumps from quote to quote (`<a href="…">`
        // is the long tag of show notes).
        var i = start
        while i < b.count {
            if b[i] == UInt8(ascii: ">") { return i + 1 }
            guard let gt = firstIndex(of: UInt8(ascii: ">"), in: b, from: i) else { return b.count }
            let double = firstIndex(of: 34, in: UnsafeBufferPointer(rebasing: b[..<gt]), from: i)
            let single = firstIndex(of: 39, in: UnsafeBufferPointer(rebasing: b[..<(double ?? gt)]), from: i)
            guard let open = single ?? double else { return gt + 1 }
            guard let close = firstIndex(of: b[open], in: b, from: open + 1) else { return b.count }
            i = close + 1
        }
        return b.count
    }

    static func starts(_ hay: UnsafeBufferPointer<UInt8>, at i: Int, with needle: StaticString) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard i + count <= hay.count, let base = hay.baseAddress else { return false }
        return memcmp(base + i, needle.utf8Start, count) == 0
    }

    static func find(_ needle: StaticString, in hay: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = start
        let first = needle.utf8Start.pointee
        while i + needle.utf8CodeUnitCount <= hay.count {
            if hay[i] == first && starts(hay, at: i, with: needle) { return i }
            i += 1
        }
        return nil
    }

    static func findCaseless(_ needle: StaticString, in hay: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let n = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        var i = start
        outer: while i + n.count <= hay.count {
            for k in 0..<n.count where (hay[i + k] | 0x20) != (n[k] | 0x20) { i += 1; continue outer }
            return i
        }
        return nil
    }

    /// A character reference at `i` (which holds `&`): appends the UTF-8 it stands for and
    /// returns its length, or nil (nothing appended) when it is not one.
    static func appendEntity<Sink: ByteSink>(_ b: UnsafeBufferPointer<UInt8>, at i: Int, into out: inout Sink) -> Int? {
        var j = i + 1
        let limit = min(b.count, i + 34)
        if j < limit, b[j] == UInt8(ascii: "#") {
            j += 1
            var hex = false
            if j < limit, b[j] | 0x20 == UInt8(ascii: "x") { hex = true; j += 1 }
            var value: UInt32 = 0
            let digitsStart = j
            while j < limit {
                let c = b[j]
                if isDigit(c) { value = value &* (hex ? 16 : 10) &+ UInt32(c - 48) }
                else if hex, (c | 0x20) >= 97, (c | 0x20) <= 102 { value = value &* 16 &+ UInt32((c | 0x20) - 87) }
                else { break }
                j += 1
                if value > 0x10FFFF { return nil }
            }
            guard j > digitsStart else { return nil }
            let length = (j < b.count && b[j] == UInt8(ascii: ";")) ? j - i + 1 : j - i
            appendUTF8(Unicode.Scalar(windows1252(value)) ?? "\u{FFFD}", to: &out)
            return length
        }
        while j < limit, isLetter(b[j]) || isDigit(b[j]) { j += 1 }
        guard j > i + 1, j < b.count, b[j] == UInt8(ascii: ";") else { return nil }
        let name = UnsafeBufferPointer(rebasing: b[(i + 1)..<j])
        // The references feeds use most, without a lookup (same answers as libxml2's table).
        switch name.count {
        case 2 where name[1] == UInt8(ascii: "t") && name[0] == UInt8(ascii: "l"): out.append(60); return 4
        case 2 where name[1] == UInt8(ascii: "t") && name[0] == UInt8(ascii: "g"): out.append(62); return 4
        case 3 where name[0] == UInt8(ascii: "a") && name[1] == UInt8(ascii: "m") && name[2] == UInt8(ascii: "p"):
            out.append(38); return 5
        case 4 where starts(b, at: i + 1, with: "quot"): out.append(34); return 6
        case 4 where starts(b, at: i + 1, with: "apos"): out.append(39); return 6
        default: break
        }
        let string = String(decoding: name, as: UTF8.self)
        guard let entity = htmlEntityLookup(string), let scalar = Unicode.Scalar(entity.pointee.value) else { return nil }
        appendUTF8(scalar, to: &out)
        return j - i + 1
    }

    /// The same bytes as `Array(String(Character(scalar)).utf8)`, without the Strings.
    static func appendUTF8<Sink: ByteSink>(_ scalar: Unicode.Scalar, to out: inout Sink) {
        let v = scalar.value
        switch v {
        case ..<0x80: out.append(UInt8(v))
        case ..<0x800: out.append(UInt8(0xC0 | v >> 6)); out.append(UInt8(0x80 | v & 0x3F))
        case ..<0x10000:
            out.append(UInt8(0xE0 | v >> 12)); out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        default:
            out.append(UInt8(0xF0 | v >> 18)); out.append(UInt8(0x80 | v >> 12 & 0x3F))
            out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        }
    }

    /// Numeric references in 0x80–0x9F mean Windows-1252 characters in practice (HTML5 rule).
    static func windows1252(_ v: UInt32) -> UInt32 {
        guard (0x80...0x9F).contains(v) else { return v == 0 ? 0xFFFD : v }
        return c1Table[Int(v - 0x80)]
    }

    private static let c1Table: [UInt32] = [0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030,
                               0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C,
                               0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153,
                               0x9D, 0x017E, 0x0178]
}

/// Where the text loops write bytes: a growing Array, or memory of a fixed size.
protocol ByteSink {
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: ByteSink where Element == UInt8 {
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// Writes into `capacity` bytes at `base` (a String's storage while it is initialized),
/// checking every write against the end.
struct BufferSink: ByteSink {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var count = 0

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    mutating func append(_ byte: UInt8) {
        precondition(count < capacity, "BufferSink overflow")
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= capacity - count, "BufferSink overflow")
        if let from = bytes.baseAddress { (base + count).update(from: from, count: bytes.count) }
        count += bytes.count
    }
}
