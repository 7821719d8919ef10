import FeedModel
import LibraryStore

// A user's rows for their data export, page by page: as the SQLite library (SQLiteLibrary+AccountData.swift).
extension PostgresLibrary: AccountDataStore {
    public func watchStates(after item: Int64, limit: Int) async throws(LibraryError) -> [ItemWatchState] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT w.item, c.feed_url, i.item_id, i.guid, i.title, i.url, i.enclosure_url,
                       w.watched, w.progress_seconds, w.watched_at, w.updated_at
                FROM watch_state w JOIN items i ON i.id = w.item JOIN channels c ON c.id = i.channel_id
                WHERE w.user_id = $1 AND w.item > $2 ORDER BY w.item LIMIT $3
                """, [user.rawValue, item, max(limit, 0)]).rows.map { row throws(LibraryError) in
                ItemWatchState(item: try row.get("item"), feedURL: try row.get("feed_url"), itemID: try row.get("item_id"),
                               guid: try row.get("guid"), title: try row.get("title"), url: try row.get("url"),
                               enclosureURL: try row.get("enclosure_url"), watched: try row.get("watched"),
                               progressSeconds: try row.get("progress_seconds"), watchedAt: try row.get("watched_at"),
                               updatedAt: try row.get("updated_at"))
            }
        }
    }

    public func historyEntries(after id: Int64, limit: Int) async throws(LibraryError) -> [HistoryEntry] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("SELECT \(Self.historyColumns) FROM play_history WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3",
                         [user.rawValue, id, max(limit, 0)]).rows.map { row throws(LibraryError) in try Self.historyEntry(row) }
        }
    }

    public func uploadedEpisodeActions(after id: Int64, limit: Int) async throws(LibraryError) -> [UploadedEpisodeAction] {
        let user = user
        return try await read { db throws(LibraryError) in
            var actions: [UploadedEpisodeAction] = []
            for row in try db.query("SELECT * FROM episode_actions WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3",
                                    [user.rawValue, id, max(limit, 0)]).rows {
                guard let action = try Self.action(row) else { continue }
                actions.append(UploadedEpisodeAction(id: try row.get("id"), uploaded: try row.get("uploaded"), action: action))
            }
            return actions
        }
    }
}
