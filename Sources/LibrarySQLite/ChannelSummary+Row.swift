import FeedModel
import GRDB
import LibraryStore

extension ChannelSummary {
    /// Columns a summary query must select (with `items` and `unwatched` counts) for `user`'s
    /// view of `channels c`. The owner's unwatched count reads `items.state` (their watch state,
    /// counted from the channel index alone); another user's counts their own watched marks.
    static func selection(for user: UserID) -> String {
        """
        c.id, c.platform, c.name, c.source_url, c.feed_url, c.last_synced, c.last_error, c.next_poll,
        c.warnings, c.self_url, c.next_page, c.funding, \(counts(for: user))
        """
    }

    /// The `items` and `unwatched` columns alone (beside `Channel.selection`, whose `c.*` holds the rest).
    static func counts(for user: UserID) -> String {
        let unwatched = user == .owner
            ? "(SELECT count(*) FROM items i WHERE i.channel_id = c.id AND i.state <> \(WatchState.watched.rawValue))"
            : """
              (SELECT count(*) FROM items i WHERE i.channel_id = c.id) - (SELECT count(*) FROM items i
                  JOIN watch_state w ON w.user_id = \(user.rawValue) AND w.item = i.id AND w.watched = 1 WHERE i.channel_id = c.id)
              """
        return "(SELECT count(*) FROM items i WHERE i.channel_id = c.id) AS items, \(unwatched) AS unwatched"
    }

    init(row: Row) {
        self.init(id: row["id"], platform: Platform(rawValue: row["platform"]) ?? .podcast, name: row["name"],
                  url: row["source_url"], feedURL: row["feed_url"], items: row["items"], unwatched: row["unwatched"],
                  lastSynced: row["last_synced"], lastError: row["last_error"], nextPoll: row["next_poll"],
                  warnings: StoredJSON.decode(String.self, row["warnings"]), selfURL: row["self_url"],
                  nextPage: row["next_page"], funding: StoredJSON.decode(Link.self, row["funding"]))
    }
}
