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

    /// Item `id` with its show notes and links.
    public func itemDetails(id: Int64) async throws(LibraryError) -> ItemDetails {
        try await read { db in
            guard let item = try LibraryItem.fetchAll(db, ids: [id]).first,
                  let row = try Row.fetchOne(db, sql: """
                      SELECT description, author, enclosure_type, enclosure_length, chapters_url, transcript_url, episode, season,
                             explicit, episode_type, live_status, persons, funding
                      FROM items WHERE id = ?
                      """, arguments: [id])
            else { throw LibraryError.noItem(id) }
            return ItemDetails(item: item, notes: row["description"], author: row["author"], enclosureType: row["enclosure_type"],
                               enclosureLength: row["enclosure_length"], chaptersURL: row["chapters_url"],
                               transcriptURL: row["transcript_url"], episode: row["episode"], season: row["season"],
                               explicit: row["explicit"], episodeType: row["episode_type"], liveStatus: row["live_status"],
                               persons: StoredJSON.decode(Person.self, row["persons"]),
                               funding: StoredJSON.decode(Link.self, row["funding"]))
        }
    }

    /// Marks items watched (or, with `watched: false`, unwatched again). Either all ids exist and
    /// all change, or nothing changes. Both directions reset the progress: a watched item is
    /// done, an unwatched one starts over.
    public func setWatched(_ ids: [Int64], watched: Bool, now: Int64) async throws(LibraryError) {
        let ids = Self.unique(ids)
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

    /// Marks channel `channelID`'s items watched, only those published before `before` when it
    /// is given (items without a date then stay as they are). Returns how many were not watched yet.
    @discardableResult
    public func setWatched(channelID: Int64, publishedBefore before: Int64?, now: Int64) async throws(LibraryError) -> Int {
        try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM channels WHERE id = ?", arguments: [channelID]) != nil else {
                throw LibraryError.noChannel(channelID)
            }
            try db.execute(sql: """
                INSERT INTO watch_state (item, watched, progress_seconds, watched_at, updated_at)
                SELECT id, 1, 0, ?1, ?1 FROM items
                WHERE channel_id = ?2 AND state <> \(WatchState.watched.rawValue) AND (?3 IS NULL OR published < ?3)
                ON CONFLICT (item) DO UPDATE SET watched = 1, progress_seconds = 0,
                    watched_at = excluded.watched_at, updated_at = excluded.updated_at
                """, arguments: [now, channelID, before])
            return db.changesCount
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
        try await save([id], now: now)
    }

    /// Unsaves item `id` (a no-op if it was not saved).
    public func unsave(_ id: Int64) async throws(LibraryError) {
        try await unsave([id])
    }

    /// Saves items, all or none: every id is checked first. Returns the ids that were not saved
    /// before (saving twice keeps the first time), in the order given.
    @discardableResult
    public func save(_ ids: [Int64], now: Int64) async throws(LibraryError) -> [Int64] {
        let ids = Self.unique(ids)
        return try await write { db in
            try Self.requireItems(ids, db)
            let insert = try db.cachedStatement(sql: "INSERT INTO saved_items (item, saved_at) VALUES (?, ?) ON CONFLICT DO NOTHING")
            return try ids.filter { id in
                try insert.execute(arguments: [id, now])
                return db.changesCount > 0
            }
        }
    }

    /// Unsaves items, all or none: every id is checked first. Returns the ids that were saved.
    @discardableResult
    public func unsave(_ ids: [Int64]) async throws(LibraryError) -> [Int64] {
        let ids = Self.unique(ids)
        return try await write { db in
            try Self.requireItems(ids, db)
            let delete = try db.cachedStatement(sql: "DELETE FROM saved_items WHERE item = ?")
            return try ids.filter { id in
                try delete.execute(arguments: [id])
                return db.changesCount > 0
            }
        }
    }

    /// Saved items, most recently saved first.
    public func saved() async throws(LibraryError) -> [LibraryItem] {
        try await read { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT item FROM saved_items ORDER BY saved_at DESC, rowid DESC")
            return try LibraryItem.fetchAll(db, ids: ids)
        }
    }

    /// Throws `noItem` (or `noItems`) naming every id the library does not have.
    static func requireItems(_ ids: [Int64], _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM items WHERE id = ?")
        var missing: [Int64] = []
        for id in ids where try Bool.fetchOne(statement, arguments: [id]) == nil { missing.append(id) }
        if missing.count == 1 { throw LibraryError.noItem(missing[0]) }
        if !missing.isEmpty { throw LibraryError.noItems(missing) }
    }

    /// `ids` without repeats, first occurrence kept.
    static func unique(_ ids: [Int64]) -> [Int64] {
        var seen = Set<Int64>()
        return ids.filter { seen.insert($0).inserted }
    }
}
