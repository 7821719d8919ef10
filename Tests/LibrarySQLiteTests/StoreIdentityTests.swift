import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// Issue 13, bug 1: v7 keeps every row's id and stops their reuse (that ids are never handed out
/// twice is StoreContractTests').
@Suite struct StoreIdentityTests {
    @Test func v7KeepsEveryRowAndIDAndStopsReuse() async throws {
        let dir = TempDir()
        let path = dir.file("old.sqlite")
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v6-speed-range")
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at, speed, speed_set)
                        VALUES (7, 'podcast', 'https://x', 'https://x/feed', 'X', 100, 1.5, 1),
                               (9, 'youtube', 'https://y', 'https://y/feed', 'Y', 100, 1.0, 0);
                    INSERT INTO items (id, channel_id, item_id, title, description, published, duration, discovered_at)
                        VALUES (42, 7, 'a', 'First', 'notes', 500, 61, 600), (43, 7, 'b', 'Second', NULL, 510, NULL, 600),
                               (50, 9, 'c', 'Short one', NULL, 520, 30, 600);
                    INSERT INTO watch_state (item, watched, progress_seconds, watched_at, updated_at) VALUES (42, 1, 0, 700, 700);
                    INSERT INTO watch_state (item, watched, progress_seconds, updated_at) VALUES (43, 0, 33, 710);
                    INSERT INTO saved_items (item, saved_at) VALUES (43, 800);
                    INSERT INTO collections (id, name, created_at) VALUES (3, 'Later', 900);
                    INSERT INTO collection_items (collection, item, position, added_at) VALUES (3, 43, 1, 901), (3, 42, 2, 902);
                    INSERT INTO play_history (item, title, channel_name, url, played_at) VALUES (42, 'First', 'X', 'u', 950);
                    INSERT INTO chapters_cache (item, url, body, fetched_at) VALUES (42, 'https://x/ch.json', '{}', 960);
                    """)
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations() == Schema.migrationNames)
        let first = try await library.item(id: 42)
        #expect(first.title == "First" && first.watched && first.duration == 61 && first.channel == "X")
        #expect(try await library.item(id: 43).progress == 33)
        #expect(try await library.channel(id: 7).speed == 1.5)
        #expect(try await library.saved().map(\.id) == [43])
        #expect(try await library.collection("Later").map(\.id) == [43, 42])
        #expect(try await library.history().map(\.item) == [42])
        #expect(try await library.cachedChapters(itemID: 42, url: "https://x/ch.json") == Array("{}".utf8))
        #expect(try await library.feed(mode: .shortForm, now: 1000).map(\.id) == [50, 42])
        // The watch-state triggers came back: items.state follows watch_state.
        try await library.setWatched([50], now: 1001)
        #expect(try await library.item(id: 50).watched)
        #expect(try await library.feed(mode: .catchUp, days: 30, now: 1002).map(\.id) == [43])
        // Foreign keys still hold after the rebuild.
        let violations = try await library.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count }
        #expect(violations == 0)

        // Removing the channel holding the largest id: its id is not handed out again.
        try await library.removeChannel(id: 9)
        let fresh = try await library.addTestChannel("fresh")
        #expect(fresh > 9)
        _ = try await library.ingest(Feed(kind: .podcast, title: "fresh", items: [item("n")]), channelID: fresh, now: 2000)
        #expect(try await library.id(of: "n") > 50)
        #expect(try await library.history().map(\.item) == [42], "history keeps its link to a surviving item")
    }
}
