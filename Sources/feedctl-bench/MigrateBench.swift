import FeedModel
import Foundation
import GRDB
import LibrarySQLite
import LibraryStore

/// How long upgrading a big library takes: the 1,000,000-item bench library (bench/modes'
/// generator) built at `v6-speed-range`, the last schema before issue 13, then copied and
/// migrated one step at a time, each step timed (v7 rebuilds items and channels, v8 builds the
/// search index).
struct MigrateBench {
    let out: String
    static let version = "migrate-library/2"
    static let from = "v6-speed-range"

    func run() async throws {
        let base = (out as NSString).appendingPathComponent("migrate-1m-v6.sqlite")
        let marker = base + ".done"
        if (try? String(contentsOfFile: marker, encoding: .utf8)) != Self.version {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: base + suffix) }
            let start = monotonicSeconds()
            let library = try SQLiteLibrary(path: base, migrateUpTo: Self.from)
            var generator = LibraryGenerator(library: V6Library(library: library))
            try await generator.generate()
            try await library.checkpoint()
            try Self.version.write(toFile: marker, atomically: true, encoding: .utf8)
            print(String(format: "built %@ at %@ in %.1f s", base, Self.from, monotonicSeconds() - start))
        } else {
            print("using cached \(base)")
        }
        let work = (out as NSString).appendingPathComponent("migrate-1m-work.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: work + suffix) }
        try FileManager.default.copyItem(atPath: base, toPath: work)
        let steps = Array(SQLiteLibrary.migrationNames.drop { $0 != Self.from }.dropFirst())
        var total = 0.0
        for step in steps {
            let start = monotonicSeconds()
            _ = try SQLiteLibrary(path: work, migrateUpTo: step)
            let seconds = monotonicSeconds() - start
            total += seconds
            print(String(format: "%-22@ %6.1f s", step, seconds))
        }
        print(String(format: "upgrade from %@ to the current schema: %.1f s for 1,000,000 items", Self.from, total))
    }
}

/// The bench library written as `v6-speed-range` had it, with that schema's SQL (today's store
/// writes today's tables: subscriptions, per-user watch state, counts).
struct V6Library: GeneratedLibrary {
    let library: SQLiteLibrary

    func subscribe(_ channel: NewChannel, now: Int64) async throws -> Int64 {
        try await library.write { db in
            try db.execute(sql: "INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [channel.platform.rawValue, channel.sourceURL, channel.feedURL, channel.name, now])
            return db.lastInsertedRowID
        }
    }

    func addItems(_ items: [Item], channelID: Int64, now: Int64) async throws {
        try await library.write { db in
            let insert = try db.cachedStatement(sql: """
                INSERT INTO items (channel_id, item_id, title, url, published, duration, is_short, views, enclosure_url,
                                   enclosure_type, thumbnail, discovered_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for item in items {
                try insert.execute(arguments: [channelID, item.id, item.title, item.url, item.published, item.duration, item.isShort,
                                               item.views, item.enclosure?.url, item.enclosure?.type, item.thumbnail, now])
            }
        }
    }

    func setWatched(_ ids: [Int64], now: Int64) async throws {
        try await library.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO watch_state (item, watched, watched_at, updated_at) VALUES (?, 1, ?, ?)")
            for id in ids { try insert.execute(arguments: [id, now, now]) }
        }
    }

    func setProgress(_ id: Int64, seconds: Int, now: Int64) async throws {
        try await library.write { db in
            try db.execute(sql: """
                INSERT INTO watch_state (item, progress_seconds, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (item) DO UPDATE SET watched = 0, watched_at = NULL, progress_seconds = excluded.progress_seconds,
                    updated_at = excluded.updated_at
                """, arguments: [id, seconds, now])
        }
    }

    func check(_ id: Int64) async throws {
        let found = try await library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE id = ?", arguments: [id]) }
        guard found == 1 else { throw LibraryError.noItem(id) }
    }
}
