import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    /// A saved video as one row, whichever kind it is: a library item's columns come from the
    /// item, its channel and the user's watch state (so they follow the feed), a page's from its
    /// own row. `?1` is the user.
    static let savedVideoSelection = """
        SELECT s.id AS id, s.item AS item, i.channel_id AS library_channel,
            CASE WHEN s.item IS NULL THEN s.platform ELSE c.platform END AS platform,
            CASE WHEN s.item IS NULL THEN s.video_id ELSE i.item_id END AS video_id,
            CASE WHEN s.item IS NULL THEN s.video_url ELSE coalesce(i.url, i.enclosure_url, '') END AS video_url,
            CASE WHEN s.item IS NULL THEN s.title ELSE i.title END AS title,
            CASE WHEN s.item IS NULL THEN s.description ELSE i.description END AS description,
            CASE WHEN s.item IS NULL THEN s.thumbnail_url ELSE i.thumbnail END AS thumbnail_url,
            CASE WHEN s.item IS NULL THEN s.duration_seconds ELSE i.duration END AS duration_seconds,
            CASE WHEN s.item IS NULL THEN s.view_count ELSE i.views END AS view_count,
            CASE WHEN s.item IS NULL THEN s.upload_date ELSE coalesce(i.published, i.discovered_at) END AS upload_date,
            CASE WHEN s.item IS NULL THEN s.channel_name ELSE c.name END AS channel_name,
            CASE WHEN s.item IS NULL THEN s.channel_ref ELSE CAST(c.id AS TEXT) END AS channel_ref,
            CASE WHEN s.item IS NULL THEN s.channel_url ELSE c.source_url END AS channel_url,
            CASE WHEN s.item IS NULL THEN s.watched ELSE coalesce(w.watched, 0) END AS watched,
            CASE WHEN s.item IS NULL THEN s.watched_at ELSE w.watched_at END AS watched_at,
            CASE WHEN s.item IS NULL THEN s.progress_seconds ELSE coalesce(w.progress_seconds, 0) END AS progress_seconds,
            s.notes AS notes, s.saved_at AS saved_at, s.updated_at AS updated_at
        FROM saved_items s
        LEFT JOIN items i ON i.id = s.item LEFT JOIN channels c ON c.id = i.channel_id
        LEFT JOIN watch_state w ON w.user_id = s.user_id AND w.item = s.item
        WHERE s.user_id = ?1
        """

    public func savedVideos(_ query: SavedVideoQuery) async throws(LibraryError) -> (videos: [SavedVideo], total: Int) {
        let user = user
        return try await read { db in
            let filter = "(?2 IS NULL OR platform = ?2) AND (?3 IS NULL OR watched = ?3)"
            let arguments: StatementArguments = [user.rawValue, query.platform?.lowercased(), query.watched]
            let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(Self.savedVideoSelection)) WHERE \(filter)",
                                         arguments: arguments) ?? 0
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM (\(Self.savedVideoSelection)) WHERE \(filter) ORDER BY saved_at DESC, id DESC LIMIT ?4 OFFSET ?5
                """, arguments: arguments + [query.limit, query.offset])
            return (rows.map(Self.savedVideo(row:)), total)
        }
    }

    public func savedVideo(id: Int64) async throws(LibraryError) -> SavedVideo {
        let user = user
        return try await read { db in try Self.requireSavedVideo(id, user: user, db) }
    }

    public func itemID(forURL url: String) async throws(LibraryError) -> Int64? {
        let user = user
        // No index on the URLs (it would slow every ingest for this one lookup): a scan of the
        // user's items, page URL first, then media.
        return try await read { db in
            try Int64.fetchOne(db, sql: """
                SELECT i.id FROM items i JOIN subscriptions s ON s.user_id = ?1 AND s.channel_id = i.channel_id
                WHERE i.url = ?2 OR i.enclosure_url = ?2 ORDER BY i.url = ?2 DESC, i.id LIMIT 1
                """, arguments: [user.rawValue, url])
        }
    }

    public func itemID(platform: Platform, videoID: String) async throws(LibraryError) -> Int64? {
        let user = user
        // From the user's subscriptions outward: one probe of UNIQUE (channel_id, item_id) each.
        return try await read { db in
            try Int64.fetchOne(db, sql: """
                SELECT i.id FROM subscriptions s CROSS JOIN channels c ON c.id = s.channel_id
                CROSS JOIN items i ON i.channel_id = s.channel_id AND i.item_id = ?2
                WHERE s.user_id = ?1 AND c.platform = ?3 ORDER BY i.id LIMIT 1
                """, arguments: [user.rawValue, videoID, platform.rawValue])
        }
    }

    public func saveVideo(item: Int64, notes: String?, now: Int64) async throws(LibraryError) -> (video: SavedVideo, created: Bool) {
        let user = user
        return try await write { db in
            try Self.requireItems([item], user: user, db)
            try db.execute(sql: """
                INSERT INTO saved_items (user_id, item, notes, saved_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, arguments: [user.rawValue, item, notes, now, now])
            let created = db.changesCount > 0
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM saved_items WHERE user_id = ? AND item = ?",
                                              arguments: [user.rawValue, item]) else { throw LibraryError.noItem(item) }
            return (try Self.requireSavedVideo(id, user: user, db), created)
        }
    }

    public func saveVideo(page: SavedPage, notes: String?, now: Int64) async throws(LibraryError) -> (video: SavedVideo, created: Bool) {
        let page = try page.validated()
        let platform = page.platform
        let user = user
        return try await write { db in
            try db.execute(sql: """
                INSERT INTO saved_items (user_id, platform, video_id, video_url, title, description, thumbnail_url,
                    duration_seconds, view_count, upload_date, channel_name, channel_ref, channel_url, notes, saved_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, arguments: [user.rawValue, platform, page.videoID, page.videoURL, page.title, page.description,
                                 page.thumbnailURL, page.durationSeconds, page.viewCount, page.uploadDate, page.channelName,
                                 page.channelRef, page.channelURL, notes, now, now])
            let created = db.changesCount > 0
            guard let id = try Int64.fetchOne(db, sql: """
                SELECT id FROM saved_items WHERE user_id = ? AND item IS NULL AND platform = ? AND video_id = ?
                """, arguments: [user.rawValue, platform, page.videoID]) else {
                throw LibraryError.invalid("the page could not be saved")
            }
            return (try Self.requireSavedVideo(id, user: user, db), created)
        }
    }

    public func updateSavedVideo(id: Int64, _ change: SavedVideoChange, now: Int64) async throws(LibraryError) -> SavedVideo {
        let update = try change.watchUpdate()
        let user = user
        return try await write { db in
            let video = try Self.requireSavedVideo(id, user: user, db)
            if let notes = change.notes {
                try db.execute(sql: "UPDATE saved_items SET notes = ? WHERE id = ?", arguments: [notes, id])
            }
            // A library item's watch state is the item's own; a page's is kept on its row.
            if let update {
                if let item = video.itemID {
                    try Self.writeWatchState(update, item: item, user: user, time: now, db)
                } else {
                    let (watched, progress) = update.outcome(duration: video.page.durationSeconds)
                    try db.execute(sql: """
                        UPDATE saved_items SET watched = coalesce(?1, watched), progress_seconds = ?2,
                            watched_at = CASE WHEN ?1 IS NULL THEN watched_at WHEN ?1 THEN ?3 END
                        WHERE id = ?4
                        """, arguments: [watched, progress, now, id])
                }
            }
            try db.execute(sql: "UPDATE saved_items SET updated_at = ? WHERE id = ?", arguments: [now, id])
            return try Self.requireSavedVideo(id, user: user, db)
        }
    }

    public func deleteSavedVideo(id: Int64) async throws(LibraryError) {
        let user = user
        try await write { db in
            try db.execute(sql: "DELETE FROM saved_items WHERE user_id = ? AND id = ?", arguments: [user.rawValue, id])
            if db.changesCount == 0 { throw LibraryError.noSavedVideo(id) }
        }
    }

    /// `user`'s saved video `id`; another user's is `noSavedVideo`, as one that never was.
    static func requireSavedVideo(_ id: Int64, user: UserID, _ db: Database) throws -> SavedVideo {
        guard let row = try Row.fetchOne(db, sql: "\(savedVideoSelection) AND s.id = ?2", arguments: [user.rawValue, id]) else {
            throw LibraryError.noSavedVideo(id)
        }
        return savedVideo(row: row)
    }

    static func savedVideo(row: Row) -> SavedVideo {
        let page = SavedPage(platform: row["platform"] ?? "", videoID: row["video_id"] ?? "", videoURL: row["video_url"] ?? "",
                             title: row["title"] ?? "", description: row["description"], thumbnailURL: row["thumbnail_url"],
                             durationSeconds: row["duration_seconds"], viewCount: row["view_count"], uploadDate: row["upload_date"],
                             channelName: row["channel_name"], channelRef: row["channel_ref"], channelURL: row["channel_url"])
        return SavedVideo(id: row["id"], itemID: row["item"], libraryChannelID: row["library_channel"], page: page,
                          watched: row["watched"] ?? false, watchedAt: row["watched_at"], progressSeconds: row["progress_seconds"] ?? 0,
                          notes: row["notes"], savedAt: row["saved_at"], updatedAt: row["updated_at"])
    }
}
