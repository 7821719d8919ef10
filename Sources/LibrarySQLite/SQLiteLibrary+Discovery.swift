import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// The discovery mode (`DiscoveryMode`): never-started items of the channels the user plays
    /// least, one per channel in turn, each channel's newest first.
    ///
    /// Per channel rather than one window function over every item: each followed channel's
    /// newest never-started items come from `items_channel_published` (a seek and about a page of
    /// rows), so a first page costs a lookup per channel, not a pass over the library. Round one
    /// finds which channels have anything; a page then needs about ⌈end / those⌉ rounds.
    static func discovery(_ db: Database, user: UserID, filter: FeedFilter, limit: Int, offset: Int) throws -> [LibraryItem] {
        if filter.watchedOnly { return [] }  // nothing watched is ever in discovery
        let end = offset + limit
        // The followed channels (of the platform, the one asked for), least played first. A play
        // is a `play_history` row of the user's for an item of the channel.
        let channels = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT s.channel_id FROM subscriptions s JOIN channels c ON c.id = s.channel_id
            LEFT JOIN (SELECT i.channel_id AS channel, count(*) AS plays FROM play_history h JOIN items i ON i.id = h.item
                       WHERE h.user_id = ?1 GROUP BY i.channel_id) p ON p.channel = s.channel_id
            WHERE s.user_id = ?1 AND (?2 IS NULL OR s.channel_id = ?2) AND (?3 IS NULL OR c.platform = ?3)
            ORDER BY coalesce(p.plays, 0), s.channel_id
            """), arguments: [user.rawValue, filter.channelID, filter.platform?.rawValue])
        // Never started: no watch-state row of the user's that is watched or has progress.
        let newestUntouched = try db.cachedStatement(sql: """
            SELECT i.id FROM items i
            WHERE i.channel_id = ?2 AND NOT EXISTS (SELECT 1 FROM watch_state w WHERE w.user_id = ?1 AND w.item = i.id
                AND (w.watched = 1 OR w.progress_seconds > \(DiscoveryMode.startedAfterSeconds)))
            ORDER BY i.published DESC, i.discovered_at DESC, i.id DESC
            LIMIT ?3
            """)
        var firsts: [(channel: Int64, item: Int64)] = []
        for channel in channels {
            if let id = try Int64.fetchOne(newestUntouched, arguments: [user.rawValue, channel, 1]) { firsts.append((channel, id)) }
        }
        guard !firsts.isEmpty else { return [] }
        // Rounds until the page is full or every channel has given all it has: a channel that
        // filled its share may have more, so the share grows for those until then.
        var perChannel: [[Int64]] = firsts.map { [$0.item] }
        var share = 1
        while perChannel.reduce(0, { $0 + $1.count }) < end {
            let open = perChannel.indices.filter { perChannel[$0].count == share }
            guard !open.isEmpty else { break }
            let missing = end - perChannel.reduce(0, { $0 + $1.count })
            share += (missing + open.count - 1) / open.count
            for index in open {
                perChannel[index] = try Int64.fetchAll(newestUntouched, arguments: [user.rawValue, firsts[index].channel, share])
            }
        }
        var ids: [Int64] = []
        for round in 0..<share {
            for items in perChannel where round < items.count { ids.append(items[round]) }
            if ids.count >= end { break }
        }
        guard offset < ids.count else { return [] }
        return try LibraryItem.fetchAll(db, ids: Array(ids[offset..<min(end, ids.count)]), user: user)
    }
}
