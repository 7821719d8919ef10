import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// Channel `id` as the acting user follows it; `noChannel` if they do not.
    public func channel(id: Int64) async throws(LibraryError) -> Channel {
        let user = user
        return try await read { db in
            guard let c = try Channel.fetchOne(db, sql: "SELECT \(Channel.selection) FROM channels c \(Channel.subscribed) WHERE c.id = ?2",
                                               arguments: [user.rawValue, id]) else {
                throw LibraryError.noChannel(id)
            }
            return c
        }
    }

    /// The channel polled at `feedURL`, if the acting user follows it.
    public func channel(feedURL: String) async throws(LibraryError) -> Channel? {
        let user = user
        return try await read { db in
            try Channel.fetchOne(db, sql: "SELECT \(Channel.selection) FROM channels c \(Channel.subscribed) WHERE c.feed_url = ?2",
                                 arguments: [user.rawValue, feedURL])
        }
    }

    /// The acting user's channels with their item counts, by name.
    public func channelSummaries() async throws(LibraryError) -> [ChannelSummary] {
        let user = user
        return try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(ChannelSummary.selection(for: user)) FROM channels c \(Channel.subscribed) ORDER BY c.name COLLATE NOCASE, c.id
                """, arguments: [user.rawValue]).map(ChannelSummary.init(row:))
        }
    }

    public func subscriptions(_ query: SubscriptionQuery) async throws(LibraryError) -> SubscriptionPage {
        let user = user
        var conditions: [String] = []
        var arguments: StatementArguments = [user.rawValue]
        if let platform = query.platform { conditions.append("c.platform = ?"); arguments += [platform.rawValue] }
        if let active = query.active { conditions.append("s.active = ?"); arguments += [active] }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let (page, filterArguments) = (query.page, arguments)
        return try await read { db in
            let arguments = filterArguments
            var subscriptions: [Subscription] = []
            if page?.isPastAnyEnd != true {
                let limit = page.map { "LIMIT \($0.perPage) OFFSET \($0.offset)" } ?? ""
                subscriptions = try Row.fetchAll(db, sql: """
                    SELECT \(Channel.selection), \(ChannelSummary.counts(for: user)) FROM channels c \(Channel.subscribed) \(filter)
                    ORDER BY c.name COLLATE NOCASE, c.id \(limit)
                    """, arguments: arguments).map { Subscription(channel: try Channel(row: $0), summary: ChannelSummary(row: $0)) }
            }
            let total = page == nil ? subscriptions.count
                : try Int.fetchOne(db, sql: "SELECT count(*) FROM channels c \(Channel.subscribed) \(filter)", arguments: arguments) ?? 0
            return SubscriptionPage(subscriptions: subscriptions, total: total)
        }
    }

    /// Channel `id` with its item counts.
    public func channelSummary(id: Int64) async throws(LibraryError) -> ChannelSummary {
        let user = user
        return try await read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT \(ChannelSummary.selection(for: user)) FROM channels c \(Channel.subscribed) WHERE c.id = ?2
                """, arguments: [user.rawValue, id]) else { throw LibraryError.noChannel(id) }
            return ChannelSummary(row: row)
        }
    }

    /// Unsubscribes the acting user: their subscription, and their watch state, saved marks,
    /// collection entries and queue entries for the channel's items go; their play history stays
    /// (it keeps its own copy of titles and names). The channel itself, its items and what hangs
    /// on them go only when nobody follows it any more.
    @discardableResult
    public func removeChannel(id: Int64) async throws(LibraryError) -> ChannelRemoval {
        let user = user.rawValue
        return try await write { db in
            try db.execute(sql: "DELETE FROM subscriptions WHERE user_id = ? AND channel_id = ?", arguments: [user, id])
            if db.changesCount == 0 { throw LibraryError.noChannel(id) }
            let items = "SELECT id FROM items WHERE channel_id = ?2"
            for sql in [
                "DELETE FROM watch_state WHERE user_id = ?1 AND item IN (\(items))",
                "DELETE FROM saved_items WHERE user_id = ?1 AND item IN (\(items))",
                "DELETE FROM collection_items WHERE collection IN (SELECT id FROM collections WHERE user_id = ?1) AND item IN (\(items))",
                "DELETE FROM up_next WHERE user_id = ?1 AND item IN (\(items))",
                "UPDATE player_state SET last_item = NULL WHERE user_id = ?1 AND last_item IN (\(items))",
            ] {
                try db.execute(sql: sql, arguments: [user, id])
            }
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM subscriptions WHERE channel_id = ?", arguments: [id]) != nil {
                return .othersStillFollow
            }
            try db.execute(sql: "DELETE FROM channels WHERE id = ?", arguments: [id])
            return .channelRemoved
        }
    }

    /// The acting user's channels (for `sync --all` and export), by id.
    public func allChannels() async throws(LibraryError) -> [Channel] {
        let user = user
        return try await read { db in
            try Channel.fetchAll(db, sql: "SELECT \(Channel.selection) FROM channels c \(Channel.subscribed) ORDER BY c.id",
                                 arguments: [user.rawValue])
        }
    }

    /// Pauses or resumes the acting user's subscription (a channel is polled while anyone's is active).
    public func setActive(channelID: Int64, _ active: Bool) async throws(LibraryError) {
        let user = user
        try await write { db in
            try db.execute(sql: "UPDATE subscriptions SET active = ? WHERE user_id = ? AND channel_id = ?",
                           arguments: [active, user.rawValue, channelID])
            if db.changesCount == 0 { throw LibraryError.noChannel(channelID) }
        }
    }

    /// The playback speed the acting user remembers for a channel (`PlaybackSpeed.range`).
    public func setSpeed(channelID: Int64, _ speed: Double) async throws(LibraryError) {
        let range = PlaybackSpeed.range
        guard range.contains(speed) else {
            throw .invalid("speed \(speed) is outside \(PlaybackSpeed.text(range.lowerBound))…\(PlaybackSpeed.text(range.upperBound))")
        }
        let user = user
        try await write { db in
            try db.execute(sql: "UPDATE subscriptions SET speed = ?, speed_set = 1 WHERE user_id = ? AND channel_id = ?",
                           arguments: [speed, user.rawValue, channelID])
            if db.changesCount == 0 { throw LibraryError.noChannel(channelID) }
        }
    }
}
