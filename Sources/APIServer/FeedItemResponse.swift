import FeedModel
import LibraryStore

/// An item as the backend's `FeedItemWithChannel` (app/schemas/feed.py) has it; every key is
/// written, null included, so a client decoding the backend's shape decodes this one.
struct FeedItemResponse: Encodable, Sendable {
    var id: Int64
    var channelID: Int64
    var platform: String
    var videoID: String
    /// The item's page; its media, when the feed has an enclosure, is `audio_url`.
    var videoURL: String
    var title: String
    @Nullable var description: String?
    @Nullable var thumbnailURL: String?
    @Nullable var durationSeconds: Int?
    @Nullable var viewCount: Int?
    @Nullable var likeCount: Int? = nil
    @Nullable var tags: [String]? = nil
    /// The publish date, else when the library first saw the item (the backend's is required).
    var uploadDate: String
    @Nullable var categories: [String]? = nil
    @Nullable var audioURL: String?
    @Nullable var audioFileSize: Int64?
    @Nullable var audioMimeType: String?
    @Nullable var videoStreamURL: String? = nil
    @Nullable var contentType: String?
    var isWatched: Bool
    @Nullable var watchedAt: String?
    @Nullable var watchProgressSeconds: Int?
    var discoveredAt: String
    var durationFormatted: String
    var isRecent: Bool
    var channelName: String
    @Nullable var channelAvatarURL: String?

    /// `now` decides `is_recent` (published in the last 24 hours, as the backend says).
    init(_ record: ItemRecord, now: Int64) {
        let item = record.item
        id = item.id; channelID = item.channelID; platform = item.platform.rawValue; videoID = item.itemID
        videoURL = item.url ?? item.enclosureURL ?? ""
        title = item.title; description = record.notes; thumbnailURL = item.thumbnail
        durationSeconds = item.duration; viewCount = record.views
        uploadDate = WireDate.string(item.published ?? record.discoveredAt)
        audioURL = item.enclosureURL; audioFileSize = record.enclosureLength; audioMimeType = record.enclosureType
        contentType = Self.contentType(record)
        isWatched = item.watched
        watchedAt = record.watchedAt.map(WireDate.string)
        watchProgressSeconds = item.progress
        discoveredAt = WireDate.string(record.discoveredAt)
        durationFormatted = Self.formatted(item.duration)
        isRecent = item.published.map { $0 <= now && now - $0 < 86_400 } ?? false
        channelName = item.channel
        channelAvatarURL = record.channelImage
    }

    /// "audio" for an audio enclosure, "video" for a video one, else null (the backend's
    /// values; a YouTube or Rumble page is neither until it is resolved).
    private static func contentType(_ record: ItemRecord) -> String? {
        guard record.item.enclosureURL != nil else { return nil }
        let type = record.enclosureType?.lowercased() ?? ""
        if type.hasPrefix("video/") { return "video" }
        return "audio"
    }

    /// `H:MM:SS` or `M:SS`, empty without a duration (the backend's `duration_formatted`).
    static func formatted(_ duration: Int?) -> String {
        guard let duration, duration > 0 else { return "" }
        let (hours, rest) = duration.quotientAndRemainder(dividingBy: 3600)
        let (minutes, seconds) = rest.quotientAndRemainder(dividingBy: 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(seconds))" : "\(minutes):\(two(seconds))"
    }

    enum CodingKeys: String, CodingKey {
        case id, channelID = "channel_id", platform, videoID = "video_id", videoURL = "video_url", title, description
        case thumbnailURL = "thumbnail_url", durationSeconds = "duration_seconds", viewCount = "view_count"
        case likeCount = "like_count", tags, uploadDate = "upload_date", categories, audioURL = "audio_url"
        case audioFileSize = "audio_file_size", audioMimeType = "audio_mime_type", videoStreamURL = "video_stream_url"
        case contentType = "content_type", isWatched = "is_watched", watchedAt = "watched_at"
        case watchProgressSeconds = "watch_progress_seconds", discoveredAt = "discovered_at"
        case durationFormatted = "duration_formatted", isRecent = "is_recent", channelName = "channel_name"
        case channelAvatarURL = "channel_avatar_url"
    }
}

/// `GET /api/feed` and `/api/feed/history`: the backend's `FeedResponse`.
struct FeedResponse: Encodable, Sendable {
    var items: [FeedItemResponse]
    var total: Int
    var page: Int
    var perPage: Int
    var hasMore: Bool

    enum CodingKeys: String, CodingKey { case items, total, page, perPage = "per_page", hasMore = "has_more" }
}
