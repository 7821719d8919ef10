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

    /// Columns a query must select, from `items i JOIN channels c LEFT JOIN watch_state w`, in
    /// the order `init(row:)` reads them.
    static let selection = """
        i.id, i.item_id, i.channel_id, c.name AS channel, c.platform, i.title, i.url, i.published,
        i.duration, i.is_short, coalesce(w.watched, 0) AS watched, coalesce(w.progress_seconds, 0) AS progress,
        i.enclosure_url, i.thumbnail
        """
    // CROSS JOIN: always from the few requested items outward, never from all channels.
    static let joins = "CROSS JOIN channels c ON c.id = i.channel_id LEFT JOIN watch_state w ON w.item = i.id"

    /// Reads a row of `selection` by position: by-name lookups cost more than the query
    /// itself on a first page.
    init(row: Row) {
        id = row[0]
        itemID = row[1]
        channelID = row[2]
        channel = row[3]
        platform = Platform(rawValue: row[4]) ?? .podcast
        title = row[5]
        url = row[6]
        published = row[7]
        duration = row[8]
        isShort = row[9]
        watched = row[10]
        progress = row[11]
        enclosureURL = row[12]
        thumbnail = row[13]
    }

    static func fetchAll(_ db: Database, ids: [Int64]) throws -> [LibraryItem] {
        guard !ids.isEmpty else { return [] }
        let marks = ids.map { _ in "?" }.joined(separator: ",")
        // Cached per list length: preparing this statement costs more than running it.
        let statement = try db.cachedStatement(sql: "SELECT \(selection) FROM items i \(joins) WHERE i.id IN (\(marks))")
        let items = try Row.fetchAll(statement, arguments: StatementArguments(ids)).map(LibraryItem.init(row:))
        let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return ids.compactMap { byID[$0] }
    }
}
