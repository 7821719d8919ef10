import GRDB

extension Library {
    /// One page of the feed in `mode`. `page` counts from 1. `days` is catch-up's window (items
    /// published in the last `days` days before `now`; items without a date are never "missed").
    public func feed(mode: FeedMode = .newest, filter: FeedFilter = FeedFilter(), limit: Int = 50, page: Int = 1,
                     days: Int = 14, now: Int64) throws(LibraryError) -> [LibraryItem] {
        guard limit > 0 else { throw .invalid("limit must be at least 1 (got \(limit))") }
        guard page > 0 else { throw .invalid("page must be at least 1 (got \(page))") }
        guard days > 0 else { throw .invalid("days must be at least 1 (got \(days))") }
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: limit)
        guard !overflow else { return [] }
        return try read { db in
            switch mode {
            case .newest, .shortForm:
                return try Self.newest(db, shortOnly: mode == .shortForm, filter: filter, limit: limit, offset: offset)
            case .catchUp:
                return try Self.catchUp(db, filter: filter, limit: limit, offset: offset,
                                        windowStart: now - Int64(days) * 86_400)
            }
        }
    }

    /// Conditions for `filter`, over `items i` and `watch_state w`.
    private static func conditions(_ filter: FeedFilter) -> (sql: [String], arguments: StatementArguments) {
        var sql: [String] = []
        var arguments = StatementArguments()
        if let channelID = filter.channelID {
            sql.append("i.channel_id = ?"); arguments += [channelID]
        }
        if let platform = filter.platform {
            sql.append("i.channel_id IN (SELECT id FROM channels WHERE platform = ?)"); arguments += [platform.rawValue]
        }
        if filter.unwatchedOnly { sql.append("w.watched IS NOT 1") }
        return (sql, arguments)
    }

    // The items_newest / items_short / items_channel_published indexes give this order directly,
    // so the first page reads only about `limit` rows.
    private static func newest(_ db: Database, shortOnly: Bool, filter: FeedFilter, limit: Int, offset: Int) throws -> [LibraryItem] {
        var (conditions, arguments) = conditions(filter)
        // Spelled exactly as items_short's WHERE so that SQLite can use that partial index.
        if shortOnly { conditions.append("(duration <= 180 OR is_short = 1)") }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments += [limit, offset]
        // CROSS JOIN keeps items as the outer loop: the ORDER BY walks an index instead of sorting.
        let sql = """
            SELECT \(LibraryItem.selection)
            FROM items i CROSS JOIN channels c ON c.id = i.channel_id LEFT JOIN watch_state w ON w.item = i.id
            \(whereClause)
            ORDER BY i.published DESC, i.discovered_at DESC, i.id DESC
            LIMIT ? OFFSET ?
            """
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map(LibraryItem.init(row:))
    }

    private static func catchUp(_ db: Database, filter: FeedFilter, limit: Int, offset: Int, windowStart: Int64) throws -> [LibraryItem] {
        let (conditions, arguments) = conditions(filter)
        let extra = conditions.map { " AND " + $0 }.joined()
        // Part 0: resume, most recently played first. Part 1: missed, round by round (each
        // channel's oldest unwatched item, then each one's second…), oldest first within a round.
        let sql = """
            SELECT id FROM (
                SELECT i.id, 0 AS part, -w.updated_at AS k1, 0 AS k2
                FROM watch_state w JOIN items i ON i.id = w.item
                WHERE w.watched = 0 AND w.progress_seconds > 0\(extra)
                UNION ALL
                SELECT id, 1, ROW_NUMBER() OVER (PARTITION BY channel_id ORDER BY published, id), published
                FROM (SELECT i.id, i.channel_id, i.published
                      FROM items i LEFT JOIN watch_state w ON w.item = i.id
                      WHERE i.published >= ? AND (w.item IS NULL OR (w.watched = 0 AND w.progress_seconds = 0))\(extra))
            )
            ORDER BY part, k1, k2, id
            LIMIT ? OFFSET ?
            """
        var all = arguments
        all += [windowStart]
        all += arguments
        all += [limit, offset]
        let ids = try Int64.fetchAll(db, sql: sql, arguments: all)
        return try LibraryItem.fetchAll(db, ids: ids)
    }
}
