import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// Appends a play of item `id` to the history, copying its title, channel name and URL
    /// (enclosure URL for podcasts) so the entry outlives the channel. Returns the entry.
    @discardableResult
    public func appendHistory(item id: Int64, position: Int?, now: Int64) async throws(LibraryError) -> HistoryEntry {
        if let position, position < 0 { throw .invalid("position must be 0 or more seconds (got \(position))") }
        let user = user
        return try await write { db in
            try Self.requireItems([id], user: user, db)
            try Self.insertHistory(item: id, user: user, position: position, time: now, db)
            return try Self.history(db, sql: "WHERE h.id = ?", arguments: [db.lastInsertedRowID])[0]
        }
    }

    /// The history row of a play of `item` (its title, channel name and URL copied).
    static func insertHistory(item: Int64, user: UserID, position: Int?, time: Int64, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO play_history (user_id, item, title, channel_name, url, position_seconds, played_at)
            SELECT ?, i.id, i.title, c.name, coalesce(i.url, i.enclosure_url), ?, ?
            FROM items i JOIN channels c ON c.id = i.channel_id WHERE i.id = ?
            """, arguments: [user.rawValue, position, time, item])
    }

    /// The history, newest first.
    public func history(limit: Int) async throws(LibraryError) -> [HistoryEntry] {
        let user = user
        return try await read { db in
            try Self.history(db, sql: "WHERE h.user_id = ? ORDER BY h.played_at DESC, h.id DESC LIMIT ?",
                             arguments: [user.rawValue, max(limit, 0)])
        }
    }

    private static func history(_ db: Database, sql: String, arguments: StatementArguments) throws -> [HistoryEntry] {
        try Row.fetchAll(db, sql: "SELECT * FROM play_history h \(sql)", arguments: arguments).map {
            HistoryEntry(id: $0["id"], item: $0["item"], title: $0["title"], channel: $0["channel_name"],
                         url: $0["url"], position: $0["position_seconds"], playedAt: $0["played_at"])
        }
    }
}
