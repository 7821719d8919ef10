import FeedModel
import LibraryStore

// The one write of a user's watch state and of a play in the history, as the SQLite library's
// (SQLiteLibrary+WatchState.swift, +History.swift). The schema's triggers do the rest, as
// SQLite's do: the owner's `items.state`, the gpodder sync clock's `sync_episode_changes` and the
// change log's `watch` row, each only when the mark or the progress changed.
extension PostgresLibrary {
    /// The one write of a user's watch state of a library item: every path that changes it
    /// (`setWatched`, `updateWatchState`, a saved video's item, a phone's episode actions, the
    /// ones applied when their episode arrives) comes here, and `WatchUpdate.outcome` applies
    /// `WatchRule`. A mark made watched stamps `watched_at`; unwatched clears it; a progress
    /// alone keeps it.
    ///
    /// A position that makes a play (`WatchUpdate.recordsPlay`) appends it to the history in the
    /// same transaction, except for a phone's action (`lastWriterWins`: replayed and reordered
    /// by sync, it is no play heard here).
    ///
    /// With `lastWriterWins` (a phone's action, stamped when it happened on the phone) a row
    /// changed after `time` is left as it is (`EpisodeActionRule.wins`), and nil is returned;
    /// otherwise the item's state after.
    @discardableResult
    static func writeWatchState(_ update: WatchUpdate, item: Int64, user: UserID, time: Int64, lastWriterWins: Bool = false,
                                _ db: PGConnection) throws(LibraryError) -> WatchState? {
        // What the rule needs to know (a mark alone needs nothing): the item's duration and the
        // stored state, whose row stays locked until the write, so the decision is made on the
        // latest state.
        var isPosition = false
        if case .position = update { isPosition = true }
        let known = isPosition || lastWriterWins ? try db.query("""
            SELECT i.duration, w.watched, w.progress_seconds, w.updated_at FROM items i
            LEFT JOIN LATERAL (SELECT watched, progress_seconds, updated_at FROM watch_state
                               WHERE user_id = $1 AND item = i.id FOR UPDATE) w ON true
            WHERE i.id = $2
            """, [user.rawValue, item]).first : nil
        let stored: (watched: Bool, progress: Int, changed: Int64)? = if let known, let changed = try known.get("updated_at") as Int64? {
            (try known.get("watched"), try known.get("progress_seconds"), changed)
        } else {
            nil
        }
        if lastWriterWins {
            guard EpisodeActionRule.wins(actionTime: time, over: stored?.changed) else { return nil }
        }
        var duration: Int?
        if case .position(_, let length) = update, (length ?? 0) <= 0, let known {
            duration = try known.get("duration") as Int?
        }
        let (watched, progress) = update.outcome(duration: duration)
        let recordsPlay = !lastWriterWins && update.recordsPlay(before: stored.map { ($0.watched, $0.progress) }, duration: duration)
        // $3: the mark written, NULL to keep the one stored.
        guard let row = try db.query("""
            INSERT INTO watch_state (user_id, item, watched, progress_seconds, watched_at, updated_at)
            VALUES ($1, $2, coalesce($3::bigint, 0), $4, CASE WHEN $3::bigint = 1 THEN $5::bigint END, $5)
            ON CONFLICT (user_id, item) DO UPDATE SET
                watched = coalesce($3::bigint, watch_state.watched), progress_seconds = $4,
                watched_at = CASE WHEN $3::bigint IS NULL THEN watch_state.watched_at WHEN $3::bigint = 1 THEN $5::bigint END,
                updated_at = $5
            RETURNING watched, progress_seconds
            """, [user.rawValue, item, watched, progress, time]).first else {
            throw PGRow.unexpected("the upsert of item \(item)'s watch state returned no row")
        }
        if recordsPlay { try insertHistory(item: item, user: user, position: nil, time: time, db) }
        return WatchState(watched: try row.get("watched"), progress: try row.get("progress_seconds"))
    }

    /// The history row of a play of `item` (its title, channel name and URL copied, so the entry
    /// outlives the channel).
    @discardableResult
    static func insertHistory(item: Int64, user: UserID, position: Int?, time: Int64, _ db: PGConnection) throws(LibraryError) -> HistoryEntry {
        guard let row = try db.query("""
            INSERT INTO play_history (user_id, item, title, channel_name, url, position_seconds, played_at)
            SELECT $1::bigint, i.id, i.title, c.name, coalesce(i.url, i.enclosure_url), $2::bigint, $3::bigint
            FROM items i JOIN channels c ON c.id = i.channel_id WHERE i.id = $4
            RETURNING \(historyColumns)
            """, [user.rawValue, position, time, item]).first else {
            throw PGRow.unexpected("item \(item)'s play was not added to the history")
        }
        return try historyEntry(row)
    }

    static let historyColumns = "id, item, title, channel_name, url, position_seconds, played_at"

    static func historyEntry(_ row: PGRow) throws(LibraryError) -> HistoryEntry {
        HistoryEntry(id: try row.get("id"), item: try row.get("item"), title: try row.get("title"), channel: try row.get("channel_name"),
                     url: try row.get("url"), position: try row.get("position_seconds"), playedAt: try row.get("played_at"))
    }
}
