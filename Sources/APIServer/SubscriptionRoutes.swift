import FeedIngest
import FeedModel
import HTTPFetch
import Foundation
import Hummingbird
import LibraryStore

/// Subscriptions under both names: the iOS guide's `/api/subscriptions` (add takes `{url}`) and
/// the backend's `/api/channels` (add takes `{channel_url}`). Adding goes through `channel add`'s
/// own path (`Subscriber`: every URL form it takes), syncing through the `Syncer`.
struct SubscriptionRoutes {
    let clock: @Sendable () -> Int64
    /// The server's fetcher (`APIServer.fetcher`: public addresses only, unless --allow-private-feeds).
    let fetcher: Fetcher
    let policy: FeedURLPolicy
    /// Where YouTube lives (tests point it at their own server).
    let youTubeOrigin: String

    func add(to group: RouterGroup<APIRequestContext>) {
        for base in ["subscriptions", "channels"] {
            group.get(RouterPath(base)) { request, context in try await list(request, context) }
            group.post(RouterPath(base)) { request, context in
                let body = try await RequestBody.decode(AddChannelBody.self, request, context: context)
                guard let url = body.channelURL ?? body.url else { throw APIError.unprocessable("channel_url (or url) is required") }
                return try await subscribe(url, context)
            }
            group.get(RouterPath("\(base)/:id")) { _, context in try await channel(pathID(context), context) }
            group.put(RouterPath("\(base)/:id")) { request, context in
                let body = try await RequestBody.decode(UpdateChannelBody.self, request, context: context)
                return try await update(pathID(context), body, context)
            }
            group.delete(RouterPath("\(base)/:id")) { _, context in try await remove(pathID(context), context) }
            group.post(RouterPath("\(base)/:id/sync")) { _, context in try await sync(pathID(context), context) }
        }
    }

    /// The subscriptions by name: all of them (at most `SubscriptionRule.maxPerUser`), as the
    /// web client asks, or one page when the query names `page` or `per_page`.
    func list(_ request: Request, _ context: APIRequestContext) async throws -> ChannelListResponse {
        let library = try context.library()
        let query = QueryParameters(request)
        let selection = SubscriptionQuery(platform: try query.platform(), active: try query.bool("is_active"),
                                          page: query.asksForPage ? try query.page() : nil)
        let found = try await FeedRoutes.library { () async throws(LibraryError) in try await library.subscriptions(selection) }
        let items = found.subscriptions.map { ChannelResponse($0.channel, $0.summary) }
        return ChannelListResponse(items: items, total: found.total, page: selection.page,
                                   hasMore: selection.page.map { $0.hasMore(shown: items.count, total: found.total) })
    }

    func channel(_ id: Int64, _ context: APIRequestContext) async throws -> ChannelResponse {
        try await Self.response(id, try context.library())
    }

    /// 201 with the channel added; a URL already subscribed is synced and answered 200 with its
    /// channel (as `channel add` does), so a client adding twice gets the channel both times.
    func subscribe(_ url: String, _ context: APIRequestContext) async throws -> EditedResponse<ChannelResponse> {
        let library = try context.library()
        guard url.utf8.count <= 8192 else { throw APIError.unprocessable("channel_url is longer than 8 KB") }
        if let refusal = policy.refusal(for: url) { throw APIError.badRequest(refusal) }
        let known = try await FeedRoutes.library { () async throws(LibraryError) in try await library.channel(feedURL: url) }
        if known == nil { try await Self.checkCap(library, adding: 1) }
        let subscriber = Subscriber(syncer: Syncer(store: library, reach: policy.reach, fetcher: fetcher), youTubeOrigin: youTubeOrigin)
        let added: [Subscriber.Added]
        do {
            added = try await subscriber.add(url, now: clock())
        } catch {
            if let failure = error.library { throw APIError(failure) }
            throw APIError.badRequest(error.description)
        }
        guard let first = added.first else { throw APIError.badRequest("\(url): nothing to subscribe") }
        let response = try await Self.response(first.channel.id, library)
        return EditedResponse(status: first.alreadySubscribed ? .ok : .created, response: response)
    }

    func update(_ id: Int64, _ body: UpdateChannelBody, _ context: APIRequestContext) async throws -> ChannelResponse {
        let library = try context.library()
        if body.name != nil { throw APIError.unprocessable("a channel's name comes from its feed and cannot be set") }
        if let active = body.isActive {
            try await FeedRoutes.library { () async throws(LibraryError) in try await library.setActive(channelID: id, active) }
        }
        if let speed = body.speed {
            try await FeedRoutes.library { () async throws(LibraryError) in try await library.setSpeed(channelID: id, speed) }
        }
        return try await Self.response(id, library)
    }

    /// 204. The user's watch state, saved marks and queue entries for the channel's items go; play
    /// history and collections stay, and the items go only with the last follower, but those in a
    /// collection (`ChannelRemoval`; as `channel remove --keep-downloads`: files are left for the CLI).
    func remove(_ id: Int64, _ context: APIRequestContext) async throws -> Response {
        let library = try context.library()
        try await FeedRoutes.library { () async throws(LibraryError) in
            _ = try await library.channel(id: id)
            try await library.removeChannel(id: id)
        }
        return Response(status: .noContent)
    }

    func sync(_ id: Int64, _ context: APIRequestContext) async throws -> SyncResultResponse {
        let library = try context.library()
        let channel = try await FeedRoutes.library { () async throws(LibraryError) in try await library.channel(id: id) }
        let report = await Syncer(store: library, reach: policy.reach, fetcher: fetcher).sync([channel], now: clock())
        guard let result = report.channels.first else {
            return SyncResultResponse(channelID: id, channelName: channel.name, success: false, newVideos: 0, error: "the sync was interrupted")
        }
        return SyncResultResponse(channelID: id, channelName: result.name, success: result.succeeded,
                                  newVideos: result.newItems, error: result.error)
    }

    /// Refuses (422) subscribing `adding` more feeds when the user would then follow more than
    /// `SubscriptionRule.maxPerUser`. Checked before anything is fetched: imports running at
    /// the same time can each pass it, by at most their own size.
    static func checkCap(_ library: any ChannelStore, adding: Int) async throws(APIError) {
        guard adding > 0 else { return }
        let count = try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.subscriptions(SubscriptionQuery(page: .first(1))).total
        }
        let cap = SubscriptionRule.maxPerUser
        guard count + adding > cap else { return }
        let what = adding == 1 ? "one more" : "\(adding) more"
        throw APIError.unprocessable("you follow \(count) channels and a user may follow at most \(cap): "
                                     + "\(what) would pass it (unsubscribe from some first)")
    }

    /// Refuses (422) an import of more than `SubscriptionRule.maxPerImport` feeds, whole.
    static func checkImportSize(_ count: Int, _ what: String) throws(APIError) {
        let cap = SubscriptionRule.maxPerImport
        guard count > cap else { return }
        throw APIError.unprocessable("\(what) names \(count) feeds and one import takes at most \(cap): split it")
    }

    // MARK: Mapping

    static func response(_ id: Int64, _ library: any APILibrary) async throws(APIError) -> ChannelResponse {
        let (channel, summary) = try await FeedRoutes.library { () async throws(LibraryError) in
            (try await library.channel(id: id), try await library.channelSummary(id: id))
        }
        return ChannelResponse(channel, summary)
    }
}

/// Both forms of the add body: the backend's `{channel_url}` and the guide's `{url}`.
struct AddChannelBody: Decodable {
    var channelURL: String?
    var url: String?
    enum CodingKeys: String, CodingKey { case channelURL = "channel_url", url }
}

/// The backend's `ChannelUpdate`.
/// `speed` (feedctl's own) is the playback speed this user remembers for the channel (`PlaybackSpeed.range`).
struct UpdateChannelBody: Decodable {
    var name: String?
    var isActive: Bool?
    var speed: Double?
    enum CodingKeys: String, CodingKey { case name, isActive = "is_active", speed }
}

/// A channel as the backend's `ChannelResponse` has it (app/schemas/channel.py).
struct ChannelResponse: Encodable, Sendable {
    var id: Int64
    var platform: String
    /// The YouTube channel or playlist id, else the feed URL (what identifies it on its platform).
    var platformChannelID: String
    /// The URL the person subscribed with.
    var channelURL: String
    var name: String
    @Nullable var description: String? = nil
    @Nullable var avatarURL: String?
    @Nullable var bannerURL: String? = nil
    @Nullable var subscriberCount: Int? = nil
    var isActive: Bool
    @Nullable var lastSyncedAt: String?
    @Nullable var lastSyncError: String?
    var consecutiveErrors: Int
    @Nullable var importSource: String? = nil
    var createdAt: String
    var updatedAt: String
    var displayName: String
    var videoCount: Int
    var unwatchedCount: Int
    /// feedctl's own: the URL polled.
    var feedURL: String
    /// feedctl's own: the playback speed this user chose for the channel, null when none.
    @Nullable var speed: Double?
    /// feedctl's own: what the parser recovered from in the feed's last parsed body.
    var warnings: [String]

    init(_ channel: Channel, _ summary: ChannelSummary) {
        id = channel.id; platform = channel.platform.rawValue
        platformChannelID = Self.platformID(feedURL: channel.feedURL)
        channelURL = channel.sourceURL; name = channel.name; avatarURL = channel.image; isActive = channel.active
        lastSyncedAt = channel.lastSynced.map(WireDate.string); lastSyncError = channel.lastError
        consecutiveErrors = channel.consecutiveErrors
        createdAt = WireDate.string(channel.addedAt); updatedAt = WireDate.string(channel.lastSynced ?? channel.addedAt)
        displayName = channel.name; videoCount = summary.items; unwatchedCount = summary.unwatched; feedURL = channel.feedURL
        speed = channel.speed; warnings = summary.warnings
    }

    static func platformID(feedURL: String) -> String {
        guard let parts = URLComponents(string: feedURL), parts.path.hasSuffix("/feeds/videos.xml") else { return feedURL }
        return parts.queryItems?.first { $0.name == "channel_id" || $0.name == "playlist_id" }?.value ?? feedURL
    }

    enum CodingKeys: String, CodingKey {
        case id, platform, platformChannelID = "platform_channel_id", channelURL = "channel_url", name, description
        case avatarURL = "avatar_url", bannerURL = "banner_url", subscriberCount = "subscriber_count", isActive = "is_active"
        case lastSyncedAt = "last_synced_at", lastSyncError = "last_sync_error", consecutiveErrors = "consecutive_errors"
        case importSource = "import_source", createdAt = "created_at", updatedAt = "updated_at", displayName = "display_name"
        case videoCount = "video_count", unwatchedCount = "unwatched_count", feedURL = "feed_url"
        case speed, warnings
    }
}

/// The backend's `ChannelListResponse` (`items`, `total`); a paged answer adds `page`,
/// `per_page` and `has_more`, as the feed's does.
struct ChannelListResponse: Encodable, Sendable {
    var items: [ChannelResponse]
    var total: Int
    var page: PageRequest?
    var hasMore: Bool?

    enum CodingKeys: String, CodingKey { case items, total, page, perPage = "per_page", hasMore = "has_more" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(total, forKey: .total)
        try container.encodeIfPresent(page?.page, forKey: .page)
        try container.encodeIfPresent(page?.perPage, forKey: .perPage)
        try container.encodeIfPresent(hasMore, forKey: .hasMore)
    }
}

/// The backend's `SyncResult`.
struct SyncResultResponse: Encodable, Sendable {
    var channelID: Int64
    var channelName: String
    var success: Bool
    var newVideos: Int
    @Nullable var error: String?
    enum CodingKeys: String, CodingKey {
        case channelID = "channel_id", channelName = "channel_name", success, newVideos = "new_videos", error
    }
}
