import GRDB

extension Library {
    /// Subscribes to a feed, or, when `feedURL` is already subscribed, updates its platform,
    /// source URL, name (if `name` is not empty) and image (if given). Returns the stored row.
    @discardableResult
    public func addChannel(platform: Platform, sourceURL: String, feedURL: String, name: String,
                           image: String? = nil, now: Int64) throws(LibraryError) -> Channel {
        guard !feedURL.isEmpty else { throw .invalid("a channel needs a feed URL") }
        return try write { db in
            try db.execute(sql: """
                INSERT INTO channels (platform, source_url, feed_url, name, image, added_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (feed_url) DO UPDATE SET
                    platform = excluded.platform, source_url = excluded.source_url,
                    name = CASE WHEN excluded.name <> '' THEN excluded.name ELSE name END,
                    image = coalesce(excluded.image, image)
                """, arguments: [platform.rawValue, sourceURL.isEmpty ? feedURL : sourceURL, feedURL, name, image, now])
            guard let channel = try Channel.fetchOne(db, sql: "SELECT * FROM channels WHERE feed_url = ?",
                                                     arguments: [feedURL]) else {
                throw LibraryError.database("library \(path): channel \(feedURL) vanished after insert")
            }
            return channel
        }
    }

    /// The full row of channel `id`.
    public func channel(id: Int64) throws(LibraryError) -> Channel {
        try read { db in
            guard let c = try Channel.fetchOne(db, sql: "SELECT * FROM channels WHERE id = ?", arguments: [id]) else {
                throw LibraryError.noChannel(id)
            }
            return c
        }
    }

    /// The channel polled at `feedURL`, if subscribed.
    public func channel(feedURL: String) throws(LibraryError) -> Channel? {
        try read { db in try Channel.fetchOne(db, sql: "SELECT * FROM channels WHERE feed_url = ?", arguments: [feedURL]) }
    }

    /// All channels with their item counts, by name.
    public func channelSummaries() throws(LibraryError) -> [ChannelSummary] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT \(ChannelSummary.selection) FROM channels c ORDER BY c.name COLLATE NOCASE, c.id")
                .map(ChannelSummary.init(row:))
        }
    }

    /// Channel `id` with its item counts.
    public func channelSummary(id: Int64) throws(LibraryError) -> ChannelSummary {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT \(ChannelSummary.selection) FROM channels c WHERE c.id = ?",
                                             arguments: [id]) else { throw LibraryError.noChannel(id) }
            return ChannelSummary(row: row)
        }
    }

    /// Unsubscribes: the channel's items, watch state, saved marks and collection entries go;
    /// play history stays (it keeps its own copy of titles and names).
    public func removeChannel(id: Int64) throws(LibraryError) {
        try write { db in
            try db.execute(sql: "DELETE FROM channels WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw LibraryError.noChannel(id) }
        }
    }

    /// Active channels whose next poll time has come (never-polled ones included), oldest poll first.
    public func dueChannels(now: Int64) throws(LibraryError) -> [Channel] {
        try read { db in
            try Channel.fetchAll(db, sql: """
                SELECT * FROM channels WHERE active = 1 AND (next_poll IS NULL OR next_poll <= ?)
                ORDER BY next_poll IS NOT NULL, next_poll, id
                """, arguments: [now])
        }
    }

    /// All channels (for `sync --all` and export), by id.
    public func allChannels() throws(LibraryError) -> [Channel] {
        try read { db in try Channel.fetchAll(db, sql: "SELECT * FROM channels ORDER BY id") }
    }

    /// A successful poll (changed or not): stores the validators, clears the error state and
    /// schedules the next poll `pollInterval` seconds from now. A nil validator keeps the stored one
    /// (a 304 repeats none). Returns the next poll time.
    @discardableResult
    public func recordSyncSuccess(channelID: Int64, now: Int64, etag: String? = nil, lastModified: String? = nil,
                                  bodyHash: String? = nil, pollInterval: Int64 = SyncPolicy.defaultPollInterval) throws(LibraryError) -> Int64 {
        let next = now + max(pollInterval, 1)
        try write { db in
            try db.execute(sql: """
                UPDATE channels SET last_synced = ?, last_error = NULL, consecutive_errors = 0, next_poll = ?,
                    etag = coalesce(?, etag), last_modified = coalesce(?, last_modified),
                    body_hash = coalesce(?, body_hash)
                WHERE id = ?
                """, arguments: [now, next, etag, lastModified, bodyHash, channelID])
            if db.changesCount == 0 { throw LibraryError.noChannel(channelID) }
        }
        return next
    }

    /// A failed poll: records the one-line error, counts it, and backs off (see `SyncPolicy.backoff`).
    /// The channel's items are untouched. Returns the next poll time.
    @discardableResult
    public func recordSyncFailure(channelID: Int64, error message: String, now: Int64, retryAfter: Int64? = nil,
                                  pollInterval: Int64 = SyncPolicy.defaultPollInterval) throws(LibraryError) -> Int64 {
        try write { db in
            guard let errors = try Int.fetchOne(db, sql: "SELECT consecutive_errors FROM channels WHERE id = ?",
                                                arguments: [channelID]) else { throw LibraryError.noChannel(channelID) }
            let count = errors + 1
            let next = now + SyncPolicy.backoff(consecutiveErrors: count, pollInterval: pollInterval, retryAfter: retryAfter)
            try db.execute(sql: "UPDATE channels SET last_error = ?, consecutive_errors = ?, next_poll = ? WHERE id = ?",
                           arguments: [message, count, next, channelID])
            return next
        }
    }

    /// A permanent redirect moved the feed. Fails if another channel already polls `newURL`.
    public func updateFeedURL(channelID: Int64, to newURL: String) throws(LibraryError) {
        guard !newURL.isEmpty else { throw .invalid("a channel needs a feed URL") }
        try write { db in
            if let other = try Int64.fetchOne(db, sql: "SELECT id FROM channels WHERE feed_url = ? AND id <> ?",
                                              arguments: [newURL, channelID]) {
                throw LibraryError.invalid("channel \(other) already uses feed URL \(newURL)")
            }
            try db.execute(sql: "UPDATE channels SET feed_url = ? WHERE id = ?", arguments: [newURL, channelID])
            if db.changesCount == 0 { throw LibraryError.noChannel(channelID) }
        }
    }

    /// Pauses or resumes polling of a channel.
    public func setActive(channelID: Int64, _ active: Bool) throws(LibraryError) {
        try write { db in
            try db.execute(sql: "UPDATE channels SET active = ? WHERE id = ?", arguments: [active, channelID])
            if db.changesCount == 0 { throw LibraryError.noChannel(channelID) }
        }
    }

    /// The playback speed remembered for a channel (0.25…4).
    public func setSpeed(channelID: Int64, _ speed: Double) throws(LibraryError) {
        guard speed >= 0.25, speed <= 4 else { throw .invalid("speed \(speed) is outside 0.25…4") }
        try write { db in
            try db.execute(sql: "UPDATE channels SET speed = ?, speed_set = 1 WHERE id = ?", arguments: [speed, channelID])
            if db.changesCount == 0 { throw LibraryError.noChannel(channelID) }
        }
    }
}

/// When to poll again.
public enum SyncPolicy {
    public static let defaultPollInterval: Int64 = 3600
    public static let maxBackoff: Int64 = 86_400

    /// Seconds to wait after the `consecutiveErrors`-th failure in a row: the poll interval doubled
    /// per failure after the first, at least the server's Retry-After, never more than a day.
    public static func backoff(consecutiveErrors: Int, pollInterval: Int64, retryAfter: Int64?) -> Int64 {
        let base = max(pollInterval, 1)
        let doublings = min(max(consecutiveErrors - 1, 0), 32)
        let (scaled, overflow) = base.multipliedReportingOverflow(by: Int64(1) << doublings)
        let exponential = overflow ? maxBackoff : scaled
        return min(max(exponential, retryAfter ?? 0), maxBackoff)
    }
}
