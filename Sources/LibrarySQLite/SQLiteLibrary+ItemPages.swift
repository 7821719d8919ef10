import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    public func itemPage(_ query: ItemPageQuery) async throws(LibraryError) -> ItemPage {
        // Absurd pages from a client are past the end: an empty page, with the total.
        let (offset, pastEnd) = (query.page.offset, query.page.isPastAnyEnd)
        // The joins' `?1`: the acting user's channels and watch state only.
        var arguments: StatementArguments = [user.rawValue]
        // Which channels, over a channel id column and `c`: the page and its total share them.
        var channelConditions: [(String) -> String] = []
        if !query.channelIDs.isEmpty {
            let marks = query.channelIDs.map { _ in "?" }.joined(separator: ",")
            channelConditions.append { channelID in "\(channelID) IN (\(marks))" }
            arguments += StatementArguments(query.channelIDs)
        }
        if let platform = query.platform { channelConditions.append { _ in "c.platform = ?" }; arguments += [platform.rawValue] }
        var conditions = channelConditions.map { $0("i.channel_id") }
        switch query.watch {
        case .all: break
        case .unwatched: conditions.append("w.watched IS NOT 1")
        case .watched: conditions.append("w.watched = 1")
        }
        // Spelled as items_short's WHERE (over `i`), as the feed's short-form query does.
        // Unqualified as in items_short's WHERE: only `items` has these columns.
        if query.shortOnly { conditions.append("(\(Schema.shortFormPredicate))") }
        if let since = query.publishedSince { conditions.append("i.published >= ?"); arguments += [since] }
        if let minimum = query.minDuration { conditions.append("i.duration >= ?"); arguments += [minimum] }
        if let maximum = query.maxDuration { conditions.append("i.duration <= ?"); arguments += [maximum] }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let order: String
        switch query.order {
        // Ties broken as `items_newest` stores them (then the rowid): read down the index, no sort.
        case .newest: order = "i.published DESC, i.discovered_at DESC, i.channel_id DESC, i.id DESC"
        case .oldest: order = "i.published IS NULL, i.published, i.discovered_at, i.id"
        case .mostViewed: order = "i.views IS NULL, i.views DESC, i.published DESC, i.id DESC"
        case .shortest: order = "i.duration IS NULL, i.duration, i.published DESC, i.id DESC"
        case .longest: order = "i.duration IS NULL, i.duration DESC, i.published DESC, i.id DESC"
        case .random: order = "random()"
        }
        let from = "FROM items i \(LibraryItem.joins) \(whereClause)"
        let counter = Self.totalCounter(query, channelConditions: channelConditions, from: from)
        let (limit, pageArguments) = (query.page.perPage, arguments)
        let pageSQL = "SELECT \(ItemRecord.selection) \(from) ORDER BY \(order) LIMIT ? OFFSET ?"
        @Sendable func page(_ db: Database) throws -> ItemPage {
            if !pastEnd, let totalSQL = counter.scalarSQL {
                // The total as the rows' last column: one statement, its own snapshot (no
                // BEGIN, count and COMMIT). Counted apart only when the page is empty.
                var total: Int?
                let statement = try db.cachedStatement(sql: "SELECT \(ItemRecord.selection), (\(totalSQL)) \(from) ORDER BY \(order) LIMIT ? OFFSET ?")
                let items = try StatementColumns.fetchAll(statement, arguments: pageArguments + [limit, offset], expected: min(limit, 1_000)) { row in
                    if total == nil { total = row.int(ItemRecord.columnCount) }
                    return ItemRecord(row: row)
                }
                return ItemPage(items: items, total: try total ?? counter.count(db, pageArguments))
            }
            let total = try counter.count(db, pageArguments)
            guard !pastEnd, offset < total else { return ItemPage(items: [], total: total) }
            let statement = try db.cachedStatement(sql: pageSQL)
            return ItemPage(items: try StatementColumns.fetchAll(statement, arguments: pageArguments + [limit, offset],
                                                                     expected: min(limit, total - offset, 1_000), ItemRecord.init(row:)),
                            total: total)
        }
        // A kept total and an early page of the newest (read down `items_newest`) are a short
        // read. A counted total, a watch filter, another order (a sort of every followed item)
        // or a page far in (OFFSET walks the rows before it) grow with the library: off the
        // caller's thread.
        if counter.isShortRead, query.order == .newest, offset <= Self.shortReadOffset {
            return try readNow(oneStatement: counter.scalarSQL != nil, page)
        }
        return try await read(page)
    }

    /// Pages up to this offset are read in place (`readNow`): the first 20 pages of 50.
    static let shortReadOffset = 1_000

    /// How a page's `total` is found. Filtered by channel, platform and watch state only (the
    /// app's feed), it is one number of the user's (`users.feed_items`, `feed_watched`) or a sum
    /// over their subscriptions (`subscriptions.items`, `watched`), all kept by the ingest and
    /// triggers (v15, v17, v26): not a count of every followed item through the joins (11 ms on
    /// the 35k-item library, the whole cost of the page), nor of the user's watched rows. With a
    /// date, duration or short-form filter the items are counted.
    private static func totalCounter(_ query: ItemPageQuery, channelConditions: [(String) -> String], from: String) -> TotalCounter {
        guard !query.shortOnly, query.publishedSince == nil, query.minDuration == nil, query.maxDuration == nil else {
            return TotalCounter(sql: "SELECT count(*) \(from)", readsOnlyUser: false, isShortRead: false)
        }
        let (userTotal, subscriptionTotal) = switch query.watch {
        case .all: ("feed_items", "s.items")
        case .unwatched: ("feed_items - feed_watched", "s.items - s.watched")
        case .watched: ("feed_watched", "s.watched")
        }
        // A watch filter's page may walk far down `items_newest` to fill itself (past every
        // watched item, or every unwatched one): not a short read whatever its total.
        let shortRead = query.watch == .all
        // The whole feed is the user's one number. `channels` only for a platform filter.
        if channelConditions.isEmpty {
            return TotalCounter(sql: "SELECT \(userTotal) FROM users WHERE id = ?1", readsOnlyUser: true, isShortRead: shortRead)
        }
        return TotalCounter(sql: """
            SELECT coalesce(sum(\(subscriptionTotal)), 0) FROM subscriptions s
            \(query.platform == nil ? "" : "CROSS JOIN channels c ON c.id = s.channel_id")
            WHERE s.user_id = ?1\(channelConditions.map { " AND " + $0("s.channel_id") }.joined())
            """, readsOnlyUser: false, isShortRead: shortRead)
    }

    /// How a page's total is found (one SELECT over the page's arguments), and whether that and
    /// the page take the same short time on any library.
    private struct TotalCounter: Sendable {
        var sql: String
        /// Whether `sql` reads no parameter but `?1` (the user).
        var readsOnlyUser: Bool
        var isShortRead: Bool

        /// The total as a SELECT a page's statement can carry as a scalar subquery; nil when it
        /// reads more than the user.
        var scalarSQL: String? { readsOnlyUser ? sql : nil }

        func count(_ db: Database, _ arguments: StatementArguments) throws -> Int {
            try Int.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) ?? 0
        }
    }

    public func itemRecords(ids: [Int64]) async throws(LibraryError) -> [ItemRecord] {
        let user = user
        return try await read { db in try ItemRecord.fetchAll(db, ids: ids, user: user) }
    }

    public func storedNotes(id: Int64) async throws(LibraryError) -> StoredNotes? {
        let user = user
        return try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(StoredNotes.columns) FROM items i \(LibraryItem.byIDJoins) WHERE i.id = ?2"),
                             arguments: [user.rawValue, id]).flatMap(StoredNotes.init(row:))
        }
    }
}

extension ItemRecord {
    /// `LibraryItem.selection` followed by the API's extra columns, read by position.
    static let selection = LibraryItem.selection + """
        , i.description, i.views, i.enclosure_type, i.enclosure_length, i.discovered_at, w.watched_at, c.image
        """

    /// How many columns `selection` names (what follows them is the caller's).
    static let columnCount: Int32 = 21

    init(row: some ColumnValues) {
        self.init(item: LibraryItem(row: row), notes: row.text(14), views: row.int(15), enclosureType: row.text(16),
                  enclosureLength: row.int64(17), discoveredAt: row.int64(18) ?? 0, watchedAt: row.int64(19), channelImage: row.text(20))
    }

    /// The records with these ids that `user` can see (`LibraryItem.visibleByID`), in the order given.
    static func fetchAll(_ db: Database, ids: [Int64], user: UserID) throws -> [ItemRecord] {
        guard !ids.isEmpty else { return [] }
        let marks = ids.map { _ in "?" }.joined(separator: ",")
        let statement = try db.cachedStatement(sql: "SELECT \(selection) FROM items i \(LibraryItem.byIDJoins) WHERE i.id IN (\(marks))")
        let records = try StatementColumns.fetchAll(statement, arguments: StatementArguments([user.rawValue] + ids), ItemRecord.init(row:))
        let byID = Dictionary(records.map { ($0.item.id, $0) }, uniquingKeysWith: { a, _ in a })
        return ids.compactMap { byID[$0] }
    }
}

extension StoredNotes {
    /// The columns `init(row:)` reads, over `items i` joined with `channels c`.
    static let columns = "i.notes_markup, COALESCE(i.url, c.feed_url) AS notes_base"

    init?(row: Row) {
        guard let markup: String = row["notes_markup"] else { return nil }
        self.init(markup: markup, base: row["notes_base"])
    }
}
