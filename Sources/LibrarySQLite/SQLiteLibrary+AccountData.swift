import FeedModel
import GRDB
import LibraryStore

// The history and the episode actions are read in id order, the rowid's: `+user_id` keeps SQLite
// from taking the (user_id, time) index and sorting all the user's rows for every page (an
// export of 200,000 plays took 17 s that way, most of it sorting); the rowid range from the last
// page on is read once in all, other users' rows skipped.
extension SQLiteLibrary: AccountDataStore {
    public func watchStates(after item: Int64, limit: Int) async throws(LibraryError) -> [ItemWatchState] {
        let user = user
        return try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT w.item, c.feed_url, i.item_id, i.guid, i.title, i.url, i.enclosure_url,
                       w.watched, w.progress_seconds, w.watched_at, w.updated_at
                FROM watch_state w JOIN items i ON i.id = w.item JOIN channels c ON c.id = i.channel_id
                WHERE w.user_id = ? AND w.item > ? ORDER BY w.item LIMIT ?
                """, arguments: [user.rawValue, item, max(limit, 0)]).map {
                ItemWatchState(item: $0["item"], feedURL: $0["feed_url"], itemID: $0["item_id"], guid: $0["guid"], title: $0["title"],
                               url: $0["url"], enclosureURL: $0["enclosure_url"], watched: $0["watched"],
                               progressSeconds: $0["progress_seconds"], watchedAt: $0["watched_at"], updatedAt: $0["updated_at"])
            }
        }
    }

    public func historyEntries(after id: Int64, limit: Int) async throws(LibraryError) -> [HistoryEntry] {
        let user = user
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM play_history WHERE +user_id = ? AND id > ? ORDER BY id LIMIT ?",
                             arguments: [user.rawValue, id, max(limit, 0)]).map {
                HistoryEntry(id: $0["id"], item: $0["item"], title: $0["title"], channel: $0["channel_name"],
                             url: $0["url"], position: $0["position_seconds"], playedAt: $0["played_at"])
            }
        }
    }

    public func uploadedEpisodeActions(after id: Int64, limit: Int) async throws(LibraryError) -> [UploadedEpisodeAction] {
        let user = user
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM episode_actions WHERE +user_id = ? AND id > ? ORDER BY id LIMIT ?",
                             arguments: [user.rawValue, id, max(limit, 0)]).compactMap { row in
                // The table's CHECK allows only the kinds there are.
                guard let kind = EpisodeActionKind(rawValue: row["action"]) else { return nil }
                return UploadedEpisodeAction(id: row["id"], uploaded: row["uploaded"], action: EpisodeAction(
                    podcast: row["podcast"], episode: row["episode"], guid: row["guid"], kind: kind, device: row["device"],
                    timestamp: row["timestamp"], started: row["started"], position: row["position"], total: row["total"]))
            }
        }
    }
}
