import FeedModel
import LibraryStore

// The HTTP API's item pages and records (`ItemRecordStore`), as the SQLite library's
// (SQLiteLibrary+ItemPages.swift): the same filters, orders, ties and totals, for the acting
// user's channels and watch state only.
extension PostgresLibrary {
    public func itemPage(_ query: ItemPageQuery) async throws(LibraryError) -> ItemPage {
        let user = user
        return try await read { db throws(LibraryError) in
            let (page, total) = Self.itemPageStatements(query, user: user)
            // One statement when the page has rows; the total alone when it has none.
            if let page {
                let rows = try db.query(page.sql, page.parameters, plan: page.plan).rows
                if let first = rows.first { return ItemPage(items: try rows.map(ItemRecord.init(pgRow:)), total: try first.get("total")) }
            }
            return ItemPage(items: [], total: try db.query(total.sql, total.parameters).first?.get(0) ?? 0)
        }
    }

    /// `query`'s page with its total as a column (the total computed once, in the page's own
    /// snapshot: they agree), nil for a page past any end; and the total alone.
    static func itemPageStatements(_ query: ItemPageQuery, user: UserID) -> (page: PGStatement?, total: PGStatement) {
        var parameters = PGParameters(user.rawValue)
        // Which channels, over a channel id column and `c`: the page and its total share them.
        var channelConditions: [(String) -> String] = []
        if !query.channelIDs.isEmpty {
            let ids = parameters.add(query.channelIDs)
            channelConditions.append { channelID in "\(channelID) = ANY(\(ids)::bigint[])" }
        }
        if let platform = query.platform {
            let name = parameters.add(platform.rawValue)
            channelConditions.append { _ in "c.platform = \(name)" }
        }
        var conditions = channelConditions.map { $0("i.channel_id") }
        switch query.watch {
        case .all: break
        case .unwatched: conditions.append(LibraryItem.pgUnwatched)
        case .watched: conditions.append("w.watched = 1")
        }
        if query.shortOnly { conditions.append(shortFormPredicate) }
        if let since = query.publishedSince { conditions.append("i.published >= \(parameters.add(since))") }
        if let minimum = query.minDuration { conditions.append("i.duration >= \(parameters.add(minimum))") }
        if let maximum = query.maxDuration { conditions.append("i.duration <= \(parameters.add(maximum))") }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let from = "FROM items i \(LibraryItem.pgJoins(user: "$1")) \(whereClause)"
        let total = parameters.statement(totalSQL(query, channelConditions: channelConditions, from: from))
        // Absurd pages from a client are past the end: an empty page, with the total.
        guard !query.page.isPastAnyEnd else { return (nil, total) }
        let order = switch query.order {
        // Ties as `items_newest` holds them (read backwards): no sort.
        case .newest: "i.published DESC NULLS LAST, i.discovered_at DESC, i.channel_id DESC, i.id DESC"
        case .oldest: "i.published ASC NULLS LAST, i.discovered_at, i.id"
        case .mostViewed: "i.views DESC NULLS LAST, i.published DESC NULLS LAST, i.id DESC"
        case .shortest: "i.duration ASC NULLS LAST, i.published DESC NULLS LAST, i.id DESC"
        case .longest: "i.duration DESC NULLS LAST, i.published DESC NULLS LAST, i.id DESC"
        case .random: "random()"
        }
        let page = "LIMIT \(parameters.add(query.page.perPage)) OFFSET \(parameters.add(query.page.offset))"
        // The app's feed (newest first, all or unwatched) on its generic plan, which reads down
        // items_newest as a plan for the values would (PostgresFeedPlanTests): not planned on
        // every call. Other filters and orders are planned for their values (watched items are
        // few: joined from the user's watch rows and sorted, as a plan for the values decides).
        let generic = query.order == .newest && query.watch != .watched && query.channelIDs.isEmpty && query.platform == nil
            && !query.shortOnly && query.publishedSince == nil && query.minDuration == nil && query.maxDuration == nil
        return (parameters.statement("SELECT \(ItemRecord.pgSelection), (\(total.sql)) AS total \(from) ORDER BY \(order) \(page)",
                                     plan: generic ? .generic : .serverChoice), total)
    }

    /// A page's `total`, one SELECT over the page's parameters. Filtered by channel, platform and
    /// watch state only (the app's feed), it is one number of the user's (`users.feed_items`,
    /// `feed_watched`) or a sum over their subscriptions (`subscriptions.items`, `watched`), all
    /// kept by the schema's counters: not a count of every followed item, nor of the user's
    /// watched rows. With a date, duration or short-form filter the items are counted.
    private static func totalSQL(_ query: ItemPageQuery, channelConditions: [(String) -> String], from: String) -> String {
        guard !query.shortOnly, query.publishedSince == nil, query.minDuration == nil, query.maxDuration == nil else {
            return "SELECT count(*) \(from)"
        }
        let (userTotal, subscriptionTotal) = switch query.watch {
        case .all: ("feed_items", "s.items")
        case .unwatched: ("feed_items - feed_watched", "s.items - s.watched")
        case .watched: ("feed_watched", "s.watched")
        }
        if channelConditions.isEmpty { return "SELECT \(userTotal) FROM users WHERE id = $1" }
        return """
            SELECT coalesce(sum(\(subscriptionTotal)), 0)::bigint FROM subscriptions s
            \(query.platform == nil ? "" : "JOIN channels c ON c.id = s.channel_id")
            WHERE s.user_id = $1\(channelConditions.map { " AND " + $0("s.channel_id") }.joined())
            """
    }

    public func itemRecords(ids: [Int64]) async throws(LibraryError) -> [ItemRecord] {
        guard !ids.isEmpty else { return [] }
        let user = user
        return try await read { db throws(LibraryError) in
            let records = try db.query("SELECT \(ItemRecord.pgSelection) FROM items i \(LibraryItem.pgByIDJoins(user: "$1")) WHERE i.id = ANY($2::bigint[])",
                                       [user.rawValue, ids]).rows.map(ItemRecord.init(pgRow:))
            let byID = Dictionary(records.map { ($0.item.id, $0) }, uniquingKeysWith: { first, _ in first })
            return ids.compactMap { byID[$0] }
        }
    }

    public func storedNotes(id: Int64) async throws(LibraryError) -> StoredNotes? {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("SELECT \(StoredNotes.pgColumns) FROM items i \(LibraryItem.pgByIDJoins(user: "$1")) WHERE i.id = $2",
                         [user.rawValue, id]).first.flatMap { row throws(LibraryError) in try StoredNotes(pgRow: row) }
        }
    }
}

extension ItemRecord {
    /// `LibraryItem.pgSelection` and the API's extra columns.
    static let pgSelection = LibraryItem.pgSelection + """
        , i.description, i.views, i.enclosure_type, i.enclosure_length, i.discovered_at, w.watched_at, c.image
        """

    init(pgRow row: PGRow) throws(LibraryError) {
        self.init(item: try LibraryItem(pgRow: row), notes: try row.get("description"), views: try row.get("views"),
                  enclosureType: try row.get("enclosure_type"), enclosureLength: try row.get("enclosure_length"),
                  discoveredAt: try row.get("discovered_at"), watchedAt: try row.get("watched_at"), channelImage: try row.get("image"))
    }
}
