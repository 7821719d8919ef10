import Discovery
import FeedModel
import FeedText
import Foundation
import HTTPFetch
import Hummingbird
import LibraryStore

/// Discovery in the backend's shapes (`app/api/discover.py`): `POST /api/discover/search`
/// asks every provider at once (`FederatedSearch`: iTunes, Podcast Index with its key, YouTube
/// through yt-dlp, Rumble's search pages, the library) and answers the backend's
/// `VideoSearchResponse` or `ChannelSearchResponse`; `GET /api/discover/platforms` lists the
/// providers; `POST /api/discover/quick-save {url}` saves the video a URL names (a library
/// item's page or media, a YouTube or Rumble video page) or follows the channel it names.
struct DiscoverRoutes {
    let clock: @Sendable () -> Int64
    /// The server's fetcher (public addresses only): quick-save subscribes through it. The
    /// providers fetch from the services' configured addresses, through the shared one.
    let fetcher: Fetcher
    let policy: FeedURLPolicy
    let youTubeOrigin: String
    /// Read once when the server starts (`FEEDCTL_DISCOVER_*`, see `DiscoverySettings`); a wrong
    /// value answers every search with its one line rather than stopping the server.
    let settings: Result<DiscoverySettings, DiscoveryError>

    init(clock: @escaping @Sendable () -> Int64, fetcher: Fetcher, policy: FeedURLPolicy, youTubeOrigin: String,
         settings: Result<DiscoverySettings, DiscoveryError> = Result { () throws(DiscoveryError) in
             try DiscoverySettings(environment: ProcessInfo.processInfo.environment)
         }) {
        self.clock = clock; self.fetcher = fetcher; self.policy = policy; self.youTubeOrigin = youTubeOrigin; self.settings = settings
    }

    func add(to group: RouterGroup<APIRequestContext>) {
        group.post("discover/search") { request, context in
            let body = try await RequestBody.decode(SearchBody.self, request, context: context)
            return try await search(body, context)
        }
        group.get("discover/platforms") { _, context in
            _ = try context.library()
            return try platforms()
        }
        group.post("discover/quick-save") { request, context in
            let body = try await RequestBody.decode(QuickSaveBody.self, request, context: context)
            return try await quickSave(body, context)
        }
    }

    func search(_ body: SearchBody, _ context: APIRequestContext) async throws -> DiscoverSearchResponse {
        let library = try context.library()
        let query = body.query.trimmingWhitespace()
        guard !query.isEmpty, query.utf8.count <= DiscoveryRule.maxQueryBytes else {
            throw APIError.unprocessable("query must be 1 to \(DiscoveryRule.maxQueryBytes) characters")
        }
        let kind: DiscoveryRequest.Kind
        switch body.type ?? "videos" {
        case "videos": kind = .videos
        case "channels": kind = .channels
        case let other: throw APIError.unprocessable("type \"\(other)\" must be videos or channels (no provider here searches playlists)")
        }
        let limit = body.maxPerPlatform ?? DiscoveryRule.defaultPerProvider
        guard (1...DiscoveryRule.maxPerProvider).contains(limit) else {
            throw APIError.unprocessable("max_per_platform must be from 1 to \(DiscoveryRule.maxPerProvider) (got \(limit))")
        }
        let settings = try settings.mapError { APIError(.serviceUnavailable, "discovery is not configured: \($0.message)") }.get()
        let providers: [any DiscoveryProvider]
        do {
            providers = try settings.providers(body.platforms ?? [], fetcher: Fetcher.shared, store: library)
        } catch {
            throw APIError.unprocessable("platforms: \(error.message)")
        }
        let answer = await FederatedSearch(providers: providers, channels: library)
            .search(DiscoveryRequest(query: query, kind: kind, limit: limit))
        return DiscoverSearchResponse(answer)
    }

    func platforms() throws -> PlatformListResponse {
        let settings = try settings.mapError { APIError(.serviceUnavailable, "discovery is not configured: \($0.message)") }.get()
        let ytdlp = settings.ytdlp.contains("/") ? FileManager.default.isExecutableFile(atPath: settings.ytdlp)
            : (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
                .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(settings.ytdlp)") }
        let platforms = [
            PlatformInfo(id: "library", name: "Library", icon: "📚", color: "#6B7280", supportsSearch: true),
            PlatformInfo(id: "itunes", name: "Apple Podcasts", icon: "🎙️", color: "#872EC4", supportsSearch: true),
            PlatformInfo(id: "podcastindex", name: "Podcast Index", icon: "🎧", color: "#E90000",
                         supportsSearch: settings.podcastIndexAuth != nil),
            PlatformInfo(id: "youtube", name: "YouTube", icon: "📺", color: "#FF0000", supportsSearch: ytdlp),
            PlatformInfo(id: "rumble", name: "Rumble", icon: "🟢", color: "#85C742", supportsSearch: true),
        ]
        return PlatformListResponse(platforms: platforms, total: platforms.count)
    }

    /// Saves the video a URL names, as `POST /api/saved-videos` does (201, type `video`): a
    /// library item's page or media URL, or a YouTube or Rumble video page (read for its title
    /// and picture when the library does not hold it). Anything else is followed through
    /// `channel add`'s path (type `channel`; 201, or 200 when already followed): a feed or a
    /// channel page. The backend only looks the URL up and answers it; this does what the name
    /// says, so the app's "quick save" lands in Saved or Subscriptions.
    func quickSave(_ body: QuickSaveBody, _ context: APIRequestContext) async throws -> EditedResponse<QuickSaveResponse> {
        let url = body.url.trimmingWhitespace()
        guard !url.isEmpty else { throw APIError.unprocessable("url is required") }
        let library = try context.library()
        let identity = SavedPageIdentity(url: url)
        let inLibrary = try await FeedRoutes.library { () async throws(LibraryError) in try await library.itemID(forURL: url) } != nil
        if inLibrary || identity.namesAVideo(url) {
            let saved = try await SavedVideoRoutes(clock: clock, fetcher: fetcher, policy: policy)
                .save(SaveVideoBody(), url: url, field: "url", context).responseGenerator
            return EditedResponse(status: .created, response: QuickSaveResponse(
                type: "video", platform: saved.platform, saved: .video(VideoResult(saved)), message: "Saved: \(saved.title)"))
        }
        let subscribed = try await SubscriptionRoutes(clock: clock, fetcher: fetcher, policy: policy, youTubeOrigin: youTubeOrigin)
            .subscribe(url, context)
        let channel = subscribed.responseGenerator
        let already = subscribed.status == .ok
        let saved = ChannelResult(platform: channel.platform, channelID: channel.platformChannelID, channelURL: channel.channelURL,
                                  name: channel.name, avatarURL: channel.avatarURL, videoCount: channel.videoCount,
                                  feedURL: channel.feedURL, subscribed: true, libraryChannelID: channel.id)
        return EditedResponse(status: subscribed.status, response: QuickSaveResponse(
            type: "channel", platform: channel.platform, saved: .channel(saved),
            message: already ? "Already subscribed: \(channel.name)" : "Subscribed: \(channel.name)"))
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

struct QuickSaveBody: Decodable {
    var url: String
}

/// The backend's `VideoSearchResponse` (type videos) or `ChannelSearchResponse` (type channels):
/// `by_platform` and `timings` are per provider (`itunes`, `podcastindex`, `youtube`, `rumble`,
/// `library`), `platforms_failed` names the providers that failed or timed out.
enum DiscoverSearchResponse: ResponseEncodable, Sendable {
    case videos(SearchResponse<VideoResult>)
    case channels(SearchResponse<ChannelResult>)

    init(_ answer: FederatedSearch.Answer) {
        let timings = answer.outcomes.map {
            SearchTiming(platform: $0.provider, durationMs: $0.milliseconds, success: $0.failure == nil, error: $0.failure?.message)
        }
        func response<R: Encodable & Sendable>(_ type: String, _ map: (DiscoveryResult) -> R) -> SearchResponse<R> {
            var byPlatform: [String: [R]] = [:]
            for outcome in answer.outcomes { byPlatform[outcome.provider] = outcome.results.map(map) }
            return SearchResponse(query: answer.request.query, searchType: type, totalResults: answer.results.count,
                                  results: answer.results.map(map), byPlatform: byPlatform, timings: timings,
                                  totalDurationMs: answer.milliseconds, platformsSearched: answer.outcomes.map(\.provider),
                                  platformsFailed: answer.failed.map(\.provider))
        }
        switch answer.request.kind {
        case .videos: self = .videos(response("videos", VideoResult.init))
        case .channels: self = .channels(response("channels", ChannelResult.init))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .videos(let response): try response.encode(to: encoder)
        case .channels(let response): try response.encode(to: encoder)
        }
    }
}

struct SearchResponse<Result: Encodable & Sendable>: Encodable, Sendable {
    var query: String
    var searchType: String
    var totalResults: Int
    var results: [Result]
    var byPlatform: [String: [Result]]
    var timings: [SearchTiming]
    var totalDurationMs: Int
    var platformsSearched: [String]
    var platformsFailed: [String]
    enum CodingKeys: String, CodingKey {
        case query, searchType = "search_type", totalResults = "total_results", results, byPlatform = "by_platform", timings
        case totalDurationMs = "total_duration_ms", platformsSearched = "platforms_searched", platformsFailed = "platforms_failed"
    }
}

struct SearchTiming: Encodable, Sendable {
    var platform: String
    var durationMs: Int
    var success: Bool
    @Nullable var error: String?
    enum CodingKeys: String, CodingKey { case platform, durationMs = "duration_ms", success, error }
}

/// The backend's `VideoResultSchema`, with feedctl's own: `item_id` (the library's id, when the
/// library has it: what `/api/feed/items/{id}` and the player take), `subscribed`, `feed_url`
/// and `audio_url` (a podcast episode's), `provider`.
struct VideoResult: Encodable, Sendable {
    var platform: String
    var videoID: String
    var videoURL: String
    var title: String
    @Nullable var description: String?
    @Nullable var thumbnailURL: String?
    @Nullable var durationSeconds: Int?
    @Nullable var viewCount: Int64?
    @Nullable var uploadDate: String?
    @Nullable var channelName: String?
    @Nullable var channelID: String?
    @Nullable var channelURL: String?
    @Nullable var channelAvatarURL: String? = nil
    @Nullable var likeCount: Int? = nil
    var tags: [String] = []
    @Nullable var audioURL: String?
    @Nullable var feedURL: String?
    @Nullable var itemID: Int64?
    var subscribed: Bool
    var provider: String

    /// A video just saved (quick-save): the library's item, subscribed, or a page read from the
    /// web (`provider` "page").
    init(_ saved: SavedVideoResponse) {
        platform = saved.platform; videoID = saved.videoID; videoURL = saved.videoURL; title = saved.title
        description = saved.description; thumbnailURL = saved.thumbnailURL; durationSeconds = saved.durationSeconds
        viewCount = saved.viewCount.map(Int64.init); uploadDate = saved.uploadDate; channelName = saved.channelName
        channelID = saved.channelID; channelURL = saved.channelURL; itemID = saved.itemID
        subscribed = saved.itemID != nil; provider = saved.itemID != nil ? "library" : "page"
    }

    init(_ result: DiscoveryResult) {
        platform = result.platform.rawValue; videoID = result.id; videoURL = result.url; title = result.title
        description = result.description; thumbnailURL = result.thumbnail; durationSeconds = result.duration
        viewCount = result.views; uploadDate = result.published.map(WireDate.string); channelName = result.channelName
        channelID = result.channelID; channelURL = result.channelURL; audioURL = result.audioURL; feedURL = result.feedURL
        itemID = result.libraryItemID; subscribed = result.subscribed; provider = result.provider
    }

    enum CodingKeys: String, CodingKey {
        case platform, videoID = "video_id", videoURL = "video_url", title, description, thumbnailURL = "thumbnail_url"
        case durationSeconds = "duration_seconds", viewCount = "view_count", uploadDate = "upload_date", channelName = "channel_name"
        case channelID = "channel_id", channelURL = "channel_url", channelAvatarURL = "channel_avatar_url", likeCount = "like_count", tags
        case audioURL = "audio_url", feedURL = "feed_url", itemID = "item_id", subscribed, provider
    }
}

/// The backend's `ChannelResultSchema`, with feedctl's own: `feed_url` (a podcast's: what
/// subscribing takes), `subscribed`, `library_channel_id`, `provider`.
struct ChannelResult: Encodable, Sendable {
    var platform: String
    var channelID: String
    var channelURL: String
    var name: String
    @Nullable var description: String? = nil
    @Nullable var avatarURL: String? = nil
    @Nullable var bannerURL: String? = nil
    @Nullable var subscriberCount: Int? = nil
    @Nullable var videoCount: Int? = nil
    @Nullable var feedURL: String? = nil
    var subscribed: Bool
    @Nullable var libraryChannelID: Int64? = nil
    var provider: String = "library"

    init(platform: String, channelID: String, channelURL: String, name: String, avatarURL: String?, videoCount: Int?,
         feedURL: String?, subscribed: Bool, libraryChannelID: Int64?) {
        self.platform = platform; self.channelID = channelID; self.channelURL = channelURL; self.name = name
        self.avatarURL = avatarURL; self.videoCount = videoCount; self.feedURL = feedURL; self.subscribed = subscribed
        self.libraryChannelID = libraryChannelID
    }

    init(_ result: DiscoveryResult) {
        platform = result.platform.rawValue; channelID = result.channelID ?? result.id; channelURL = result.url
        name = result.title; description = result.description; avatarURL = result.thumbnail; feedURL = result.feedURL
        subscribed = result.subscribed; provider = result.provider
        libraryChannelID = result.provider == "library" ? Int64(result.id) : nil
    }

    enum CodingKeys: String, CodingKey {
        case platform, channelID = "channel_id", channelURL = "channel_url", name, description, avatarURL = "avatar_url"
        case bannerURL = "banner_url", subscriberCount = "subscriber_count", videoCount = "video_count", feedURL = "feed_url"
        case subscribed, libraryChannelID = "library_channel_id", provider
    }
}

/// The backend's `PlatformInfoSchema`.
struct PlatformInfo: Encodable, Sendable {
    var id: String
    var name: String
    var icon: String
    var color: String
    var supportsSearch: Bool
    var supportsChannelFeed = true
    var supportsPlaylists = false
    enum CodingKeys: String, CodingKey {
        case id, name, icon, color, supportsSearch = "supports_search", supportsChannelFeed = "supports_channel_feed"
        case supportsPlaylists = "supports_playlists"
    }
}

struct PlatformListResponse: ResponseEncodable, Sendable {
    var platforms: [PlatformInfo]
    var total: Int
}

/// The backend's `QuickSaveResponse`.
struct QuickSaveResponse: ResponseEncodable, Sendable {
    var type: String
    var platform: String
    var saved: Saved
    var message: String

    /// The backend's `VideoResultSchema | ChannelResultSchema`.
    enum Saved: Encodable, Sendable {
        case video(VideoResult)
        case channel(ChannelResult)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .video(let video): try video.encode(to: encoder)
            case .channel(let channel): try channel.encode(to: encoder)
            }
        }
    }
}
