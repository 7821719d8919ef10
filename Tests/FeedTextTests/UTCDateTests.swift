import Glibc
import XCTest
@testable import FeedText

/// `UTCDate` does its own calendar arithmetic: checked against glibc's gmtime_r.
final class UTCDateTests: XCTestCase {
    /// What gmtime_r says, in the same form; nil outside years 0...9999.
    private func reference(_ seconds: Int64) -> String? {
        var time = time_t(seconds), parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return nil }
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else { return nil }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let padded = String(repeating: "0", count: 4 - String(year).count) + String(year)
        return "\(padded)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    func testKnownDates() {
        XCTAssertEqual(UTCDate.string(0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(UTCDate.string(-1), "1969-12-31T23:59:59Z")
        XCTAssertEqual(UTCDate.string(951_782_400), "2000-02-29T00:00:00Z")
        XCTAssertEqual(UTCDate.string(1_795_509_405), "2026-11-24T08:36:45Z")
        XCTAssertEqual(UTCDate.string(-62_167_219_200), "0000-01-01T00:00:00Z")
        XCTAssertEqual(UTCDate.string(253_402_300_799), "9999-12-31T23:59:59Z")
    }

    /// RFC 822's form against glibc's strftime (`%a, %d %b %Y %H:%M:%S +0000` in the C locale),
    /// every 7th day and a bit over the range's edges; and DateParser reads it back.
    func testRFC822AgreesWithStrftimeAndReadsBack() {
        func reference(_ seconds: Int64) -> String {
            var time = time_t(seconds), parts = tm()
            _ = gmtime_r(&time, &parts)
            var buffer = [CChar](repeating: 0, count: 64)
            let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S +0000", &parts)
            return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        XCTAssertEqual(UTCDate.rfc822(1_795_509_405), "Tue, 24 Nov 2026 08:36:45 +0000")
        XCTAssertEqual(UTCDate.rfc822(0), "Thu, 01 Jan 1970 00:00:00 +0000")
        XCTAssertEqual(UTCDate.rfc822(-1), "Wed, 31 Dec 1969 23:59:59 +0000")
        XCTAssertNil(UTCDate.rfc822(253_402_300_800))
        var seconds: Int64 = -2_208_988_800   // 1900
        while seconds < 4_102_444_800 {        // 2100
            XCTAssertEqual(UTCDate.rfc822(seconds), reference(seconds))
            XCTAssertEqual(UTCDate.rfc822(seconds).flatMap(DateParser.parse), seconds)
            seconds += 7 * 86_400 + 3_607
        }
    }

    func testYearsOutsideTheFormAreNil() {
        for seconds: Int64 in [-62_167_219_201, 253_402_300_800, .min, .max] {
            XCTAssertNil(UTCDate.string(seconds), "\(seconds)")
            var buffer = [UInt8](repeating: 0, count: UTCDate.length)
            XCTAssertNil(buffer.withUnsafeMutableBytes { UTCDate.write(seconds, into: $0) })
        }
        var short = [UInt8](repeating: 0, count: UTCDate.length - 1)
        XCTAssertNil(short.withUnsafeMutableBytes { UTCDate.write(0, into: $0) }, "a buffer too small is refused")
    }

    /// Every 13th day from year 0 to 9999 and every day of the years around the edges (year 0,
    /// 1900 and 2100 without leap days, 2000 with one, 9999), at a second that moves through the
    /// day; and a spread of seconds around each boundary.
    func testDaysAgreeWithGmtime() {
        func check(from start: Int64, days: Int64, every stride: Int64) {
            var day: Int64 = 0
            while day < days {
                let at = start + day * 86_400 + (day * 7_919) % 86_400
                guard UTCDate.string(at) == reference(at) else { return XCTAssertEqual(UTCDate.string(at), reference(at), "\(at)") }
                day += stride
            }
        }
        check(from: -62_167_219_200, days: 3_652_425, every: 13)
        for start: Int64 in [-62_167_219_200, -2_335_219_200, 820_454_400, 3_976_214_400, 253_276_070_400] {
            check(from: start, days: 4 * 366, every: 1)
        }
        for edge: Int64 in [-62_167_219_200, -2_208_988_800, -1, 0, 951_782_400, 4_107_542_400, 253_402_300_799] {
            for offset: Int64 in -90...90 {
                XCTAssertEqual(UTCDate.string(edge + offset), reference(edge + offset), "\(edge + offset)")
            }
        }
    }
}
