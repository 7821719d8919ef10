import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// One page of the items matching `query.text` (see `SearchRule`, `SearchTerms`), best
    /// match first (the index's rank, `Schema.searchRank`) when every word is rare enough to
    /// rank by, else newest first, under `feed`'s filters.
    public func search(_ query: SearchQuery) async throws(LibraryError) -> [LibraryItem] {
        let (limit, offset) = (query.page.perPage, query.page.offset)
        _ = try SearchTerms(checking: query.text)
        guard !query.page.isPastAnyEnd else { return [] }
        let filter = query.filter
        let user = user
        try await catchUpSearchIndex()
        return try await read { db in
            // The words typed hold a word (checked above), so there is a plan.
            guard let plan = try SearchPlan(query.text, db), let lazyMatch = plan.lazyMatch else { return [] }
            let request = SearchPage(user: user, filter: filter, limit: limit, offset: offset)
            switch try Self.order(plan, db) {
            case .ranked:
                return try request.fetch(plan.match, order: .ranked, db)
            case .newest(nil):
                return try request.fetch(lazyMatch, order: .newest, db)
            case .newest(let split?):
                return try request.newest(split, whole: lazyMatch, db)
            }
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

    /// Makes the whole index again from the items and marks it current (`db copy`, which writes
    /// items without it: a copied library's ids may sit below a mark left by items it once had).
    static func rebuildSearchIndex(_ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO items_search (items_search) VALUES ('rebuild');
            UPDATE search_state SET indexed_upto = coalesce((SELECT max(id) FROM items), 0) WHERE id = 1;
            """)
    }

    /// The FTS5 query a search for `text` runs as one statement, whether it ranks, and whether
    /// it may be split (`SearchPlan.Split`: then one statement runs only when the split would not
    /// pay or past `SearchPlan.maxMissedChecks`; the bench's peer runs the one statement); nil
    /// when nothing can match.
    package func searchPlan(_ text: String) throws -> (match: String, ranked: Bool, split: Bool)? {
        try pool.read { db in
            guard let plan = try SearchPlan(text, db), let lazyMatch = plan.lazyMatch else { return nil }
            switch try Self.order(plan, db) {
            case .ranked: return (plan.match, true, false)
            case .newest(let split): return (lazyMatch, false, split != nil)
            }
        }
    }

    /// How a search's rows come out: ranked when each word is in at most
    /// `SearchRule.rankedWordLimit` items, else newest first, split (see `SearchPlan.Split`)
    /// when some words are in nearly every item and others are not.
    ///
    /// Each rarity probe reads at most that many index entries, newest first, through the plan's
    /// lazy phrases (FTS5's own prefix phrase would first merge every entry of every word it
    /// starts), so it stays cheap where ranking would not. (fts5vocab's per-term document counts
    /// are no cheaper: it counts them by reading the word's whole doclist; `row` for "channel" on
    /// the bench library: 58 ms.) Once one word is too common to rank by, the other words are
    /// only sampled (`SearchPlan.densitySample` entries) to see which are dense.
    private static func order(_ plan: SearchPlan, _ db: Database) throws -> SearchOrder {
        let probe = try db.cachedStatement(sql: """
            SELECT count(*), coalesce(max(rowid) - min(rowid) + 1, 0)
            FROM (SELECT rowid FROM items_search WHERE items_search MATCH ? ORDER BY rowid DESC LIMIT ?)
            """)
        func sample(_ phrase: String, _ size: Int) throws -> PhraseSample {
            let row = try Row.fetchOne(probe, arguments: [phrase, size])
            return PhraseSample(phrase: phrase, size: size, count: row?[0] ?? 0, span: row?[1] ?? 0)
        }
        var samples: [PhraseSample] = []
        for phrase in plan.lazyPhrases {
            let rarity = try sample(phrase, SearchRule.rankedWordLimit + 1)
            samples.append(rarity)
            if rarity.count > SearchRule.rankedWordLimit { break }
        }
        // The probe stops at the first word too common to rank by.
        guard let last = samples.last, last.count > SearchRule.rankedWordLimit else { return .ranked }
        for phrase in plan.lazyPhrases.dropFirst(samples.count) {
            // Only a word can be everywhere (see `SearchPlan.Split`); a prefix's phrase always
            // drives, and sampling one costs as much as the rest of the probes.
            samples.append(SearchPlan.isExactWord(phrase) ? try sample(phrase, SearchPlan.densitySample) : .unsampled(phrase))
        }
        return .newest(SearchPlan.Split(samples))
    }
}

enum SearchOrder {
    case ranked
    /// Newest first; with a split when some words are everywhere and others are not.
    case newest(SearchPlan.Split?)
}

/// What a probe read of one phrase: its newest `count` index entries (at most `size`) and the
/// rowids they spread over (newest minus oldest, plus one).
struct PhraseSample {
    let phrase: String
    let size: Int
    let count: Int
    let span: Int64

    /// It filled the probe, in at least half of the items its entries spread over: its doclist
    /// would be stepped through nearly row by row (the bench's "channel" and "item" are in
    /// every item).
    var isDense: Bool { count >= size && 2 * Int64(count) >= span }
    /// A single word, dense where the newest items are. (Dense there and rare elsewhere, as a
    /// channel's name is, it is looked up on rows that lack it: `SearchPage.newest` bounds that.)
    var isEverywhere: Bool { isDense && SearchPlan.isExactWord(phrase) }

    /// A phrase not probed: neither dense nor everywhere.
    static func unsampled(_ phrase: String) -> PhraseSample { PhraseSample(phrase: phrase, size: 1, count: 0, span: 0) }
}

/// The page a search returns, under `feed`'s filters (conditions on `i`, `c`, `w`).
private struct SearchPage {
    /// The user whose subscriptions and watch state the page is of (`LibraryItem.joins`' `?1`).
    let user: Int64
    let filters: [String]
    let filterArguments: StatementArguments
    let limit: Int
    let offset: Int

    init(user: UserID, filter: FeedFilter, limit: Int, offset: Int) {
        self.user = user.rawValue
        var filters: [String] = []
        var arguments: StatementArguments = []
        if let channelID = filter.channelID {
            filters.append("i.channel_id = ?")
            arguments += [channelID]
        }
        if let platform = filter.platform {
            filters.append("c.platform = ?")
            arguments += [platform.rawValue]
        }
        if filter.unwatchedOnly { filters.append("w.watched IS NOT 1") }
        if filter.watchedOnly { filters.append("w.watched = 1") }
        (self.filters, filterArguments, self.limit, self.offset) = (filters, arguments, limit, offset)
    }

    enum Order { case ranked, newest }

    /// CROSS JOIN keeps the index as the outer loop: FTS5 hands rows over in the order asked
    /// (rank, or rowid: ids grow with discovery), so SQLite needs no sorter of its own.
    static func sql(_ conditions: [String], order: Order, paged: Bool) -> String {
        """
        SELECT \(LibraryItem.selection)
        FROM items_search CROSS JOIN items i ON i.id = items_search.rowid \(LibraryItem.joins)
        WHERE \((["items_search MATCH ?"] + conditions).joined(separator: " AND "))
        ORDER BY \(order == .ranked ? "items_search.rank" : "items_search.rowid DESC")\(paged ? "\nLIMIT ? OFFSET ?" : "")
        """
    }

    /// The page in one statement.
    func fetch(_ match: String, order: Order, _ db: Database) throws -> [LibraryItem] {
        let statement = try db.cachedStatement(sql: Self.sql(filters, order: order, paged: true))
        let arguments: StatementArguments = [user, match] + filterArguments + [limit, offset]
        return try Row.fetchAll(statement, arguments: arguments).map(LibraryItem.init(row:))
    }

    /// The page newest first, the rows of the split's driver (under the filters) kept when they
    /// also match its check: exactly the rows of `whole` (driver AND check), in the same order.
    ///
    /// Split only when one AND would walk far (with one driver phrase it never does: that phrase
    /// leads the AND, and each of its rows costs a seek, cheaper than a lookup; `SearchPlan.Split`
    /// needs two). The driver's first page of rows is read; if some driver phrase has at most
    /// `SearchPlan.leapfrogRatio` entries per row found, from the newest down to the last of
    /// them, FTS5's AND, led by that phrase, seeks about that many rows, cheaper than a lookup
    /// per row (`channel 12 item 1`: nearly every row "12" offers has a number starting with
    /// "1" there). Past `SearchPlan.maxMissedChecks` rows that the check refused, the rest of the
    /// page comes from `whole` in one statement, below the last row looked at, so a split that
    /// guessed wrong costs that many lookups and no more.
    func newest(_ split: SearchPlan.Split, whole: String, _ db: Database) throws -> [LibraryItem] {
        let candidates = try db.cachedStatement(sql: Self.sql(filters, order: .newest, paged: false))
        let rows = try Row.fetchCursor(candidates, arguments: [user, split.driver] + filterArguments)
        var first: [(id: Int64, item: LibraryItem)] = []
        while first.count < limit, let row = try rows.next() {
            first.append((row[0], LibraryItem(row: row)))
        }
        // Every match is a row of the driver.
        guard let bottom = first.last?.id else { return [] }
        let entries = try db.cachedStatement(sql: """
            SELECT count(*) FROM (SELECT rowid FROM items_search WHERE items_search MATCH ? AND rowid >= ? ORDER BY rowid DESC LIMIT ?)
            """)
        let cap = SearchPlan.leapfrogRatio * first.count
        for phrase in split.driverPhrases {
            let count = try Int.fetchOne(entries, arguments: [phrase, bottom, cap + 1]) ?? 0
            if count <= cap { return try fetch(whole, order: .newest, db) }
        }
        // A point lookup: FTS5 seeks each word of the check to this one row.
        let lookup = try db.cachedStatement(sql: "SELECT 1 FROM items_search WHERE items_search MATCH ? AND rowid = ?")
        var items: [LibraryItem] = []
        var skip = offset
        var missed = 0
        var buffered = first[...]
        while true {
            let (id, item): (Int64, LibraryItem)
            if let row = buffered.popFirst() {
                (id, item) = row
            } else if let row = try rows.next() {
                (id, item) = (row[0], LibraryItem(row: row))
            } else {
                break
            }
            if try Int.fetchOne(lookup, arguments: [split.check, id]) != nil {
                if skip > 0 {
                    skip -= 1
                    continue
                }
                items.append(item)
                if items.count == limit { return items }
                continue
            }
            missed += 1
            if missed > SearchPlan.maxMissedChecks {
                let rest = try db.cachedStatement(sql: Self.sql(["items_search.rowid < ?"] + filters, order: .newest, paged: true))
                let arguments: StatementArguments = [user, whole, id] + filterArguments + [limit - items.count, skip]
                return items + (try Row.fetchAll(rest, arguments: arguments).map(LibraryItem.init(row:)))
            }
        }
        return items
    }
}
