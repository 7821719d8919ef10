/// JSON's grammar (RFC 8259), checked without building values: whether a body that
/// `JSONDecoder` refused was JSON at all (a 400) or JSON with a value the route does not take
/// (a 422). Foundation's decoder says "not valid JSON" for a number that does not fit its field
/// (`1.5` or `1e400` for a whole number), with no path, as it does for a body cut in half.
/// Also finds the number to blame: the first that is no whole number in `Int64`'s range.
struct JSONSyntax {
    /// Past this nesting a body is refused as malformed (the decoder's own limit is 512).
    static let maxDepth = 512

    /// Whether `bytes` are one JSON value, and the path and text of the first number in it that
    /// is not a whole number within `Int64` (`a.b[2]`).
    static func check(_ bytes: some Collection<UInt8>) -> (valid: Bool, oddNumber: (path: String, text: String)?) {
        var scanner = JSONSyntax(bytes: Array(bytes))
        scanner.skipSpace()
        let valid = scanner.value(depth: 0) && { scanner.skipSpace(); return scanner.index == scanner.bytes.count }()
        return (valid, scanner.oddNumber)
    }

    private let bytes: [UInt8]
    private var index = 0
    private var path: [String] = []
    private var oddNumber: (path: String, text: String)?

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func literal(_ word: String) -> Bool {
        for byte in word.utf8 {
            guard current == byte else { return false }
            index += 1
        }
        return true
    }

    private mutating func value(depth: Int) -> Bool {
        guard depth < Self.maxDepth, let byte = current else { return false }
        switch byte {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    private mutating func object(depth: Int) -> Bool {
        index += 1
        skipSpace()
        if current == UInt8(ascii: "}") { index += 1; return true }
        while true {
            guard current == UInt8(ascii: "\""), let key = string() else { return false }
            skipSpace()
            guard current == UInt8(ascii: ":") else { return false }
            index += 1
            skipSpace()
            path.append(path.isEmpty ? key : "." + key)
            guard value(depth: depth) else { return false }
            path.removeLast()
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1; skipSpace()
            case UInt8(ascii: "}"): index += 1; return true
            default: return false
            }
        }
    }

    private mutating func array(depth: Int) -> Bool {
        index += 1
        skipSpace()
        if current == UInt8(ascii: "]") { index += 1; return true }
        var position = 0
        while true {
            path.append("[\(position)]")
            guard value(depth: depth) else { return false }
            path.removeLast()
            position += 1
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1; skipSpace()
            case UInt8(ascii: "]"): index += 1; return true
            default: return false
            }
        }
    }

    /// A string's text (escapes kept as written: only keys are read, for the path).
    private mutating func string() -> String? {
        index += 1
        let start = index
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard let escaped = current else { return nil }
                if escaped == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        index += 1
                        guard let hex = current, hex.isHexDigit else { return nil }
                    }
                } else if !"\"\\/bfnrt".utf8.contains(escaped) {
                    return nil
                }
                index += 1
            case 0..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() -> Bool {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first.isDigit else { return false }
        index += 1
        if first != UInt8(ascii: "0") { while current?.isDigit == true { index += 1 } }
        var whole = true
        if current == UInt8(ascii: ".") {
            whole = false
            index += 1
            guard current?.isDigit == true else { return false }
            while current?.isDigit == true { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            whole = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard current?.isDigit == true else { return false }
            while current?.isDigit == true { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if oddNumber == nil, !whole || Int64(text) == nil { oddNumber = (path.joined(), text) }
        return true
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (0x30...0x39).contains(self) }
    fileprivate var isHexDigit: Bool { isDigit || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}
