import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// Item `id` as the CLI shows it.
    public func item(id: Int64) async throws(LibraryError) -> LibraryItem {
        try await read { db in
            guard let item = try LibraryItem.fetchAll(db, ids: [id]).first else { throw LibraryError.noItem(id) }
            return item
        }
    }

    /// Marks items watched (or, with `watched: false`, unwatched again). Either all ids exist and
    /// all change, or nothing changes. Both directions reset the progress: a watched item is
    /// done, an unwatched one starts over.
    public func setWatched(_ ids: [Int64], watched: Bool, now: Int64) async throws(LibraryError) {
        try await write { db in
            try Self.requireItems(ids, db)
            let statement = try db.cachedStatement(sql: """
                INSERT INTO watch_state (item, watched, progress_seconds, watched_at, updated_at) VALUES (?, ?, 0, ?, ?)
                ON CONFLICT (item) DO UPDATE SET watched = excluded.watched, progress_seconds = 0,
                    watched_at = excluded.watched_at, updated_at = excluded.updated_at
                """)
            for id in ids {
                try statement.execute(arguments: [id, watched, watched ? now : nil, now])
            }
        }
    }

    /// Records how far item `id` has been played. Its watched mark is left as it is.
    public func setProgress(_ id: Int64, seconds: Int, now: Int64) async throws(LibraryError) {
        guard seconds >= 0 else { throw .invalid("progress must be 0 or more seconds (got \(seconds))") }
        try await write { db in
            try Self.requireItems([id], db)
            try db.execute(sql: """
                INSERT INTO watch_state (item, progress_seconds, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (item) DO UPDATE SET progress_seconds = excluded.progress_seconds, updated_at = excluded.updated_at
                """, arguments: [id, seconds, now])
        }
    }

    /// Saves item `id` (saving twice keeps the first time).
    public func save(_ id: Int64, now: Int64) async throws(LibraryError) {
        try await write { db in
            try Self.requireItems([id], db)
            try db.execute(sql: "INSERT INTO saved_items (item, saved_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                           arguments: [id, now])
        }
    }

    /// Unsaves item `id` (a no-op if it was not saved).
    public func unsave(_ id: Int64) async throws(LibraryError) {
        try await write { db in
            try Self.requireItems([id], db)
            try db.execute(sql: "DELETE FROM saved_items WHERE item = ?", arguments: [id])
        }
    }

    /// Saved items, most recently saved first.
    public func saved() async throws(LibraryError) -> [LibraryItem] {
        try await read { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT item FROM saved_items ORDER BY saved_at DESC, rowid DESC")
            return try LibraryItem.fetchAll(db, ids: ids)
        }
    }

    /// Throws `noItem` for the first id the library does not have.
    static func requireItems(_ ids: [Int64], _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM items WHERE id = ?")
        for id in ids where try Bool.fetchOne(statement, arguments: [id]) == nil {
            throw LibraryError.noItem(id)
        }
    }
}
