import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    public func feed(_ query: FeedQuery, now: Int64) async throws(LibraryError) -> [LibraryItem] {
        let (limit, offset, days) = (query.page.perPage, query.page.offset, query.days)
        guard days > 0 else { throw .invalid("days must be at least 1 (got \(days))") }
        // Absurd pages and windows from the command line must not trap on overflow.
        guard !query.page.isPastAnyEnd else { return [] }
        let windowStart = query.windowStart(now: now)
        let (mode, filter, user) = (query.mode, query.filter, user)
        // Catch-up's rounds list items oldest first; same-second ties go by channel id, then item id.
        return try await read { db in
            switch mode {
            case .newest, .shortForm:
                return try Self.newest(db, user: user, shortOnly: mode == .shortForm, filter: filter, limit: limit, offset: offset)
            case .catchUp:
                return try Self.catchUp(db, user: user, filter: filter, limit: limit, offset: offset, windowStart: windowStart)
            case .discovery:
                return try Self.discovery(db, user: user, filter: filter, limit: limit, offset: offset)
            }
        }
    }

    public func feedTotal(_ query: FeedQuery, now: Int64) async throws(LibraryError) -> Int {
        let (mode, filter, user) = (query.mode, query.filter, user)
        switch mode {
        case .newest, .shortForm:
            return try await read { db in
                var (conditions, arguments) = Self.conditions(filter, user: user)
                if mode == .shortForm { conditions.append("(\(Schema.shortFormPredicate))") }
                let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
                return try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM items i \(LibraryItem.joins) \(whereClause)"),
                                        arguments: arguments) ?? 0
            }
        case .catchUp, .discovery:
            var all = query
            all.page = .first(CatchUp.maxCounted)
            return try await feed(all, now: now).count
        }
    }

    public func lastItemID() async throws(LibraryError) -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM items") ?? 0 }
    }

    public func items(after id: Int64, channelIDs: [Int64], limit: Int) async throws(LibraryError) -> [LibraryItem] {
        guard !channelIDs.isEmpty, limit > 0 else { return [] }
        let user = user
        return try await read { db in
            let marks = channelIDs.map { _ in "?" }.joined(separator: ",")
            let sql = """
                SELECT \(LibraryItem.selection) FROM items i \(LibraryItem.joins)
                WHERE i.id > ? AND i.channel_id IN (\(marks))
                ORDER BY i.published DESC, i.id DESC LIMIT ?
                """
            let arguments = StatementArguments([user.rawValue, id] + channelIDs + [Int64(limit)])
            return try StatementColumns.fetchAll(db.makeStatement(sql: sql), arguments: arguments, LibraryItem.init(row:))
        }
    }

    /// Conditions for `filter`, over `items i`, `channels c` and `watch_state w`; the arguments
    /// start with the user's id, `?1` of `LibraryItem.joins`.
    private static func conditions(_ filter: FeedFilter, user: UserID) -> (sql: [String], arguments: StatementArguments) {
        var sql: [String] = []
        var arguments: StatementArguments = [user.rawValue]
        if let channelID = filter.channelID {
            sql.append("i.channel_id = ?"); arguments += [channelID]
        }
        if let platform = filter.platform {
            sql.append("c.platform = ?"); arguments += [platform.rawValue]
        }
        if filter.unwatchedOnly { sql.append("w.watched IS NOT 1") }
        if filter.watchedOnly { sql.append("w.watched = 1") }
        return (sql, arguments)
    }

    // The items_newest / items_short / items_channel_published indexes give this order directly,
    // so the first page reads only about `limit` rows.
    private static func newest(_ db: Database, user: UserID, shortOnly: Bool, filter: FeedFilter, limit: Int, offset: Int) throws -> [LibraryItem] {
        var (conditions, arguments) = conditions(filter, user: user)
        // Spelled exactly as items_short's WHERE so that SQLite can use that partial index.
        if shortOnly { conditions.append("(\(Schema.shortFormPredicate))") }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments += [limit, offset]
        // CROSS JOIN keeps items as the outer loop: the ORDER BY walks an index instead of sorting
        // (the user's subscription is one primary-key lookup per row).
        let sql = """
            SELECT \(LibraryItem.selection)
            FROM items i \(LibraryItem.joins)
            \(whereClause)
            ORDER BY i.published DESC, i.discovered_at DESC, i.id DESC
            LIMIT ? OFFSET ?
            """
        return try StatementColumns.fetchAll(db.cachedStatement(sql: sql), arguments: arguments, LibraryItem.init(row:))
    }

    private static func catchUp(_ db: Database, user: UserID, filter: FeedFilter, limit: Int, offset: Int,
                                windowStart: Int64) throws -> [LibraryItem] {
        var filter = filter
        filter.unwatchedOnly = false  // catch-up never shows watched items anyway
        if filter.watchedOnly { return [] }
        let (conditions, arguments) = conditions(filter, user: user)
        let end = offset + limit

        // Part 1: resume, most recently played first. CROSS JOIN: start from the user's few
        // in-progress rows, never from a platform's channels and all their items.
        var ids = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT i.id FROM watch_state w CROSS JOIN items i ON i.id = w.item CROSS JOIN channels c ON c.id = i.channel_id
                CROSS JOIN subscriptions s ON s.user_id = ?1 AND s.channel_id = i.channel_id
            WHERE w.user_id = ?1 AND w.watched = 0 AND w.progress_seconds > 0\(conditions.map { " AND " + $0 }.joined())
            ORDER BY w.updated_at DESC, i.id
            """), arguments: arguments)
        guard ids.count < end else { return try LibraryItem.fetchAll(db, ids: Array(ids[offset..<end]), user: user) }

        // Part 2: what was missed, round by round: each channel's oldest untouched item, then
        // each one's second… One ascending pass over the window numbers each channel's items;
        // as the pass is in date order, appending to the item's round keeps every round
        // oldest-first. Only rounds that can reach this page are kept, and with many channels
        // the pass stops after about a page of rows. `items.state` is the owner's watch state
        // (its index gives the window in order); another user's untouched items are those
        // without a watched or in-progress row of theirs, read per item of the window.
        let untouched = """
            NOT EXISTS (SELECT 1 FROM watch_state w WHERE w.user_id = \(user.rawValue) AND w.item = items.id
                        AND (w.watched = 1 OR w.progress_seconds > 0))
            """
        let scan: RawStatement
        if user != .owner {
            if let channelID = filter.channelID {
                scan = try RawStatement(db, sql: """
                    SELECT id, channel_id FROM items WHERE channel_id = ? AND published >= ? AND \(untouched) ORDER BY published, id
                    """)
                scan.bind(1, channelID)
                scan.bind(2, windowStart)
            } else {
                scan = try RawStatement(db, sql: """
                    SELECT id, channel_id FROM items WHERE published >= ? AND \(untouched) ORDER BY published, channel_id, id
                    """)
                scan.bind(1, windowStart)
            }
        } else if let channelID = filter.channelID {
            // One channel: its own index range, checking the state per row (the + keeps SQLite
            // off items_state_published, which would walk every channel's window).
            scan = try RawStatement(db, sql: """
                SELECT id, channel_id FROM items WHERE channel_id = ? AND published >= ? AND +state = \(WatchState.untouched.rawValue)
                ORDER BY published, id
                """)
            scan.bind(1, channelID)
            scan.bind(2, windowStart)
        } else {
            // Index-only scan of items_state_published.
            scan = try RawStatement(db, sql: """
                SELECT id, channel_id FROM items WHERE state = \(WatchState.untouched.rawValue) AND published >= ? ORDER BY published, channel_id, id
                """)
            scan.bind(1, windowStart)
        }
        // Per-channel state in arrays indexed by channel id (ids are small and dense): this loop
        // runs once per item in the window, and hashing there costs more than SQLite's scan.
        let maxID = Int(try Int64.fetchOne(db, sql: "SELECT max(id) FROM channels") ?? 0)
        guard maxID < 10_000_000 else { throw LibraryError.invalid("channel ids up to \(maxID) are too sparse for catch-up") }
        // The channels the user follows (of the platform asked for; the one asked for). One
        // channel needs one lookup, and without a platform the subscriptions' key alone answers:
        // bench/modes' one-channel catch-up went from 0.2 to 1.2 ms reading all 2,000 with their channels.
        var allowed = [Bool](repeating: false, count: maxID + 1)
        var followed: [Int64] = []
        if filter.channelID == nil && filter.platform == nil {
            // The common case, straight from SQLite into the mask: no GRDB row per id (2,000 of
            // them on every first page).
            let subscribed = try RawStatement(cached: db, sql: "SELECT channel_id FROM subscriptions WHERE user_id = ?")
            subscribed.bind(1, user.rawValue)
            while try subscribed.step() {
                let id = subscribed.int64(0)
                if id >= 0 && id <= maxID { allowed[Int(id)] = true }
            }
        } else if let channelID = filter.channelID {
            followed = try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT s.channel_id FROM subscriptions s JOIN channels c ON c.id = s.channel_id
                WHERE s.user_id = ? AND s.channel_id = ? AND (?3 IS NULL OR c.platform = ?3)
                """), arguments: [user.rawValue, channelID, filter.platform?.rawValue])
        } else if let platform = filter.platform {
            followed = try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT s.channel_id FROM subscriptions s JOIN channels c ON c.id = s.channel_id WHERE s.user_id = ? AND c.platform = ?
                """), arguments: [user.rawValue, platform.rawValue])
        }
        for id in followed where id >= 0 && id <= maxID { allowed[Int(id)] = true }
        let maxRounds = end - ids.count
        var seen = [Int](repeating: 0, count: maxID + 1)
        var rounds: [[Int64]] = []
        while try scan.step() {
            let channel = Int(scan.int64(1))
            guard channel >= 0, channel <= maxID else { continue }
            if !allowed[channel] { continue }
            let round = seen[channel]
            seen[channel] = round + 1
            guard round < maxRounds else { continue }
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(scan.int64(0))
            // Once round one alone fills the page, nothing later in the pass can reach it: a
            // later item joins round one behind these, or a later round behind all of them.
            if round == 0 && rounds[0].count >= maxRounds { break }
        }
        for round in rounds {
            ids += round
            if ids.count >= end { break }
        }
        guard offset < ids.count else { return [] }
        return try LibraryItem.fetchAll(db, ids: Array(ids[offset..<min(end, ids.count)]), user: user)
    }
}
