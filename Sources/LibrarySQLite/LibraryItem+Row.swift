import FeedModel
import GRDB
import LibraryStore

extension LibraryItem {
    /// Columns a query must select, from `items i JOIN channels c LEFT JOIN watch_state w` (`w`
    /// the acting user's rows), in the order `init(row:)` reads them.
    package static let selection = """
        i.id, i.item_id, i.channel_id, c.name AS channel, c.platform, i.title, i.url, i.published,
        i.duration, i.is_short, coalesce(w.watched, 0) AS watched, coalesce(w.progress_seconds, 0) AS progress,
        i.enclosure_url, i.thumbnail
        """
    // CROSS JOIN: always from the few requested items outward, never from all channels. Only
    // items of channels the user (`?1`) follows, with the user's watch state.
    static let joins = """
        CROSS JOIN channels c ON c.id = i.channel_id CROSS JOIN subscriptions s ON s.user_id = ?1 AND s.channel_id = i.channel_id
        LEFT JOIN watch_state w ON w.user_id = ?1 AND w.item = i.id
        """

    /// Whether the user (`?1`) may have item `i` by its id: they follow its channel, or it is in
    /// one of their collections (which keep it when its channel's last follower left:
    /// `ChannelRemoval`). Lists (the feed, search) show followed channels only (`joins`).
    static let visibleByID = """
        (EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ?1 AND s.channel_id = i.channel_id)
         OR EXISTS (SELECT 1 FROM collection_items ci CROSS JOIN collections k ON k.id = ci.collection
                    WHERE ci.item = i.id AND k.user_id = ?1))
        """
    /// `joins` for items asked for by id (`visibleByID`).
    static let byIDJoins = """
        CROSS JOIN channels c ON c.id = i.channel_id AND \(visibleByID)
        LEFT JOIN watch_state w ON w.user_id = ?1 AND w.item = i.id
        """

    /// Reads a row of `selection` by position: by-name lookups cost more than the query
    /// itself on a first page.
    init(row: some ColumnValues) {
        self.init(id: row.int64(0) ?? 0, itemID: row.text(1) ?? "", channelID: row.int64(2) ?? 0, channel: row.text(3) ?? "",
                  platform: row.text(4).flatMap(Platform.init(rawValue:)) ?? .podcast, title: row.text(5) ?? "", url: row.text(6),
                  published: row.int64(7), duration: row.int(8), isShort: row.bool(9), watched: row.bool(10),
                  progress: row.int(11) ?? 0, enclosureURL: row.text(12), thumbnail: row.text(13))
    }

    /// The items with these ids that `user` can see (`visibleByID`), in the order given.
    static func fetchAll(_ db: Database, ids: [Int64], user: UserID) throws -> [LibraryItem] {
        guard !ids.isEmpty else { return [] }
        let marks = ids.map { _ in "?" }.joined(separator: ",")
        // Cached per list length: preparing this statement costs more than running it.
        let statement = try db.cachedStatement(sql: "SELECT \(selection) FROM items i \(byIDJoins) WHERE i.id IN (\(marks))")
        let items = try StatementColumns.fetchAll(statement, arguments: StatementArguments([user.rawValue] + ids), LibraryItem.init(row:))
        let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return ids.compactMap { byID[$0] }
    }
}
