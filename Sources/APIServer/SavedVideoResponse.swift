import FeedModel
import Foundation
import LibraryStore

/// A saved video as the backend's `SavedVideoResponse` (app/schemas/saved_video.py) has it;
/// every key is written, null included. `channel_id` is the backend's string: for a library
/// item, its library channel's id as text.
struct SavedVideoResponse: Encodable, Sendable {
    var id: Int64
    var platform: String
    var videoID: String
    var videoURL: String
    var title: String
    @Nullable var description: String?
    @Nullable var thumbnailURL: String?
    @Nullable var durationSeconds: Int?
    @Nullable var viewCount: Int?
    @Nullable var uploadDate: String?
    @Nullable var channelName: String?
    @Nullable var channelID: String?
    @Nullable var channelURL: String?
    var isWatched: Bool
    @Nullable var watchedAt: String?
    @Nullable var watchProgressSeconds: Int?
    @Nullable var notes: String?
    var savedAt: String
    var updatedAt: String
    var durationFormatted: String
    /// feedctl's own: the library item it is (null for a page saved by URL), for `/api/feed/items/{id}` and the player.
    @Nullable var itemID: Int64?

    init(_ video: SavedVideo) {
        let page = video.page
        id = video.id; platform = page.platform; videoID = page.videoID; videoURL = page.videoURL; title = page.title
        description = page.description; thumbnailURL = page.thumbnailURL; durationSeconds = page.durationSeconds
        viewCount = page.viewCount; uploadDate = page.uploadDate.map(WireDate.string); channelName = page.channelName
        channelID = page.channelRef; channelURL = page.channelURL
        isWatched = video.watched; watchedAt = video.watchedAt.map(WireDate.string)
        watchProgressSeconds = video.progressSeconds; notes = video.notes
        savedAt = WireDate.string(video.savedAt); updatedAt = WireDate.string(video.updatedAt)
        durationFormatted = FeedItemResponse.formatted(page.durationSeconds)
        itemID = video.itemID
    }

    enum CodingKeys: String, CodingKey {
        case id, platform, videoID = "video_id", videoURL = "video_url", title, description, thumbnailURL = "thumbnail_url"
        case durationSeconds = "duration_seconds", viewCount = "view_count", uploadDate = "upload_date"
        case channelName = "channel_name", channelID = "channel_id", channelURL = "channel_url", isWatched = "is_watched"
        case watchedAt = "watched_at", watchProgressSeconds = "watch_progress_seconds", notes, savedAt = "saved_at"
        case updatedAt = "updated_at", durationFormatted = "duration_formatted", itemID = "item_id"
    }
}

/// `GET /api/saved-videos`: the backend's `SavedVideoListResponse`.
struct SavedVideoListResponse: Encodable, Sendable {
    var items: [SavedVideoResponse]
    var total: Int
}

/// `GET /api/saved-videos/stats`: the backend's `SavedVideoStats`.
struct SavedVideoStatsResponse: Encodable, Sendable {
    var totalVideos: Int
    var watchedVideos: Int
    var unwatchedVideos: Int
    var byPlatform: [String: Int]
    enum CodingKeys: String, CodingKey {
        case totalVideos = "total_videos", watchedVideos = "watched_videos", unwatchedVideos = "unwatched_videos", byPlatform = "by_platform"
    }
}

/// `GET /api/saved-videos/check`.
struct SavedVideoCheckResponse: Encodable, Sendable {
    var isSaved: Bool
    var platform: String
    var videoID: String
    enum CodingKeys: String, CodingKey { case isSaved = "is_saved", platform, videoID = "video_id" }
}

/// `POST /api/saved-videos`, in every form: the iOS guide's bare `{video_url}`, the backend's
/// full `SavedVideoCreate` (`platform`, `video_id`, `video_url`, `title`, …), and `/from-url`'s
/// `{url, notes}`.
struct SaveVideoBody: Decodable {
    var videoURL: String?
    var url: String?
    var platform: String?
    var videoID: String?
    var title: String?
    var description: String?
    var thumbnailURL: String?
    var durationSeconds: Int?
    var viewCount: Int?
    var uploadDate: String?
    var channelName: String?
    var channelID: String?
    var channelURL: String?
    var notes: String?

    enum CodingKeys: String, CodingKey {
        case videoURL = "video_url", url, platform, videoID = "video_id", title, description, thumbnailURL = "thumbnail_url"
        case durationSeconds = "duration_seconds", viewCount = "view_count", uploadDate = "upload_date"
        case channelName = "channel_name", channelID = "channel_id", channelURL = "channel_url", notes
    }
}

/// `PUT /api/saved-videos/{id}`: the backend's `SavedVideoUpdate`.
struct UpdateSavedVideoBody: Decodable {
    var notes: String?
    var isWatched: Bool?
    var watchProgressSeconds: Int?
    enum CodingKeys: String, CodingKey { case notes, isWatched = "is_watched", watchProgressSeconds = "watch_progress_seconds" }
}
