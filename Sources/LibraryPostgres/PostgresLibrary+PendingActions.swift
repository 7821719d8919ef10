import FeedModel
import LibraryStore

// gpodder actions that waited for their episode, applied by the ingest when it arrives, as the
// SQLite library (SQLiteLibrary+EpisodeActions.swift: applyPendingActions, matchItem, apply).
extension PostgresLibrary {
    /// Actions a phone uploaded before their episode was in the library (a podcast subscribed on
    /// the phone, its feed not yet polled here) are kept unmatched; when `channel`'s items arrive
    /// they are matched and applied, oldest first, each user's as `recordEpisodeActions` would
    /// have (last writer wins), so a position saved on the phone is not lost. Called inside the
    /// ingest's transaction.
    static func applyPendingActions(channel: Int64, _ db: PGConnection) throws(LibraryError) {
        let pending = try db.query("""
            SELECT a.* FROM channels c CROSS JOIN episode_actions a
            WHERE c.id = $1 AND a.item IS NULL AND a.action IN ('play', 'new') AND a.podcast IN (c.feed_url, c.source_url)
              AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = a.user_id AND s.channel_id = $1)
            ORDER BY a.timestamp, a.id
            """, [channel]).rows
        for row in pending {
            guard let kind = EpisodeActionKind(rawValue: try row.get("action")) else { continue }
            let action = EpisodeAction(podcast: try row.get("podcast"), episode: try row.get("episode"), guid: try row.get("guid"),
                                       kind: kind, device: try row.get("device"), timestamp: try row.get("timestamp"),
                                       started: try row.get("started"), position: try row.get("position"), total: try row.get("total"))
            let user = UserID(try row.get("user_id"))
            guard let item = try matchItem(action, user: user, db) else { continue }
            try db.query("UPDATE episode_actions SET item = $1 WHERE id = $2", [item, try row.get("id") as Int64])
            try apply(action, to: item, user: user, db)
        }
    }

    /// The item an action is about, among the user's: in the channel polled at (or first added
    /// as) the action's podcast URL, the one with its guid; else the one item with its media URL
    /// (two items sharing a URL are never guessed between).
    static func matchItem(_ action: EpisodeAction, user: UserID, _ db: PGConnection) throws(LibraryError) -> Int64? {
        guard let channelRow = try db.query("""
            SELECT c.id FROM channels c JOIN subscriptions s ON s.channel_id = c.id AND s.user_id = $1
            WHERE c.feed_url = $2 OR c.source_url = $2 ORDER BY c.feed_url = $2 DESC, c.id LIMIT 1
            """, [user.rawValue, action.podcast]).first else { return nil }
        let channel: Int64 = try channelRow.get("id")
        func found(_ sql: String, _ value: String) throws(LibraryError) -> Int64? {
            let rows = try db.query(sql, [channel, value]).rows
            return rows.count == 1 ? try rows[0].get("id") : nil
        }
        if let guid = action.guid {
            if let item = try found("SELECT id FROM items WHERE channel_id = $1 AND item_id = $2", guid) { return item }
            if let item = try found("SELECT id FROM items WHERE channel_id = $1 AND guid = $2 LIMIT 2", guid) { return item }
        }
        return try found("SELECT id FROM items WHERE channel_id = $1 AND enclosure_url = $2 LIMIT 2", action.episode)
    }

    /// Applies an action to the user's watch state unless that changed later than the action
    /// happened (last writer wins, feedctl's own changes included): `play` is a position
    /// (`WatchRule` counts it heard against the action's `total`, else the item's duration),
    /// `new` a mark as not watched. A phone's action is no play heard here: no history.
    static func apply(_ action: EpisodeAction, to item: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) {
        let update: WatchUpdate
        switch action.kind {
        case .play:
            guard let position = action.position, position >= 0 else { return }  // -1: no position
            update = .position(seconds: position, length: action.total.map(Double.init))
        case .new:
            update = .mark(watched: false)
        case .download, .delete, .flattr:
            return
        }
        var duration: Int?
        if case .position(_, let length) = update, (length ?? 0) <= 0 {
            duration = try db.query("SELECT duration FROM items WHERE id = $1", [item]).first?.get("duration")
        }
        let (watched, progress) = update.outcome(duration: duration)
        let written = try db.query("""
            INSERT INTO watch_state (user_id, item, watched, progress_seconds, watched_at, updated_at)
            VALUES ($1, $2, coalesce($3::bigint, 0), $4, CASE WHEN $3::bigint = 1 THEN $5::bigint END, $5)
            ON CONFLICT (user_id, item) DO UPDATE SET
                watched = coalesce($3::bigint, watch_state.watched), progress_seconds = $4,
                watched_at = CASE WHEN $3::bigint IS NULL THEN watch_state.watched_at WHEN $3::bigint = 1 THEN $5::bigint END,
                updated_at = $5
            WHERE watch_state.updated_at <= $5
            RETURNING 1
            """, [user.rawValue, item, watched, progress, action.timestamp]).rows
        guard !written.isEmpty else { return }
        // The action itself is what other devices pull for this change: not feedctl's echo of it.
        try db.query("DELETE FROM sync_episode_changes WHERE user_id = $1 AND item = $2", [user.rawValue, item])
    }
}
