import FeedModel
import LibraryStore

// A user's subscriptions (`ChannelStore`), as the SQLite library (SQLiteLibrary+Channels.swift).
extension PostgresLibrary {
    /// Channel `id` as the acting user follows it; `noChannel` if they do not.
    public func channel(id: Int64) async throws(LibraryError) -> Channel {
        let user = user
        return try await read { db throws(LibraryError) in
            guard let row = try db.query("SELECT \(Self.channelSelection) FROM channels c \(Self.subscribed) WHERE c.id = $2",
                                         [user.rawValue, id]).first else { throw .noChannel(id) }
            return try Channel(pgRow: row)
        }
    }

    /// The channel polled at `feedURL`, if the acting user follows it.
    public func channel(feedURL: String) async throws(LibraryError) -> Channel? {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("SELECT \(Self.channelSelection) FROM channels c \(Self.subscribed) WHERE c.feed_url = $2",
                         [user.rawValue, feedURL]).first.map { row throws(LibraryError) in try Channel(pgRow: row) }
        }
    }

    /// The acting user's channels (for `sync --all` and export), by id.
    public func allChannels() async throws(LibraryError) -> [Channel] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("SELECT \(Self.channelSelection) FROM channels c \(Self.subscribed) ORDER BY c.id", [user.rawValue])
                .rows.map { row throws(LibraryError) in try Channel(pgRow: row) }
        }
    }

    /// The acting user's channels with their item counts, by name.
    public func channelSummaries() async throws(LibraryError) -> [ChannelSummary] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT \(ChannelSummary.pgSelection), \(ChannelSummary.pgCounts) FROM channels c \(Self.subscribed)
                ORDER BY \(Self.noCase("c.name")), c.id
                """, [user.rawValue]).rows.map { row throws(LibraryError) in try ChannelSummary(pgRow: row) }
        }
    }

    /// Channel `id` with its item counts.
    public func channelSummary(id: Int64) async throws(LibraryError) -> ChannelSummary {
        let user = user
        return try await read { db throws(LibraryError) in
            guard let row = try db.query("""
                SELECT \(ChannelSummary.pgSelection), \(ChannelSummary.pgCounts) FROM channels c \(Self.subscribed)
                WHERE c.id = $2
                """, [user.rawValue, id]).first else { throw .noChannel(id) }
            return try ChannelSummary(pgRow: row)
        }
    }

    public func subscriptions(_ query: SubscriptionQuery) async throws(LibraryError) -> SubscriptionPage {
        let user = user
        // One snapshot: the page and its total agree.
        return try await snapshot { db throws(LibraryError) in
            var conditions: [String] = []
            var filterParameters: [any PGBindable] = [user.rawValue]
            if let platform = query.platform {
                filterParameters.append(platform.rawValue)
                conditions.append("c.platform = $\(filterParameters.count)")
            }
            if let active = query.active {
                filterParameters.append(active)
                conditions.append("s.active = $\(filterParameters.count)")
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let page = query.page
            var subscriptions: [Subscription] = []
            if page?.isPastAnyEnd != true {
                var parameters = filterParameters
                var limit = ""
                if let page {
                    parameters += [Int64(page.perPage), Int64(page.offset)]
                    limit = "LIMIT $\(parameters.count - 1) OFFSET $\(parameters.count)"
                }
                subscriptions = try db.query("""
                    SELECT \(Self.channelSelection), \(ChannelSummary.pgCounts) FROM channels c \(Self.subscribed) \(filter)
                    ORDER BY \(Self.noCase("c.name")), c.id \(limit)
                    """, parameters).rows.map { row throws(LibraryError) in
                    Subscription(channel: try Channel(pgRow: row), summary: try ChannelSummary(pgRow: row))
                }
            }
            let total = page == nil ? subscriptions.count
                : try db.query("SELECT count(*) AS n FROM channels c \(Self.subscribed) \(filter)", filterParameters).first?.get("n") ?? 0
            return SubscriptionPage(subscriptions: subscriptions, total: total)
        }
    }

    /// Unsubscribes the acting user: their subscription, and their watch state, saved marks and
    /// queue entries for the channel's items go; their play history stays (it keeps its own copy
    /// of titles and names), and so do their collections' entries. When nobody follows the
    /// channel any more it is released (`releaseUnfollowed`).
    @discardableResult
    public func removeChannel(id: Int64) async throws(LibraryError) -> ChannelRemoval {
        let user = user.rawValue
        return try await write { db throws(LibraryError) in
            // The channel first, as every writer locks channels before what hangs on them: a
            // subscription made meanwhile waits, then finds the channel gone (or is seen below).
            try db.query("SELECT 1 FROM channels WHERE id = $1 FOR UPDATE", [id])
            guard try db.query("DELETE FROM subscriptions WHERE user_id = $1 AND channel_id = $2", [user, id]).affected > 0 else {
                throw .noChannel(id)
            }
            let items = "SELECT id FROM items WHERE channel_id = $2"
            for sql in [
                "DELETE FROM watch_state WHERE user_id = $1 AND item IN (\(items))",
                "DELETE FROM saved_items WHERE user_id = $1 AND item IN (\(items))",
                "DELETE FROM up_next WHERE user_id = $1 AND item IN (\(items))",
                "UPDATE player_state SET last_item = NULL WHERE user_id = $1 AND last_item IN (\(items))",
            ] {
                try db.query(sql, [user, id])
            }
            if try db.query("SELECT 1 FROM subscriptions WHERE channel_id = $1 LIMIT 1", [id]).first != nil {
                return .othersStillFollow
            }
            return try Self.releaseUnfollowed([id], db).removal
        }
    }

    /// `ChannelRemoval`'s rule, for those of `channels` nobody follows: their items in nobody's
    /// collection go, and a channel with no item left goes too (SQLite's `releaseUnfollowed`).
    /// The channels are locked first (FOR UPDATE, in id order, as every writer locks channels),
    /// so a subscription or an item's new collection entry (`requireItems` holds its channel)
    /// made meanwhile waits and then finds them released, or went first and is seen here: each
    /// statement after the lock reads what was committed before it.
    static func releaseUnfollowed(_ channels: [Int64], _ db: PGConnection) throws(LibraryError) -> ReleasedChannels {
        guard !channels.isEmpty else { return ReleasedChannels() }
        try db.query("SELECT 1 FROM channels WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE", [channels])
        let unfollowed: [Int64] = try db.query("""
            SELECT c.id FROM channels c WHERE c.id = ANY($1::bigint[]) AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id)
            """, [channels]).rows.map { row throws(LibraryError) in try row.get(0) }
        guard !unfollowed.isEmpty else { return ReleasedChannels() }
        let kept: [Int64] = try db.query("""
            SELECT i.id FROM items i WHERE i.channel_id = ANY($1::bigint[]) AND EXISTS (SELECT 1 FROM collection_items ci WHERE ci.item = i.id)
            ORDER BY i.id
            """, [unfollowed]).rows.map { row throws(LibraryError) in try row.get(0) }
        let removed: [Int64] = try db.query("""
            DELETE FROM items i WHERE i.channel_id = ANY($1::bigint[]) AND NOT EXISTS (SELECT 1 FROM collection_items ci WHERE ci.item = i.id)
            RETURNING i.id
            """, [unfollowed]).rows.map { row throws(LibraryError) in try row.get(0) }
        try db.query("DELETE FROM channels c WHERE c.id = ANY($1::bigint[]) AND NOT EXISTS (SELECT 1 FROM items i WHERE i.channel_id = c.id)",
                     [unfollowed])
        return ReleasedChannels(unfollowed: unfollowed.count, removed: removed.sorted(), kept: kept)
    }

    /// The channels nobody follows of items `ids`, or of collection `collection`'s items: what
    /// `releaseUnfollowed` looks at once they left a collection.
    static func unfollowedChannels(items ids: [Int64] = [], collection: Int64? = nil, _ db: PGConnection) throws(LibraryError) -> [Int64] {
        try db.query("""
            SELECT DISTINCT i.channel_id FROM items i
            WHERE (i.id = ANY($1::bigint[]) OR i.id IN (SELECT item FROM collection_items WHERE collection = $2::bigint))
                AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = i.channel_id)
            """, [ids, collection]).rows.map { row throws(LibraryError) in try row.get(0) }
    }

    /// Pauses or resumes the acting user's subscription (a channel is polled while anyone's is active).
    public func setActive(channelID: Int64, _ active: Bool) async throws(LibraryError) {
        let user = user
        try await write { db throws(LibraryError) in
            let changed = try db.query("UPDATE subscriptions SET active = $1 WHERE user_id = $2 AND channel_id = $3",
                                       [active, user.rawValue, channelID]).affected
            if changed == 0 { throw .noChannel(channelID) }
        }
    }

    /// The playback speed the acting user remembers for a channel (`PlaybackSpeed.range`).
    public func setSpeed(channelID: Int64, _ speed: Double) async throws(LibraryError) {
        let range = PlaybackSpeed.range
        guard range.contains(speed) else {
            throw .invalid("speed \(speed) is outside \(PlaybackSpeed.text(range.lowerBound))…\(PlaybackSpeed.text(range.upperBound))")
        }
        let user = user
        try await write { db throws(LibraryError) in
            let changed = try db.query("UPDATE subscriptions SET speed = $1, speed_set = 1 WHERE user_id = $2 AND channel_id = $3",
                                       [speed, user.rawValue, channelID]).affected
            if changed == 0 { throw .noChannel(channelID) }
        }
    }
}
