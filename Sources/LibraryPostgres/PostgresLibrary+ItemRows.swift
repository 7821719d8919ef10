import FeedModel
import LibraryStore

// How library items are read from rows and which ids a user may act on: the same columns,
// meaning and errors as the SQLite library's (LibraryItem+Row.swift, SQLiteLibrary+Actions.swift).

extension LibraryItem {
    /// Columns a query selects for `init(pgRow:)`, from `items i` joined by `pgJoins`.
    static let pgSelection = """
        i.id, i.item_id, i.channel_id, c.name AS channel, c.platform, i.title, i.url, i.published,
        i.duration, i.is_short, coalesce(w.watched, 0) AS watched, coalesce(w.progress_seconds, 0) AS progress,
        i.enclosure_url, i.thumbnail
        """

    /// Only items of channels the user (the parameter `user`, e.g. `$1`) follows, with the
    /// user's watch state (`w`).
    static func pgJoins(user: String) -> String {
        """
        JOIN channels c ON c.id = i.channel_id JOIN subscriptions s ON s.user_id = \(user) AND s.channel_id = i.channel_id
        LEFT JOIN watch_state w ON w.user_id = \(user) AND w.item = i.id
        """
    }

    /// Item `i` is not watched by the user (`$1`): what `w.watched IS DISTINCT FROM 1` means,
    /// spelled as an anti-join. The planner cannot estimate that filter over a left join (it
    /// takes it to keep one row), so for a user with many watched items it read and sorted every
    /// followed item for a page (200 ms on 100,000 items, a third watched); as NOT EXISTS it reads
    /// down `items_newest` and stops at the page's end (0.5 ms; PostgresFeedPlanTests).
    static let pgUnwatched = "NOT EXISTS (SELECT 1 FROM watch_state x WHERE x.user_id = $1 AND x.item = i.id AND x.watched = 1)"

    /// Whether the user (the parameter `user`) may have item `i` by its id: they follow its
    /// channel, or it is in one of their collections (SQLite's `LibraryItem.visibleByID`).
    static func pgVisibleByID(user: String) -> String {
        """
        (EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = \(user) AND s.channel_id = i.channel_id)
         OR EXISTS (SELECT 1 FROM collection_items ci JOIN collections k ON k.id = ci.collection
                    WHERE ci.item = i.id AND k.user_id = \(user)))
        """
    }

    /// `pgJoins` for items asked for by id (`pgVisibleByID`).
    static func pgByIDJoins(user: String) -> String {
        """
        JOIN channels c ON c.id = i.channel_id AND \(pgVisibleByID(user: user))
        LEFT JOIN watch_state w ON w.user_id = \(user) AND w.item = i.id
        """
    }

    /// A row of `pgSelection`.
    init(pgRow row: PGRow) throws(LibraryError) {
        self.init(id: try row.get("id"), itemID: try row.get("item_id"), channelID: try row.get("channel_id"),
                  channel: try row.get("channel"), platform: Platform(rawValue: try row.get("platform")) ?? .podcast,
                  title: try row.get("title"), url: try row.get("url"), published: try row.get("published"),
                  duration: try row.get("duration"), isShort: try row.get("is_short"), watched: try row.get("watched"),
                  progress: try row.get("progress"), enclosureURL: try row.get("enclosure_url"), thumbnail: try row.get("thumbnail"))
    }
}

extension PostgresLibrary {
    /// Throws `noItem` (or `noItems`) naming every id `user` cannot see (`pgVisibleByID`): not
    /// in the library, or in a channel they do not follow and none of their collections. The
    /// items found and their channels stay locked against deletion (KEY SHARE) until the
    /// transaction ends, so a row that refers to one cannot lose it to a channel removed or
    /// released meanwhile (`releaseUnfollowed` locks the channel FOR UPDATE first): such a
    /// removal waits, or went first and the item is missing here.
    static func requireItems(_ ids: [Int64], user: UserID, _ db: PGConnection) throws(LibraryError) {
        guard !ids.isEmpty else { return }
        let found = Set(try db.query("""
            SELECT i.id FROM items i JOIN channels c ON c.id = i.channel_id
            WHERE i.id = ANY($2::bigint[]) AND \(LibraryItem.pgVisibleByID(user: "$1")) FOR KEY SHARE OF i, c
            """, [user.rawValue, ids]).rows.map { row throws(LibraryError) in try row.get(0) as Int64 })
        let missing = ids.filter { !found.contains($0) }
        if missing.count == 1 { throw .noItem(missing[0]) }
        if !missing.isEmpty { throw .noItems(missing) }
    }

    /// `ids` without repeats, first occurrence kept.
    static func unique(_ ids: [Int64]) -> [Int64] {
        var seen = Set<Int64>()
        return ids.filter { seen.insert($0).inserted }
    }
}
