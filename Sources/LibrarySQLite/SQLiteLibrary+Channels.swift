import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// The full row of channel `id`.
    public func channel(id: Int64) async throws(LibraryError) -> Channel {
        try await read { db in
            guard let c = try Channel.fetchOne(db, sql: "SELECT * FROM channels WHERE id = ?", arguments: [id]) else {
                throw LibraryError.noChannel(id)
            }
            return c
        }
    }

    /// The channel polled at `feedURL`, if subscribed.
    public func channel(feedURL: String) async throws(LibraryError) -> Channel? {
        try await read { db in try Channel.fetchOne(db, sql: "SELECT * FROM channels WHERE feed_url = ?", arguments: [feedURL]) }
    }

    /// All channels with their item counts, by name.
    public func channelSummaries() async throws(LibraryError) -> [ChannelSummary] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(ChannelSummary.selection) FROM channels c ORDER BY c.name COLLATE NOCASE, c.id")
                .map(ChannelSummary.init(row:))
        }
    }

    /// Channel `id` with its item counts.
    public func channelSummary(id: Int64) async throws(LibraryError) -> ChannelSummary {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT \(ChannelSummary.selection) FROM channels c WHERE c.id = ?",
                                             arguments: [id]) else { throw LibraryError.noChannel(id) }
            return ChannelSummary(row: row)
        }
    }

    /// Unsubscribes: the channel's items, watch state, saved marks and collection entries go;
    /// play history stays (it keeps its own copy of titles and names).
    public func removeChannel(id: Int64) async throws(LibraryError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM channels WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw LibraryError.noChannel(id) }
        }
    }

    /// Active channels whose next poll time has come (never-polled ones included), oldest poll first.
    public func dueChannels(now: Int64) async throws(LibraryError) -> [Channel] {
        try await read { db in
            try Channel.fetchAll(db, sql: """
                SELECT * FROM channels WHERE active = 1 AND (next_poll IS NULL OR next_poll <= ?)
                ORDER BY next_poll IS NOT NULL, next_poll, id
                """, arguments: [now])
        }
    }

    /// All channels (for `sync --all` and export), by id.
    public func allChannels() async throws(LibraryError) -> [Channel] {
        try await read { db in try Channel.fetchAll(db, sql: "SELECT * FROM channels ORDER BY id") }
    }

    /// Pauses or resumes polling of a channel.
    public func setActive(channelID: Int64, _ active: Bool) async throws(LibraryError) {
        try await write { db in
            try db.execute(sql: "UPDATE channels SET active = ? WHERE id = ?", arguments: [active, channelID])
            if db.changesCount == 0 { throw LibraryError.noChannel(channelID) }
        }
    }

    /// The playback speed remembered for a channel (`PlaybackSpeed.range`).
    public func setSpeed(channelID: Int64, _ speed: Double) async throws(LibraryError) {
        let range = PlaybackSpeed.range
        guard range.contains(speed) else {
            throw .invalid("speed \(speed) is outside \(PlaybackSpeed.text(range.lowerBound))…\(PlaybackSpeed.text(range.upperBound))")
        }
        try await write { db in
            try db.execute(sql: "UPDATE channels SET speed = ?, speed_set = 1 WHERE id = ?", arguments: [speed, channelID])
            if db.changesCount == 0 { throw LibraryError.noChannel(channelID) }
        }
    }
}
