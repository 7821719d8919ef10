import FeedModel
import LibraryStore

// Saved videos (the API's `/saved-videos`), as the SQLite library's (SQLiteLibrary+SavedVideos.swift):
// a library item, or a page saved by its URL, each with its own id and notes.
extension PostgresLibrary {
    /// A saved video as one row, whichever kind it is: a library item's columns come from the
    /// item, its channel and the user's watch state (so they follow the feed), a page's from its
    /// own row. `$1` is the user.
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
        WHERE s.user_id = $1
        """

    public func savedVideos(_ query: SavedVideoQuery) async throws(LibraryError) -> (videos: [SavedVideo], total: Int) {
        let user = user
        // A negative limit is none, and a negative offset is 0, as SQLite reads them (the API's
        // stats and check list every saved video with a limit of -1).
        let limit: Int? = query.limit < 0 ? nil : query.limit
        let offset = max(query.offset, 0)
        return try await snapshot { db throws(LibraryError) in
            let filter = "($2::text IS NULL OR platform = $2) AND ($3::bigint IS NULL OR watched = $3)"
            let parameters: [any PGBindable] = [user.rawValue, query.platform?.lowercased(), query.watched]
            let total: Int = try db.query("SELECT count(*) AS total FROM (\(Self.savedVideoSelection)) v WHERE \(filter)",
                                          parameters).first?.get("total") ?? 0
            let rows = try db.query("""
                SELECT * FROM (\(Self.savedVideoSelection)) v WHERE \(filter) ORDER BY saved_at DESC, id DESC LIMIT $4 OFFSET $5
                """, parameters + [limit, offset]).rows
            return (try rows.map { row throws(LibraryError) in try Self.savedVideo(row) }, total)
        }
    }

    public func savedVideo(id: Int64) async throws(LibraryError) -> SavedVideo {
        let user = user
        return try await read { db throws(LibraryError) in try Self.requireSavedVideo(id, user: user, db) }
    }

    public func itemID(forURL url: String) async throws(LibraryError) -> Int64? {
        let user = user
        // A scan of the user's items, page URL first, then media (as SQLite: no index on the
        // URLs, which every ingest would pay for this one lookup). SQLite sorts the NULL of an
        // item without a page URL last here.
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT i.id FROM items i JOIN subscriptions s ON s.user_id = $1 AND s.channel_id = i.channel_id
                WHERE i.url = $2 OR i.enclosure_url = $2 ORDER BY i.url = $2 DESC NULLS LAST, i.id LIMIT 1
                """, [user.rawValue, url]).first?.get("id")
        }
    }

    public func itemID(platform: Platform, videoID: String) async throws(LibraryError) -> Int64? {
        let user = user
        // From the user's subscriptions outward: one probe of UNIQUE (channel_id, item_id) each.
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT i.id FROM subscriptions s JOIN channels c ON c.id = s.channel_id
                JOIN items i ON i.channel_id = s.channel_id AND i.item_id = $2
                WHERE s.user_id = $1 AND c.platform = $3 ORDER BY i.id LIMIT 1
                """, [user.rawValue, videoID, platform.rawValue]).first?.get("id")
        }
    }

    public func saveVideo(item: Int64, notes: String?, now: Int64) async throws(LibraryError) -> (video: SavedVideo, created: Bool) {
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.requireItems([item], user: user, db)
            let created = try db.query("""
                INSERT INTO saved_items (user_id, item, notes, saved_at, updated_at) VALUES ($1, $2, $3, $4, $4) ON CONFLICT DO NOTHING
                """, [user.rawValue, item, notes, now]).affected > 0
            guard let id = try db.query("SELECT id FROM saved_items WHERE user_id = $1 AND item = $2", [user.rawValue, item])
                .first?.get("id") as Int64? else { throw LibraryError.noItem(item) }
            return (try Self.requireSavedVideo(id, user: user, db), created)
        }
    }

    public func saveVideo(page: SavedPage, notes: String?, now: Int64) async throws(LibraryError) -> (video: SavedVideo, created: Bool) {
        let page = try page.validated()
        let user = user
        return try await write { db throws(LibraryError) in
            let created = try db.query("""
                INSERT INTO saved_items (user_id, platform, video_id, video_url, title, description, thumbnail_url,
                    duration_seconds, view_count, upload_date, channel_name, channel_ref, channel_url, notes, saved_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15) ON CONFLICT DO NOTHING
                """, [user.rawValue, page.platform, page.videoID, page.videoURL, page.title, page.description,
                      page.thumbnailURL, page.durationSeconds, page.viewCount, page.uploadDate, page.channelName,
                      page.channelRef, page.channelURL, notes, now]).affected > 0
            guard let id = try db.query("""
                SELECT id FROM saved_items WHERE user_id = $1 AND item IS NULL AND platform = $2 AND video_id = $3
                """, [user.rawValue, page.platform, page.videoID]).first?.get("id") as Int64? else {
                throw LibraryError.invalid("the page could not be saved")
            }
            return (try Self.requireSavedVideo(id, user: user, db), created)
        }
    }

    public func updateSavedVideo(id: Int64, _ change: SavedVideoChange, now: Int64) async throws(LibraryError) -> SavedVideo {
        let update = try change.watchUpdate()
        let user = user
        return try await write { db throws(LibraryError) in
            if update != nil { try UserLock.watchState.take(for: user, db) }
            let video = try Self.requireSavedVideo(id, user: user, db)
            if let notes = change.notes {
                try db.query("UPDATE saved_items SET notes = $1 WHERE id = $2", [notes, id])
            }
            // A library item's watch state is the item's own; a page's is kept on its row.
            if let update {
                if let item = video.itemID {
                    try Self.writeWatchState(update, item: item, user: user, time: now, db)
                } else {
                    let (watched, progress) = update.outcome(duration: video.page.durationSeconds)
                    try db.query("""
                        UPDATE saved_items SET watched = coalesce($1::bigint, watched), progress_seconds = $2,
                            watched_at = CASE WHEN $1::bigint IS NULL THEN watched_at WHEN $1::bigint = 1 THEN $3::bigint END
                        WHERE id = $4
                        """, [watched, progress, now, id])
                }
            }
            // Written on its own, as SQLite's: the change log's `updated` row follows the watch row.
            try db.query("UPDATE saved_items SET updated_at = $1 WHERE id = $2", [now, id])
            return try Self.requireSavedVideo(id, user: user, db)
        }
    }

    public func deleteSavedVideo(id: Int64) async throws(LibraryError) {
        let user = user
        try await write { db throws(LibraryError) in
            if try db.query("DELETE FROM saved_items WHERE user_id = $1 AND id = $2", [user.rawValue, id]).affected == 0 {
                throw LibraryError.noSavedVideo(id)
            }
        }
    }

    /// `user`'s saved video `id`; another user's is `noSavedVideo`, as one that never was.
    static func requireSavedVideo(_ id: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) -> SavedVideo {
        guard let row = try db.query("\(savedVideoSelection) AND s.id = $2", [user.rawValue, id]).first else {
            throw LibraryError.noSavedVideo(id)
        }
        return try savedVideo(row)
    }

    static func savedVideo(_ row: PGRow) throws(LibraryError) -> SavedVideo {
        let page = SavedPage(platform: try row.get("platform") as String? ?? "", videoID: try row.get("video_id") as String? ?? "",
                             videoURL: try row.get("video_url") as String? ?? "", title: try row.get("title") as String? ?? "",
                             description: try row.get("description"), thumbnailURL: try row.get("thumbnail_url"),
                             durationSeconds: try row.get("duration_seconds"), viewCount: try row.get("view_count"),
                             uploadDate: try row.get("upload_date"), channelName: try row.get("channel_name"),
                             channelRef: try row.get("channel_ref"), channelURL: try row.get("channel_url"))
        return SavedVideo(id: try row.get("id"), itemID: try row.get("item"), libraryChannelID: try row.get("library_channel"), page: page,
                          watched: try row.get("watched") as Bool? ?? false, watchedAt: try row.get("watched_at"),
                          progressSeconds: try row.get("progress_seconds") as Int? ?? 0, notes: try row.get("notes"),
                          savedAt: try row.get("saved_at"), updatedAt: try row.get("updated_at"))
    }
}
