import XCTest
@testable import FeedText

final class TextDurationParserTests: XCTestCase {
    func testClockForms() {
        let cases: [(String, Int)] = [
            ("1:02:03", 3723), ("01:02:03", 3723), ("10:00:00", 36000), ("0:00:59", 59),
            ("12:34", 754), ("02:05", 125), ("0:59", 59), ("75:30", 4530), ("120:00", 7200),
            ("0:00", 0), (" 5:00 \n", 300),
        ]
        for (text, seconds) in cases { XCTAssertEqual(DurationParser.parse(text), seconds, text) }
    }

    func testSecondsAndFractions() {
        let cases: [(String, Int)] = [
            ("3600", 3600), ("0", 0), ("42", 42), ("3600.4", 3600), ("3600.6", 3601), ("90.5", 91),
            ("12:34.4", 754), ("1:02:03.7", 3724),
        ]
        for (text, seconds) in cases { XCTAssertEqual(DurationParser.parse(text), seconds, text) }
    }

    func testISO8601Durations() {
        let cases: [(String, Int)] = [("PT1H2M3S", 3723), ("PT90M", 5400), ("P1DT1H", 90000), ("pt45s", 45), ("PT1.5S", 1)]
        for (text, seconds) in cases { XCTAssertEqual(DurationParser.parse(text), seconds, text) }
    }

    func testGarbageIsNil() {
        for text in ["", "  ", "abc", "1:60", "1:02:60", "1:2:3:4", "-5", "1e5", "1:-2", ":", "1::2", "::", "1.5:00",
                     "1..5", "12:3a", "NaN", "inf", "99999999999", "P", "PT", "PTxS", "P1H", "½", "٣"] {
            XCTAssertNil(DurationParser.parse(text), text)
        }
    }
}
