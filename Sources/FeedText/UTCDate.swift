/// ISO 8601 in UTC with `Z` and no fraction (`2026-11-24T08:46:45Z`), written digit pair by digit
/// pair from the civil date the seconds fall on: the API's dates (`WireDate`) and the daemon's and
/// server's log stamps. Not interpolated from a dozen small strings, nor through Foundation's
/// formatters (which load ICU's calendar data for it), nor through gmtime_r (which takes glibc's
/// time-zone lock and fills fields we do not write): the server writes two or three per feed
/// item, and a log line per request.
public enum UTCDate {
    /// Bytes `write` takes.
    public static let length = 20

    /// Writes `seconds`' date into `buffer` (at least `length` bytes) and returns `length`; nil
    /// for a year outside 0...9999, which this form cannot hold.
    public static func write(_ seconds: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        // Years 0...9999 are these seconds (from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z):
        // checked first, so the arithmetic below cannot overflow.
        guard buffer.count >= length, (-62_167_219_200...253_402_300_799).contains(seconds) else { return nil }
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civil(days: days)
        let pairs = twoDigits
        func put(_ value: Int, at index: Int) {
            buffer[index] = pairs[value * 2]
            buffer[index + 1] = pairs[value * 2 + 1]
        }
        put(year / 100, at: 0); put(year % 100, at: 2); buffer[4] = UInt8(ascii: "-")
        put(month, at: 5); buffer[7] = UInt8(ascii: "-")
        put(day, at: 8); buffer[10] = UInt8(ascii: "T")
        let second = Int(secondOfDay)
        put(second / 3600, at: 11); buffer[13] = UInt8(ascii: ":")
        put(second / 60 % 60, at: 14); buffer[16] = UInt8(ascii: ":")
        put(second % 60, at: 17); buffer[19] = UInt8(ascii: "Z")
        return length
    }

    /// The date as a string; nil for a year outside 0...9999.
    public static func string(_ seconds: Int64) -> String? {
        let text = String(unsafeUninitializedCapacity: length) { write(seconds, into: UnsafeMutableRawBufferPointer($0)) ?? 0 }
        return text.isEmpty ? nil : text
    }

    /// RFC 822 (as RFC 1123 and RSS 2.0 write it: `Sat, 28 Nov 2026 09:55:11 +0000`), the one
    /// writer of that form (an RSS feed's dates, OPML's `dateCreated`); nil for a year outside
    /// 0...9999.
    public static func rfc822(_ seconds: Int64) -> String? {
        guard (-62_167_219_200...253_402_300_799).contains(seconds) else { return nil }
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civil(days: days)
        // 1970-01-01 was a Thursday.
        let weekday = Int(floorDivision(days + 4, 7).1)
        let names = (days: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"],
                     months: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"])
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let second = Int(secondOfDay)
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(names.days[weekday]), \(two(day)) \(names.months[month - 1]) \(yearText) "
            + "\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) +0000"
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`:
    /// 400-year eras of 146,097 days, years counted from March so the leap day comes last).
    static func civil(days: Int64) -> (year: Int, month: Int, day: Int) {
        let (era, dayOfEra) = floorDivision(days + 719_468, 146_097)  // 0000-03-01 to 1970-01-01
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// Quotient and remainder rounded toward minus infinity (dates before 1970 are negative).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// "00" through "99", two ASCII digits each.
    private static let twoDigits: [UInt8] = (0..<100).flatMap { [UInt8(ascii: "0") + UInt8($0 / 10), UInt8(ascii: "0") + UInt8($0 % 10)] }
}
