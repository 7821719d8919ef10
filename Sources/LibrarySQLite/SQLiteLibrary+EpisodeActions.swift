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
            // Oldest first, so that within one upload too the last action wins.
            let ordered = actions.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
            for (_, action) in ordered {
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
                    if let action = Self.stateAction(row) { stamped.append((row["changed"], action)) }
                }
                stamped.sort { $0.stamp < $1.stamp }
            }
            var actions = stamped.map(\.action)
            if query.aggregated { actions = Self.latestPerEpisode(actions) }
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

    /// The item an action is about, among the user's: in the channel polled at (or first added
    /// as) the action's podcast URL, the one with its guid; else the one item with its media URL
    /// (two items sharing a URL are never guessed between).
    static func matchItem(_ action: EpisodeAction, user: UserID, _ db: Database) throws -> Int64? {
        let channel = try Int64.fetchOne(db, sql: """
            SELECT c.id FROM channels c JOIN subscriptions s ON s.channel_id = c.id AND s.user_id = ?1
            WHERE c.feed_url = ?2 OR c.source_url = ?2 ORDER BY c.feed_url = ?2 DESC LIMIT 1
            """, arguments: [user.rawValue, action.podcast])
        guard let channel else { return nil }
        func found(_ ids: [Int64]) -> Int64? { ids.count == 1 ? ids[0] : nil }
        if let guid = action.guid {
            if let item = found(try Int64.fetchAll(db, sql: "SELECT id FROM items WHERE channel_id = ? AND item_id = ?",
                                                   arguments: [channel, guid])) { return item }
            if let item = found(try Int64.fetchAll(db, sql: "SELECT id FROM items WHERE channel_id = ? AND guid = ? LIMIT 2",
                                                   arguments: [channel, guid])) { return item }
        }
        return found(try Int64.fetchAll(db, sql: "SELECT id FROM items WHERE channel_id = ? AND enclosure_url = ? LIMIT 2",
                                        arguments: [channel, action.episode]))
    }

    /// Applies an action to the user's watch state unless that changed later than the action
    /// happened (last writer wins, feedctl's own changes included): `play` is a position
    /// (`WatchRule` counts it heard against the action's `total`, else the item's duration),
    /// `new` a mark as not watched.
    static func apply(_ action: EpisodeAction, to item: Int64, user: UserID, _ db: Database) throws {
        let update: WatchUpdate
        switch action.kind {
        case .play:
            guard let position = action.position, position >= 0 else { return }  // -1: no position
            update = .position(seconds: position, length: action.total.map(Double.init))
        case .new:
            update = .mark(watched: false)
        case .download, .delete, .flattr:
            return
        }
        guard try writeWatchState(update, item: item, user: user, time: action.timestamp, lastWriterWins: true, db) != nil else { return }
        // The action itself is what other devices pull for this change: not feedctl's echo of it.
        try db.execute(sql: "DELETE FROM sync_episode_changes WHERE user_id = ? AND item = ?", arguments: [user.rawValue, item])
    }

    /// An item's watch state as a phone's action: in progress is `play` at its position, heard
    /// is `play` at its end (only when its length is known: a position says nothing else),
    /// untouched or reset is `new`. Items without media or page URL have no episode URL to name.
    static func stateAction(_ row: Row) -> EpisodeAction? {
        let enclosure: String? = row["enclosure_url"], page: String? = row["url"]
        guard let episode = enclosure ?? page else { return nil }
        let duration: Int? = row["duration"]
        let progress: Int = row["progress_seconds"]
        let time: Int64 = row["updated_at"]
        var action = EpisodeAction(podcast: row["feed_url"], episode: episode, guid: row["guid"], kind: .play, timestamp: time)
        if row["watched"] as Bool {
            guard let duration, duration > 0 else { return nil }
            (action.position, action.total) = (duration, duration)
        } else if progress > 0 {
            (action.position, action.total) = (progress, duration)
        } else {
            action.kind = .new
        }
        return action
    }

    /// The latest action (by its timestamp; the later upload on a tie) of each episode, an
    /// episode being its podcast, media URL and guid: same URL, other guid, other episode.
    static func latestPerEpisode(_ actions: [EpisodeAction]) -> [EpisodeAction] {
        struct Key: Hashable { var podcast: String, episode: String, guid: String? }
        var latest: [Key: Int] = [:]
        for (index, action) in actions.enumerated() {
            let key = Key(podcast: action.podcast, episode: action.episode, guid: action.guid)
            if let kept = latest[key], actions[kept].timestamp > action.timestamp { continue }
            latest[key] = index
        }
        return latest.values.sorted().map { actions[$0] }
    }
}
