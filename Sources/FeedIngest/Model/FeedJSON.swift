/// The `feedctl parse --json` contract (README): keys exactly as documented, null for missing
/// values, Unix seconds for dates. Written piecewise so a caller can stream: `begin`, one
/// `item` per item as it arrives, then `end` with the channel fields (JSON key order is not
/// significant).
public enum FeedJSON {
    /// The opening of the document, up to the items array.
    public static func begin(into out: inout [UInt8]) {
        out.append(static: "{\"items\": [")
    }

    /// One item; `index` is its position (a comma precedes all but the first).
    public static func item(_ item: Item, index: Int, into out: inout [UInt8]) {
        func most(_ s: String?) -> Int { JSONWriter.worstCase(s) }
        // Keys and punctuation, up to 8 numbers, then the strings.
        let bound = 512 + 24 * 8 + most(item.id) + most(item.guid) + most(item.title) + most(item.url)
            + most(item.enclosure?.url) + most(item.enclosure?.type) + most(item.thumbnail) + most(item.author)
            + most(item.description) + most(item.chaptersURL) + most(item.transcriptURL)
        JSONWriter.reserving(bound, in: &out) { w in
            if index > 0 { w.put(byte: 44) }
            // Each key is written with its punctuation in one literal.
            w.put("\n{\"id\": "); w.quote(item.id)
            w.put(", \"guid\": "); w.value(item.guid)
            w.put(", \"title\": "); w.quote(item.title)
            w.put(", \"url\": "); w.value(item.url)
            w.put(", \"published\": "); w.value(item.published)
            w.put(", \"updated\": "); w.value(item.updated)
            w.put(", \"duration\": "); w.value(item.duration.map(Int64.init))
            if let e = item.enclosure {
                w.put(", \"enclosure\": {\"url\": "); w.quote(e.url)
                w.put(", \"type\": "); w.value(e.type)
                w.put(", \"length\": "); w.value(e.length)
                w.put(byte: UInt8(ascii: "}"))
            } else {
                w.put(", \"enclosure\": null")
            }
            w.put(", \"thumbnail\": "); w.value(item.thumbnail)
            w.put(", \"author\": "); w.value(item.author)
            w.put(", \"description\": "); w.value(item.description)
            w.put(", \"views\": "); w.value(item.views)
            w.put(item.isShort ? ", \"is_short\": true" : ", \"is_short\": false")
            w.put(", \"episode\": "); w.value(item.episode.map(Int64.init))
            w.put(", \"season\": "); w.value(item.season.map(Int64.init))
            w.put(", \"chapters_url\": "); w.value(item.chaptersURL)
            w.put(", \"transcript_url\": "); w.value(item.transcriptURL)
            w.put(byte: UInt8(ascii: "}"))
        }
    }

    /// Closes the items array and writes the channel fields.
    public static func end(_ feed: Feed, into out: inout [UInt8]) {
        out.append(static: "\n], ")
        var o = ObjectWriter()
        o.field("kind", feed.kind.rawValue, &out)
        o.field("title", feed.title, &out)
        o.field("link", feed.link, &out)
        o.field("description", feed.description, &out)
        o.field("author", feed.author, &out)
        o.field("image", feed.image, &out)
        o.field("language", feed.language, &out)
        out.append(contentsOf: [UInt8(ascii: "}"), 10])
    }

    /// The whole document for a feed whose items are in memory.
    public static func document(_ feed: Feed) -> String {
        var out: [UInt8] = []
        begin(into: &out)
        for (i, item) in feed.items.enumerated() { self.item(item, index: i, into: &out) }
        end(feed, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; other
    /// characters stay UTF-8.
    public static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { b in
            // Copy runs that need no escaping in one go.
            var runStart = 0
            var i = 0
            guard let base = b.baseAddress else { return }
            while i < b.count {
                if i + 8 <= b.count, ByteWords.plainJSON(ByteWords.load(base + i)) { i += 8; continue }
                let c = b[i]
                i += 1
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<(i - 1)]))
                runStart = i
                switch c {
                case UInt8(ascii: "\""): out.append(92); out.append(34)
                case UInt8(ascii: "\\"): out.append(92); out.append(92)
                case 0x0A: out.append(92); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(92); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(92); out.append(UInt8(ascii: "t"))
                default:
                    out.append(static: "\\u00")
                    out.append(hexDigits[Int(c >> 4)]); out.append(hexDigits[Int(c & 15)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<b.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Decimal digits of `v`, as `String(v)` spells them.
    static func append(_ v: Int64, into out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // up to 20 digits, reversed
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[count] = UInt8(48 + m % 10)
                m /= 10
                count += 1
            } while m > 0
            while count > 0 { count -= 1; out.append(d[count]) }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

/// Appends `"key": value` pairs with the right commas.
private struct ObjectWriter {
    private var first = true

    func open(_ out: inout [UInt8]) { out.append(UInt8(ascii: "{")) }

    mutating func key(_ k: StaticString, _ out: inout [UInt8]) {
        out.append(static: first ? "\"" : ", \"")
        first = false
        out.append(static: k)
        out.append(static: "\": ")
    }

    mutating func field(_ k: StaticString, _ v: String?, _ out: inout [UInt8]) {
        key(k, &out)
        if let v { FeedJSON.quote(v, into: &out) } else { out.append(static: "null") }
    }

    mutating func field(_ k: StaticString, _ v: Int64?, _ out: inout [UInt8]) {
        key(k, &out)
        if let v { FeedJSON.append(v, into: &out) } else { out.append(static: "null") }
    }
}

extension Array where Element == UInt8 {
    /// Appends a literal's bytes without building an intermediate array.
    @inline(__always)
    mutating func append(static s: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}
