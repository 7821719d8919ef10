import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
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
                                _ db: Database) throws -> WatchState? {
        if lastWriterWins {
            let changed = try Int64.fetchOne(db.cachedStatement(sql: "SELECT updated_at FROM watch_state WHERE user_id = ? AND item = ?"),
                                             arguments: [user.rawValue, item])
            guard EpisodeActionRule.wins(actionTime: time, over: changed) else { return nil }
        }
        var duration: Int?
        if case .position(_, let length) = update, (length ?? 0) <= 0 {
            duration = try Int.fetchOne(db.cachedStatement(sql: "SELECT duration FROM items WHERE id = ?"), arguments: [item])
        }
        let (watched, progress) = update.outcome(duration: duration)
        var recordsPlay = false
        if !lastWriterWins, case .position = update, watched == true {
            let before = try Row.fetchOne(db.cachedStatement(sql: "SELECT watched, progress_seconds FROM watch_state WHERE user_id = ? AND item = ?"),
                                          arguments: [user.rawValue, item]).map { (watched: $0[0] as Bool, progress: $0[1] as Int) }
            recordsPlay = update.recordsPlay(before: before, duration: duration)
        }
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO watch_state (user_id, item, watched, progress_seconds, watched_at, updated_at)
            VALUES (?1, ?2, coalesce(?3, 0), ?4, CASE WHEN ?3 THEN ?5 END, ?5)
            ON CONFLICT (user_id, item) DO UPDATE SET
                watched = coalesce(?3, watched), progress_seconds = ?4,
                watched_at = CASE WHEN ?3 IS NULL THEN watched_at WHEN ?3 THEN ?5 END, updated_at = ?5
            RETURNING watched, progress_seconds
            """)
        guard let row = try Row.fetchOne(upsert, arguments: [user.rawValue, item, watched, progress, time]) else {
            throw UnexpectedResult("the upsert of item \(item)'s watch state returned no row")
        }
        if recordsPlay { try insertHistory(item: item, user: user, position: nil, time: time, db) }
        return WatchState(watched: row[0], progress: row[1])
    }
}
