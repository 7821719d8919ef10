import FeedText
import Glibc

/// Dates on the wire: ISO 8601 in UTC with `Z` and no fraction (`2026-11-24T08:46:45Z`). The
/// iOS guide decodes with `.iso8601`, which rejects the backend's zone-less dates and fractions.
enum WireDate {
    static func string(_ seconds: Int64) -> String {
        UTCDate.string(seconds) ?? wideYear(seconds)
    }

    /// A year outside 0...9999 (a feed's nonsense date): as many digits as it takes.
    private static func wideYear(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(Int(parts.tm_year) + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// A date a client sends (`since`): ISO 8601 with or without a zone (none is UTC, as the
    /// backend reads it), or a day.
    static func parse(_ text: String) -> Int64? { DateParser.parse(text) }
}
