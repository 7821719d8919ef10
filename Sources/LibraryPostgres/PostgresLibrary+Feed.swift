import FeedModel
import LibraryStore

// The feed's modes and items by id (`ItemStore`), as the SQLite library's (SQLiteLibrary+Feed.swift,
// +Discovery.swift, +Actions.swift): the same items, order, ties and totals, and only items of
// channels the acting user follows, with their watch state. Every page is one statement: the
// computed modes (catch-up, discovery) are ranked in SQL, not stepped through in Swift.
extension PostgresLibrary {
    public func feed(_ query: FeedQuery, now: Int64) async throws(LibraryError) -> [LibraryItem] {
        guard query.days > 0 else { throw .invalid("days must be at least 1 (got \(query.days))") }
        // Absurd pages and windows from the command line must not trap on overflow.
        guard !query.page.isPastAnyEnd else { return [] }
        let user = user
        return try await read { db throws(LibraryError) in
            guard let statement = Self.feedStatement(query, user: user, now: now) else { return [] }
            return try db.query(statement.sql, statement.parameters).rows.map(LibraryItem.init(pgRow:))
        }
    }

    public func feedTotal(_ query: FeedQuery, now: Int64) async throws(LibraryError) -> Int {
        // Computed modes count what their pages would list, up to `CatchUp.maxCounted` (SQLite
        // lists that many to count them, its window checked on the way).
        if query.mode == .catchUp || query.mode == .discovery, query.days <= 0 {
            throw .invalid("days must be at least 1 (got \(query.days))")
        }
        let user = user
        return try await read { db throws(LibraryError) in
            guard let statement = Self.feedTotalStatement(query, user: user, now: now) else { return 0 }
            return try db.query(statement.sql, statement.parameters).first?.get(0) ?? 0
        }
    }

    /// The statement of one page of `query` (a page that is not past any end); nil when nothing
    /// can match.
    static func feedStatement(_ query: FeedQuery, user: UserID, now: Int64) -> PGStatement? {
        let (limit, offset) = (query.page.perPage, query.page.offset)
        var parameters = PGParameters(user.rawValue)
        switch FeedListing(query.mode, query.filter, user: user, windowStart: query.windowStart(now: now), depth: offset + limit, &parameters) {
        case .nothing:
            return nil
        case .joined(let from, let order):
            let page = "LIMIT \(parameters.add(limit)) OFFSET \(parameters.add(offset))"
            return parameters.statement("SELECT \(LibraryItem.pgSelection) \(from) ORDER BY \(order) \(page)")
        case .ranked(let ranked):
            // Ranked first, the page cut, then only its rows joined.
            let page = "LIMIT \(parameters.add(limit)) OFFSET \(parameters.add(offset))"
            return parameters.statement("""
                SELECT \(LibraryItem.pgSelection)
                FROM (\(ranked) ORDER BY position \(page)) r JOIN items i ON i.id = r.id \(LibraryItem.pgJoins(user: "$1"))
                ORDER BY r.position
                """)
        }
    }

    /// The statement counting `query`'s items over all pages (one number); nil when nothing can match.
    static func feedTotalStatement(_ query: FeedQuery, user: UserID, now: Int64) -> PGStatement? {
        var parameters = PGParameters(user.rawValue)
        let depth = CatchUp.maxCounted
        switch FeedListing(query.mode, query.filter, user: user, windowStart: query.windowStart(now: now), depth: depth, &parameters) {
        case .nothing: return nil
        case .joined(let from, _): return parameters.statement("SELECT count(*) \(from)")
        case .ranked(let ranked):
            let limit = parameters.add(depth)
            return parameters.statement("SELECT count(*) FROM (\(ranked) LIMIT \(limit)) r")
        }
    }

    public func lastItemID() async throws(LibraryError) -> Int64 {
        try await read { db throws(LibraryError) in
            try db.query("SELECT coalesce(max(id), 0) AS id FROM items").first?.get("id") ?? 0
        }
    }

    public func items(after id: Int64, channelIDs: [Int64], limit: Int) async throws(LibraryError) -> [LibraryItem] {
        guard !channelIDs.isEmpty, limit > 0 else { return [] }
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT \(LibraryItem.pgSelection) FROM items i \(LibraryItem.pgJoins(user: "$1"))
                WHERE i.id > $2 AND i.channel_id = ANY($3::bigint[])
                ORDER BY i.published DESC NULLS LAST, i.id DESC LIMIT $4
                """, [user.rawValue, id, channelIDs, limit]).rows.map(LibraryItem.init(pgRow:))
        }
    }

    /// Item `id` as the CLI shows it.
    public func item(id: Int64) async throws(LibraryError) -> LibraryItem {
        let user = user
        return try await read { db throws(LibraryError) in
            guard let row = try db.query("SELECT \(LibraryItem.pgSelection) FROM items i \(LibraryItem.pgByIDJoins(user: "$1")) WHERE i.id = $2",
                                         [user.rawValue, id]).first else { throw .noItem(id) }
            return try LibraryItem(pgRow: row)
        }
    }

    /// Item `id` with its show notes and links.
    public func itemDetails(id: Int64) async throws(LibraryError) -> ItemDetails {
        let user = user
        return try await read { db throws(LibraryError) in
            guard let row = try db.query("""
                SELECT \(LibraryItem.pgSelection), i.description, i.author, i.enclosure_type, i.enclosure_length, i.chapters_url,
                       i.transcript_url, i.episode, i.season, i.explicit, i.episode_type, i.live_status, i.persons, i.funding,
                       \(StoredNotes.pgColumns)
                FROM items i \(LibraryItem.pgByIDJoins(user: "$1")) WHERE i.id = $2
                """, [user.rawValue, id]).first else { throw .noItem(id) }
            return ItemDetails(item: try LibraryItem(pgRow: row), notes: try row.get("description"), author: try row.get("author"),
                               enclosureType: try row.get("enclosure_type"), enclosureLength: try row.get("enclosure_length"),
                               chaptersURL: try row.get("chapters_url"), transcriptURL: try row.get("transcript_url"),
                               episode: try row.get("episode"), season: try row.get("season"), explicit: try row.get("explicit"),
                               episodeType: try row.get("episode_type"), liveStatus: try row.get("live_status"),
                               persons: StoredJSON.decode(Person.self, try row.get("persons")),
                               funding: StoredJSON.decode(Link.self, try row.get("funding")), storedNotes: try StoredNotes(pgRow: row))
        }
    }

    /// `ShortForm` over `items i`, spelled as `items_short`'s WHERE so that PostgreSQL proves the
    /// partial index applies.
    static let shortFormPredicate = "(i.duration <= \(ShortForm.maxDuration) OR i.is_short = 1)"
}

/// How a feed mode lists items for one user and filter, as SQL whose parameters went into the
/// `PGParameters` given (`$1` is the user).
private enum FeedListing {
    /// Nothing can match (watched items in a mode that never lists them).
    case nothing
    /// Ordered by the items' own columns (newest, short-form): `FROM items i …` and its `ORDER BY`.
    case joined(from: String, order: String)
    /// Computed (catch-up, discovery): a query of `id` and `position` (1, 2… in the mode's order)
    /// that ranks at least the first `depth` items, without ORDER BY.
    case ranked(String)

    init(_ mode: FeedMode, _ filter: FeedFilter, user: UserID, windowStart: Int64, depth: Int, _ parameters: inout PGParameters) {
        switch mode {
        case .newest, .shortForm:
            var conditions = filter.pgConditions(&parameters)
            if mode == .shortForm { conditions.append(PostgresLibrary.shortFormPredicate) }
            let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            // Read down items_newest (items_short), ties by id after the prefix it sorts.
            self = .joined(from: "FROM items i \(LibraryItem.pgJoins(user: "$1")) \(whereClause)",
                           order: "i.published DESC NULLS LAST, i.discovered_at DESC, i.id DESC")
        case .catchUp:
            // Catch-up never shows watched items (so `unwatchedOnly` changes nothing).
            if filter.watchedOnly { self = .nothing; return }
            let followed = Self.followed(filter, plays: false, &parameters)
            self = .ranked(Self.catchUp(followed, user: user, windowStart: parameters.add(windowStart), depth: parameters.add(depth)))
        case .discovery:
            // Nothing watched is ever in discovery.
            if filter.watchedOnly { self = .nothing; return }
            self = .ranked(Self.discovery(Self.followed(filter, plays: true, &parameters), depth: parameters.add(depth)))
        }
    }

    /// The channels the user follows, of the platform and the one channel asked for:
    /// `channel_id`, and `plays`, how many `play_history` rows of theirs are for its items
    /// (discovery's order; 0 without `plays`).
    private static func followed(_ filter: FeedFilter, plays: Bool, _ parameters: inout PGParameters) -> String {
        var conditions = ["s.user_id = $1"]
        if let channelID = filter.channelID { conditions.append("s.channel_id = \(parameters.add(channelID))") }
        if let platform = filter.platform { conditions.append("c.platform = \(parameters.add(platform.rawValue))") }
        let counted = plays ? """
            LEFT JOIN (SELECT i.channel_id, count(*) AS plays FROM play_history h JOIN items i ON i.id = h.item
                       WHERE h.user_id = $1 GROUP BY i.channel_id) p ON p.channel_id = s.channel_id
            """ : ""
        return """
            SELECT s.channel_id, \(plays ? "coalesce(p.plays, 0)" : "0") AS plays
            FROM subscriptions s JOIN channels c ON c.id = s.channel_id \(counted)
            WHERE \(conditions.joined(separator: " AND "))
            """
    }

    /// CTEs up to `rounds`: each followed channel's first items as `items` lists them (a query
    /// of `id`, `published` and `round`, 1, 2…, over `f.channel_id`, without LIMIT), enough of
    /// them for a page that reaches `depth` rows of rounds; columns `channel_id`, `plays`, `id`,
    /// `published`, `round`. Shallow first, as a page of a user with many channels needs about
    /// one item of each: ⌈depth / channels⌉ rounds of each channel, which are enough when they
    /// fill `depth` or when no channel had more; else (a one-time filter: not run otherwise)
    /// up to `depth` rounds of each. Rounds past those never reach the page.
    private static func rounds(_ followed: String, items: String, depth: String) -> String {
        """
        followed AS (\(followed)),
        share AS (SELECT ceil(\(depth)::numeric / greatest(count(*), 1))::bigint AS rounds FROM followed),
        shallow AS MATERIALIZED (
            SELECT f.channel_id, f.plays, n.id, n.published, n.round
            FROM followed f CROSS JOIN LATERAL (\(items) LIMIT (SELECT rounds FROM share)) n),
        verdict AS (SELECT count(*) >= \(depth) OR coalesce(max(round), 0) < (SELECT rounds FROM share) AS enough FROM shallow),
        rounds AS (
            SELECT * FROM shallow WHERE (SELECT enough FROM verdict)
            UNION ALL
            SELECT f.channel_id, f.plays, n.id, n.published, n.round
            FROM followed f CROSS JOIN LATERAL (\(items) LIMIT \(depth)) n WHERE NOT (SELECT enough FROM verdict))
        """
    }

    /// Catch-up (`FeedMode.catchUp`): first what the user is in the middle of, most recently
    /// played first (ties by id); then the window's untouched items round by round: each
    /// channel's oldest, then each one's second…, a round oldest first, same-second ties by
    /// channel, then id. Each channel's window is a range of `items_channel_published`. The
    /// owner's untouched items are those whose `items.state` says so (the index holds it);
    /// another user's have no watched or in-progress row of theirs.
    private static func catchUp(_ followed: String, user: UserID, windowStart: String, depth: String) -> String {
        let untouched = user == .owner ? "i.state = \(WatchState.untouched.rawValue)" : """
            NOT EXISTS (SELECT 1 FROM watch_state w WHERE w.user_id = $1 AND w.item = i.id AND (w.watched = 1 OR w.progress_seconds > 0))
            """
        // Undated items are never in the window, so NULLS FIRST changes nothing but lets the
        // index give the order.
        let oldest = "i.published NULLS FIRST, i.id"
        let missed = """
            SELECT i.id, i.published, row_number() OVER (ORDER BY \(oldest)) AS round FROM items i
            WHERE i.channel_id = f.channel_id AND i.published >= \(windowStart) AND \(untouched) ORDER BY \(oldest)
            """
        return """
            WITH \(rounds(followed, items: missed, depth: depth))
            SELECT id, row_number() OVER (ORDER BY part, played_at DESC, round, published, channel_id, id) AS position FROM (
                SELECT i.id, 0 AS part, w.updated_at AS played_at, 0::bigint AS round, 0::bigint AS published, 0::bigint AS channel_id
                FROM watch_state w JOIN items i ON i.id = w.item JOIN followed f ON f.channel_id = i.channel_id
                WHERE w.user_id = $1 AND w.watched = 0 AND w.progress_seconds > 0
                UNION ALL
                SELECT id, 1, 0, round, published, channel_id FROM rounds
            ) listed
            """
    }

    /// Discovery (`DiscoveryMode`): never-started items of the channels the user plays least
    /// (ties by channel id), one per channel in turn, each channel's newest first, read down
    /// `items_channel_published`: a seek per followed channel, not a pass over the library.
    private static func discovery(_ followed: String, depth: String) -> String {
        let newest = "i.published DESC NULLS LAST, i.discovered_at DESC, i.id DESC"
        let fresh = """
            SELECT i.id, i.published, row_number() OVER (ORDER BY \(newest)) AS round FROM items i
            WHERE i.channel_id = f.channel_id AND NOT EXISTS (SELECT 1 FROM watch_state w WHERE w.user_id = $1 AND w.item = i.id
                AND (w.watched = 1 OR w.progress_seconds > \(DiscoveryMode.startedAfterSeconds)))
            ORDER BY \(newest)
            """
        return """
            WITH \(rounds(followed, items: fresh, depth: depth))
            SELECT id, row_number() OVER (ORDER BY round, plays, channel_id) AS position FROM rounds
            """
    }
}

/// A statement and its parameters (`$1`…), built apart from running it (the tests EXPLAIN it),
/// and how it is planned.
struct PGStatement {
    var sql: String
    var parameters: [any PGBindable]
    var plan = PGPlan.serverChoice
}

/// A statement's parameters as it is written: `add` appends a value and returns its placeholder.
struct PGParameters {
    private(set) var values: [any PGBindable]

    /// Starts with `first` as `$1`.
    init(_ first: any PGBindable) { values = [first] }

    /// `$n` for `value`, now the last parameter.
    mutating func add(_ value: any PGBindable) -> String {
        values.append(value)
        return "$\(values.count)"
    }

    func statement(_ sql: String, plan: PGPlan = .serverChoice) -> PGStatement { PGStatement(sql: sql, parameters: values, plan: plan) }
}

extension FeedFilter {
    /// The filter as conditions on `i`, `c` and `w` (`LibraryItem.pgJoins`), its values added to
    /// `parameters`: the feed's newest and short-form modes and search filter so.
    func pgConditions(_ parameters: inout PGParameters) -> [String] {
        var conditions: [String] = []
        if let channelID { conditions.append("i.channel_id = \(parameters.add(channelID))") }
        if let platform { conditions.append("c.platform = \(parameters.add(platform.rawValue))") }
        if unwatchedOnly { conditions.append(LibraryItem.pgUnwatched) }
        if watchedOnly { conditions.append("w.watched = 1") }
        return conditions
    }
}

extension StoredNotes {
    /// The columns `init(pgRow:)` reads, over `items i` joined with `channels c`.
    static let pgColumns = "i.notes_markup, coalesce(i.url, c.feed_url) AS notes_base"

    /// nil when the item has no markup.
    init?(pgRow row: PGRow) throws(LibraryError) {
        guard let markup: String = try row.get("notes_markup") else { return nil }
        self.init(markup: markup, base: try row.get("notes_base"))
    }
}
