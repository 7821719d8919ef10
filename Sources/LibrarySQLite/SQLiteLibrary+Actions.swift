import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// Item `id` as the CLI shows it.
    public func item(id: Int64) async throws(LibraryError) -> LibraryItem {
        let user = user
        return try await read { db in
            guard let item = try LibraryItem.fetchAll(db, ids: [id], user: user).first else { throw LibraryError.noItem(id) }
            return item
        }
    }

    /// Item `id` with its show notes and links.
    public func itemDetails(id: Int64) async throws(LibraryError) -> ItemDetails {
        let user = user
        return try await read { db in
            guard let item = try LibraryItem.fetchAll(db, ids: [id], user: user).first,
                  let row = try Row.fetchOne(db, sql: """
                      SELECT i.description, i.author, i.enclosure_type, i.enclosure_length, i.chapters_url, i.transcript_url,
                             i.episode, i.season, i.explicit, i.episode_type, i.live_status, i.persons, i.funding, \(StoredNotes.columns)
                      FROM items i CROSS JOIN channels c ON c.id = i.channel_id WHERE i.id = ?
                      """, arguments: [id])
            else { throw LibraryError.noItem(id) }
            return ItemDetails(item: item, notes: row["description"], author: row["author"], enclosureType: row["enclosure_type"],
                               enclosureLength: row["enclosure_length"], chaptersURL: row["chapters_url"],
                               transcriptURL: row["transcript_url"], episode: row["episode"], season: row["season"],
                               explicit: row["explicit"], episodeType: row["episode_type"], liveStatus: row["live_status"],
                               persons: StoredJSON.decode(Person.self, row["persons"]),
                               funding: StoredJSON.decode(Link.self, row["funding"]), storedNotes: StoredNotes(row: row))
        }
    }

    /// Marks items watched (or, with `watched: false`, unwatched again). Either all ids exist and
    /// all change, or nothing changes. Both directions reset the progress: a watched item is
    /// done, an unwatched one starts over. Returns the ids whose mark changed, in the order given.
    @discardableResult
    public func setWatched(_ ids: [Int64], watched: Bool, now: Int64) async throws(LibraryError) -> [Int64] {
        let ids = Self.unique(ids)
        let user = user
        return try await write { db in
            try Self.requireItems(ids, user: user, db)
            let before = try db.cachedStatement(sql: "SELECT coalesce(max(watched), 0) FROM watch_state WHERE user_id = ? AND item = ?")
            return try ids.filter { id in
                let was = try Bool.fetchOne(before, arguments: [user.rawValue, id]) ?? false
                try Self.writeWatchState(.mark(watched: watched), item: id, user: user, time: now, db)
                return was != watched
            }
        }
    }

    /// Marks channel `channelID`'s items watched, only those published before `before` when it
    /// is given (items without a date then stay as they are). Returns how many were not watched yet.
    @discardableResult
    public func setWatched(channelID: Int64, publishedBefore before: Int64?, now: Int64) async throws(LibraryError) -> Int {
        let user = user
        return try await write { db in
            try Self.requireChannel(channelID, user: user, db)
            // The user's own watch state (items.state is only the owner's).
            let unwatched = try Int64.fetchAll(db, sql: """
                SELECT id FROM items
                WHERE channel_id = ?2 AND (?3 IS NULL OR published < ?3)
                    AND NOT EXISTS (SELECT 1 FROM watch_state w WHERE w.user_id = ?1 AND w.item = items.id AND w.watched = 1)
                """, arguments: [user.rawValue, channelID, before])
            for id in unwatched { try Self.writeWatchState(.mark(watched: true), item: id, user: user, time: now, db) }
            return unwatched.count
        }
    }

    @discardableResult
    public func updateWatchState(_ id: Int64, _ update: WatchUpdate, now: Int64) async throws(LibraryError) -> WatchState {
        let update = try update.validated()
        let user = user
        return try await write { db in
            try Self.requireItems([id], user: user, db)
            // Without `lastWriterWins` the upsert always writes its row.
            guard let state = try Self.writeWatchState(update, item: id, user: user, time: now, db) else {
                throw UnexpectedResult("the watch state of item \(id) was not written")
            }
            return state
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
        let user = user
        return try await write { db in
            try Self.requireItems(ids, user: user, db)
            let insert = try db.cachedStatement(sql: "INSERT INTO saved_items (user_id, item, saved_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
            return try ids.filter { id in
                try insert.execute(arguments: [user.rawValue, id, now, now])
                return db.changesCount > 0
            }
        }
    }

    /// Unsaves items, all or none: every id is checked first. Returns the ids that were saved.
    @discardableResult
    public func unsave(_ ids: [Int64]) async throws(LibraryError) -> [Int64] {
        let ids = Self.unique(ids)
        let user = user
        return try await write { db in
            try Self.requireItems(ids, user: user, db)
            let delete = try db.cachedStatement(sql: "DELETE FROM saved_items WHERE user_id = ? AND item = ?")
            return try ids.filter { id in
                try delete.execute(arguments: [user.rawValue, id])
                return db.changesCount > 0
            }
        }
    }

    /// Saved items, most recently saved first.
    public func saved() async throws(LibraryError) -> [LibraryItem] {
        let user = user
        return try await read { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT item FROM saved_items WHERE user_id = ? AND item IS NOT NULL ORDER BY saved_at DESC, id DESC",
                                         arguments: [user.rawValue])
            return try LibraryItem.fetchAll(db, ids: ids, user: user)
        }
    }

    /// Throws `noItem` (or `noItems`) naming every id `user` cannot see (`LibraryItem.visibleByID`):
    /// not in the library, or in a channel they do not follow and none of their collections.
    static func requireItems(_ ids: [Int64], user: UserID, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM items i WHERE i.id = ?2 AND \(LibraryItem.visibleByID)")
        var missing: [Int64] = []
        for id in ids where try Bool.fetchOne(statement, arguments: [user.rawValue, id]) == nil { missing.append(id) }
        if missing.count == 1 { throw LibraryError.noItem(missing[0]) }
        if !missing.isEmpty { throw LibraryError.noItems(missing) }
    }

    /// Throws `noChannel` unless `user` follows channel `id`.
    static func requireChannel(_ id: Int64, user: UserID, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM subscriptions WHERE user_id = ? AND channel_id = ?")
        guard try Bool.fetchOne(statement, arguments: [user.rawValue, id]) != nil else { throw LibraryError.noChannel(id) }
    }

    /// `ids` without repeats, first occurrence kept.
    static func unique(_ ids: [Int64]) -> [Int64] {
        var seen = Set<Int64>()
        return ids.filter { seen.insert($0).inserted }
    }
}
