import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The SQL spells the product rules as FeedModel states them: a rule changed without a
/// migration fails here.
@Suite struct StoreRulesTests {
    let t: TestLibrary
    init() throws { t = try TestLibrary() }

    private func schemaSQL(_ name: String) throws -> String {
        try t.library.pool.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [name]) ?? ""
        }
    }

    /// The change log's pruning (v19's trigger) keeps what `ChangeFeedRule` says.
    @Test func theChangeLogsPruningSpellsTheRule() throws {
        let sql = try schemaSQL("changes_pruned")
        #expect(sql.contains("WHEN NEW.seq % \(ChangeFeedRule.pruneEvery) = 0"), "\(sql)")
        #expect(sql.contains("DELETE FROM changes WHERE seq <= NEW.seq - \(ChangeFeedRule.kept);"), "\(sql)")
    }

    @Test func shortFormIndexAndQuerySpellTheRule() throws {
        #expect(try schemaSQL("items_short").hasSuffix("WHERE \(Schema.shortFormPredicate)"))
        #expect(Schema.shortFormPredicate == "duration <= \(ShortForm.maxDuration) OR is_short = 1")
        // The short-form query repeats the index's WHERE, so SQLite walks the partial index.
        let plan = try t.library.pool.read { db in
            try Row.fetchAll(db, sql: """
                EXPLAIN QUERY PLAN SELECT i.id FROM items i CROSS JOIN channels c ON c.id = i.channel_id
                WHERE (\(Schema.shortFormPredicate)) ORDER BY i.published DESC, i.discovered_at DESC, i.id DESC LIMIT 50
                """).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("items_short") }, "\(plan)")
    }

    @Test func speedCheckIsThePlaybackRange() async throws {
        // The remembered speed is per user since v11-users: a subscription's.
        #expect(try schemaSQL("subscriptions").contains("CHECK (\(Schema.speedCheck))"))
        let id = try await t.library.addTestChannel("fast")
        // The schema refuses what the store's check does (StoreContractTests: `setSpeed` outside the range is `invalid`).
        for outside in [0.25, 3.5] {
            #expect(throws: DatabaseError.self) {
                try t.library.pool.write { db in try db.execute(sql: "UPDATE subscriptions SET speed = ? WHERE channel_id = ?", arguments: [outside, id]) }
            }
        }
        try await t.library.pool.write { db in try db.execute(sql: "UPDATE subscriptions SET speed = 3 WHERE channel_id = ?", arguments: [id]) }
    }

    /// v2's CHECK allowed 0.25–4: v6 rebuilds the table, clamps such a speed into the range, and
    /// keeps everything else, the items' link to their channel included.
    @Test func v6ClampsRememberedSpeedsAndKeepsTheChannels() async throws {
        let dir = TempDir()
        let path = dir.file("v5.sqlite")
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v5-remembered-speed")
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at, etag, consecutive_errors, speed, speed_set)
                        VALUES (3, 'podcast', 's', 'https://x/slow.xml', 'Slow', 10, '"e"', 1, 0.25, 1),
                               (4, 'youtube', 's', 'https://x/fast.xml', 'Fast', 11, NULL, 0, 4.0, 1),
                               (5, 'rumble', 's', 'https://x/plain.xml', 'Plain', 12, NULL, 0, 1.0, 0);
                    INSERT INTO items (id, channel_id, item_id, title, discovered_at) VALUES (9, 3, 'a', 'A', 20);
                    """)
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations() == Schema.migrationNames)
        let slow = try await library.channel(id: 3)
        #expect(slow.speed == 0.5 && slow.etag == "\"e\"" && slow.consecutiveErrors == 1 && slow.name == "Slow" && slow.addedAt == 10)
        #expect(try await library.channel(id: 4).speed == 3.0)
        #expect(try await library.channel(id: 5).speed == nil)
        #expect(try await library.item(id: 9).channel == "Slow")
        try await library.removeChannel(id: 3)
        await #expect(throws: LibraryError.noItem(9)) { try await library.item(id: 9) }
    }

    @Test func itemStateCodesAreWatchState() async throws {
        let channel = try await t.library.addTestChannel("s")
        _ = try await t.library.ingest(items: [item("a"), item("b"), item("c")], channelID: channel, now: 1)
        let (a, b) = (try await t.library.id(of: "a"), try await t.library.id(of: "b"))
        try await t.library.setProgress(a, seconds: 10, now: 2)
        try await t.library.setWatched([b], now: 2)
        let states = try await t.library.read { db in try Int.fetchAll(db, sql: "SELECT state FROM items ORDER BY id") }
        #expect(states == [WatchState.inProgress, .watched, .untouched].map(\.rawValue))
    }
}
