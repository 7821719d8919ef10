import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// The item's `podcast:chapters` URL, if its feed gave one.
    public func chaptersURL(itemID: Int64) async throws(LibraryError) -> String? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT chapters_url FROM items WHERE id = ?", arguments: [itemID]) else {
                throw LibraryError.noItem(itemID)
            }
            return row["chapters_url"]
        }
    }

    /// The chapters file fetched earlier for the item, if it was fetched from `url`.
    public func cachedChapters(itemID: Int64, url: String) async throws(LibraryError) -> [UInt8]? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT body FROM chapters_cache WHERE item = ? AND url = ?",
                             arguments: [itemID, url]).map { row in Array((row["body"] as String).utf8) }
        }
    }

    /// Keeps a fetched chapters file (only files that parsed: the cache holds no junk).
    public func cacheChapters(itemID: Int64, url: String, body: [UInt8], now: Int64) async throws(LibraryError) {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO chapters_cache (item, url, body, fetched_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (item) DO UPDATE SET url = excluded.url, body = excluded.body, fetched_at = excluded.fetched_at
                """, arguments: [itemID, url, String(decoding: body, as: UTF8.self), now])
        }
    }
}
