import FeedText

/// How the bytes of an XML document reach libxml2.
enum SourceEncoding: Equatable {
    /// UTF-8: fed as is; a conflicting XML declaration is ignored.
    case utf8
    /// UTF-16 (BOM or `<\0`): libxml2 detects and converts it.
    case libxmlDetects
    /// ISO-8859-1 / Windows-1252: transcoded to UTF-8 here (labels mean Windows-1252 in practice).
    case windows1252
    /// Any other charset libxml2 (iconv) knows; the declaration is ignored in its favour.
    case named(String)

    /// Picks the encoding: BOM, then the HTTP charset, then the XML declaration, then UTF-8.
    /// A Latin-1 label on a document that is valid UTF-8 is a lie: `isValidUTF8` decides. So is
    /// an HTTP `charset=utf-8` on a body that is not UTF-8 but declares another encoding (a
    /// server-wide default such as Apache's `AddDefaultCharset`): the declaration wins then.
    /// `fallback` hears, in one line, when a label was overruled (for `Feed.warnings`).
    static func detect(head: ArraySlice<UInt8>, httpCharset: String?, fallback: (String) -> Void = { _ in },
                       isValidUTF8: () -> Bool) -> SourceEncoding {
        let b = Array(head.prefix(4))
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { return .utf8 }
        if b.starts(with: [0xFF, 0xFE]) || b.starts(with: [0xFE, 0xFF])
            || b.starts(with: [0x3C, 0x00]) || b.starts(with: [0x00, 0x3C]) { return .libxmlDetects }
        // A wide encoding (UTF-16/32, UCS-2/4) without a BOM and starting with a one-byte `<` is
        // a lie the bytes disprove (`charset=utf-32` on a UTF-8 feed made it unreadable): such
        // a label is ignored, and the next piece of evidence decides.
        let httpLabel = httpCharset.flatMap(normalized), declaredLabel = declaredEncoding(head).flatMap(normalized)
        let http = httpLabel.flatMap(notWide), declared = declaredLabel.flatMap(notWide)
        for wide in [httpLabel, declaredLabel].compactMap({ $0 }) where notWide(wide) == nil {
            fallback("encoding \(wide) ignored: the document starts with a one-byte '<'")
        }
        var label = (http ?? declared) ?? "utf-8"
        if let http, let declared, isUTF8(http), !isUTF8(declared), !isValidUTF8() {
            label = declared
            fallback("the server's charset=utf-8 does not fit the bytes: read as \(declared), as the document declares")
        }
        switch label {
        case "utf-8", "utf8": return .utf8
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "windows-1252", "cp1252",
             "x-cp1252", "us-ascii", "ascii":
            guard isValidUTF8() else { return .windows1252 }
            // Plain ASCII is all three: only UTF-8 beyond ASCII contradicts the label. Looked for
            // in the first 16 KiB, which both the in-memory and the streamed parse have at hand.
            if head.prefix(16 * 1024).contains(where: { $0 >= 0x80 }) {
                fallback("declared \(label) but the bytes are UTF-8: read as UTF-8")
            }
            return .utf8
        default: return .named(label)
        }
    }

    private static func isUTF8(_ label: String) -> Bool { label == "utf-8" || label == "utf8" }

    /// Nil for labels of encodings whose ASCII characters are not single bytes.
    private static func notWide(_ label: String) -> String? {
        let wide = label.hasPrefix("utf-16") || label.hasPrefix("utf16") || label.hasPrefix("utf-32") || label.hasPrefix("utf32")
            || label.hasPrefix("ucs-2") || label.hasPrefix("ucs2") || label.hasPrefix("ucs-4") || label.hasPrefix("ucs4")
            || label == "iso-10646-ucs-2" || label == "iso-10646-ucs-4" || label == "unicode"
        return wide ? nil : label
    }

    private static func normalized(_ label: String) -> String? {
        let s = label.trimmingWhitespace().trimmingQuotes().lowercased()
        return s.isEmpty ? nil : s
    }

    /// The `encoding="…"` of an `<?xml …?>` declaration at the start of the document.
    static func declaredEncoding(_ head: ArraySlice<UInt8>) -> String? {
        var bytes = Array(head.prefix(512))
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard bytes.starts(with: Array("<?xml".utf8)), let end = bytes.firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let decl = String(decoding: bytes[..<end], as: UTF8.self)
        guard let r = decl.range(of: "encoding") else { return nil }
        var rest = decl[r.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        return String(rest.prefix { $0 != quote })
    }
}

extension String {
    func trimmingQuotes() -> String {
        var s = Substring(self)
        while let f = s.first, f == "\"" || f == "'" { s = s.dropFirst() }
        while let l = s.last, l == "\"" || l == "'" { s = s.dropLast() }
        return String(s)
    }
}

/// Incremental UTF-8 validation (pre-scan for documents labelled Latin-1).
struct UTF8Validator {
    private var pending = 0      // continuation bytes still expected
    private var lowerBound: UInt8 = 0x80, upperBound: UInt8 = 0xBF
    private(set) var valid = true

    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard valid else { return }
        for c in bytes {
            if pending > 0 {
                guard c >= lowerBound && c <= upperBound else { valid = false; return }
                pending -= 1; lowerBound = 0x80; upperBound = 0xBF
                continue
            }
            if c < 0x80 { continue }
            switch c {
            case 0xC2...0xDF: pending = 1
            case 0xE0: pending = 2; lowerBound = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: pending = 2
            case 0xED: pending = 2; upperBound = 0x9F
            case 0xF0: pending = 3; lowerBound = 0x90
            case 0xF1...0xF3: pending = 3
            case 0xF4: pending = 3; upperBound = 0x8F
            default: valid = false; return
            }
        }
    }

    /// True when everything fed was valid and no sequence was left unfinished.
    var isComplete: Bool { valid && pending == 0 }

    static func isValid(_ bytes: [UInt8]) -> Bool {
        var v = UTF8Validator()
        bytes.withUnsafeBufferPointer { v.feed($0) }
        return v.isComplete
    }
}

/// Windows-1252 (and so ISO-8859-1, which real feeds use as a label for it) to UTF-8.
enum Windows1252 {
    private static let c1: [UInt16] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
        0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    static func transcode(_ input: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(input.count + input.count / 4)
        var i = 0
        while i < input.count {
            // Copy the ASCII run up to the next high byte in one go.
            var j = i
            if let base = input.baseAddress {
                while j + 8 <= input.count, ByteWords.load(base + j) & ByteWords.highs == 0 { j += 8 }
            }
            while j < input.count, input[j] < 0x80 { j += 1 }
            if j > i { out.append(contentsOf: UnsafeBufferPointer(rebasing: input[i..<j])) }
            guard j < input.count else { break }
            let c = input[j]
            i = j + 1
            let scalar = c < 0xA0 ? UInt32(c1[Int(c - 0x80)]) : UInt32(c)
            if scalar < 0x800 {
                out.append(UInt8(0xC0 | (scalar >> 6))); out.append(UInt8(0x80 | (scalar & 0x3F)))
            } else {
                out.append(UInt8(0xE0 | (scalar >> 12))); out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
                out.append(UInt8(0x80 | (scalar & 0x3F)))
            }
        }
    }
}
