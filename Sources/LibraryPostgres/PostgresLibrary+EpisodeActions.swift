import FeedModel
import LibraryStore

// gpodder's episode actions, as the SQLite library (SQLiteLibrary+EpisodeActions.swift): the
// store finds the candidates, `EpisodeActionRule` chooses.
extension PostgresLibrary {
    public func recordEpisodeActions(_ actions: [EpisodeAction], now: Int64) async throws(LibraryError) -> Int64 {
        let user = user
        return try await write { db throws(LibraryError) in
            // The upload's reading of the sync clock; its row stays locked until this commits, so
            // no other change is stamped between this reading and the commit.
            guard let uploaded = try db.query("SELECT sync_clock_tick() AS uploaded").first?.get("uploaded") as Int64? else {
                throw PGRow.unexpected("the sync clock has no row")
            }
            for action in EpisodeActionRule.inOrder(actions) {
                let item = try Self.matchItem(action, user: user, db)
                let play = action.kind == .play
                try db.query("""
                    INSERT INTO episode_actions (user_id, uploaded, podcast, episode, guid, action, device, timestamp, started, position, total, item)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                    """, [user.rawValue, uploaded, action.podcast, action.episode, action.guid, action.kind.rawValue,
                          action.device, action.timestamp, play ? action.started : nil,
                          play ? action.position : nil, play ? action.total : nil, item])
                if let item { try Self.apply(action, to: item, user: user, db) }
            }
            return try Self.syncClock(db)
        }
    }

    public func episodeActions(_ query: EpisodeActionQuery) async throws(LibraryError) -> (actions: [EpisodeAction], timestamp: Int64) {
        let user = user
        return try await snapshot { db throws(LibraryError) in
            let timestamp = try Self.syncClock(db)
            var stamped: [(stamp: Int64, action: EpisodeAction)] = []
            let uploaded = try db.query("""
                SELECT * FROM episode_actions
                WHERE user_id = $1 AND uploaded > $2 AND ($3::text IS NULL OR podcast = $3) AND ($4::text IS NULL OR device = $4)
                ORDER BY uploaded, id
                """, [user.rawValue, query.since, query.podcast, query.device]).rows
            for row in uploaded {
                guard let action = try Self.action(row) else { continue }
                stamped.append((try row.get("uploaded"), action))
            }
            if query.device == nil {
                // The watch state changed in feedctl (the CLI, the daemon, the WebSearch API), as
                // the actions a phone would have sent.
                let local = try db.query("""
                    SELECT x.changed, w.watched, w.progress_seconds, w.updated_at, i.guid, i.enclosure_url, i.url, i.duration, c.feed_url
                    FROM sync_episode_changes x
                    JOIN watch_state w ON w.user_id = x.user_id AND w.item = x.item
                    JOIN items i ON i.id = x.item
                    JOIN channels c ON c.id = i.channel_id
                    JOIN subscriptions s ON s.user_id = x.user_id AND s.channel_id = c.id
                    WHERE x.user_id = $1 AND x.changed > $2 AND ($3::text IS NULL OR c.feed_url = $3)
                    ORDER BY x.changed, x.item
                    """, [user.rawValue, query.since, query.podcast]).rows
                for row in local {
                    if let action = EpisodeActionRule.action(
                        podcast: try row.get("feed_url"), mediaURL: try row.get("enclosure_url"), pageURL: try row.get("url"),
                        guid: try row.get("guid"), duration: try row.get("duration"), watched: try row.get("watched"),
                        progress: try row.get("progress_seconds"), changedAt: try row.get("updated_at")) {
                        stamped.append((try row.get("changed"), action))
                    }
                }
                stamped.sort { $0.stamp < $1.stamp }
            }
            var actions = stamped.map(\.action)
            if query.aggregated { actions = EpisodeActionRule.latestPerEpisode(actions) }
            return (actions, timestamp)
        }
    }

    /// Actions a phone uploaded before their episode was in the library are kept unmatched; when
    /// `channels`' items arrive they are matched and applied, oldest first, each user's as
    /// `recordEpisodeActions` would have (last writer wins). Called inside the ingest's transaction.
    static func applyPendingActions(channels: [Int64], _ db: PGConnection) throws(LibraryError) {
        guard !channels.isEmpty else { return }
        // One read for all the channels: mostly none is waiting.
        let pending = try db.query("""
            SELECT a.* FROM channels c CROSS JOIN episode_actions a
            WHERE c.id = ANY($1::bigint[]) AND a.item IS NULL AND a.action IN ('play', 'new') AND a.podcast IN (c.feed_url, c.source_url)
              AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = a.user_id AND s.channel_id = c.id)
            ORDER BY array_position($1::bigint[], c.id), a.timestamp, a.id
            """, [channels]).rows
        var handled = Set<Int64>()  // an action whose podcast names two of the channels is listed twice
        for row in pending {
            guard handled.insert(try row.get("id")).inserted, let action = try action(row) else { continue }
            let user = UserID(try row.get("user_id"))
            guard let item = try matchItem(action, user: user, db) else { continue }
            try db.query("UPDATE episode_actions SET item = $1 WHERE id = $2", [item, try row.get("id") as Int64])
            try apply(action, to: item, user: user, db)
        }
    }

    /// The item an action is about, among the user's, as `EpisodeActionRule` chooses: the
    /// channel its podcast URL names, then the item in it; the store only finds the candidates.
    static func matchItem(_ action: EpisodeAction, user: UserID, _ db: PGConnection) throws(LibraryError) -> Int64? {
        let channels = try db.query("""
            SELECT c.id, c.feed_url, c.source_url FROM channels c JOIN subscriptions s ON s.channel_id = c.id AND s.user_id = $1
            WHERE c.feed_url = $2 OR c.source_url = $2
            """, [user.rawValue, action.podcast]).rows.map { row throws(LibraryError) in
            EpisodeActionRule.ChannelCandidate(id: try row.get("id"), feedURL: try row.get("feed_url"), sourceURL: try row.get("source_url"))
        }
        guard let channel = EpisodeActionRule.channel(podcast: action.podcast, among: channels) else { return nil }
        // Each kind of candidate on its own, at most `candidatesPerKind` of it.
        let items = try db.query("""
            (SELECT id, item_id, guid, enclosure_url FROM items WHERE channel_id = $1 AND item_id = $2 LIMIT $4)
            UNION (SELECT id, item_id, guid, enclosure_url FROM items WHERE channel_id = $1 AND guid = $2 LIMIT $4)
            UNION (SELECT id, item_id, guid, enclosure_url FROM items WHERE channel_id = $1 AND enclosure_url = $3 LIMIT $4)
            """, [channel, action.guid, action.episode, EpisodeActionRule.candidatesPerKind]).rows.map { row throws(LibraryError) in
            EpisodeActionRule.ItemCandidate(id: try row.get("id"), itemID: try row.get("item_id"), guid: try row.get("guid"),
                                            mediaURL: try row.get("enclosure_url"))
        }
        return EpisodeActionRule.item(for: action, among: items)
    }

    /// Applies an action to the user's watch state as `EpisodeActionRule` says: what it does
    /// (`update(for:)`), unless the state changed later than the action happened (`wins`).
    static func apply(_ action: EpisodeAction, to item: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) {
        guard let update = EpisodeActionRule.update(for: action),
              try writeWatchState(update, item: item, user: user, time: action.timestamp, lastWriterWins: true, db) != nil else { return }
        // The action itself is what other devices pull for this change: not feedctl's echo of it.
        try db.query("DELETE FROM sync_episode_changes WHERE user_id = $1 AND item = $2", [user.rawValue, item])
    }

    /// A stored action (nil: a kind this build does not know).
    static func action(_ row: PGRow) throws(LibraryError) -> EpisodeAction? {
        guard let kind = EpisodeActionKind(rawValue: try row.get("action")) else { return nil }
        return EpisodeAction(podcast: try row.get("podcast"), episode: try row.get("episode"), guid: try row.get("guid"), kind: kind,
                             device: try row.get("device"), timestamp: try row.get("timestamp"), started: try row.get("started"),
                             position: try row.get("position"), total: try row.get("total"))
    }
}
