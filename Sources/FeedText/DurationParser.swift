/// Reads the durations feeds carry into whole seconds: `H:MM:SS`, `MM:SS` (also `75:30`),
/// plain or fractional seconds, and ISO 8601 (`PT1H2M3S`). Garbage is nil, never a crash.
public enum DurationParser {
    public static func parse(_ text: String) -> Int? {
        let s = text.trimmingWhitespace()
        guard !s.isEmpty else { return nil }
        if let seconds = wholeFields(s) { return seconds }
        if s.first == "P" || s.first == "p" { return iso8601(s) }
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            // Only the last field may carry a fraction; every field must be a plain number.
            let isLast = index == parts.count - 1
            guard !part.isEmpty, part.utf8.allSatisfy({ isDigit($0) || (isLast && $0 == UInt8(ascii: ".")) }),
                  part.utf8.filter({ $0 == UInt8(ascii: ".") }).count <= 1,
                  let value = Double(part), value.isFinite else { return nil }
            // Fields after the first are base-60 digits; the first may overflow ("75:30").
            if index > 0 && value >= 60 { return nil }
            total = total * 60 + value
        }
        guard total < 1e9 else { return nil }
        return Int(total.rounded())
    }

    /// `parse` over UTF-8 bytes: the common shapes without building a String.
    package static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if bytes.hasVisibleASCIIEnds, let seconds = wholeFields(bytes) { return seconds }
        return parse(String(decoding: bytes, as: UTF8.self))
    }

    /// `Int(text.trimmingWhitespace())` over UTF-8 bytes (episode and season numbers): plain
    /// digits without building a String.
    package static func integer(bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if bytes.count > 0, bytes.count <= 18, bytes.allSatisfy(isDigit) {
            return bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingWhitespace())
    }

    /// The common case without Doubles or substrings: one to three fields of 1–9 digits, the
    /// later ones below 60. Nil means "not this simple shape", for the general path to decide.
    static func wholeFields(_ s: String) -> Int? { s.withBytes(wholeFields) }

    static func wholeFields(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var total = 0, field = 0, digits = 0, fields = 1
        for c in b {
            if isDigit(c) {
                guard digits < 9 else { return nil }
                field = field * 10 + Int(c - 48)
                digits += 1
            } else if c == UInt8(ascii: ":") {
                guard digits > 0, fields < 3, fields == 1 || field < 60 else { return nil }
                total = total * 60 + field
                field = 0; digits = 0; fields += 1
            } else {
                return nil
            }
        }
        guard digits > 0, fields == 1 || field < 60 else { return nil }
        total = total * 60 + field
        return total < 1_000_000_000 ? total : nil
    }

    static func iso8601(_ s: String) -> Int? {
        s.uppercased().withBytes { iso8601(Scanner($0)) }
    }

    private static func iso8601(_ scanner: Scanner) -> Int? {
        var p = scanner
        guard p.eat("P") else { return nil }
        var total = 0, inTime = false, sawField = false
        while !p.atEnd {
            if p.eat("T") { inTime = true; continue }
            guard let n = p.digits(atLeast: 1, atMost: 9) else { return nil }
            if p.eat(".") { _ = p.digits(atLeast: 1) }
            guard let unit = p.peek else { return nil }
            p.advance()
            switch (unit, inTime) {
            case (UInt8(ascii: "D"), false): total += n * 86_400
            case (UInt8(ascii: "H"), true): total += n * 3600
            case (UInt8(ascii: "M"), true): total += n * 60
            case (UInt8(ascii: "S"), true): total += n
            default: return nil
            }
            sawField = true
        }
        return sawField ? total : nil
    }
}
