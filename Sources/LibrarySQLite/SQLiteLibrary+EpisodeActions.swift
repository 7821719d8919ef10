import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary: EpisodeActionStore {
    public func recordEpisodeActions(_ actions: [EpisodeAction], now: Int64) async throws(LibraryError) -> Int64 {
        let user = user
        return try await write { db in
            try db.execute(sql: Schema.syncClockTick)
            let uploaded = try Self.syncClock(db)
            let insert = try db.cachedStatement(sql: """
                INSERT INTO episode_actions (user_id, uploaded, podcast, episode, guid, action, device, timestamp, started, position, total, item)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for action in EpisodeActionRule.inOrder(actions) {
                let item = try Self.matchItem(action, user: user, db)
                let play = action.kind == .play
                try insert.execute(arguments: [user.rawValue, uploaded, action.podcast, action.episode, action.guid, action.kind.rawValue,
                                               action.device, action.timestamp, play ? action.started : nil,
                                               play ? action.position : nil, play ? action.total : nil, item])
                if let item { try Self.apply(action, to: item, user: user, db) }
            }
            return try Self.syncClock(db)
        }
    }

    public func episodeActions(_ query: EpisodeActionQuery) async throws(LibraryError) -> (actions: [EpisodeAction], timestamp: Int64) {
        let user = user
        return try await read { db in
            let timestamp = try Self.syncClock(db)
            var stamped: [(stamp: Int64, action: EpisodeAction)] = []
            let uploaded = try Row.fetchAll(db, sql: """
                SELECT * FROM episode_actions
                WHERE user_id = ?1 AND uploaded > ?2 AND (?3 IS NULL OR podcast = ?3) AND (?4 IS NULL OR device = ?4)
                ORDER BY uploaded, id
                """, arguments: [user.rawValue, query.since, query.podcast, query.device])
            for row in uploaded {
                guard let kind = EpisodeActionKind(rawValue: row["action"]) else { continue }
                stamped.append((row["uploaded"], EpisodeAction(
                    podcast: row["podcast"], episode: row["episode"], guid: row["guid"], kind: kind, device: row["device"],
                    timestamp: row["timestamp"], started: row["started"], position: row["position"], total: row["total"])))
            }
            if query.device == nil {
                // The watch state changed in feedctl (the CLI, the daemon, the WebSearch API), as
                // the actions a phone would have sent.
                let local = try Row.fetchAll(db, sql: """
                    SELECT x.changed, w.watched, w.progress_seconds, w.updated_at, i.guid, i.enclosure_url, i.url, i.duration, c.feed_url
                    FROM sync_episode_changes x
                    JOIN watch_state w ON w.user_id = x.user_id AND w.item = x.item
                    JOIN items i ON i.id = x.item
                    JOIN channels c ON c.id = i.channel_id
                    JOIN subscriptions s ON s.user_id = x.user_id AND s.channel_id = c.id
                    WHERE x.user_id = ?1 AND x.changed > ?2 AND (?3 IS NULL OR c.feed_url = ?3)
                    ORDER BY x.changed, x.item
                    """, arguments: [user.rawValue, query.since, query.podcast])
                for row in local {
                    if let action = EpisodeActionRule.action(podcast: row["feed_url"], mediaURL: row["enclosure_url"], pageURL: row["url"],
                                                             guid: row["guid"], duration: row["duration"], watched: row["watched"],
                                                             progress: row["progress_seconds"], changedAt: row["updated_at"]) {
                        stamped.append((row["changed"], action))
                    }
                }
                stamped.sort { $0.stamp < $1.stamp }
            }
            var actions = stamped.map(\.action)
            if query.aggregated { actions = EpisodeActionRule.latestPerEpisode(actions) }
            return (actions, timestamp)
        }
    }

    /// Actions a phone uploaded before their episode was in the library (a podcast subscribed on
    /// the phone, its feed not yet polled here) are kept unmatched; when `channel`'s items arrive
    /// they are matched and applied, oldest first, each user's as `recordEpisodeActions` would
    /// have (last writer wins), so a position saved on the phone is not lost. Called inside the
    /// ingest's transaction.
    static func applyPendingActions(channel: Int64, _ db: Database) throws {
        // One cached statement: it runs for every feed that brings new items.
        let pending = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT a.* FROM channels c CROSS JOIN episode_actions a
            WHERE c.id = ?1 AND a.item IS NULL AND a.action IN ('play', 'new') AND a.podcast IN (c.feed_url, c.source_url)
              AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = a.user_id AND s.channel_id = ?1)
            ORDER BY a.timestamp, a.id
            """), arguments: [channel])
        for row in pending {
            guard let kind = EpisodeActionKind(rawValue: row["action"]) else { continue }
            let action = EpisodeAction(podcast: row["podcast"], episode: row["episode"], guid: row["guid"], kind: kind, device: row["device"],
                                       timestamp: row["timestamp"], started: row["started"], position: row["position"], total: row["total"])
            let user = UserID(row["user_id"])
            guard let item = try matchItem(action, user: user, db) else { continue }
            try db.execute(sql: "UPDATE episode_actions SET item = ? WHERE id = ?", arguments: [item, row["id"] as Int64])
            try apply(action, to: item, user: user, db)
        }
    }

    /// The item an action is about, among the user's, as `EpisodeActionRule` chooses: the
    /// channel its podcast URL names, then the item in it; the store only finds the candidates.
    static func matchItem(_ action: EpisodeAction, user: UserID, _ db: Database) throws -> Int64? {
        let channels = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT c.id, c.feed_url, c.source_url FROM channels c JOIN subscriptions s ON s.channel_id = c.id AND s.user_id = ?1
            WHERE c.feed_url = ?2 OR c.source_url = ?2
            """), arguments: [user.rawValue, action.podcast]).map {
            EpisodeActionRule.ChannelCandidate(id: $0["id"], feedURL: $0["feed_url"], sourceURL: $0["source_url"])
        }
        guard let channel = EpisodeActionRule.channel(podcast: action.podcast, among: channels) else { return nil }
        // Each kind of candidate on its own, at most `candidatesPerKind` of it.
        let items = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM (SELECT id, item_id, guid, enclosure_url FROM items WHERE channel_id = ?1 AND item_id = ?2 LIMIT ?4)
            UNION SELECT * FROM (SELECT id, item_id, guid, enclosure_url FROM items WHERE channel_id = ?1 AND guid = ?2 LIMIT ?4)
            UNION SELECT * FROM (SELECT id, item_id, guid, enclosure_url FROM items WHERE channel_id = ?1 AND enclosure_url = ?3 LIMIT ?4)
            """), arguments: [channel, action.guid, action.episode, EpisodeActionRule.candidatesPerKind]).map {
            EpisodeActionRule.ItemCandidate(id: $0["id"], itemID: $0["item_id"], guid: $0["guid"], mediaURL: $0["enclosure_url"])
        }
        return EpisodeActionRule.item(for: action, among: items)
    }

    /// Applies an action to the user's watch state as `EpisodeActionRule` says: what it does
    /// (`update(for:)`), unless the state changed later than the action happened (`wins`).
    static func apply(_ action: EpisodeAction, to item: Int64, user: UserID, _ db: Database) throws {
        guard let update = EpisodeActionRule.update(for: action),
              try writeWatchState(update, item: item, user: user, time: action.timestamp, lastWriterWins: true, db) != nil else { return }
        // The action itself is what other devices pull for this change: not feedctl's echo of it.
        try db.execute(sql: "DELETE FROM sync_episode_changes WHERE user_id = ? AND item = ?", arguments: [user.rawValue, item])
    }
}
