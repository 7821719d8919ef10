import FeedModel
import GRDB
import LibraryStore

extension DownloadItem {
    static let selection = """
        i.id, i.title, i.channel_id, c.name AS channel, c.platform, i.published,
        i.enclosure_url, i.enclosure_type, i.enclosure_length, i.discovered_at, c.private_addresses
        """

    init(row: Row) {
        self.init(id: row["id"], title: row["title"], channelID: row["channel_id"], channel: row["channel"],
                  platform: Platform(rawValue: row["platform"]) ?? .podcast, published: row["published"],
                  enclosureURL: row["enclosure_url"], enclosureType: row["enclosure_type"],
                  enclosureLength: row["enclosure_length"], discoveredAt: row["discovered_at"],
                  reach: AddressReach(storedPrivateAddresses: row["private_addresses"]))
    }
}

extension SQLiteLibrary {
    /// The items with these ids, in the order given; ids the acting user cannot see are skipped.
    public func downloadItems(ids: [Int64]) async throws(LibraryError) -> [DownloadItem] {
        guard !ids.isEmpty else { return [] }
        let user = user
        return try await read { db in
            let marks = ids.map { _ in "?" }.joined(separator: ",")
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(DownloadItem.selection) FROM items i JOIN channels c ON c.id = i.channel_id
                    JOIN subscriptions s ON s.user_id = ?1 AND s.channel_id = i.channel_id
                WHERE i.id IN (\(marks))
                """, arguments: StatementArguments([user.rawValue] + ids))
            let byID = Dictionary(rows.map { (Int64($0["id"] as Int64), DownloadItem(row: $0)) }, uniquingKeysWith: { a, _ in a })
            return ids.compactMap { byID[$0] }
        }
    }

    /// Those of `ids` the acting user marked watched before `time` (Unix seconds), ascending.
    public func watched(before time: Int64, among ids: [Int64]) async throws(LibraryError) -> [Int64] {
        guard !ids.isEmpty else { return [] }
        let user = user
        return try await read { db in
            let marks = ids.map { _ in "?" }.joined(separator: ",")
            return try Int64.fetchAll(db, sql: """
                SELECT item FROM watch_state WHERE user_id = ? AND watched = 1 AND watched_at < ? AND item IN (\(marks)) ORDER BY item
                """, arguments: StatementArguments([user.rawValue, time] + ids))
        }
    }

    /// The ids of channel `channelID`'s items (what `channel remove` takes with it); `noChannel`
    /// if the acting user does not follow it.
    public func itemIDs(channelID: Int64) async throws(LibraryError) -> [Int64] {
        let user = user
        return try await read { db in
            try Self.requireChannel(channelID, user: user, db)
            return try Int64.fetchAll(db, sql: "SELECT id FROM items WHERE channel_id = ? ORDER BY id", arguments: [channelID])
        }
    }

    /// Channel `channelID`'s newest `limit` items that have an enclosure, newest first (the
    /// feed's order: publish date, then discovery, then id).
    public func newestEpisodes(channelID: Int64, limit: Int) async throws(LibraryError) -> [DownloadItem] {
        guard limit > 0 else { return [] }
        return try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(DownloadItem.selection) FROM items i JOIN channels c ON c.id = i.channel_id
                WHERE i.channel_id = ? AND i.enclosure_url IS NOT NULL AND i.enclosure_url <> ''
                ORDER BY i.published DESC, i.discovered_at DESC, i.id DESC
                LIMIT ?
                """, arguments: [channelID, limit]).map(DownloadItem.init(row:))
        }
    }
}
