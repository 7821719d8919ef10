#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ISO 8601 in UTC with `Z` and no fraction (`2026-11-24T08:46:45Z`), written digit by digit
/// from gmtime_r: the API's dates (`WireDate`) and the daemon's and server's log stamps. Not
/// interpolated from a dozen small strings, nor through Foundation's formatters (which load
/// ICU's calendar data for it): the server writes two or three per feed item, and a log line
/// per request.
public enum UTCDate {
    /// Bytes `write` takes.
    public static let length = 20

    /// Writes `seconds`' date into `buffer` (at least `length` bytes) and returns `length`; nil
    /// for a year outside 0...9999, which this form cannot hold.
    public static func write(_ seconds: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        var time = time_t(seconds)
        var parts = tm()
        guard buffer.count >= length, gmtime_r(&time, &parts) != nil else { return nil }
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
        return length
    }

    /// The date as a string; nil for a year outside 0...9999.
    public static func string(_ seconds: Int64) -> String? {
        let text = String(unsafeUninitializedCapacity: length) { write(seconds, into: UnsafeMutableRawBufferPointer($0)) ?? 0 }
        return text.isEmpty ? nil : text
    }
}
