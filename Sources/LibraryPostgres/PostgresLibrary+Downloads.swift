import FeedModel
import LibraryStore

// The download catalog and the chapters cache, as the SQLite library (DownloadItem+Row.swift,
// SQLiteLibrary+Chapters.swift).
extension PostgresLibrary {
    /// The items with these ids, in the order given; ids the acting user cannot see are skipped.
    public func downloadItems(ids: [Int64]) async throws(LibraryError) -> [DownloadItem] {
        guard !ids.isEmpty else { return [] }
        let user = user
        return try await read { db throws(LibraryError) in
            let rows = try db.query("""
                SELECT \(DownloadItem.pgSelection) FROM items i JOIN channels c ON c.id = i.channel_id
                    JOIN subscriptions s ON s.user_id = $1 AND s.channel_id = i.channel_id
                WHERE i.id = ANY($2::bigint[])
                """, [user.rawValue, ids]).rows
            var byID: [Int64: DownloadItem] = [:]
            for row in rows {
                let item = try DownloadItem(pgRow: row)
                byID[item.id] = item
            }
            return ids.compactMap { byID[$0] }
        }
    }

    /// Those of `ids` the acting user marked watched before `time` (Unix seconds), ascending.
    public func watched(before time: Int64, among ids: [Int64]) async throws(LibraryError) -> [Int64] {
        guard !ids.isEmpty else { return [] }
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT item FROM watch_state WHERE user_id = $1 AND watched = 1 AND watched_at < $2 AND item = ANY($3::bigint[])
                ORDER BY item
                """, [user.rawValue, time, ids]).rows.map { row throws(LibraryError) in try row.get("item") }
        }
    }

    /// The ids of channel `channelID`'s items (what `channel remove` takes with it); `noChannel`
    /// if the acting user does not follow it.
    public func itemIDs(channelID: Int64) async throws(LibraryError) -> [Int64] {
        let user = user
        return try await snapshot { db throws(LibraryError) in
            guard try db.query("SELECT 1 FROM subscriptions WHERE user_id = $1 AND channel_id = $2", [user.rawValue, channelID]).first != nil else {
                throw .noChannel(channelID)
            }
            return try db.query("SELECT id FROM items WHERE channel_id = $1 ORDER BY id", [channelID])
                .rows.map { row throws(LibraryError) in try row.get("id") }
        }
    }

    /// Channel `channelID`'s newest `limit` items that have an enclosure, newest first (the
    /// feed's order: publish date, then discovery, then id; undated last, as in SQLite).
    public func newestEpisodes(channelID: Int64, limit: Int) async throws(LibraryError) -> [DownloadItem] {
        guard limit > 0 else { return [] }
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT \(DownloadItem.pgSelection) FROM items i JOIN channels c ON c.id = i.channel_id
                WHERE i.channel_id = $1 AND i.enclosure_url IS NOT NULL AND i.enclosure_url <> ''
                ORDER BY i.published DESC NULLS LAST, i.discovered_at DESC NULLS LAST, i.id DESC
                LIMIT $2
                """, [channelID, Int64(limit)]).rows.map { row throws(LibraryError) in try DownloadItem(pgRow: row) }
        }
    }

    /// The item's `podcast:chapters` URL, if its feed gave one.
    public func chaptersURL(itemID: Int64) async throws(LibraryError) -> String? {
        try await read { db throws(LibraryError) in
            guard let row = try db.query("SELECT chapters_url FROM items WHERE id = $1", [itemID]).first else {
                throw .noItem(itemID)
            }
            return try row.get("chapters_url")
        }
    }

    /// The chapters file fetched earlier for the item, if it was fetched from `url`.
    public func cachedChapters(itemID: Int64, url: String) async throws(LibraryError) -> [UInt8]? {
        try await read { db throws(LibraryError) in
            try db.query("SELECT body FROM chapters_cache WHERE item = $1 AND url = $2", [itemID, url]).first
                .map { row throws(LibraryError) in Array((try row.get("body") as String).utf8) }
        }
    }

    /// Keeps a fetched chapters file (only files that parsed: the cache holds no junk).
    public func cacheChapters(itemID: Int64, url: String, body: [UInt8], now: Int64) async throws(LibraryError) {
        try await write { db throws(LibraryError) in
            _ = try db.query("""
                INSERT INTO chapters_cache (item, url, body, fetched_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (item) DO UPDATE SET url = excluded.url, body = excluded.body, fetched_at = excluded.fetched_at
                """, [itemID, url, String(decoding: body, as: UTF8.self), now])
        }
    }
}
