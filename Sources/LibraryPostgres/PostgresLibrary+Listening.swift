import FeedModel
import LibraryStore

// What listening changes: watch state, saved items, the play history; as the SQLite library
// (SQLiteLibrary+WatchState.swift, +Actions.swift, +History.swift).
extension PostgresLibrary {
    /// The one write of a user's watch state of a library item: every path that changes it
    /// comes here, and `WatchUpdate.outcome` applies `WatchRule`. A mark made watched stamps
    /// `watched_at`; unwatched clears it; a progress alone keeps it. A position that makes a play
    /// (`WatchUpdate.recordsPlay`) appends it to the history in the same transaction, except for
    /// a phone's action (`lastWriterWins`). With `lastWriterWins` a row changed after `time` is
    /// left as it is, and nil is returned; otherwise the item's state after.
    @discardableResult
    static func writeWatchState(_ update: WatchUpdate, item: Int64, user: UserID, time: Int64, lastWriterWins: Bool = false,
                                _ db: PGConnection) throws(LibraryError) -> WatchState? {
        var duration: Int?
        if case .position(_, let length) = update, (length ?? 0) <= 0 {
            if let row = try db.query("SELECT duration FROM items WHERE id = $1", [item]).first { duration = try row.get("duration") as Int? }
        }
        let (watched, progress) = update.outcome(duration: duration)
        var recordsPlay = false
        if !lastWriterWins, case .position = update, watched == true {
            let before = try db.query("SELECT watched, progress_seconds FROM watch_state WHERE user_id = $1 AND item = $2",
                                      [user.rawValue, item]).first.map { row throws(LibraryError) in
                (watched: try row.get("watched") as Bool, progress: try row.get("progress_seconds") as Int)
            }
            recordsPlay = update.recordsPlay(before: before, duration: duration)
        }
        guard let row = try db.query("""
            INSERT INTO watch_state AS ws (user_id, item, watched, progress_seconds, watched_at, updated_at)
            VALUES ($1, $2, coalesce($3::bigint, 0), $4, CASE WHEN $3::bigint = 1 THEN $5::bigint END, $5)
            ON CONFLICT (user_id, item) DO UPDATE SET
                watched = coalesce($3::bigint, ws.watched), progress_seconds = $4,
                watched_at = CASE WHEN $3::bigint IS NULL THEN ws.watched_at WHEN $3::bigint = 1 THEN $5::bigint END, updated_at = $5
            WHERE NOT $6::boolean OR ws.updated_at <= $5
            RETURNING watched, progress_seconds
            """, [user.rawValue, item, watched, progress, time, lastWriterWins]).first else { return nil }
        if recordsPlay { try insertHistory(item: item, user: user, position: nil, time: time, db) }
        return WatchState(watched: try row.get("watched"), progress: try row.get("progress_seconds"))
    }

    /// The history row of a play of `item` (its title, channel name and URL copied); its id.
    @discardableResult
    static func insertHistory(item: Int64, user: UserID, position: Int?, time: Int64, _ db: PGConnection) throws(LibraryError) -> Int64? {
        try db.query("""
            INSERT INTO play_history (user_id, item, title, channel_name, url, position_seconds, played_at)
            SELECT $1, i.id, i.title, c.name, coalesce(i.url, i.enclosure_url), $2, $3
            FROM items i JOIN channels c ON c.id = i.channel_id WHERE i.id = $4
            RETURNING id
            """, [user.rawValue, position, time, item]).first?.get("id")
    }

    public func setWatched(_ ids: [Int64], watched: Bool, now: Int64) async throws(LibraryError) -> [Int64] {
        let ids = Self.unique(ids)
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.requireItems(ids, user: user, db)
            let before = Set(try db.query("SELECT item FROM watch_state WHERE user_id = $1 AND item = ANY($2::bigint[]) AND watched = 1",
                                          [user.rawValue, ids]).rows.map { row throws(LibraryError) in try row.get("item") as Int64 })
            var changed: [Int64] = []
            for id in ids {
                try Self.writeWatchState(.mark(watched: watched), item: id, user: user, time: now, db)
                if before.contains(id) != watched { changed.append(id) }
            }
            return changed
        }
    }

    public func setWatched(channelID: Int64, publishedBefore before: Int64?, now: Int64) async throws(LibraryError) -> Int {
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.requireChannel(channelID, user: user, db)
            // The user's own watch state (items.state is only the owner's).
            let unwatched: [Int64] = try db.query("""
                SELECT id FROM items
                WHERE channel_id = $2 AND ($3::bigint IS NULL OR published < $3)
                    AND NOT EXISTS (SELECT 1 FROM watch_state w WHERE w.user_id = $1 AND w.item = items.id AND w.watched = 1)
                ORDER BY id
                """, [user.rawValue, channelID, before]).rows.map { row throws(LibraryError) in try row.get("id") }
            for id in unwatched { try Self.writeWatchState(.mark(watched: true), item: id, user: user, time: now, db) }
            return unwatched.count
        }
    }

    public func updateWatchState(_ id: Int64, _ update: WatchUpdate, now: Int64) async throws(LibraryError) -> WatchState {
        let update = try update.validated()
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.requireItems([id], user: user, db)
            // Without `lastWriterWins` the upsert always writes its row.
            guard let state = try Self.writeWatchState(update, item: id, user: user, time: now, db) else {
                throw PGRow.unexpected("the watch state of item \(id) was not written")
            }
            return state
        }
    }

    public func save(_ id: Int64, now: Int64) async throws(LibraryError) {
        try await save([id], now: now)
    }

    public func unsave(_ id: Int64) async throws(LibraryError) {
        try await unsave([id])
    }

    public func save(_ ids: [Int64], now: Int64) async throws(LibraryError) -> [Int64] {
        let ids = Self.unique(ids)
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.requireItems(ids, user: user, db)
            var saved: [Int64] = []
            for id in ids where try db.query("INSERT INTO saved_items (user_id, item, saved_at, updated_at) VALUES ($1, $2, $3, $3) ON CONFLICT DO NOTHING",
                                             [user.rawValue, id, now]).affected > 0 {
                saved.append(id)
            }
            return saved
        }
    }

    public func unsave(_ ids: [Int64]) async throws(LibraryError) -> [Int64] {
        let ids = Self.unique(ids)
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.requireItems(ids, user: user, db)
            var unsaved: [Int64] = []
            for id in ids where try db.query("DELETE FROM saved_items WHERE user_id = $1 AND item = $2", [user.rawValue, id]).affected > 0 {
                unsaved.append(id)
            }
            return unsaved
        }
    }

    public func saved() async throws(LibraryError) -> [LibraryItem] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT \(LibraryItem.pgSelection) FROM saved_items sv JOIN items i ON i.id = sv.item \(LibraryItem.pgJoins(user: "$1"))
                WHERE sv.user_id = $1 ORDER BY sv.saved_at DESC, sv.id DESC
                """, [user.rawValue]).rows.map(LibraryItem.init(pgRow:))
        }
    }

    public func appendHistory(item id: Int64, position: Int?, now: Int64) async throws(LibraryError) -> HistoryEntry {
        if let position, position < 0 { throw .invalid("position must be 0 or more seconds (got \(position))") }
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.requireItems([id], user: user, db)
            guard let entry = try Self.insertHistory(item: id, user: user, position: position, time: now, db),
                  let row = try Self.history(db, "WHERE h.id = $1", [entry]).first else { throw .noItem(id) }
            return row
        }
    }

    public func history(limit: Int) async throws(LibraryError) -> [HistoryEntry] {
        let user = user
        return try await read { db throws(LibraryError) in
            try Self.history(db, "WHERE h.user_id = $1 ORDER BY h.played_at DESC, h.id DESC LIMIT $2", [user.rawValue, max(limit, 0)])
        }
    }

    /// Throws `noChannel` unless `user` follows channel `id`.
    static func requireChannel(_ id: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) {
        guard try db.query("SELECT 1 FROM subscriptions WHERE user_id = $1 AND channel_id = $2", [user.rawValue, id]).first != nil else {
            throw .noChannel(id)
        }
    }

    private static func history(_ db: PGConnection, _ sql: String, _ arguments: [any PGBindable]) throws(LibraryError) -> [HistoryEntry] {
        try db.query("SELECT * FROM play_history h \(sql)", arguments).rows.map { row throws(LibraryError) in
            HistoryEntry(id: try row.get("id"), item: try row.get("item"), title: try row.get("title"), channel: try row.get("channel_name"),
                         url: try row.get("url"), position: try row.get("position_seconds"), playedAt: try row.get("played_at"))
        }
    }
}
