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
                SELECT \(ChannelSummary.selection) FROM channels c \(Channel.subscribed) ORDER BY c.name COLLATE NOCASE, c.id
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
                    SELECT \(Channel.selection), \(ChannelSummary.counts) FROM channels c \(Channel.subscribed) \(filter)
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
                SELECT \(ChannelSummary.selection) FROM channels c \(Channel.subscribed) WHERE c.id = ?2
                """, arguments: [user.rawValue, id]) else { throw LibraryError.noChannel(id) }
            return ChannelSummary(row: row)
        }
    }

    /// Unsubscribes the acting user: their subscription, and their watch state, saved marks and
    /// queue entries for the channel's items go; their play history stays (it keeps its own copy
    /// of titles and names), and so do their collections' entries. When nobody follows the
    /// channel any more it is released (`releaseUnfollowed`).
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
                "DELETE FROM up_next WHERE user_id = ?1 AND item IN (\(items))",
                "UPDATE player_state SET last_item = NULL WHERE user_id = ?1 AND last_item IN (\(items))",
            ] {
                try db.execute(sql: sql, arguments: [user, id])
            }
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM subscriptions WHERE channel_id = ?", arguments: [id]) != nil {
                return .othersStillFollow
            }
            return try Self.releaseUnfollowed([id], db).removal
        }
    }

    /// `ChannelRemoval`'s rule, for those of `channels` nobody follows: their items in nobody's
    /// collection go, and a channel with no item left goes too. Called wherever a channel may
    /// lose its last follower (unsubscribing, removing a user) or an item its last collection.
    static func releaseUnfollowed(_ channels: [Int64], _ db: Database) throws -> ReleasedChannels {
        var released = ReleasedChannels()
        for channel in Set(channels).sorted() {
            guard try Bool.fetchOne(db, sql: """
                SELECT 1 FROM channels c WHERE c.id = ? AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id)
                """, arguments: [channel]) != nil else { continue }
            released.unfollowed += 1
            for row in try Row.fetchAll(db, sql: """
                SELECT i.id, EXISTS (SELECT 1 FROM collection_items ci WHERE ci.item = i.id) AS kept FROM items i
                WHERE i.channel_id = ? ORDER BY i.id
                """, arguments: [channel]) {
                if row["kept"] as Bool { released.kept.append(row["id"]) } else { released.removed.append(row["id"]) }
            }
            try db.execute(sql: """
                DELETE FROM items WHERE channel_id = ? AND NOT EXISTS (SELECT 1 FROM collection_items ci WHERE ci.item = items.id)
                """, arguments: [channel])
            try db.execute(sql: "DELETE FROM channels WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM items WHERE channel_id = ?1)",
                           arguments: [channel])
        }
        return released
    }

    /// The channels nobody follows of items `ids`, or of collection `collection`'s items: what
    /// `releaseUnfollowed` looks at once they left a collection.
    static func unfollowedChannels(items ids: [Int64] = [], collection: Int64? = nil, _ db: Database) throws -> [Int64] {
        try Int64.fetchAll(db, sql: """
            SELECT DISTINCT i.channel_id FROM items i
            WHERE (i.id IN (SELECT value FROM json_each(?1)) OR i.id IN (SELECT item FROM collection_items WHERE collection = ?2))
                AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = i.channel_id)
            """, arguments: ["[" + ids.map(String.init).joined(separator: ",") + "]", collection])
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
