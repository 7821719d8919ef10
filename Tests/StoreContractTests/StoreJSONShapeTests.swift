import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// The JSON shapes the CLI prints are a contract: exact keys, nulls written out, whichever store
/// the values came from.
final class StoreJSONShapeTests: XCTestCase {
    private func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testLibraryItemKeysAndNulls() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let ch = try await library.addTestChannel("Show", platform: .youtube)
            try await library.ingest(items: [Item(id: "vid", title: "T")], channelID: ch, now: 1)
            let id = try await library.id(of: "vid")
            let json = try object(try await library.item(id: id))
            XCTAssertEqual(Set(json.keys), ["id", "item_id", "channel_id", "channel", "platform", "title", "url", "published",
                                            "duration", "is_short", "watched", "progress", "enclosure_url", "thumbnail"])
            XCTAssertEqual(json["id"] as? Int, Int(id))
            XCTAssertEqual(json["item_id"] as? String, "vid")
            XCTAssertEqual(json["channel_id"] as? Int, Int(ch))
            XCTAssertEqual(json["channel"] as? String, "Show")
            XCTAssertEqual(json["platform"] as? String, "youtube")
            XCTAssertEqual(json["title"] as? String, "T")
            for key in ["url", "published", "duration", "enclosure_url", "thumbnail"] { XCTAssertTrue(json[key] is NSNull, key) }
            XCTAssertEqual(json["is_short"] as? Bool, false)
            XCTAssertEqual(json["watched"] as? Bool, false)
            XCTAssertEqual(json["progress"] as? Int, 0)
        }
    }

    func testChannelKeysAndNulls() async throws {
        try await forEachEngine { db in
            let ch = try await db.owner.addTestChannel("Show")
            let json = try object(try await db.owner.channelSummary(id: ch))
            XCTAssertEqual(Set(json.keys), ["id", "platform", "name", "url", "feed_url", "items", "unwatched", "last_synced",
                                            "last_error", "next_poll", "warnings", "self_url", "next_page", "funding"])
            XCTAssertEqual(json["warnings"] as? [String], [])
            XCTAssertNotNil(json["funding"] as? [Any])
            for key in ["self_url", "next_page"] { XCTAssertTrue(json[key] is NSNull, key) }
            XCTAssertEqual(json["url"] as? String, "https://example.com/Show")
            XCTAssertEqual(json["feed_url"] as? String, "https://example.com/Show.xml")
            XCTAssertEqual(json["items"] as? Int, 0)
            XCTAssertEqual(json["unwatched"] as? Int, 0)
            XCTAssertEqual(json["platform"] as? String, "podcast")
            for key in ["last_synced", "last_error", "next_poll"] { XCTAssertTrue(json[key] is NSNull, key) }
        }
    }
}
