import FeedModel
import FeedText
import Hummingbird
import LibraryStore

/// `POST /api/discover/search` in the backend's shape (`VideoSearchResponse`). Until the
/// discovery issue adds platforms' own search, it searches the library (`SearchRule`), one
/// "platform" per platform asked for.
struct DiscoverRoutes {
    func add(to group: RouterGroup<APIRequestContext>) {
        group.post("discover/search") { request, context in
            let body = try await RequestBody.decode(SearchBody.self, request, context: context)
            return try await search(body, context)
        }
    }

    func search(_ body: SearchBody, _ context: APIRequestContext) async throws -> VideoSearchResponse {
        let library = try context.library()
        let query = body.query.trimmingWhitespace()
        guard !query.isEmpty, query.utf8.count <= 500 else { throw APIError.unprocessable("query must be 1 to 500 characters") }
        if let type = body.type, type != "videos" {
            throw APIError.unprocessable("type \"\(type)\": the library holds videos and episodes only (type videos)")
        }
        let limit = body.maxPerPlatform ?? 10
        guard (1...50).contains(limit) else { throw APIError.unprocessable("max_per_platform must be from 1 to 50 (got \(limit))") }
        var platforms: [Platform] = []
        for name in body.platforms ?? Platform.allCases.map(\.rawValue) {
            guard let platform = Platform(rawValue: name.lowercased()) else {
                throw APIError.unprocessable("platforms: \"\(name)\" is not one of \(Platform.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if !platforms.contains(platform) { platforms.append(platform) }
        }
        var results: [VideoResult] = [], byPlatform: [String: [VideoResult]] = [:], timings: [SearchTiming] = []
        for platform in platforms {
            let found = try await FeedRoutes.library { () async throws(LibraryError) in
                try await library.search(SearchQuery(text: query, filter: FeedFilter(platform: platform), limit: limit))
            }
            let records = try await FeedRoutes.library { () async throws(LibraryError) in try await library.itemRecords(ids: found.map(\.id)) }
            let videos = records.map(VideoResult.init)
            results += videos
            byPlatform[platform.rawValue] = videos
            // No time is reported: a duration read here would be the shared machine's, not the search's.
            timings.append(SearchTiming(platform: platform.rawValue, durationMs: 0, success: true, error: nil))
        }
        return VideoSearchResponse(query: query, searchType: "videos", totalResults: results.count, results: results,
                                   byPlatform: byPlatform, timings: timings, totalDurationMs: 0,
                                   platformsSearched: platforms.map(\.rawValue))
    }
}

/// The backend's `SearchRequest`.
struct SearchBody: Decodable {
    var query: String
    var platforms: [String]?
    var type: String?
    var maxPerPlatform: Int?
    enum CodingKeys: String, CodingKey { case query, platforms, type, maxPerPlatform = "max_per_platform" }
}

/// The backend's `VideoSearchResponse`.
struct VideoSearchResponse: ResponseEncodable, Sendable {
    var query: String
    var searchType: String
    var totalResults: Int
    var results: [VideoResult]
    var byPlatform: [String: [VideoResult]]
    var timings: [SearchTiming]
    var totalDurationMs: Int
    var platformsSearched: [String]
    enum CodingKeys: String, CodingKey {
        case query, searchType = "search_type", totalResults = "total_results", results, byPlatform = "by_platform", timings
        case totalDurationMs = "total_duration_ms", platformsSearched = "platforms_searched"
    }
}

struct SearchTiming: Encodable, Sendable {
    var platform: String
    var durationMs: Int
    var success: Bool
    @Nullable var error: String?
    enum CodingKeys: String, CodingKey { case platform, durationMs = "duration_ms", success, error }
}

/// The backend's `VideoResultSchema`, from a library item.
struct VideoResult: Encodable, Sendable {
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
    @Nullable var channelURL: String? = nil
    @Nullable var channelAvatarURL: String?
    @Nullable var likeCount: Int? = nil
    var tags: [String] = []
    /// feedctl's own: the library id (what `/api/feed/items/{id}` and the player take).
    var itemID: Int64

    init(_ record: ItemRecord) {
        let item = record.item
        platform = item.platform.rawValue; videoID = item.itemID; videoURL = item.url ?? item.enclosureURL ?? ""
        title = item.title; description = record.notes; thumbnailURL = item.thumbnail; durationSeconds = item.duration
        viewCount = record.views; uploadDate = item.published.map(WireDate.string); channelName = item.channel
        channelID = String(item.channelID); channelAvatarURL = record.channelImage; itemID = item.id
    }

    enum CodingKeys: String, CodingKey {
        case platform, videoID = "video_id", videoURL = "video_url", title, description, thumbnailURL = "thumbnail_url"
        case durationSeconds = "duration_seconds", viewCount = "view_count", uploadDate = "upload_date", channelName = "channel_name"
        case channelID = "channel_id", channelURL = "channel_url", channelAvatarURL = "channel_avatar_url", likeCount = "like_count", tags
        case itemID = "item_id"
    }
}
