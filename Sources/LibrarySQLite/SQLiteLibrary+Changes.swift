import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary: ChangeFeed {
    /// Every user's changes (the log is the server's to fan out), in one snapshot: the oldest
    /// kept and the latest are read with the page, so a prune between them cannot hide a gap.
    public func changes(after seq: Int64, limit: Int) async throws(LibraryError) -> ChangeBatch {
        try await read { db in
            let bounds = try Row.fetchOne(db.cachedStatement(sql: "SELECT min(seq), max(seq) FROM changes"))
            let oldest: Int64? = bounds?[0], latest: Int64 = bounds?[1] ?? 0
            // Nothing after `seq` is missing if the log starts right after it or before it.
            if seq > latest || (oldest.map { seq < $0 - 1 } ?? false) { return .gone(latest: latest) }
            let page = try db.cachedStatement(sql: "SELECT seq, user_id, kind, payload FROM changes WHERE seq > ? ORDER BY seq LIMIT ?")
            let rows = try Row.fetchAll(page, arguments: [seq, max(limit, 0)])
            return .changes(rows.compactMap { row in
                // The table's CHECK allows only the kinds there are.
                guard let kind = Change.Kind(rawValue: row[2]) else { return nil }
                return Change(seq: row[0], user: UserID(row[1]), kind: kind, payload: row[3])
            })
        }
    }

    public func latestChange() async throws(LibraryError) -> Int64 {
        try await read { db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(seq) FROM changes")) ?? 0 }
    }
}
