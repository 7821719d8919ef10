import FeedModel
import GRDB
import LibraryStore

extension Channel: FetchableRecord {
    /// A `channels` row (`SELECT *`).
    public init(row: Row) throws {
        self.init(id: row["id"], platform: Platform(rawValue: row["platform"]) ?? .podcast,
                  sourceURL: row["source_url"], feedURL: row["feed_url"], name: row["name"], image: row["image"],
                  active: row["active"], addedAt: row["added_at"], lastSynced: row["last_synced"],
                  lastError: row["last_error"], consecutiveErrors: row["consecutive_errors"],
                  nextPoll: row["next_poll"], etag: row["etag"], lastModified: row["last_modified"],
                  bodyHash: row["body_hash"],
                  speed: (row["speed_set"] as Bool? ?? false) ? row["speed"] : nil)
    }
}
