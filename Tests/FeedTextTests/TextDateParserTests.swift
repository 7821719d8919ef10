import XCTest
@testable import FeedText

/// Expected values computed independently with Python's `calendar.timegm`.
final class TextDateParserTests: XCTestCase {
    private func check(_ cases: [(String, Int64?)], file: StaticString = #filePath, line: UInt = #line) {
        for (text, expected) in cases {
            XCTAssertEqual(DateParser.parse(text), expected, "\"\(text)\"", file: file, line: line)
        }
    }

    func testRFC822AndItsVariants() {
        check([
            ("Wed, 02 Oct 2002 13:00:00 GMT", 1_033_563_600),           // RFC 1123
            ("Wed, 02 Oct 2002 15:00:00 +0200", 1_033_563_600),
            ("02 Oct 2002 13:00:00 GMT", 1_033_563_600),                // no weekday
            ("Wed, 02 Oct 2002 13:00 GMT", 1_033_563_600),              // no seconds
            ("Wed, 2 Oct 2002 13:00:00 GMT", 1_033_563_600),            // single-digit day
            ("Tue, 5 Mar 2024 09:07:00 +0000", 1_709_629_620),
            ("5 Mar 2024 9:07 GMT", 1_709_629_620),                     // single-digit hour too
            ("Wed, 02 Oct 02 13:00:00 GMT", 1_033_563_600),             // 2-digit year
            ("Fri, 01 Jan 99 00:00:00 GMT", 915_148_800),               // 2-digit year, 19xx
            ("Fri, 31 Dec 49 23:59:59 GMT", 2_524_607_999),             // pivot: 49 → 2049
            ("Thu, 01 Jun 50 00:00:00 GMT", -618_105_600),              // pivot: 50 → 1950
            ("Wednesday, 02 October 2002 13:00:00 GMT", 1_033_563_600), // full names
            ("wed, 02 oct 2002 13:00:00 gmt", 1_033_563_600),           // any case
            ("Wed,02 Oct 2002 13:00:00 GMT", 1_033_563_600),            // no space after comma
            ("Wed 02 Oct 2002 13:00:00 GMT", 1_033_563_600),            // no comma
            ("02-Oct-2002 13:00:00 GMT", 1_033_563_600),                // dashes
            ("  Wed, 02 Oct 2002 13:00:00 GMT \n", 1_033_563_600),      // surrounding whitespace
            ("Wed, 02 Oct 2002 13:00:00", 1_033_563_600),               // no zone: UTC
            ("Thu, 29 Feb 2024 00:00:00 GMT", 1_709_164_800),           // leap day
        ])
    }

    func testRFC822NamedZones() {
        check([
            ("Tue, 10 Jun 2003 04:00:00 GMT", 1_055_217_600),
            ("Tue, 10 Jun 2003 04:00:00 UT", 1_055_217_600),
            ("Tue, 10 Jun 2003 04:00:00 UTC", 1_055_217_600),
            ("Tue, 10 Jun 2003 04:00:00 Z", 1_055_217_600),
            ("Tue, 10 Jun 2003 04:00:00 EST", 1_055_235_600),
            ("Tue, 10 Jun 2003 04:00:00 EDT", 1_055_232_000),
            ("Tue, 10 Jun 2003 04:00:00 CST", 1_055_239_200),
            ("Tue, 10 Jun 2003 04:00:00 CDT", 1_055_235_600),
            ("Tue, 10 Jun 2003 04:00:00 MST", 1_055_242_800),
            ("Tue, 10 Jun 2003 04:00:00 MDT", 1_055_239_200),
            ("Tue, 10 Jun 2003 04:00:00 PST", 1_055_246_400),
            ("Tue, 10 Jun 2003 04:00:00 PDT", 1_055_242_800),
        ])
    }

    func testRFC822NumericOffsets() {
        check([
            ("Thu, 01 Oct 2026 12:00:00 +0000", 1_790_856_000),
            ("Thu, 01 Oct 2026 12:00:00 -0000", 1_790_856_000),
            ("Thu, 01 Oct 2026 12:00:00 -0500", 1_790_874_000),
            ("Thu, 01 Oct 2026 12:00:00 -0400", 1_790_870_400),
            ("Thu, 01 Oct 2026 12:00:00 +0530", 1_790_836_200),
            ("Thu, 01 Oct 2026 12:00:00 +05:30", 1_790_836_200),
        ])
    }

    func testISO8601AndW3CDTF() {
        check([
            ("2002-10-02T13:00:00Z", 1_033_563_600),
            ("2002-10-02t13:00:00z", 1_033_563_600),
            ("2002-10-02T15:00:00+02:00", 1_033_563_600),
            ("2002-10-02T08:00:00-05:00", 1_033_563_600),
            ("2002-10-02T15:00:00+0200", 1_033_563_600),
            ("2002-10-02T15:00:00+02", 1_033_563_600),
            ("2002-10-02 13:00:00", 1_033_563_600),                     // space, no zone: UTC
            ("2002-10-02T13:00:00", 1_033_563_600),
            ("20021002T130000Z", 1_033_563_600),                        // basic format
            ("2026-10-15T12:34:56.789Z", 1_792_067_696),                // fractional seconds
            ("2026-10-15T12:34:56,789Z", 1_792_067_696),
            ("2026-10-15T12:34:56.123456789+00:00", 1_792_067_696),
            ("2026-10-15T12:34+02:00", 1_792_060_440),                  // no seconds
            ("2026-10-15", 1_792_022_400),                              // date only
            ("2026-10", 1_790_812_800),                                 // W3C-DTF year-month
            ("2026", 1_767_225_600),                                    // W3C-DTF year
            ("2026-10-15T24:00:00Z", 1_792_108_800),                    // end of day
            ("1969-07-20T20:17:40Z", -14_182_940),                      // before 1970
            ("2026-10-01T12:00:00-04:00", 1_790_870_400),
        ])
    }

    func testGarbageIsNil() {
        check([
            ("", nil), ("   ", nil), ("garbage", nil), ("yesterday", nil), ("0", nil), ("now", nil),
            ("32 Oct 2002 13:00:00 GMT", nil),          // no such day
            ("Thu, 29 Feb 2023 00:00:00 GMT", nil),     // not a leap year
            ("Wed, 02 Foo 2002 13:00:00 GMT", nil),     // no such month
            ("Wed, 02 Oct 2002 25:00:00 GMT", nil),
            ("Wed, 02 Oct 2002 13:61:00 GMT", nil),
            ("Wed, 02 Oct 2002 13:", nil),
            ("2002-13-01", nil), ("2002-02-30", nil), ("2002-10-02T25:00:00Z", nil),
            ("2002-10-02T24:30:00Z", nil),              // 24 is only midnight
            ("2002-10-02T13:00:00Zjunk", nil), ("2002-10-02T13", nil), ("2002-1-2", nil),
            ("99999999999999999999", nil), ("Wed, 02 Oct 123 13:00:00 GMT", nil),
            ("\u{0}\u{1}\u{2}", nil), ("日本語", nil),
        ])
    }
}
