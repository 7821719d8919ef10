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
        if filter.watchedOnly { conditions.append("w.watched = 1") }
        let user = user
        try await catchUpSearchIndex()
        // CROSS JOIN keeps the index as the outer loop: FTS5 hands rows over in the order asked
        // (rank, or rowid: ids grow with discovery), so SQLite needs no sorter of its own.
        let rankedSQL = """
            SELECT \(LibraryItem.selection)
            FROM items_search CROSS JOIN items i ON i.id = items_search.rowid
                CROSS JOIN channels c ON c.id = i.channel_id CROSS JOIN subscriptions s ON s.user_id = ? AND s.channel_id = i.channel_id
                LEFT JOIN watch_state w ON w.user_id = s.user_id AND w.item = i.id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY items_search.rank
            LIMIT ? OFFSET ?
            """
        let newestSQL = rankedSQL.replacingOccurrences(of: "ORDER BY items_search.rank", with: "ORDER BY items_search.rowid DESC")
        return try await read { db in
            // The words typed hold a word (checked above), so there is a plan.
            guard let plan = try SearchPlan(query.text, db) else { return [] }
            let ranked = try Self.rankable(plan, db)
            guard let match = ranked ? plan.match : plan.lazyMatch else { return [] }
            var arguments: StatementArguments = [user.rawValue, match]
            if let channelID = filter.channelID { arguments += [channelID] }
            if let platform = filter.platform { arguments += [platform.rawValue] }
            arguments += [limit, offset]
            return try Row.fetchAll(db.cachedStatement(sql: ranked ? rankedSQL : newestSQL), arguments: arguments).map(LibraryItem.init(row:))
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

    /// The FTS5 query a search for `text` runs and whether it ranks (the bench's peer runs the
    /// same SQL); nil when nothing can match.
    package func searchPlan(_ text: String) throws -> (match: String, ranked: Bool)? {
        try pool.read { db in
            guard let plan = try SearchPlan(text, db) else { return nil }
            let ranked = try Self.rankable(plan, db)
            return (ranked ? plan.match : plan.lazyMatch).map { ($0, ranked) }
        }
    }

    /// Whether each word is in at most `SearchRule.rankedWordLimit` items. Each probe reads at
    /// most that many index entries, newest first, through the plan's lazy phrases (FTS5's own
    /// prefix phrase would first merge every entry of every word it starts), so it stays cheap
    /// where ranking would not. (fts5vocab's per-term document counts are no cheaper: it counts
    /// them by reading the word's whole doclist; `row` for "channel" on the bench library: 58 ms.)
    private static func rankable(_ plan: SearchPlan, _ db: Database) throws -> Bool {
        guard plan.lazyMatch != nil else { return false }
        let probe = try db.cachedStatement(sql: """
            SELECT count(*) FROM (SELECT rowid FROM items_search WHERE items_search MATCH ? ORDER BY rowid DESC LIMIT ?)
            """)
        for phrase in plan.lazyPhrases {
            let count = try Int.fetchOne(probe, arguments: [phrase, SearchRule.rankedWordLimit + 1]) ?? 0
            if count > SearchRule.rankedWordLimit { return false }
        }
        return true
    }
}
