import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

@Suite struct StoreMigrationTests {
    @Test func freshLibraryHasAllMigrationsAndWAL() async throws {
        let t = try TestLibrary()
        #expect(try await t.library.appliedMigrations() == Schema.migrationNames)
        let mode = try await t.library.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let fk = try await t.library.read { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
        #expect(fk == 1)
    }

    @Test func upgradesFirstSchemaWithDataIntact() async throws {
        let dir = TempDir()
        let path = dir.file("old.sqlite")
        do {
            // A library as the first release wrote it, with data in every table.
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v1-initial")
            #expect(try await old.appliedMigrations() == ["v1-initial"])
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at, etag, consecutive_errors)
                        VALUES (7, 'youtube', 'https://www.youtube.com/@x', 'https://yt/feed?channel_id=UCx', 'X', 100, '"abc"', 2);
                    INSERT INTO items (id, channel_id, item_id, title, published, duration, discovered_at)
                        VALUES (42, 7, 'yt:video:aaa', 'First', 500, 61, 600);
                    INSERT INTO items (id, channel_id, item_id, title, published, discovered_at)
                        VALUES (43, 7, 'yt:video:bbb', 'Second', 510, 600), (44, 7, 'yt:video:ccc', 'Third', 520, 600);
                    INSERT INTO watch_state (item, watched, progress_seconds, watched_at, updated_at) VALUES (42, 1, 0, 700, 700);
                    INSERT INTO watch_state (item, watched, progress_seconds, updated_at) VALUES (43, 0, 33, 710);
                    INSERT INTO saved_items (item, saved_at) VALUES (42, 800);
                    INSERT INTO collections (id, name, created_at) VALUES (3, 'Later', 900);
                    INSERT INTO collection_items (collection, item, position, added_at) VALUES (3, 42, 1, 901);
                    INSERT INTO play_history (item, title, channel_name, url, played_at) VALUES (42, 'First', 'X', 'u', 950);
                    """)
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations() == Schema.migrationNames)
        let channel = try await library.channel(id: 7)
        #expect(channel.name == "X" && channel.etag == "\"abc\"" && channel.consecutiveErrors == 2 && channel.speed == nil)
        let item = try await library.item(id: 42)
        #expect(item.title == "First" && item.watched && item.duration == 61 && item.channel == "X")
        #expect(try await library.saved().map(\.id) == [42])
        #expect(try await library.collection("Later").map(\.id) == [42])
        #expect(try await library.history().map(\.title) == ["First"])
        // v3 derived each item's state from the watch state v1 stored, and keeps it in step.
        let states = try await library.read { db in try Int.fetchAll(db, sql: "SELECT state FROM items ORDER BY id") }
        #expect(states == [2, 1, 0])
        #expect(try await library.feed(mode: .catchUp, days: 30, now: 1000).map(\.id) == [43, 44])
        try await library.setWatched([44], now: 1001)
        try await library.setWatched([42], watched: false, now: 1001)
        #expect(try await library.feed(mode: .catchUp, days: 30, now: 1002).map(\.id) == [43, 42])
        try await library.setSpeed(channelID: 7, 1.5)
        #expect(try await library.channel(id: 7).speed == 1.5)
        // A chosen 1× is remembered too (v2's default of 1.0 could not say so).
        try await library.setSpeed(channelID: 7, 1.0)
        #expect(try await library.channel(id: 7).speed == 1.0)
    }

    @Test func rememberedSpeedsSurviveTheV5Upgrade() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-v5-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("library.sqlite").path
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v4-chapters-cache")
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at, speed)
                    VALUES (1, 'podcast', 'u1', 'f1', 'Fast', 1, 1.5), (2, 'podcast', 'u2', 'f2', 'Plain', 1, 1.0)
                    """)
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.channel(id: 1).speed == 1.5)
        #expect(try await library.channel(id: 2).speed == nil, "1.0 was v2's default, not a choice")
    }

    /// v21 renames v20's column: sanitized notes stored by v20 stay (sanitized again when shown,
    /// they stay safe) and read as the item's stored notes, with the item's page as their base.
    @Test func v21KeepsV20sNotesAsTheStoredMarkup() async throws {
        let dir = TempDir()
        let path = dir.file("v20.sqlite")
        let notes = #"<p>Hi</p><p><a href="https://x.example/" rel="noopener noreferrer nofollow" target="_blank">x</a></p>"#
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v20-notes-html")
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at)
                        VALUES (7, 'podcast', 'https://pod.example/feed', 'https://pod.example/feed', 'P', 100);
                    INSERT INTO subscriptions (user_id, channel_id, added_at) SELECT id, 7, 100 FROM users;
                    INSERT INTO items (id, channel_id, item_id, title, url, published, discovered_at, notes_html)
                        VALUES (42, 7, 'ep1', 'First', 'https://pod.example/ep/1', 500, 600, ?);
                    """, arguments: [notes])
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations() == Schema.migrationNames)
        #expect(try await library.storedNotes(id: 42) == StoredNotes(markup: notes, base: "https://pod.example/ep/1"))
        #expect(try await library.itemDetails(id: 42).storedNotes?.markup == notes)
    }
}
