import FeedModel
@testable import FeedParsing
import XCTest

/// Real-world variants of dates, durations, enclosure lengths and entities.
final class QuirkTests: XCTestCase {
    private func byTitle<T>(_ name: String, _ value: (Item) -> T) throws -> [String: T] {
        let feed = try Fixtures.parse(name)
        return Dictionary(uniqueKeysWithValues: feed.items.map { ($0.title, value($0)) })
    }

    func testDateVariants() throws {
        let dates = try byTitle("dates.xml") { $0.published }
        let expected: [String: Int64?] = [
            "rfc1123": 1_033_563_600, "no-weekday": 1_033_556_400, "no-seconds": 1_033_581_600,
            "single-digit-day": 1_033_743_600, "two-digit-year": 1_033_563_600, "z-zone": 1_033_563_600,
            "cdt": 1_033_581_600, "rfc3339": 1_033_583_400, "iso-fraction": 1_033_563_600,
            "date-only": 1_033_516_800, "iso-no-seconds": 1_033_563_600, "garbage": nil, "empty": nil,
        ]
        XCTAssertEqual(dates, expected)
    }

    func testDurationVariants() throws {
        let durations = try byTitle("durations.xml") { $0.duration }
        let expected: [String: Int?] = [
            "hms": 3723, "hhmmss": 3723, "mmss": 754, "mm-over-60": 4530, "seconds": 3600, "fractional": 62,
            "garbage": nil, "bad-minutes": nil, "empty": nil, "negative": nil,
        ]
        XCTAssertEqual(durations, expected)
    }

    func testEnclosureLengthGarbageIsNil() throws {
        let lengths = try byTitle("enclosure-lengths.xml") { $0.enclosure?.length }
        let expected: [String: Int64?] = ["valid": 123_456, "zero": nil, "garbage": nil, "negative": nil, "missing": nil, "spaces": 789]
        XCTAssertEqual(lengths, expected)
        let urls = try byTitle("enclosure-lengths.xml") { $0.enclosure?.url }
        XCTAssertEqual(urls["zero"], "https://enc.example.com/zero.mp3")
    }

    func testEntitiesInTextAttributesAndCDATA() throws {
        let feed = try Fixtures.parse("entities.xml")
        XCTAssertEqual(feed.title, "Café Society")   // undeclared HTML entities
        XCTAssertEqual(feed.link, "https://entities.example.com/?a=1&b=2")
        let item = try XCTUnwrap(feed.items.first)
        XCTAssertEqual(item.title, "Fish & Chips — 🐟 \"quoted\"")
        XCTAssertEqual(item.url, "https://entities.example.com/item?x=1&y=2")
        XCTAssertEqual(item.enclosure?.url, "https://track.example.net/r.mp3?u=1&source=rss")
        XCTAssertEqual(item.description, "Tom & Jerry second line")
    }
}
