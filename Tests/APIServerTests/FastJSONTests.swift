@testable import APIServer
import FeedModel
import Foundation
import LibraryStore
import XCTest

/// The feed page is written by `JSONOutput`, not `JSONEncoder` (bench/serve: the encoder was 44%
/// of the server's time). Both must say the same thing: every key, null included, and every
/// value, for the awkward ones too (escapes, control characters, non-ASCII, extreme numbers).
final class FastJSONTests: XCTestCase {
    private func record(_ id: Int64, title: String, notes: String?, url: String?, enclosure: String?, type: String?,
                        length: Int64?, duration: Int?, views: Int?, published: Int64?, watched: Bool, progress: Int,
                        watchedAt: Int64?, image: String?) -> ItemRecord {
        let item = LibraryItem(id: id, itemID: "item-\(id) \"quoted\"", channelID: id % 7, channel: "Chännel \\ \(id)", platform: .podcast,
                               title: title, url: url, published: published, duration: duration, isShort: false,
                               watched: watched, progress: progress, enclosureURL: enclosure, thumbnail: nil)
        return ItemRecord(item: item, notes: notes, views: views, enclosureType: type, enclosureLength: length,
                          discoveredAt: 1_795_000_000, watchedAt: watchedAt, channelImage: image)
    }

    private func json(_ value: Any) throws -> NSObject {
        try XCTUnwrap(JSONSerialization.jsonObject(with: value as? Data ?? Data(value as! [UInt8]), options: [.fragmentsAllowed]) as? NSObject)
    }

    func testAFeedPageWritesWhatItsEncodableFormSays() throws {
        let awkward = "Quote \" backslash \\ slash / tab \t newline \n return \r bell \u{07} nul \u{00} unit \u{1F} del \u{7F} é 日本 🎧 \u{2028}"
        let records = [
            record(1, title: awkward, notes: awkward, url: "https://example.com/a?b=1&c=2", enclosure: "https://example.com/a.mp3",
                   type: "audio/mpeg", length: Int64.max, duration: 3_725, views: 0, published: 1_795_100_000, watched: true,
                   progress: 12, watchedAt: 1_795_100_100, image: "https://example.com/i.png"),
            record(2, title: "", notes: nil, url: nil, enclosure: nil, type: nil, length: nil, duration: nil, views: nil,
                   published: nil, watched: false, progress: 0, watchedAt: nil, image: nil),
            record(Int64.max, title: "video", notes: "", url: "https://v", enclosure: "https://v.mp4", type: "VIDEO/MP4",
                   length: 0, duration: 59, views: Int.max, published: -62_000_000_000, watched: false, progress: Int(Int32.max),
                   watchedAt: nil, image: ""),
        ]
        let now: Int64 = 1_795_100_500
        for page in [FeedResponse(records: records, now: now, total: Int.max, page: .first(50), hasMore: true),
                     FeedResponse(records: [], now: now, total: 0, page: try PageRequest(page: 3, perPage: 1), hasMore: false)] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            let expected = try json(try encoder.encode(page))
            let written = try json(page.json())
            XCTAssertEqual(written, expected)
            // Not only equal values: the same keys in every item (JSONSerialization would hide a duplicate).
            let text = String(decoding: page.json(), as: UTF8.self)
            XCTAssertEqual(text.components(separatedBy: "\"channel_avatar_url\":").count - 1, page.records.count)
            XCTAssertFalse(text.contains("\\/"), "slashes are not escaped")
        }
        let text = String(decoding: FeedResponse(records: records, now: now, total: 3, page: .first(50), hasMore: false).json(), as: UTF8.self)
        XCTAssertTrue(text.contains(#"bell \u0007 nul \u0000 unit \u001f del \#u{7F} é 日本 🎧"#), text)
        XCTAssertTrue(text.contains(#""audio_file_size":9223372036854775807"#))
        // Dates written in place, and a year past 0...9999 spelled as WireDate spells it.
        XCTAssertTrue(text.contains(#""upload_date":"2026-11-19T14:53:20Z","categories":null"#), text)
        XCTAssertTrue(text.contains(#""watched_at":"\#(WireDate.string(1_795_100_100))","#))
        XCTAssertTrue(text.contains(#""upload_date":"\#(WireDate.string(-62_000_000_000))","#), text)
    }
}

extension FastJSONTests {
    /// `duration_formatted` is written digit by digit: the same text `formatted` makes, for every
    /// shape (minutes only, hours, padding, no duration, huge ones).
    func testDurationsAreWrittenAsFormattedSpellsThem() {
        for duration: Int? in [nil, -5, 0, 1, 9, 59, 60, 61, 599, 600, 3_599, 3_600, 3_601, 35_999, 36_000, 359_999, 360_000, 1_000_000, Int(Int32.max), Int.max] {
            var out = JSONOutput()
            FeedItemResponse.writeFormatted(duration, to: &out)
            XCTAssertEqual(String(decoding: out.bytes, as: UTF8.self), "\"\(FeedItemResponse.formatted(duration))\"", "\(String(describing: duration))")
        }
        XCTAssertEqual(FeedItemResponse.formatted(3_725), "1:02:05")
        XCTAssertEqual(FeedItemResponse.formatted(65), "1:05")
    }

    /// `content_type`: video for a `video/…` type in any case, else audio, and nothing without an enclosure.
    func testContentTypes() {
        for type: String? in ["video/mp4", "VIDEO/MP4", "Video/x-m4v", "video", "videos/x", "audio/mpeg", nil, "", "vIdEo/", "video\u{0F}"] {
            let expected = type?.lowercased().hasPrefix("video/") == true ? "video" : "audio"
            XCTAssertEqual(FeedItemResponse.contentType(hasEnclosure: true, type: type), expected, "\(String(describing: type))")
            XCTAssertNil(FeedItemResponse.contentType(hasEnclosure: false, type: type))
        }
    }
}

extension FastJSONTests {
    /// Strings are scanned eight bytes at a time: whatever needs escaping, at any offset of any
    /// length (both sides of a word boundary, in the tail), comes back intact through a strict decoder.
    func testEveryEscapeAtEveryOffsetRoundTrips() throws {
        let specials = ["\"", "\\", "\u{00}", "\u{01}", "\n", "\u{1F}", " ", "\u{7F}", "é", "日", "🎧", "/"]
        var values: [String] = []
        for length in 0...40 {
            values.append(String(repeating: "a", count: length))
            for position in 0..<max(length, 1) {
                for special in specials {
                    var characters = Array(repeating: "a", count: length)
                    if position < length { characters[position] = special } else { characters.append(special) }
                    values.append(characters.joined())
                    values.append(characters.joined() + special)   // two of them, one at the end
                }
            }
        }
        var out = JSONOutput()
        out.array(values) { out, value in out.string(value) }
        let decoded = try JSONDecoder().decode([String].self, from: Data(out.bytes))
        XCTAssertEqual(decoded, values)
        // Nothing escaped that needs no escaping (a word without specials is copied as it is).
        var plain = JSONOutput()
        plain.string("plain text, é 日本 🎧 / with no escapes at all, longer than a word")
        XCTAssertEqual(String(decoding: plain.bytes, as: UTF8.self), "\"plain text, é 日本 🎧 / with no escapes at all, longer than a word\"")
    }
}

final class WireDateTests: XCTestCase {
    /// Written digit by digit: the same as Foundation's ISO 8601 formatter in UTC (which turns
    /// Julian before 1583; ISO 8601 and we stay Gregorian), years below 1000 padded, years past
    /// 9999 written as numbers.
    func testDatesAreISO8601InUTCWithoutFraction() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        let samples: [Int64] = [0, 1, 59, 86_399, 951_782_400, 1_795_132_800, 4_102_444_799, 253_402_300_799, -1, -12_212_553_600]
            + (0..<500).map { _ in Int64.random(in: -12_212_553_600...253_402_300_799, using: &generator) }
        for seconds in samples {
            XCTAssertEqual(WireDate.string(seconds), formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))), "\(seconds)")
        }
        XCTAssertEqual(WireDate.string(-62_135_596_800), "0001-01-01T00:00:00Z")
        XCTAssertEqual(WireDate.string(-62_135_596_801), "0000-12-31T23:59:59Z")
        XCTAssertEqual(WireDate.string(-30_610_224_000), "1000-01-01T00:00:00Z")
        XCTAssertEqual(WireDate.string(-30_610_224_001), "0999-12-31T23:59:59Z")
        XCTAssertEqual(WireDate.string(253_402_300_800), "10000-01-01T00:00:00Z")
    }
}
