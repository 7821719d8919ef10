import FeedModel
import LibraryStore

// How channels, their summaries and download items are read from rows: the same columns and
// meaning as the SQLite library's (Channel+Row.swift, ChannelSummary+Row.swift, DownloadItem+Row.swift).

extension PostgresLibrary {
    /// A channel as one user sees it: `FROM channels c \(subscribed)` with the user's id as `$1`.
    static let channelSelection = "c.*, s.active AS active, s.speed AS speed, s.speed_set AS speed_set"
    static let subscribed = "JOIN subscriptions s ON s.channel_id = c.id AND s.user_id = $1"
}

extension Channel {
    /// A row of `PostgresLibrary.channelSelection`: the shared `channels` row with one user's
    /// subscription (`active`, `speed`, `speed_set`).
    init(pgRow row: PGRow) throws(LibraryError) {
        let speedSet: Bool? = try row.get("speed_set")
        self.init(id: try row.get("id"), platform: Platform(rawValue: try row.get("platform")) ?? .podcast,
                  sourceURL: try row.get("source_url"), feedURL: try row.get("feed_url"), name: try row.get("name"),
                  image: try row.get("image"), active: try row.get("active"), addedAt: try row.get("added_at"),
                  lastSynced: try row.get("last_synced"), lastError: try row.get("last_error"),
                  consecutiveErrors: try row.get("consecutive_errors"), nextPoll: try row.get("next_poll"),
                  etag: try row.get("etag"), lastModified: try row.get("last_modified"), bodyHash: try row.get("body_hash"),
                  speed: speedSet == true ? try row.get("speed") : nil,
                  reach: AddressReach(storedPrivateAddresses: try row.get("private_addresses")))
    }
}

extension ChannelSummary {
    /// Columns a summary query selects for `user`'s view of `channels c` (the user's id is `$1`).
    static let pgSelection = """
        c.id, c.platform, c.name, c.source_url, c.feed_url, c.last_synced, c.last_error, c.next_poll,
        c.warnings, c.self_url, c.next_page, c.funding
        """

    /// The `items` and `unwatched` columns, from the user's subscription `s` (`subscribed`):
    /// the schema's counts, as SQLite's `ChannelSummary.counts`.
    static let pgCounts = "s.items AS items, s.items - s.watched AS unwatched"

    init(pgRow row: PGRow) throws(LibraryError) {
        self.init(id: try row.get("id"), platform: Platform(rawValue: try row.get("platform")) ?? .podcast, name: try row.get("name"),
                  url: try row.get("source_url"), feedURL: try row.get("feed_url"), items: try row.get("items"),
                  unwatched: try row.get("unwatched"), lastSynced: try row.get("last_synced"), lastError: try row.get("last_error"),
                  nextPoll: try row.get("next_poll"), warnings: StoredJSON.decode(String.self, try row.get("warnings")),
                  selfURL: try row.get("self_url"), nextPage: try row.get("next_page"),
                  funding: StoredJSON.decode(Link.self, try row.get("funding")))
    }
}

extension DownloadItem {
    static let pgSelection = """
        i.id, i.title, i.channel_id, c.name AS channel, c.platform, i.published,
        i.enclosure_url, i.enclosure_type, i.enclosure_length, i.discovered_at, c.private_addresses
        """

    init(pgRow row: PGRow) throws(LibraryError) {
        self.init(id: try row.get("id"), title: try row.get("title"), channelID: try row.get("channel_id"), channel: try row.get("channel"),
                  platform: Platform(rawValue: try row.get("platform")) ?? .podcast, published: try row.get("published"),
                  enclosureURL: try row.get("enclosure_url"), enclosureType: try row.get("enclosure_type"),
                  enclosureLength: try row.get("enclosure_length"), discoveredAt: try row.get("discovered_at"),
                  reach: AddressReach(storedPrivateAddresses: try row.get("private_addresses")))
    }
}

extension AddressReach {
    /// A `private_addresses` column (1 only while every subscription may); anything but 1 is public only.
    init(storedPrivateAddresses value: Int64?) { self = value == 1 ? .anyAddress : .publicOnly }
    var storedPrivateAddresses: Int64 { self == .anyAddress ? 1 : 0 }
}
