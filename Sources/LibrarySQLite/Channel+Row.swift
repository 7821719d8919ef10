import FeedModel
import GRDB
import LibraryStore

extension Channel: FetchableRecord {
    /// A row of `selection`: the shared `channels` row with one user's subscription
    /// (`active`, `speed`, `speed_set`).
    public init(row: Row) throws {
        self.init(id: row["id"], platform: Platform(rawValue: row["platform"]) ?? .podcast,
                  sourceURL: row["source_url"], feedURL: row["feed_url"], name: row["name"], image: row["image"],
                  active: row["active"], addedAt: row["added_at"], lastSynced: row["last_synced"],
                  lastError: row["last_error"], consecutiveErrors: row["consecutive_errors"],
                  nextPoll: row["next_poll"], etag: row["etag"], lastModified: row["last_modified"],
                  bodyHash: row["body_hash"],
                  speed: (row["speed_set"] as Bool? ?? false) ? row["speed"] : nil,
                  reach: AddressReach(storedPrivateAddresses: row["private_addresses"]))
    }

    /// A channel as one user sees it: `FROM channels c \(Channel.subscribed)` with the user's id as `?1`.
    static let selection = "c.*, s.active AS active, s.speed AS speed, s.speed_set AS speed_set"
    static let subscribed = "JOIN subscriptions s ON s.channel_id = c.id AND s.user_id = ?1"
}

extension AddressReach {
    /// A `private_addresses` column (`Schema.v18AddressReach`); anything but 1 is public only.
    init(storedPrivateAddresses value: Int64?) { self = value == 1 ? .anyAddress : .publicOnly }
    var storedPrivateAddresses: Int64 { self == .anyAddress ? 1 : 0 }
}
