import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// One page of the items matching `query.text` (see `SearchRule`, `SearchSyntax`), best
    /// match first (the index's rank, `Schema.searchRank`; ties by id), under `feed`'s filters.
    public func search(_ query: SearchQuery) async throws(LibraryError) -> [LibraryItem] {
        let (limit, page) = (query.limit, query.page)
        guard limit > 0 else { throw .invalid("limit must be at least 1 (got \(limit))") }
        guard page > 0 else { throw .invalid("page must be at least 1 (got \(page))") }
        guard let match = SearchSyntax.match(query.text) else {
            throw .invalid("nothing to search for in \"\(query.text)\": give a word")
        }
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: limit)
        guard !overflow, !offset.addingReportingOverflow(limit).overflow else { return [] }
        let filter = query.filter
        var conditions = ["items_search MATCH ?"]
        if filter.channelID != nil { conditions.append("i.channel_id = ?") }
        if filter.platform != nil { conditions.append("c.platform = ?") }
        if filter.unwatchedOnly { conditions.append("w.watched IS NOT 1") }
        // CROSS JOIN keeps the index as the outer loop: FTS5 hands rows over in rank order, so
        // SQLite needs no sorter of its own.
        let sql = """
            SELECT \(LibraryItem.selection)
            FROM items_search CROSS JOIN items i ON i.id = items_search.rowid
                CROSS JOIN channels c ON c.id = i.channel_id LEFT JOIN watch_state w ON w.item = i.id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY items_search.rank
            LIMIT ? OFFSET ?
            """
        return try await read { db in
            var arguments: StatementArguments = [match]
            if let channelID = filter.channelID { arguments += [channelID] }
            if let platform = filter.platform { arguments += [platform.rawValue] }
            arguments += [limit, offset]
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map(LibraryItem.init(row:))
        }
    }
}
