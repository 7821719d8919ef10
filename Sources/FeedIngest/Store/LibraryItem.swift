import GRDB

/// An item as `feed --json` and `show --json` print it (the CLI contract; keys are fixed).
public struct LibraryItem: Sendable, Equatable, Encodable {
    /// The library's id (what `show`, `watched`, `play` take).
    public var id: Int64
    /// The parser's id (video id, guid…).
    public var itemID: String
    public var channelID: Int64
    /// The channel's name.
    public var channel: String
    public var platform: Platform
    public var title: String
    public var url: String?
    public var published: Int64?
    public var duration: Int?
    public var isShort: Bool
    public var watched: Bool
    /// Seconds played so far.
    public var progress: Int
    public var enclosureURL: String?
    public var thumbnail: String?

    enum CodingKeys: String, CodingKey {
        case id, itemID = "item_id", channelID = "channel_id", channel, platform, title, url, published
        case duration, isShort = "is_short", watched, progress, enclosureURL = "enclosure_url", thumbnail
    }

    /// Written by hand so that nil is `null`, not a missing key.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(itemID, forKey: .itemID)
        try c.encode(channelID, forKey: .channelID)
        try c.encode(channel, forKey: .channel)
        try c.encode(platform, forKey: .platform)
        try c.encode(title, forKey: .title)
        try c.encode(url, forKey: .url)
        try c.encode(published, forKey: .published)
        try c.encode(duration, forKey: .duration)
        try c.encode(isShort, forKey: .isShort)
        try c.encode(watched, forKey: .watched)
        try c.encode(progress, forKey: .progress)
        try c.encode(enclosureURL, forKey: .enclosureURL)
        try c.encode(thumbnail, forKey: .thumbnail)
    }

    /// Columns a query must select, from `items i JOIN channels c LEFT JOIN watch_state w`.
    static let selection = """
        i.id, i.item_id, i.channel_id, c.name AS channel, c.platform, i.title, i.url, i.published,
        i.duration, i.is_short, coalesce(w.watched, 0) AS watched, coalesce(w.progress_seconds, 0) AS progress,
        i.enclosure_url, i.thumbnail
        """
    // CROSS JOIN: always from the few requested items outward, never from all channels.
    static let joins = "CROSS JOIN channels c ON c.id = i.channel_id LEFT JOIN watch_state w ON w.item = i.id"

    init(row: Row) {
        id = row["id"]
        itemID = row["item_id"]
        channelID = row["channel_id"]
        channel = row["channel"]
        platform = Platform(rawValue: row["platform"]) ?? .podcast
        title = row["title"]
        url = row["url"]
        published = row["published"]
        duration = row["duration"]
        isShort = row["is_short"]
        watched = row["watched"]
        progress = row["progress"]
        enclosureURL = row["enclosure_url"]
        thumbnail = row["thumbnail"]
    }

    static func fetchAll(_ db: Database, ids: [Int64]) throws -> [LibraryItem] {
        guard !ids.isEmpty else { return [] }
        let marks = ids.map { _ in "?" }.joined(separator: ",")
        let rows = try Row.fetchAll(db, sql: "SELECT \(selection) FROM items i \(joins) WHERE i.id IN (\(marks))",
                                    arguments: StatementArguments(ids))
        let byID = Dictionary(rows.map { (Int64($0["id"] as Int64), LibraryItem(row: $0)) }, uniquingKeysWith: { a, _ in a })
        return ids.compactMap { byID[$0] }
    }
}
