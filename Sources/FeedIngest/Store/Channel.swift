import GRDB

/// Where a channel's feed comes from.
public enum Platform: String, Sendable, Codable, CaseIterable {
    case youtube, rumble, podcast
}

/// A subscribed channel with its sync bookkeeping (the `channels` row).
public struct Channel: Sendable, Equatable {
    public var id: Int64
    public var platform: Platform
    /// The URL the person subscribed with (channel page, podcast site or feed).
    public var sourceURL: String
    /// The URL that is polled.
    public var feedURL: String
    public var name: String
    public var image: String?
    public var active: Bool
    public var addedAt: Int64
    public var lastSynced: Int64?
    public var lastError: String?
    public var consecutiveErrors: Int
    /// Unix seconds; nil means due now.
    public var nextPoll: Int64?
    public var etag: String?
    public var lastModified: String?
    public var bodyHash: String?
    /// Playback speed remembered for this channel's items; nil when none was ever chosen.
    public var speed: Double?
}

extension Channel: FetchableRecord {
    public init(row: Row) throws {
        id = row["id"]
        platform = Platform(rawValue: row["platform"]) ?? .podcast
        sourceURL = row["source_url"]
        feedURL = row["feed_url"]
        name = row["name"]
        image = row["image"]
        active = row["active"]
        addedAt = row["added_at"]
        lastSynced = row["last_synced"]
        lastError = row["last_error"]
        consecutiveErrors = row["consecutive_errors"]
        nextPoll = row["next_poll"]
        etag = row["etag"]
        lastModified = row["last_modified"]
        bodyHash = row["body_hash"]
        speed = (row["speed_set"] as Bool? ?? false) ? row["speed"] : nil
    }
}
