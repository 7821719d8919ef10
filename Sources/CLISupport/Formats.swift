import Foundation

/// How the CLI writes times, durations and sizes for people: one place, one time zone (the
/// user's, from the C library: no formatter objects, nothing for Foundation to load). Machine
/// formats (the JSON contracts' Unix seconds, RFC 822 in OPML) are written elsewhere, in UTC.
public enum Formats {
    /// `1:02:03` or `2:03`.
    public static func clock(_ seconds: Double) -> String {
        let s = max(0, Int(seconds.isFinite ? seconds.rounded(.down) : 0))
        let h = s / 3600, m = (s % 3600) / 60, sec = s % 60
        return h > 0 ? "\(h):\(two(m)):\(two(sec))" : "\(m):\(two(sec))"
    }

    /// `2026-11-14`, local time.
    public static func day(_ epoch: Int64) -> String {
        let t = local(epoch)
        return "\(t.tm_year + 1900)-\(two(t.tm_mon + 1))-\(two(t.tm_mday))"
    }

    /// `2026-11-14 09:00`, local time.
    public static func minute(_ epoch: Int64) -> String {
        let t = local(epoch)
        return day(epoch) + " \(two(t.tm_hour)):\(two(t.tm_min))"
    }

    /// `14:05:09`, local time.
    public static func timeOfDay(_ epoch: Int64) -> String {
        let t = local(epoch)
        return "\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec))"
    }

    /// How far ahead `seconds` is: "in 40 s", "in 37 min", "in 2 h 5 min", "in 3 days".
    public static func ahead(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        if s < 60 { return "in \(s) s" }
        let minutes = (s + 30) / 60
        if minutes < 60 { return "in \(minutes) min" }
        if minutes < 24 * 60 { return "in \(minutes / 60) h" + (minutes % 60 > 0 ? " \(minutes % 60) min" : "") }
        return "in " + count(minutes / (24 * 60), "day")
    }

    /// "45.2 MB", "812 kB", "96 B" (decimal units, as download sizes are announced).
    public static func bytes(_ bytes: Int64) -> String {
        let b = Double(bytes)
        if b >= 1e9 { return String(format: "%.2f GB", b / 1e9) }
        if b >= 1e6 { return String(format: "%.1f MB", b / 1e6) }
        if b >= 1e3 { return String(format: "%.0f kB", b / 1e3) }
        return "\(bytes) B"
    }

    /// "1 item", "3 items", "0 channels": a count with its noun (English plurals by "s").
    public static func count(_ n: some BinaryInteger, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    /// Pads `s` with spaces to `width` characters (on the left with `right`), for aligned columns.
    public static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }

    private static func two<N: BinaryInteger>(_ n: N) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func local(_ epoch: Int64) -> tm {
        var seconds = time_t(clamping: epoch)
        var t = tm()
        _ = localtime_r(&seconds, &t)
        return t
    }
}
