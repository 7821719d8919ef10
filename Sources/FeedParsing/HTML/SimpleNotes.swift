import CLibXML2
import FeedModel

/// The fast path of `NotesSanitizer`: the notes most feeds write (paragraphs, lists, headings,
/// emphasis and links, properly nested, plain entities) read in one pass without libxml2, whose
/// HTML parser cost a big feed's parse 60–70 % more CPU. It writes through the same
/// `NotesWriter`, so the allowlist, escaping and bounds are the same; and it reads only what
/// libxml2 would report the same way: anything else (a comment, an unknown element, an entity
/// without `;`, a `<p>` that libxml2 would close implicitly, a control character) answers nil
/// and the notes go through libxml2. `NotesSanitizerTests` checks both paths agree.
package enum SimpleNotes {
    /// nil: not simple, use libxml2; `.some(nil)`: simple, and nothing worth keeping.
    package static func sanitize(_ input: UnsafeBufferPointer<UInt8>, base: String?) -> String?? {
        var reader = Reader(input, writer: NotesWriter(base: base, inputSize: input.count))
        guard reader.read() else { return nil }
        return .some(reader.writer.finish())
    }

    /// The elements read here.
    enum Kind: Equatable {
        case p, ul, ol, li, heading, blockquote, hr, br, a, inline

        var isBlock: Bool { self == .p || self == .ul || self == .ol || self == .heading || self == .blockquote || self == .hr }
    }

    static let kinds: [String: Kind] = [
        "p": .p, "ul": .ul, "ol": .ol, "li": .li, "blockquote": .blockquote, "hr": .hr, "br": .br, "a": .a,
        "h1": .heading, "h2": .heading, "h3": .heading, "h4": .heading, "h5": .heading, "h6": .heading,
        "b": .inline, "strong": .inline, "i": .inline, "em": .inline, "u": .inline, "code": .inline, "span": .inline,
    ]

    struct Reader {
        let b: UnsafeBufferPointer<UInt8>
        let writer: NotesWriter
        var i = 0
        var open: [(name: String, kind: Kind)] = []
        /// Links open (an `a` in an `a` is libxml2's to mend), counted: no scan of `open` per tag.
        var links = 0

        init(_ b: UnsafeBufferPointer<UInt8>, writer: NotesWriter) {
            self.b = b
            self.writer = writer
        }

        /// False when the input is not simple.
        mutating func read() -> Bool {
            // libxml2 skips leading blanks, and text before any element gets an implied <p>.
            while i < b.count, isBlank(b[i]) { i += 1 }
            guard i == b.count || b[i] == UInt8(ascii: "<") else { return false }
            while i < b.count {
                switch b[i] {
                case UInt8(ascii: "<"):
                    guard tag() else { return false }
                case UInt8(ascii: "&"):
                    guard entity() else { return false }
                default:
                    // A run of text up to the next tag or reference, written as it is.
                    let start = i
                    while i < b.count {
                        let c = b[i]
                        if c >= 63 && c != 0xEF { i += 1; continue }   // most text: no special byte at or above `?`
                        if c == UInt8(ascii: "<") || c == UInt8(ascii: "&") { break }
                        // CR (libxml2 folds CRLF), other controls, U+FFFE and U+FFFF: libxml2's.
                        if c < 0x20 && c != 9 && c != 10 { return false }
                        if c == 0xEF, i + 2 < b.count, b[i + 1] == 0xBF, b[i + 2] >= 0xBE { return false }
                        i += 1
                    }
                    guard emit(UnsafeBufferPointer(rebasing: b[start..<i])) else { return false }
                }
            }
            return true
        }

        /// Writes text; false for text libxml2 would place otherwise (straight inside a list,
        /// where a browser moves it out).
        private func emit(_ run: UnsafeBufferPointer<UInt8>) -> Bool {
            if let top = open.last?.kind, top == .ul || top == .ol, run.contains(where: { !isBlank($0) }) { return false }
            writer.characters(run)
            return true
        }

        private func emit(_ scalar: Unicode.Scalar) -> Bool {
            var utf8 = String(Character(scalar)).utf8.map { $0 }
            return utf8.withUnsafeMutableBufferPointer { emit(UnsafeBufferPointer($0)) }
        }

        /// `&name;` (libxml2's table) or `&#N;`/`&#xH;` of a character libxml2 passes as it is.
        private mutating func entity() -> Bool {
            var j = i + 1
            guard j < b.count else { return false }
            if b[j] == UInt8(ascii: "#") {
                j += 1
                let hex = j < b.count && (b[j] | 0x20) == UInt8(ascii: "x")
                if hex { j += 1 }
                var value: UInt32 = 0
                let start = j
                while j < b.count, j - start < 8, let digit = digit(b[j], hex: hex) { value = value * (hex ? 16 : 10) + digit; j += 1 }
                guard j > start, j < b.count, b[j] == UInt8(ascii: ";"),
                      value == 9 || value == 10 || (value >= 0x20 && value < 0x7F) || (value >= 0xA0 && value <= 0x10FFFF),
                      !(0xD800...0xDFFF).contains(value), value != 0xFFFE, value != 0xFFFF,
                      let scalar = Unicode.Scalar(value) else { return false }
                i = j + 1
                return emit(scalar)
            }
            while j < b.count, j - i < 33, isAlphanumeric(b[j]) { j += 1 }
            guard j > i + 1, j < b.count, b[j] == UInt8(ascii: ";") else { return false }
            let name = String(decoding: UnsafeBufferPointer(rebasing: b[(i + 1)..<j]), as: UTF8.self)
            guard let entity = htmlEntityLookup(name), let scalar = Unicode.Scalar(entity.pointee.value) else { return false }
            i = j + 1
            return emit(scalar)
        }

        private mutating func tag() -> Bool {
            var j = i + 1
            let closing = j < b.count && b[j] == UInt8(ascii: "/")
            if closing { j += 1 }
            let nameStart = j
            while j < b.count, isAlphanumeric(b[j]) { j += 1 }
            guard j > nameStart, isLetter(b[nameStart]) else { return false }
            let raw = String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<j]), as: UTF8.self)
            let name = b[nameStart..<j].contains(where: { $0 >= 65 && $0 <= 90 }) ? raw.lowercased() : raw
            guard let kind = SimpleNotes.kinds[name] else { return false }
            if closing {
                while j < b.count, isBlank(b[j]) { j += 1 }
                guard j < b.count, b[j] == UInt8(ascii: ">"), kind != .br, kind != .hr, open.last?.name == name else { return false }
                if open.removeLast().kind == .a { links -= 1 }
                writer.end()
                i = j + 1
                return true
            }
            var href: [UInt8]?
            var selfClosing = false
            while true {
                while j < b.count, isBlank(b[j]) { j += 1 }
                guard j < b.count else { return false }
                if b[j] == UInt8(ascii: ">") { j += 1; break }
                if b[j] == UInt8(ascii: "/"), j + 1 < b.count, b[j + 1] == UInt8(ascii: ">") { selfClosing = true; j += 2; break }
                guard let attribute = attribute(&j) else { return false }
                if kind == .a, href == nil, attribute.name == "href" { href = attribute.value }
            }
            // What libxml2 would close or imply by itself is left to it.
            let top = open.last?.kind
            if kind.isBlock, let top, top != .li, top != .blockquote { return false }
            if kind == .li, top != .ul && top != .ol { return false }
            if !kind.isBlock, kind != .li, top == .ul || top == .ol { return false }
            if kind == .a, links > 0 { return false }
            // Deep nesting is libxml2's, under ParseLimits.maxDepth.
            if open.count >= ParseLimits.maxDepth { return false }
            if selfClosing, kind != .br, kind != .hr { return false }
            let rule = NotesSanitizer.rules[name] ?? .unwrap(separates: false)
            let base = writer.base
            writer.start(rule) {
                guard let href else { return nil }
                return (href + [0]).withUnsafeBufferPointer { $0.baseAddress.flatMap { NotesSanitizer.safeHref($0, base: base) } }
            }
            if kind == .br || kind == .hr { writer.end() } else { open.append((name, kind)) }
            if kind == .a { links += 1 }
            i = j
            return true
        }

        /// An attribute at `j`: its lowercased name and its value (nil for none); nil when it is
        /// not simple (a value holding `&`, `<` or a control character, an odd name).
        private func attribute(_ j: inout Int) -> (name: String, value: [UInt8]?)? {
            let start = j
            while j < b.count, !isBlank(b[j]), b[j] != UInt8(ascii: "="), b[j] != UInt8(ascii: ">"), b[j] != UInt8(ascii: "/") {
                guard isAlphanumeric(b[j]) || b[j] == UInt8(ascii: "-") || b[j] == UInt8(ascii: "_") || b[j] == UInt8(ascii: ":") else { return nil }
                j += 1
            }
            guard j > start else { return nil }
            let name = String(decoding: UnsafeBufferPointer(rebasing: b[start..<j]), as: UTF8.self).lowercased()
            var k = j
            while k < b.count, isBlank(b[k]) { k += 1 }
            guard k < b.count, b[k] == UInt8(ascii: "=") else { return (name, nil) }
            k += 1
            while k < b.count, isBlank(b[k]) { k += 1 }
            guard k < b.count else { return nil }
            var value: [UInt8] = []
            if b[k] == 34 || b[k] == 39 {
                let quote = b[k]
                k += 1
                while k < b.count, b[k] != quote { value.append(b[k]); k += 1 }
                guard k < b.count else { return nil }
                k += 1
            } else {
                while k < b.count, !isBlank(b[k]), b[k] != UInt8(ascii: ">") { value.append(b[k]); k += 1 }
                guard !value.isEmpty else { return nil }
            }
            guard !value.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || ($0 < 0x20 && $0 != 9 && $0 != 10) }) else { return nil }
            j = k
            return (name, value)
        }
    }

    @inline(__always) static func isBlank(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 }
}

@inline(__always) private func isBlank(_ c: UInt8) -> Bool { SimpleNotes.isBlank(c) }
@inline(__always) private func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
@inline(__always) private func isAlphanumeric(_ c: UInt8) -> Bool { isLetter(c) || (c >= 48 && c <= 57) }
@inline(__always) private func digit(_ c: UInt8, hex: Bool) -> UInt32? {
    if c >= 48 && c <= 57 { return UInt32(c - 48) }
    if hex, (c | 0x20) >= 97, (c | 0x20) <= 102 { return UInt32((c | 0x20) - 87) }
    return nil
}
