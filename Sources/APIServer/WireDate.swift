import FeedText
import Glibc

/// Dates on the wire: ISO 8601 in UTC with `Z` and no fraction (`2026-11-24T08:46:45Z`). The
/// iOS guide decodes with `.iso8601`, which rejects the backend's zone-less dates and fractions.
enum WireDate {
    static func string(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        let year = Int(parts.tm_year) + 1900
        guard (0..<10_000).contains(year) else {
            func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
            return "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
        }
        // Every feed item carries two or three dates: written digit by digit into one string,
        // not interpolated from a dozen small ones (bench/serve).
        return String(unsafeUninitializedCapacity: 20) { text in
            func put(_ value: Int, at index: Int, digits: Int) {
                var value = value
                for offset in stride(from: digits - 1, through: 0, by: -1) {
                    text[index + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, at: 0, digits: 4); text[4] = UInt8(ascii: "-")
            put(Int(parts.tm_mon) + 1, at: 5, digits: 2); text[7] = UInt8(ascii: "-")
            put(Int(parts.tm_mday), at: 8, digits: 2); text[10] = UInt8(ascii: "T")
            put(Int(parts.tm_hour), at: 11, digits: 2); text[13] = UInt8(ascii: ":")
            put(Int(parts.tm_min), at: 14, digits: 2); text[16] = UInt8(ascii: ":")
            put(Int(parts.tm_sec), at: 17, digits: 2); text[19] = UInt8(ascii: "Z")
            return 20
        }
    }

    /// A date a client sends (`since`): ISO 8601 with or without a zone (none is UTC, as the
    /// backend reads it), or a day.
    static func parse(_ text: String) -> Int64? { DateParser.parse(text) }
}
