import FeedText
import Glibc

/// Dates on the wire: ISO 8601 in UTC with `Z` and no fraction (`2026-11-24T08:46:45Z`). The
/// iOS guide decodes with `.iso8601`, which rejects the backend's zone-less dates and fractions.
enum WireDate {
    static func string(_ seconds: Int64) -> String {
        let digits = String(unsafeUninitializedCapacity: 20) { write(seconds, into: UnsafeMutableRawBufferPointer($0)) ?? 0 }
        return digits.isEmpty ? wideYear(seconds) : digits
    }

    /// Writes the 20 bytes of `seconds`' date into `buffer` (at least 20 bytes); nil for a year
    /// outside 0...9999, which takes more. Every feed item carries two or three dates: written
    /// digit by digit, not interpolated from a dozen small strings (bench/serve).
    static func write(_ seconds: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let parts = parts(seconds), buffer.count >= 20 else { return nil }
        let year = Int(parts.tm_year) + 1900
        guard (0..<10_000).contains(year) else { return nil }
        func put(_ value: Int, at index: Int, digits: Int) {
            var value = value
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                buffer[index + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4); buffer[4] = UInt8(ascii: "-")
        put(Int(parts.tm_mon) + 1, at: 5, digits: 2); buffer[7] = UInt8(ascii: "-")
        put(Int(parts.tm_mday), at: 8, digits: 2); buffer[10] = UInt8(ascii: "T")
        put(Int(parts.tm_hour), at: 11, digits: 2); buffer[13] = UInt8(ascii: ":")
        put(Int(parts.tm_min), at: 14, digits: 2); buffer[16] = UInt8(ascii: ":")
        put(Int(parts.tm_sec), at: 17, digits: 2); buffer[19] = UInt8(ascii: "Z")
        return 20
    }

    private static func parts(_ seconds: Int64) -> tm? {
        var time = time_t(seconds)
        var parts = tm()
        return gmtime_r(&time, &parts) != nil ? parts : nil
    }

    /// A year outside 0...9999 (a feed's nonsense date): as many digits as it takes.
    private static func wideYear(_ seconds: Int64) -> String {
        guard let parts = parts(seconds) else { return "1970-01-01T00:00:00Z" }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(Int(parts.tm_year) + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// A date a client sends (`since`): ISO 8601 with or without a zone (none is UTC, as the
    /// backend reads it), or a day.
    static func parse(_ text: String) -> Int64? { DateParser.parse(text) }
}
