/// Parses the dates feeds carry into Unix seconds (UTC): RFC 822/1123 and its real-world
/// variants, and RFC 3339 / ISO 8601 / W3C-DTF. Anything it cannot read is nil, never "now".
public enum DateParser {
    public static func parse(_ text: String) -> Int64? {
        text.trimmingWhitespace().withBytes(parseTrimmed)
    }

    /// `parse` over UTF-8 bytes: no String unless there is whitespace to trim first.
    package static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.hasVisibleASCIIEnds else { return parse(String(decoding: bytes, as: UTF8.self)) }
        return parseTrimmed(bytes)
    }

    private static func parseTrimmed(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let first = b.first else { return nil }
        if first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"), let t = iso8601(Scanner(b)) { return t }
        return rfc822(Scanner(b))
    }

    // MARK: RFC 3339 / ISO 8601 / W3C-DTF

    /// `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, then optionally `T`/space `hh:mm[:ss[.fff]]` and a zone
    /// (`Z`, `±hh:mm`, `±hhmm`, `±hh`). A missing zone is UTC.
    static func iso8601(_ s: String) -> Int64? {
        s.withBytes { iso8601(Scanner($0)) }
    }

    private static func iso8601(_ scanner: Scanner) -> Int64? {
        var p = scanner
        guard let year = p.digits(exactly: 4) else { return nil }
        var month = 1, day = 1, hour = 0, minute = 0, second = 0
        if p.eat("-") {
            guard let m = p.digits(exactly: 2) else { return nil }
            month = m
            if p.eat("-") {
                guard let d = p.digits(exactly: 2) else { return nil }
                day = d
            }
        } else if let m = p.digits(exactly: 2) {          // basic format: 20261001
            month = m
            guard let d = p.digits(exactly: 2) else { return nil }
            day = d
        }
        var offset = 0
        if p.eat("T") || p.eat("t") || (p.peek == UInt8(ascii: " ") && p.peek(1).map(isDigit) == true && p.eat(" ")) {
            guard let h = p.digits(exactly: 2) else { return nil }
            hour = h
            _ = p.eat(":")
            guard let mi = p.digits(exactly: 2) else { return nil }
            minute = mi
            if p.eat(":") || p.peek.map(isDigit) == true {
                guard let se = p.digits(exactly: 2) else { return nil }
                second = se
                if p.eat(".") || p.eat(",") { _ = p.digits(atLeast: 1) }   // fraction: dropped
            }
            p.skipSpaces()
            if p.eat("Z") || p.eat("z") {
            } else if let sign = p.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                p.advance()
                guard let oh = p.digits(exactly: 2) else { return nil }
                _ = p.eat(":")
                let om = p.digits(exactly: 2) ?? 0
                offset = (oh * 3600 + om * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
            } else if !p.atEnd, let zone = p.letterKey(), let z = namedZone(zone) {
                offset = z
            }
        }
        p.skipSpaces()
        guard p.atEnd else { return nil }
        return epoch(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
    }

    // MARK: RFC 822 / 1123 and variants

    /// `[Wkd,] D Mon YY[YY] hh:mm[:ss] [zone]`; weekday, seconds and zone optional.
    static func rfc822(_ s: String) -> Int64? {
        s.withBytes { rfc822(Scanner($0)) }
    }

    private static func rfc822(_ scanner: Scanner) -> Int64? {
        var p = scanner
        p.skipSpaces()
        // Optional weekday ("Wed," / "Wednesday," / "Wed").
        if let w = p.peek, isLetter(w) {
            let save = p
            _ = p.letters()
            if !p.eat(",") { p.skipSpaces(); if p.peek.map(isDigit) != true { p = save } }
            p.skipSpaces()
        }
        guard let day = p.digits(atLeast: 1, atMost: 2) else { return nil }
        p.skipSeparators()
        guard let monthName = p.letterKey(), let month = month(monthName) else { return nil }
        p.skipSeparators()
        guard let y = p.digits(atLeast: 2, atMost: 4) else { return nil }
        var year = y
        if y < 100 { year = y < 50 ? 2000 + y : 1900 + y }
        p.skipSpaces()
        var hour = 0, minute = 0, second = 0
        if let h = p.digits(atLeast: 1, atMost: 2) {
            hour = h
            guard p.eat(":"), let mi = p.digits(exactly: 2) else { return nil }
            minute = mi
            if p.eat(":") {
                guard let se = p.digits(exactly: 2) else { return nil }
                second = se
            }
        }
        p.skipSpaces()
        var offset = 0
        if let sign = p.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            p.advance()
            guard let hhmm = p.digits(atLeast: 2, atMost: 4) else { return nil }
            var hours = hhmm, minutes = 0
            if hhmm >= 100 { hours = hhmm / 100; minutes = hhmm % 100 }
            else if p.eat(":"), let m = p.digits(exactly: 2) { minutes = m }
            offset = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else if let zone = p.letterKey() {
            // Unknown alphabetic zones (military letters, "UTC+…" oddities) are read as UTC.
            offset = namedZone(zone) ?? 0
        }
        return epoch(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
    }

    /// The month of a name's first three letters, any case ("Sept", "OCTOBER").
    static func month(_ name: LetterKey) -> Int? {
        guard name.count >= 3 else { return nil }
        let first3 = name.lowercased >> (8 * UInt64(min(name.count, 8) - 3))
        return monthKeys.firstIndex(of: first3).map { $0 + 1 }
    }

    static func namedZone(_ name: LetterKey) -> Int? {
        guard name.count <= 8 else { return nil }
        return zoneKeys.first { $0.key == name.uppercased }?.offset
    }

    private static let monthKeys: [UInt64] = months.sorted { $0.value < $1.value }.map { LetterKey($0.key).lowercased }
    private static let zoneKeys: [(key: UInt64, offset: Int)] = namedZones.map { (LetterKey($0.key).uppercased, $0.value) }

    static let months: [String: Int] = [
        "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
        "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
    ]
    static let namedZones: [String: Int] = [
        "GMT": 0, "UT": 0, "UTC": 0, "Z": 0,
        "EST": -5 * 3600, "EDT": -4 * 3600, "CST": -6 * 3600, "CDT": -5 * 3600,
        "MST": -7 * 3600, "MDT": -6 * 3600, "PST": -8 * 3600, "PDT": -7 * 3600,
        "BST": 3600, "CET": 3600, "CEST": 7200, "IST": 19800, "JST": 9 * 3600, "AEST": 10 * 3600,
    ]

    /// Days-from-civil (Howard Hinnant's algorithm), validated.
    static func epoch(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int) -> Int64? {
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              (0...23).contains(hour) || (hour == 24 && minute == 0 && second == 0),   // 24:00 is midnight
              (0...59).contains(minute), (0...60).contains(second),
              year >= 1000, year <= 9999 else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offset)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

@inlinable @inline(__always) package func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
@inlinable @inline(__always) package func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 97 && (c | 0x20) <= 122 }
/// An ASCII letter in lower case; any other byte as it is (case-blind matching of protocol words).
@inlinable @inline(__always) package func asciiLowercased(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }

/// A tiny forward-only cursor over UTF-8 bytes for the date and duration grammars.
/// It reads the bytes in place: use it inside `withBytes`, never beyond.
struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }
    var atEnd: Bool { i >= bytes.count }
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }
    func peek(_ k: Int) -> UInt8? { i + k < bytes.count ? bytes[i + k] : nil }
    mutating func advance() { i += 1 }
    mutating func eat(_ c: Unicode.Scalar) -> Bool {
        if peek == UInt8(c.value) { i += 1; return true }
        return false
    }
    mutating func skipSpaces() { while let c = peek, c == 32 || c == 9 || c == 10 || c == 13 { i += 1 } }
    mutating func skipSeparators() { while let c = peek, c == 32 || c == 9 || c == 45 || c == 44 { i += 1 } }
    mutating func digits(exactly n: Int) -> Int? { digits(atLeast: n, atMost: n) }
    mutating func digits(atLeast lo: Int, atMost hi: Int = 18) -> Int? {
        var v = 0, n = 0
        while n < hi, let c = peek, isDigit(c) { v = v * 10 + Int(c - 48); n += 1; i += 1 }
        if n < lo { i -= n; return nil }
        return v
    }
    /// The run of ASCII letters here, packed for comparison without building a String.
    mutating func letterKey() -> LetterKey? {
        let start = i
        var key = LetterKey()
        while let c = peek, isLetter(c) { key.add(c); i += 1 }
        return i > start ? key : nil
    }

    mutating func letters() -> String? {
        let start = i
        while let c = peek, isLetter(c) { i += 1 }
        guard i > start else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    }
}

extension String {
    /// Trims ASCII and Unicode whitespace (including NBSP) from both ends.
    @inlinable
    package func trimmingWhitespace() -> String {
        // Fast path: nothing to trim when both ends are visible ASCII (the common case).
        if withBytes({ $0.hasVisibleASCIIEnds }) { return self }
        return trimmingWhitespaceSlowly()
    }

    @usableFromInline
    func trimmingWhitespaceSlowly() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        if start == scalars.startIndex && end == scalars.index(before: scalars.endIndex) { return self }
        return String(scalars[start...end])
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Both ends are visible ASCII: `trimmingWhitespace` would leave the text as it is.
    @inlinable
    package var hasVisibleASCIIEnds: Bool {
        guard let f = first, let l = last else { return false }
        return f > 32 && f < 128 && l > 32 && l < 128
    }
}

/// Up to the first 8 ASCII letters of a word, lowercased and uppercased, one byte each (the
/// first letter highest), and the word's full length.
struct LetterKey {
    var lowercased: UInt64 = 0
    var uppercased: UInt64 = 0
    var count = 0

    init() {}

    init(_ word: String) { for c in word.utf8 { add(c) } }

    mutating func add(_ c: UInt8) {
        if count < 8 {
            lowercased = lowercased << 8 | UInt64(c | 0x20)
            uppercased = uppercased << 8 | UInt64(c & ~0x20)
        }
        count += 1
    }
}
