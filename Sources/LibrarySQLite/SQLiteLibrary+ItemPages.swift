import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    public func itemPage(_ query: ItemPageQuery) async throws(LibraryError) -> ItemPage {
        guard query.limit > 0 else { throw .invalid("limit must be at least 1 (got \(query.limit))") }
        guard query.page > 0 else { throw .invalid("page must be at least 1 (got \(query.page))") }
        // Absurd pages from a client must not trap on overflow: past the end is an empty page.
        let (offset, overflow) = (query.page - 1).multipliedReportingOverflow(by: query.limit)
        let pastEnd = overflow || offset.addingReportingOverflow(query.limit).overflow
        var conditions: [String] = []
        // The joins' `?1`: the acting user's channels and watch state only.
        var arguments: StatementArguments = [user.rawValue]
        if !query.channelIDs.isEmpty {
            conditions.append("i.channel_id IN (\(query.channelIDs.map { _ in "?" }.joined(separator: ",")))")
            arguments += StatementArguments(query.channelIDs)
        }
        if let platform = query.platform { conditions.append("c.platform = ?"); arguments += [platform.rawValue] }
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
        case .newest: order = "i.published DESC, i.discovered_at DESC, i.id DESC"
        case .oldest: order = "i.published IS NULL, i.published, i.discovered_at, i.id"
        case .mostViewed: order = "i.views IS NULL, i.views DESC, i.published DESC, i.id DESC"
        case .shortest: order = "i.duration IS NULL, i.duration, i.published DESC, i.id DESC"
        case .longest: order = "i.duration IS NULL, i.duration DESC, i.published DESC, i.id DESC"
        case .random: order = "random()"
        }
        let from = "FROM items i \(LibraryItem.joins) \(whereClause)"
        let (limit, pageArguments) = (query.limit, arguments)
        return try await read { db in
            let total = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) \(from)"), arguments: pageArguments) ?? 0
            guard !pastEnd, offset < total else { return ItemPage(items: [], total: total) }
            let statement = try db.cachedStatement(sql: "SELECT \(ItemRecord.selection) \(from) ORDER BY \(order) LIMIT ? OFFSET ?")
            let rows = try Row.fetchAll(statement, arguments: pageArguments + [limit, offset])
            return ItemPage(items: rows.map(ItemRecord.init(row:)), total: total)
        }
    }

    public func itemRecords(ids: [Int64]) async throws(LibraryError) -> [ItemRecord] {
        let user = user
        return try await read { db in try ItemRecord.fetchAll(db, ids: ids, user: user) }
    }
}

extension ItemRecord {
    /// `LibraryItem.selection` followed by the API's extra columns, read by position.
    static let selection = LibraryItem.selection + """
        , i.description, i.views, i.enclosure_type, i.enclosure_length, i.discovered_at, w.watched_at, c.image
        """

    init(row: Row) {
        self.init(item: LibraryItem(row: row), notes: row[14], views: row[15], enclosureType: row[16],
                  enclosureLength: row[17], discoveredAt: row[18], watchedAt: row[19], channelImage: row[20])
    }

    /// The records with these ids that `user` can see (in channels they follow), in the order given.
    static func fetchAll(_ db: Database, ids: [Int64], user: UserID) throws -> [ItemRecord] {
        guard !ids.isEmpty else { return [] }
        let marks = ids.map { _ in "?" }.joined(separator: ",")
        let statement = try db.cachedStatement(sql: "SELECT \(selection) FROM items i \(LibraryItem.joins) WHERE i.id IN (\(marks))")
        let records = try Row.fetchAll(statement, arguments: StatementArguments([user.rawValue] + ids)).map(ItemRecord.init(row:))
        let byID = Dictionary(records.map { ($0.item.id, $0) }, uniquingKeysWith: { a, _ in a })
        return ids.compactMap { byID[$0] }
    }
}
