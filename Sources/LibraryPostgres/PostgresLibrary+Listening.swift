import FeedModel
import LibraryStore

// Watched marks, progress, saved items and the play history, as the SQLite library's
// (SQLiteLibrary+Actions.swift, +History.swift): the same rules, errors (all or none, every
// missing id named) and order. Every watch state goes through `writeWatchState`.
extension PostgresLibrary {
    /// Marks items watched (or, with `watched: false`, unwatched again). Either all ids exist and
    /// all change, or nothing changes. Both directions reset the progress: a watched item is
    /// done, an unwatched one starts over. Returns the ids whose mark changed, in the order given.
    @discardableResult
    public func setWatched(_ ids: [Int64], watched: Bool, now: Int64) async throws(LibraryError) -> [Int64] {
        let ids = Self.unique(ids)
        let user = user
        return try await write { db throws(LibraryError) in
            try UserLock.watchState.take(for: user, db)
            try Self.requireItems(ids, user: user, db)
            let stored = try db.query("""
                SELECT item, watched FROM watch_state WHERE user_id = $1 AND item = ANY($2::bigint[]) ORDER BY item FOR UPDATE
                """, [user.rawValue, ids]).rows
            var wasWatched = Set<Int64>()
            for row in stored where try row.get("watched") as Bool { wasWatched.insert(try row.get("item")) }
            var changed: [Int64] = []
            for id in ids {
                try Self.writeWatchState(.mark(watched: watched), item: id, user: user, time: now, db)
                if wasWatched.contains(id) != watched { changed.append(id) }
            }
            return changed
        }
    }

    /// Marks channel `channelID`'s items watched, only those published before `before` when it
    /// is given (items without a date then stay as they are). Returns how many were not watched yet.
    @discardableResult
    public func setWatched(channelID: Int64, publishedBefore before: Int64?, now: Int64) async throws(LibraryError) -> Int {
        let user = user
        return try await write { db throws(LibraryError) in
            try UserLock.watchState.take(for: user, db)
            try Self.requireChannel(channelID, user: user, db)
            // The user's own watch state (items.state is only the owner's).
            let unwatched = try db.query("""
                SELECT id FROM items
                WHERE channel_id = $2 AND ($3::bigint IS NULL OR published < $3)
                    AND NOT EXISTS (SELECT 1 FROM watch_state w WHERE w.user_id = $1 AND w.item = items.id AND w.watched = 1)
                ORDER BY id
                """, [user.rawValue, channelID, before]).rows.map { row throws(LibraryError) in try row.get("id") as Int64 }
            for id in unwatched { try Self.writeWatchState(.mark(watched: true), item: id, user: user, time: now, db) }
            return unwatched.count
        }
    }

    @discardableResult
    public func updateWatchState(_ id: Int64, _ update: WatchUpdate, now: Int64) async throws(LibraryError) -> WatchState {
        let update = try update.validated()
        let user = user
        return try await write { db throws(LibraryError) in
            try UserLock.watchState.take(for: user, db)
            try Self.requireItems([id], user: user, db)
            // Without `lastWriterWins` the upsert always writes its row.
            guard let state = try Self.writeWatchState(update, item: id, user: user, time: now, db) else {
                throw PGRow.unexpected("the watch state of item \(id) was not written")
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
        return try await write { db throws(LibraryError) in
            try Self.requireItems(ids, user: user, db)
            // In the order given: their ids and change log rows follow it.
            let saved = Set(try db.query("""
                INSERT INTO saved_items (user_id, item, saved_at, updated_at)
                SELECT $1::bigint, new.item, $3::bigint, $3::bigint FROM unnest($2::bigint[]) WITH ORDINALITY AS new(item, n) ORDER BY new.n
                ON CONFLICT DO NOTHING RETURNING item
                """, [user.rawValue, ids, now]).rows.map { row throws(LibraryError) in try row.get("item") as Int64 })
            return ids.filter(saved.contains)
        }
    }

    /// Unsaves items, all or none: every id is checked first. Returns the ids that were saved.
    @discardableResult
    public func unsave(_ ids: [Int64]) async throws(LibraryError) -> [Int64] {
        let ids = Self.unique(ids)
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.requireItems(ids, user: user, db)
            // One at a time, so the change log's rows follow the order given, as SQLite's.
            var removed: [Int64] = []
            for id in ids where try db.query("DELETE FROM saved_items WHERE user_id = $1 AND item = $2", [user.rawValue, id]).affected > 0 {
                removed.append(id)
            }
            return removed
        }
    }

    /// Saved items, most recently saved first (those of channels the user follows).
    public func saved() async throws(LibraryError) -> [LibraryItem] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT \(LibraryItem.pgSelection) FROM saved_items sv JOIN items i ON i.id = sv.item \(LibraryItem.pgJoins(user: "$1"))
                WHERE sv.user_id = $1 ORDER BY sv.saved_at DESC, sv.id DESC
                """, [user.rawValue]).rows.map { row throws(LibraryError) in try LibraryItem(pgRow: row) }
        }
    }

    /// Appends a play of item `id` to the history, copying its title, channel name and URL
    /// (enclosure URL for podcasts) so the entry outlives the channel. Returns the entry.
    @discardableResult
    public func appendHistory(item id: Int64, position: Int?, now: Int64) async throws(LibraryError) -> HistoryEntry {
        if let position, position < 0 { throw .invalid("position must be 0 or more seconds (got \(position))") }
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.requireItems([id], user: user, db)
            return try Self.insertHistory(item: id, user: user, position: position, time: now, db)
        }
    }

    /// The history, newest first.
    public func history(limit: Int) async throws(LibraryError) -> [HistoryEntry] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT \(Self.historyColumns) FROM play_history WHERE user_id = $1 ORDER BY played_at DESC, id DESC LIMIT $2
                """, [user.rawValue, max(limit, 0)]).rows.map { row throws(LibraryError) in try Self.historyEntry(row) }
        }
    }

    /// Throws `noChannel` unless `user` follows channel `id`.
    static func requireChannel(_ id: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) {
        guard try db.query("SELECT 1 FROM subscriptions WHERE user_id = $1 AND channel_id = $2", [user.rawValue, id]).first != nil else {
            throw .noChannel(id)
        }
    }
}
