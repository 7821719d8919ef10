import FeedText
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
        videoURL = Self.videoURL(url: item.url, enclosureURL: item.enclosureURL)
        title = item.title; description = record.notes; thumbnailURL = item.thumbnail
        durationSeconds = item.duration; viewCount = record.views
        uploadDate = WireDate.string(Self.uploadDate(published: item.published, discoveredAt: record.discoveredAt))
        audioURL = item.enclosureURL; audioFileSize = record.enclosureLength; audioMimeType = record.enclosureType
        contentType = Self.contentType(hasEnclosure: item.enclosureURL != nil, type: record.enclosureType)
        isWatched = item.watched
        watchedAt = record.watchedAt.map(WireDate.string)
        watchProgressSeconds = item.progress
        discoveredAt = WireDate.string(record.discoveredAt)
        durationFormatted = Self.formatted(item.duration)
        isRecent = Self.isRecent(published: item.published, now: now)
        channelName = item.channel
        channelAvatarURL = record.channelImage
    }

    // What the fields are made of, shared by this type and the page's writer (`write(_:now:to:)`),
    // from the fields themselves (the writer lends the record, never copies it).

    static func videoURL(url: String?, enclosureURL: String?) -> String { url ?? enclosureURL ?? "" }

    /// The publish date, else when the library first saw the item.
    static func uploadDate(published: Int64?, discoveredAt: Int64) -> Int64 { published ?? discoveredAt }

    static func isRecent(published: Int64?, now: Int64) -> Bool {
        published.map { $0 <= now && now - $0 < 86_400 } ?? false
    }

    /// "audio" for an audio enclosure, "video" for a video one (its type starts with `video/`,
    /// in any case), else null (the backend's values; a YouTube or Rumble page is neither until
    /// it is resolved).
    static func contentType(hasEnclosure: Bool, type: String?) -> String? {
        guard hasEnclosure else { return nil }
        let isVideo = type.map { $0.utf8.prefix(6).elementsEqual("video/".utf8) { asciiLowercased($0) == $1 } } ?? false
        return isVideo ? "video" : "audio"
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

/// `GET /api/feed/items/{id}`: the item and `description_html`, its show notes as sanitized HTML
/// (`NotesSanitizer`'s allowlist, run on the stored markup for this answer), which a page may put into its
/// DOM as is; null when the notes hold no markup worth keeping (`description` then says it all).
/// Pages of items leave it out: the notes' markup would make a feed page several times larger.
struct FeedItemWithNotesResponse: Encodable, Sendable {
    var item: FeedItemResponse
    var descriptionHTML: String?

    enum CodingKeys: String, CodingKey { case descriptionHTML = "description_html" }

    func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(descriptionHTML, forKey: .descriptionHTML)
    }
}

/// `GET /api/feed` and `/api/feed/history`: the backend's `FeedResponse`. The items stay the
/// library's records until they are written: the page is written straight from them (no
/// `FeedItemResponse` and its date strings per item; bench/serve), its `Encodable` form makes
/// `FeedItemResponse`s (`FastJSONTests` checks both say the same).
struct FeedResponse: Encodable, Sendable {
    var records: [ItemRecord]
    /// Decides each item's `is_recent`.
    var now: Int64
    var total: Int
    var page: PageRequest
    var hasMore: Bool

    enum CodingKeys: String, CodingKey { case items, total, page, perPage = "per_page", hasMore = "has_more" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(records.map { FeedItemResponse($0, now: now) }, forKey: .items)
        try container.encode(total, forKey: .total)
        try container.encode(page.page, forKey: .page)
        try container.encode(page.perPage, forKey: .perPage)
        try container.encode(hasMore, forKey: .hasMore)
    }
}

extension FeedItemResponse {
    /// `FeedItemResponse(record, now: now)`'s JSON, key for key, written without making one.
    static func write(_ record: borrowing ItemRecord, now: Int64, to out: inout JSONOutput) {
        out.object { out in
            out.key("id"); out.int(record.item.id)
            out.key("channel_id"); out.int(record.item.channelID)
            out.key("platform"); out.string(record.item.platform.rawValue)
            out.key("video_id"); out.string(record.item.itemID)
            out.key("video_url"); out.string(videoURL(url: record.item.url, enclosureURL: record.item.enclosureURL))
            out.key("title"); out.string(record.item.title)
            out.key("description"); out.string(record.notes)
            out.key("thumbnail_url"); out.string(record.item.thumbnail)
            out.key("duration_seconds"); out.int(record.item.duration)
            out.key("view_count"); out.int(record.views)
            out.key("like_count"); out.null()
            out.key("tags"); out.null()
            out.key("upload_date"); out.date(uploadDate(published: record.item.published, discoveredAt: record.discoveredAt))
            out.key("categories"); out.null()
            out.key("audio_url"); out.string(record.item.enclosureURL)
            out.key("audio_file_size"); out.int(record.enclosureLength)
            out.key("audio_mime_type"); out.string(record.enclosureType)
            out.key("video_stream_url"); out.null()
            out.key("content_type"); out.string(contentType(hasEnclosure: record.item.enclosureURL != nil, type: record.enclosureType))
            out.key("is_watched"); out.bool(record.item.watched)
            out.key("watched_at"); out.date(record.watchedAt)
            out.key("watch_progress_seconds"); out.int(record.item.progress)
            out.key("discovered_at"); out.date(record.discoveredAt)
            out.key("duration_formatted"); writeFormatted(record.item.duration, to: &out)
            out.key("is_recent"); out.bool(isRecent(published: record.item.published, now: now))
            out.key("channel_name"); out.string(record.item.channel)
            out.key("channel_avatar_url"); out.string(record.channelImage)
        }
    }

    /// `formatted(duration)`'s digits written in place (a string made per item cost more than
    /// the rest of its numbers).
    static func writeFormatted(_ duration: Int?, to out: inout JSONOutput) {
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &buffer) { text in
            guard let duration, duration > 0 else { return out.plainString(UnsafeRawBufferPointer(rebasing: text[..<0])) }
            let (hours, rest) = duration.quotientAndRemainder(dividingBy: 3600)
            let (minutes, seconds) = rest.quotientAndRemainder(dividingBy: 60)
            // From the right: SS, :, MM (two digits after hours, else as many as it has), H…
            var index = text.count
            func put(_ value: Int, atLeast digits: Int) {
                var value = value, written = 0
                repeat {
                    index -= 1; text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10; written += 1
                } while value > 0 || written < digits
            }
            put(seconds, atLeast: 2)
            index -= 1; text[index] = UInt8(ascii: ":")
            if hours > 0 {
                put(minutes, atLeast: 2)
                index -= 1; text[index] = UInt8(ascii: ":")
                put(hours, atLeast: 1)
            } else {
                put(minutes, atLeast: 1)
            }
            out.plainString(UnsafeRawBufferPointer(rebasing: text[index...]))
        }
    }
}

extension FeedResponse: FastJSON {
    func write(to out: inout JSONOutput) {
        out.object { out in
            out.key("items"); out.array(records) { out, record in FeedItemResponse.write(record, now: now, to: &out) }
            out.key("total"); out.int(total)
            out.key("page"); out.int(page.page)
            out.key("per_page"); out.int(page.perPage)
            out.key("has_more"); out.bool(hasMore)
        }
    }

    /// A page of 50 items is ~45 KB.
    var expectedSize: Int { 1024 + records.count * 1024 }
}

/// `GET /api/feed/items/{id}`: the item as a list has it, and what only its page shows: its
/// podcast chapters, its transcript link and whether the server has downloaded it.
struct FeedItemDetailResponse: Encodable, Sendable {
    var item: FeedItemWithNotesResponse
    /// nil: the feed names no chapters file (or it could not be read).
    @Nullable var chapters: [ChapterResponse]?
    @Nullable var transcriptURL: String?
    var download: DownloadState

    struct ChapterResponse: Encodable, Sendable {
        var startSeconds: Double
        var title: String
        @Nullable var url: String?
        enum CodingKeys: String, CodingKey { case startSeconds = "start_seconds", title, url }
    }

    /// `downloaded` (the file's `bytes`), `partial` (`bytes` so far: `feedctl download` resumes
    /// it) or `none` (no `bytes`).
    struct DownloadState: Encodable, Sendable {
        var state: String
        @Nullable var bytes: Int64?
    }

    enum CodingKeys: String, CodingKey { case chapters, transcriptURL = "transcript_url", download }

    func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(_chapters, forKey: .chapters)
        try container.encode(_transcriptURL, forKey: .transcriptURL)
        try container.encode(download, forKey: .download)
    }
}
