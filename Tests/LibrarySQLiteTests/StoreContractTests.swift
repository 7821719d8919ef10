import FeedModel
import Foundation
@testable import LibrarySQLite
import TestSupport
import Testing

/// The JSON shapes the CLI prints are a contract: exact keys, nulls written out.
@Suite struct StoreContractTests {
    private func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func libraryItemKeysAndNulls() async throws {
        let t = try TestLibrary()
        let ch = try await t.library.addTestChannel("Show", platform: .youtube)
        _ = try await t.library.ingest(items: [Item(id: "vid", title: "T")], channelID: ch, now: 1)
        let json = try object(try await t.library.item(id: 1))
        #expect(Set(json.keys) == ["id", "item_id", "channel_id", "channel", "platform", "title", "url", "published",
                                   "duration", "is_short", "watched", "progress", "enclosure_url", "thumbnail"])
        #expect(json["id"] as? Int == 1 && json["item_id"] as? String == "vid" && json["channel_id"] as? Int == 1)
        #expect(json["channel"] as? String == "Show" && json["platform"] as? String == "youtube" && json["title"] as? String == "T")
        for key in ["url", "published", "duration", "enclosure_url", "thumbnail"] { #expect(json[key] is NSNull, "\(key)") }
        #expect(json["is_short"] as? Bool == false && json["watched"] as? Bool == false && json["progress"] as? Int == 0)
    }

    @Test func channelKeysAndNulls() async throws {
        let t = try TestLibrary()
        let ch = try await t.library.addTestChannel("Show")
        let json = try object(try await t.library.channelSummary(id: ch))
        #expect(Set(json.keys) == ["id", "platform", "name", "url", "feed_url", "items", "unwatched", "last_synced",
                                   "last_error", "next_poll", "warnings", "self_url", "next_page", "funding"])
        #expect(json["warnings"] as? [String] == [] && json["funding"] as? [Any] != nil)
        for key in ["self_url", "next_page"] { #expect(json[key] is NSNull, "\(key)") }
        #expect(json["url"] as? String == "https://example.com/Show" && json["feed_url"] as? String == "https://example.com/Show.xml")
        #expect(json["items"] as? Int == 0 && json["unwatched"] as? Int == 0 && json["platform"] as? String == "podcast")
        for key in ["last_synced", "last_error", "next_poll"] { #expect(json[key] is NSNull, "\(key)") }
    }
}
