import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// v11-users: a library from before several users (built through the real v1…v9 migrations, with
/// data in every table) migrates with nothing lost and everything the owner's.
@Suite struct StoreUsersMigrationTests {
    @Test func aV9LibraryMigratesWithEverythingUnderTheOwner() async throws {
        let dir = TempDir()
        let path = dir.file("v9.sqlite")
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v9-up-next-and-player-state")
            #expect(try await old.appliedMigrations().last == "v9-up-next-and-player-state")
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at, etag, consecutive_errors, active, speed, speed_set, next_poll)
                        VALUES (7, 'podcast', 'https://x', 'https://x/feed', 'X', 100, '"e"', 2, 1, 1.5, 1, 5000),
                               (9, 'youtube', 'https://y', 'https://y/feed', 'Y', 101, NULL, 0, 0, 1.0, 0, NULL);
                    INSERT INTO items (id, channel_id, item_id, title, description, published, duration, discovered_at)
                        VALUES (42, 7, 'a', 'First sourdough', 'notes', 500, 61, 600), (43, 7, 'b', 'Second', NULL, 510, NULL, 600),
                               (44, 7, 'c', 'Third', NULL, 520, NULL, 600), (50, 9, 'd', 'Short one', NULL, 530, 30, 600);
                    INSERT INTO watch_state (item, watched, progress_seconds, watched_at, updated_at) VALUES (42, 1, 0, 700, 700);
                    INSERT INTO watch_state (item, watched, progress_seconds, updated_at) VALUES (43, 0, 33, 710);
                    INSERT INTO saved_items (item, saved_at) VALUES (43, 800), (50, 801);
                    INSERT INTO collections (id, name, created_at) VALUES (3, 'Later', 900), (4, 'Best', 901);
                    INSERT INTO collection_items (collection, item, position, added_at) VALUES (3, 43, 1, 901), (3, 42, 2, 902), (4, 50, 1, 903);
                    INSERT INTO play_history (id, item, title, channel_name, url, position_seconds, played_at)
                        VALUES (1, 42, 'First sourdough', 'X', 'u', 61, 950), (2, NULL, 'Gone', 'Old show', NULL, NULL, 940);
                    INSERT INTO chapters_cache (item, url, body, fetched_at) VALUES (42, 'https://x/ch.json', '{}', 960);
                    INSERT INTO up_next (position, item, url, file, title, added_at)
                        VALUES (1, 44, NULL, NULL, 'Third', 970), (2, NULL, 'https://x/e.mp3', NULL, 'e', 971), (3, NULL, NULL, '/tmp/f.ogg', 'f', 972);
                    INSERT INTO player_state (id, volume, last_item, last_title, last_position, updated_at) VALUES (1, 0.4, 43, 'Second', 33.5, 980);
                    """)
            }
        }
        let counts = ["channels": 2, "items": 4, "watch_state": 2, "saved_items": 2, "collections": 2, "collection_items": 3,
                      "play_history": 2, "chapters_cache": 1, "up_next": 3, "player_state": 1]

        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations() == Schema.migrationNames)

        // Nothing lost: every table keeps its rows, and every per-user row is the owner's.
        for (table, count) in counts {
            let n = try await library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") }
            #expect(n == count, "\(table)")
        }
        for table in ["watch_state", "saved_items", "collections", "play_history", "up_next", "player_state", "subscriptions"] {
            let others = try await library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE user_id <> 1") }
            #expect(others == 0, "\(table)")
        }

        // The owner: user 1, named after $USER (or "owner"), no password, admin; the only user.
        let expectedName = ProcessInfo.processInfo.environment["USER"].flatMap(LibraryUsers.validName) ?? LibraryUsers.fallbackOwnerName
        let users = try await library.users()
        #expect(users.map(\.id) == [.owner])
        #expect(users.first?.name == expectedName && users.first?.isAdmin == true && users.first?.hasPassword == false)

        // Subscriptions carry what was per channel: active, the remembered speed, added_at.
        let x = try await library.channel(id: 7)
        #expect(x.active && x.speed == 1.5 && x.addedAt == 100 && x.etag == "\"e\"" && x.consecutiveErrors == 2 && x.nextPoll == 5000)
        let y = try await library.channel(id: 9)
        #expect(!y.active && y.speed == nil && y.addedAt == 101)
        #expect(try await library.allChannels().map(\.id) == [7, 9])

        // Through the store, as the owner sees it.
        #expect(try await library.item(id: 42).watched)
        #expect(try await library.item(id: 43).progress == 33)
        #expect(try await library.saved().map(\.id) == [50, 43])
        #expect(try await library.collections().map { "\($0.name):\($0.items)" } == ["Best:1", "Later:2"])
        #expect(try await library.collection("Later").map(\.id) == [43, 42])
        #expect(try await library.history().map(\.title) == ["First sourdough", "Gone"])
        #expect(try await library.upNext().map(\.target) == [.item(44), .url("https://x/e.mp3"), .file("/tmp/f.ogg")])
        #expect(try await library.savedVolume() == 0.4)
        #expect(try await library.lastPlayed() == LastPlayed(target: .item(43), title: "Second", position: 33.5))
        #expect(try await library.cachedChapters(itemID: 42, url: "https://x/ch.json") == Array("{}".utf8))
        #expect(try await library.search(SearchQuery(text: "sourdough")).map(\.id) == [42])
        // items.state still mirrors the owner's watch state, and catch-up reads it.
        let states = try await library.read { db in try Int.fetchAll(db, sql: "SELECT state FROM items ORDER BY id") }
        #expect(states == [2, 1, 0, 0])
        #expect(try await library.feed(mode: .catchUp, days: 30, now: 1000).map(\.id) == [43, 44, 50])
        try await library.setWatched([44], now: 1001)
        #expect(try await library.feed(mode: .catchUp, days: 30, now: 1002).map(\.id) == [43, 50])
        // The inactive channel is not due; the active one is, once.
        #expect(try await library.polling.dueChannels(now: 6000).map(\.id) == [7])
        // The rows of the migrated tables keep their place after new writes.
        try await library.appendToUpNext([(.item(42), "First")], now: 1003)
        #expect(try await library.upNext().map(\.position) == [1, 2, 3, 4])
    }
}
