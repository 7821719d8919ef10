import GRDB

/// What a download needs to know about a library item.
public struct DownloadItem: Sendable, Equatable {
    public var id: Int64
    public var title: String
    public var channelID: Int64
    public var channel: String
    public var platform: Platform
    public var published: Int64?
    public var enclosureURL: String?
    public var enclosureType: String?
    /// The enclosure's `length` from the feed; nil when missing or zero.
    public var enclosureLength: Int64?

    static let selection = """
        i.id, i.title, i.channel_id, c.name AS channel, c.platform, i.published,
        i.enclosure_url, i.enclosure_type, i.enclosure_length
        """

    init(row: Row) {
        id = row["id"]
        title = row["title"]
        channelID = row["channel_id"]
        channel = row["channel"]
        platform = Platform(rawValue: row["platform"]) ?? .podcast
        published = row["published"]
        enclosureURL = row["enclosure_url"]
        enclosureType = row["enclosure_type"]
        let length: Int64? = row["enclosure_length"]
        enclosureLength = length.flatMap { $0 > 0 ? $0 : nil }
    }
}

extension Library {
    /// The items with these ids, in the order given; ids the library lacks are skipped.
    public func downloadItems(ids: [Int64]) throws(LibraryError) -> [DownloadItem] {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            let marks = ids.map { _ in "?" }.joined(separator: ",")
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(DownloadItem.selection) FROM items i JOIN channels c ON c.id = i.channel_id
                WHERE i.id IN (\(marks))
                """, arguments: StatementArguments(ids))
            let byID = Dictionary(rows.map { (Int64($0["id"] as Int64), DownloadItem(row: $0)) }, uniquingKeysWith: { a, _ in a })
            return ids.compactMap { byID[$0] }
        }
    }

    /// Channel `channelID`'s newest `limit` items that have an enclosure, newest first (the
    /// feed's order: publish date, then discovery, then id).
    public func newestEpisodes(channelID: Int64, limit: Int) throws(LibraryError) -> [DownloadItem] {
        guard limit > 0 else { return [] }
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(DownloadItem.selection) FROM items i JOIN channels c ON c.id = i.channel_id
                WHERE i.channel_id = ? AND i.enclosure_url IS NOT NULL AND i.enclosure_url <> ''
                ORDER BY i.published DESC, i.discovered_at DESC, i.id DESC
                LIMIT ?
                """, arguments: [channelID, limit]).map(DownloadItem.init(row:))
        }
    }
}
