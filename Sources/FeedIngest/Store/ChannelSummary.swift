import GRDB

/// A channel as `channel list --json` prints it (the CLI contract; keys are fixed).
public struct ChannelSummary: Sendable, Equatable, Encodable {
    public var id: Int64
    public var platform: Platform
    public var name: String
    /// The source URL the person subscribed with.
    public var url: String
    public var feedURL: String
    public var items: Int
    public var unwatched: Int
    public var lastSynced: Int64?
    public var lastError: String?
    public var nextPoll: Int64?

    public init(id: Int64, platform: Platform, name: String, url: String, feedURL: String, items: Int,
                unwatched: Int, lastSynced: Int64?, lastError: String?, nextPoll: Int64?) {
        self.id = id; self.platform = platform; self.name = name; self.url = url; self.feedURL = feedURL
        self.items = items; self.unwatched = unwatched; self.lastSynced = lastSynced
        self.lastError = lastError; self.nextPoll = nextPoll
    }

    enum CodingKeys: String, CodingKey {
        case id, platform, name, url, feedURL = "feed_url", items, unwatched
        case lastSynced = "last_synced", lastError = "last_error", nextPoll = "next_poll"
    }

    /// Written by hand so that nil is `null`, not a missing key.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(platform, forKey: .platform)
        try c.encode(name, forKey: .name)
        try c.encode(url, forKey: .url)
        try c.encode(feedURL, forKey: .feedURL)
        try c.encode(items, forKey: .items)
        try c.encode(unwatched, forKey: .unwatched)
        try c.encode(lastSynced, forKey: .lastSynced)
        try c.encode(lastError, forKey: .lastError)
        try c.encode(nextPoll, forKey: .nextPoll)
    }

    /// Columns a summary query must select (with `items` and `unwatched` counts).
    static let selection = """
        c.id, c.platform, c.name, c.source_url, c.feed_url, c.last_synced, c.last_error, c.next_poll,
        (SELECT count(*) FROM items i WHERE i.channel_id = c.id) AS items,
        (SELECT count(*) FROM items i WHERE i.channel_id = c.id AND i.state <> 2) AS unwatched
        """

    init(row: Row) {
        id = row["id"]
        platform = Platform(rawValue: row["platform"]) ?? .podcast
        name = row["name"]
        url = row["source_url"]
        feedURL = row["feed_url"]
        items = row["items"]
        unwatched = row["unwatched"]
        lastSynced = row["last_synced"]
        lastError = row["last_error"]
        nextPoll = row["next_poll"]
    }
}
