import FeedModel
import GRDB
import LibraryStore

extension ChannelSummary {
    /// Columns a summary query must select (with `items` and `unwatched` counts) for a user's
    /// view of `channels c` joined with their subscription `s` (`Channel.subscribed`).
    static let selection = """
        c.id, c.platform, c.name, c.source_url, c.feed_url, c.last_synced, c.last_error, c.next_poll,
        c.warnings, c.self_url, c.next_page, c.funding, \(counts)
        """

    /// The `items` and `unwatched` columns alone (beside `Channel.selection`, whose `c.*` holds
    /// the rest): the subscription's counts (v15, v26), not a count of the channel's items.
    static let counts = "s.items AS items, s.items - s.watched AS unwatched"

    init(row: Row) {
        self.init(id: row["id"], platform: Platform(rawValue: row["platform"]) ?? .podcast, name: row["name"],
                  url: row["source_url"], feedURL: row["feed_url"], items: row["items"], unwatched: row["unwatched"],
                  lastSynced: row["last_synced"], lastError: row["last_error"], nextPoll: row["next_poll"],
                  warnings: StoredJSON.decode(String.self, row["warnings"]), selfURL: row["self_url"],
                  nextPage: row["next_page"], funding: StoredJSON.decode(Link.self, row["funding"]))
    }
}
