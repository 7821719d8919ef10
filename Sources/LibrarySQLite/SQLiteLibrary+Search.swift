import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// One page of the items matching `query.text` (see `SearchRule`, `SearchSyntax`), best
    /// match first (the index's rank, `Schema.searchRank`) when every word is rare enough to
    /// rank by, else newest first, under `feed`'s filters.
    public func search(_ query: SearchQuery) async throws(LibraryError) -> [LibraryItem] {
        let (limit, page) = (query.limit, query.page)
        guard limit > 0 else { throw .invalid("limit must be at least 1 (got \(limit))") }
        guard page > 0 else { throw .invalid("page must be at least 1 (got \(page))") }
        let phrases = SearchSyntax.phrases(query.text)
        guard !phrases.isEmpty else {
            throw .invalid("nothing to search for in \"\(query.text)\": give a word")
        }
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: limit)
        guard !overflow, !offset.addingReportingOverflow(limit).overflow else { return [] }
        let filter = query.filter
        var conditions = ["items_search MATCH ?"]
        if filter.channelID != nil { conditions.append("i.channel_id = ?") }
        if filter.platform != nil { conditions.append("c.platform = ?") }
        if filter.unwatchedOnly { conditions.append("w.watched IS NOT 1") }
        try await catchUpSearchIndex()
        let match = phrases.joined(separator: " ")
        // CROSS JOIN keeps the index as the outer loop: FTS5 hands rows over in the order asked
        // (rank, or rowid: ids grow with discovery), so SQLite needs no sorter of its own.
        let ranked = """
            SELECT \(LibraryItem.selection)
            FROM items_search CROSS JOIN items i ON i.id = items_search.rowid
                CROSS JOIN channels c ON c.id = i.channel_id LEFT JOIN watch_state w ON w.item = i.id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY items_search.rank
            LIMIT ? OFFSET ?
            """
        let newest = ranked.replacingOccurrences(of: "ORDER BY items_search.rank", with: "ORDER BY items_search.rowid DESC")
        return try await read { db in
            var arguments: StatementArguments = [match]
            if let channelID = filter.channelID { arguments += [channelID] }
            if let platform = filter.platform { arguments += [platform.rawValue] }
            arguments += [limit, offset]
            let sql = try Self.rankable(phrases, db) ? ranked : newest
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map(LibraryItem.init(row:))
        }
    }

    /// Indexes the items added since the last search (see `Schema.v8Search`): a read when the
    /// index is current, one write transaction when it is behind.
    package func catchUpSearchIndex() async throws(LibraryError) {
        let behind = try await read { db in
            let upto = try Int64.fetchOne(db, sql: "SELECT indexed_upto FROM search_state WHERE id = 1") ?? 0
            return try Int64.fetchOne(db, sql: "SELECT max(id) FROM items").map { $0 > upto } ?? false
        }
        guard behind else { return }
        try await write { db in
            // Read again under the write lock: another process may have caught up meanwhile.
            let upto = try Int64.fetchOne(db, sql: "SELECT indexed_upto FROM search_state WHERE id = 1") ?? 0
            guard let newest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM items"), newest > upto else { return }
            try db.execute(sql: """
                INSERT INTO items_search (rowid, title, notes, channel)
                SELECT i.id, i.title, i.description, c.name FROM items i JOIN channels c ON c.id = i.channel_id
                WHERE i.id > ? AND i.id <= ?
                """, arguments: [upto, newest])
            try db.execute(sql: "UPDATE search_state SET indexed_upto = ? WHERE id = 1", arguments: [newest])
        }
    }

    /// Whether a search for `text` ranks by relevance (the bench's peer runs the same SQL).
    package func searchIsRanked(_ text: String) throws -> Bool {
        try pool.read { db in try Self.rankable(SearchSyntax.phrases(text), db) }
    }

    /// Whether each phrase is in at most `SearchRule.rankedWordLimit` items. Each probe reads at
    /// most that many index entries, newest first, so it stays cheap where ranking would not.
    private static func rankable(_ phrases: [String], _ db: Database) throws -> Bool {
        let probe = try db.cachedStatement(sql: """
            SELECT count(*) FROM (SELECT rowid FROM items_search WHERE items_search MATCH ? ORDER BY rowid DESC LIMIT ?)
            """)
        for phrase in phrases {
            let count = try Int.fetchOne(probe, arguments: [phrase, SearchRule.rankedWordLimit + 1]) ?? 0
            if count > SearchRule.rankedWordLimit { return false }
        }
        return true
    }
}
