import Downloads
import FeedIngest
import FeedModel
import FeedParsing
import HTTPFetch
import Hummingbird
import LibraryStore

/// `/api/feed`: the feed, single items, history, the by-channel view, and watch state in both
/// the iOS guide's form (`PATCH /api/feed/{id}/watched|progress` with a body) and the backend's
/// (`PUT /api/feed/items/{id}/watched|unwatched`, `PUT …/progress?progress_seconds=N`).
struct FeedRoutes {
    let clock: @Sendable () -> Int64
    /// The server's fetcher (`APIServer.fetcher`: public addresses only, unless --allow-private-feeds).
    let fetcher: Fetcher
    /// What it may fetch for its users (`FeedURLPolicy.reach`).
    let reach: AddressReach
    /// Where downloads are (an item's download state); nil: no media directory was given.
    var downloads: DownloadStore? = nil

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("feed") { request, context in try await feed(request, context) }
        group.get("feed/items/:id") { _, context in try await itemPage(pathID(context), context) }
        group.get("feed/history") { request, context in try await history(request, context) }
        group.get("feed/by-channel") { request, context in try await byChannel(request, context) }
        group.post("feed/sync") { request, context in try await sync(request, context) }
        // The backend's forms.
        group.put("feed/items/:id/watched") { request, context in
            let body = try await RequestBody.decode(ProgressBody.self, request, context: context, emptyAs: ProgressBody())
            return try await setWatched(pathID(context), true, progress: body.progressSeconds, context)
        }
        group.put("feed/items/:id/unwatched") { _, context in try await setWatched(pathID(context), false, progress: nil, context) }
        group.put("feed/items/:id/progress") { request, context in
            guard let seconds = try QueryParameters(request).int(.progressSeconds) else {
                throw APIError.unprocessable("progress_seconds is required")
            }
            return try await setProgress(pathID(context), seconds, context)
        }
        // The iOS guide's forms.
        group.patch("feed/:id/watched") { request, context in
            let body = try await RequestBody.decode(WatchedBody.self, request, context: context)
            return try await setWatched(pathID(context), body.isWatched, progress: body.watchProgressSeconds, context)
        }
        group.patch("feed/:id/progress") { request, context in
            let body = try await RequestBody.decode(GuideProgressBody.self, request, context: context)
            return try await setProgress(pathID(context), body.watchProgressSeconds, context)
        }
    }

    // MARK: The feed

    func feed(_ request: Request, _ context: APIRequestContext) async throws -> FeedResponse {
        let library = try context.library()
        let query = QueryParameters(request)
        let page = try query.page()
        let selection = try Self.selection(query, page: page)
        let now = clock()
        switch selection {
        case .page(let pageQuery):
            let result = try await Self.library { () async throws(LibraryError) in try await library.itemPage(pageQuery) }
            return FeedResponse(records: result.items, now: now, total: result.total, page: page,
                                hasMore: page.hasMore(shown: result.items.count, total: result.total))
        case .search(let search):
            // A search is not counted: a full page says there may be more.
            let found = try await Self.library { () async throws(LibraryError) in try await library.search(search) }
            let records = try await Self.library { () async throws(LibraryError) in try await library.itemRecords(ids: found.map(\.id)) }
            return FeedResponse(records: records, now: now, total: page.offset + records.count, page: page,
                                hasMore: found.count == page.perPage)
        case .catchUp(let filter), .discovery(let filter):
            // Catch-up and discovery are computed, not counted: the whole list (up to its cap) is built and sliced.
            let mode: FeedMode = if case .discovery = selection { .discovery } else { .catchUp }
            let all = try await Self.library { () async throws(LibraryError) in
                try await library.feed(FeedQuery(mode: mode, filter: filter, page: .first(Self.catchUpCap)), now: now)
            }
            let slice = page.slice(of: all)
            let records = try await Self.library { () async throws(LibraryError) in try await library.itemRecords(ids: slice.map(\.id)) }
            return FeedResponse(records: records, now: now, total: all.count, page: page,
                                hasMore: page.hasMore(shown: slice.count, total: all.count))
        }
    }

    /// Catch-up and discovery list at most this many items (their `total` counts up to it).
    static let catchUpCap = CatchUp.maxCounted

    /// The query read into a selection: a mode's preset wins over `filter`, `sort_by` and the
    /// duration bounds it sets, as in the backend.
    static func selection(_ query: QueryParameters, page: PageRequest) throws(APIError) -> FeedSelection {
        var watch = WatchFilter.all
        if let text = query.string("filter") {
            guard let filter = WatchFilter(rawValue: text) else { throw .unprocessable("filter must be all, unwatched or watched, not \"\(text)\"") }
            watch = filter
        }
        var order = ItemOrder.newest
        if let text = query.string("sort_by") {
            guard let named = FeedSelection.order(named: text) else {
                throw .unprocessable("sort_by must be one of \(FeedSelection.orderNames.joined(separator: ", ")), not \"\(text)\"")
            }
            order = named
        }
        var minDuration = try query.int(.durationMin)
        var maxDuration = try query.int(.durationMax)
        var publishedSince: Int64?
        if let text = query.string("since") {
            guard let since = WireDate.parse(text) else { throw .unprocessable("since must be an ISO 8601 date, not \"\(text)\"") }
            publishedSince = since
        }
        let platform = try query.platform()
        let channelIDs = try query.ids("channel_ids") + query.ids("channel_id")
        if let text = query.string("search"), !text.allSatisfy(\.isWhitespace) {
            guard query.string("mode") == nil, query.string("sort_by") == nil, channelIDs.count <= 1, publishedSince == nil,
                  minDuration == nil, maxDuration == nil else {
                throw .unprocessable("search takes platform, filter and one channel only (its results come best match first)")
            }
            return .search(SearchQuery(text: text, filter: FeedFilter(platform: platform, channelID: channelIDs.first,
                                                                      unwatchedOnly: watch == .unwatched, watchedOnly: watch == .watched),
                                       page: page))
        }
        var shortOnly = false
        if let text = query.string("mode") {
            guard let mode = FeedSelection.mode(named: text) else {
                throw .unprocessable("mode \"\(text)\" is not one of \(FeedSelection.modeNames.joined(separator: ", "))")
            }
            switch mode {
            case .newest: order = .newest
            case .shortForm: shortOnly = true; order = .newest
            case .quickWatch: watch = .unwatched; maxDuration = DurationPresets.quickWatchMax; order = .newest
            case .deepDive: watch = .unwatched; minDuration = DurationPresets.deepDiveMin; order = .newest
            case .ordered(let named): order = named
            case .catchUp:
                guard watch != .watched, channelIDs.count <= 1, publishedSince == nil, minDuration == nil, maxDuration == nil else {
                    throw .unprocessable("mode catch_up takes platform and one channel only (it lists what you missed, its own way)")
                }
                return .catchUp(FeedFilter(platform: platform, channelID: channelIDs.first, unwatchedOnly: true))
            case .discovery:
                guard watch != .watched, channelIDs.count <= 1, publishedSince == nil, minDuration == nil, maxDuration == nil else {
                    throw .unprocessable("mode discovery takes platform and one channel only (it lists what you never started, its own way)")
                }
                return .discovery(FeedFilter(platform: platform, channelID: channelIDs.first, unwatchedOnly: true))
            }
        }
        if let minDuration, let maxDuration, minDuration > maxDuration {
            throw .unprocessable("duration_min (\(minDuration)) is more than duration_max (\(maxDuration))")
        }
        return .page(ItemPageQuery(order: order, watch: watch, shortOnly: shortOnly, platform: platform, channelIDs: channelIDs,
                                   publishedSince: publishedSince, minDuration: minDuration, maxDuration: maxDuration,
                                   page: page))
    }

    // MARK: Items

    /// `GET /api/feed/items/{id}`: the item with its show notes as sanitized HTML (the one
    /// route that carries them: docs/server.md, "Show notes"). The library keeps the feed's
    /// markup; it is sanitized here, for the one item answered.
    func item(_ id: Int64, _ context: APIRequestContext) async throws -> FeedItemWithNotesResponse {
        let record = try await record(id, context)
        let library = try context.library()
        let notes = try await Self.library { () async throws(LibraryError) in try await library.storedNotes(id: id) }
        return FeedItemWithNotesResponse(item: FeedItemResponse(record, now: clock()),
                                         descriptionHTML: notes.flatMap { NotesSanitizer.sanitize($0.markup, base: $0.base) })
    }

    private func record(_ id: Int64, _ context: APIRequestContext) async throws -> ItemRecord {
        let library = try context.library()
        guard let record = try await Self.library({ () async throws(LibraryError) in try await library.itemRecords(ids: [id]) }).first else {
            throw APIError.notFound("no item \(id)")
        }
        return record
    }

    /// `GET /api/feed/items/{id}`: `item` and its chapters (`PodcastChapterSource`, as the daemon's player gets them:
    /// cached, else fetched within the channel's reach), transcript link and download state.
    func itemPage(_ id: Int64, _ context: APIRequestContext) async throws -> FeedItemDetailResponse {
        let base = try await item(id, context)
        let library = try context.library()
        let details = try await Self.library { () async throws(LibraryError) in try await library.itemDetails(id: id) }
        let channel = try await Self.library { () async throws(LibraryError) in try await library.playbackSettings(channelID: details.item.channelID) }
        let source = PodcastChapterSource(library: library, fetcher: fetcher.reaching(reach.narrowed(to: channel.reach)))
        // A chapters file that cannot be had leaves the page without chapters, never without the item.
        let chapters = try? await source.chapters(itemID: id, now: clock())
        let files = await TokenAuthenticator.offLoop { [downloads] in (try? downloads?.entries(item: id)) ?? [] }
        let download: FeedItemDetailResponse.DownloadState =
            if let done = files.first(where: \.complete) { .init(state: "downloaded", bytes: done.bytes) }
            else if let part = files.first { .init(state: "partial", bytes: part.bytes) }
            else { .init(state: "none", bytes: nil) }
        return FeedItemDetailResponse(
            item: base,
            chapters: chapters.flatMap { $0 }.map { $0.map { .init(startSeconds: $0.startTime, title: $0.title, url: $0.url) } },
            transcriptURL: details.transcriptURL, download: download)
    }

    func setWatched(_ id: Int64, _ watched: Bool, progress: Int?, _ context: APIRequestContext) async throws -> FeedItemResponse {
        let library = try context.library()
        if let progress, progress < 0 { throw APIError.unprocessable("progress must be at least 0 (got \(progress))") }
        let now = clock()
        try await Self.library { () async throws(LibraryError) in
            try await library.updateWatchState(id, .mark(watched: watched, progress: progress ?? 0), now: now)
        }
        return FeedItemResponse(try await record(id, context), now: clock())
    }

    func setProgress(_ id: Int64, _ seconds: Int, _ context: APIRequestContext) async throws -> FeedItemResponse {
        let library = try context.library()
        guard seconds >= 0 else { throw APIError.unprocessable("progress must be at least 0 (got \(seconds))") }
        let now = clock()
        try await Self.library { () async throws(LibraryError) in try await library.setProgress(id, seconds: seconds, now: now) }
        return FeedItemResponse(try await record(id, context), now: clock())
    }

    // MARK: History and by-channel

    /// feedctl's play history, one entry per item (its latest play), newest first; items whose
    /// channel was removed are left out (the API shows items). `include_completed=false` leaves
    /// out items marked watched.
    func history(_ request: Request, _ context: APIRequestContext) async throws -> FeedResponse {
        let library = try context.library()
        let query = QueryParameters(request)
        let page = try query.page()
        let includeCompleted = try query.bool("include_completed") ?? true
        let entries = try await Self.library { () async throws(LibraryError) in try await library.history(limit: Self.historyCap) }
        var seen = Set<Int64>(), ids: [Int64] = []
        for case let id? in entries.map(\.item) where seen.insert(id).inserted { ids.append(id) }
        var records = try await Self.library { () async throws(LibraryError) in try await library.itemRecords(ids: ids) }
        if !includeCompleted { records.removeAll { $0.item.watched } }
        let slice = page.slice(of: records)
        let now = clock()
        return FeedResponse(records: Array(slice), now: now, total: records.count, page: page,
                            hasMore: page.hasMore(shown: slice.count, total: records.count))
    }

    /// The history read for `/api/feed/history` (plays, before one per item).
    static let historyCap = 10_000

    func byChannel(_ request: Request, _ context: APIRequestContext) async throws -> ChannelGroupedFeedResponse {
        let library = try context.library()
        let query = QueryParameters(request)
        var watch = WatchFilter.all
        if let text = query.string("filter") {
            guard let filter = WatchFilter(rawValue: text) else { throw APIError.unprocessable("filter must be all, unwatched or watched, not \"\(text)\"") }
            watch = filter
        }
        let platform = try query.platform()
        let perChannel = try query.value(.maxPerChannel)
        let summaries = try await Self.library { () async throws(LibraryError) in try await library.channelSummaries() }
        let channels = try await Self.library { () async throws(LibraryError) in try await library.allChannels() }
        let images = Dictionary(channels.map { ($0.id, $0.image) }, uniquingKeysWith: { a, _ in a })
        let now = clock()
        var groups: [ChannelGroupedFeed] = []
        var totalItems = 0
        for summary in summaries where platform == nil || summary.platform == platform {
            let items = try await Self.library { () async throws(LibraryError) in
                try await library.itemPage(ItemPageQuery(watch: watch, channelIDs: [summary.id], page: .first(perChannel))).items
            }
            guard !items.isEmpty else { continue }
            groups.append(ChannelGroupedFeed(channelID: summary.id, channelName: summary.name, channelAvatarURL: images[summary.id] ?? nil,
                                             platform: summary.platform.rawValue, items: items.map { FeedItemResponse($0, now: now) },
                                             totalItems: summary.items, unwatchedCount: summary.unwatched))
            totalItems += summary.items
        }
        return ChannelGroupedFeedResponse(channels: groups, totalChannels: groups.count, totalItems: totalItems)
    }

    /// `POST /api/feed/sync[?platform=P]`: syncs the active channels now (of one platform), and
    /// answers each channel's result as the channel sync does (the web client reads an array).
    /// The backend starts this in the background; here it is done when it answers.
    func sync(_ request: Request, _ context: APIRequestContext) async throws -> [SyncResultResponse] {
        let library = try context.library()
        let platform = try QueryParameters(request).platform()
        let channels = try await Self.library { () async throws(LibraryError) in try await library.allChannels() }
            .filter { $0.active && (platform == nil || $0.platform == platform) }
        // The user's followed collections on other servers are read again beside the channels
        // (how that went is theirs to see in /api/followed-collections).
        let follows = try await Self.library { () async throws(LibraryError) in try await library.remoteFollows() }
        async let followed = FollowRefresher(store: library.sharedCollections, reach: reach, fetcher: fetcher).refresh(follows, now: clock())
        let report = await Syncer(store: library, reach: reach, fetcher: fetcher).sync(channels, now: clock())
        _ = await followed
        return report.channels.map {
            SyncResultResponse(channelID: $0.id, channelName: $0.name, success: $0.succeeded, newVideos: $0.newItems, error: $0.error)
        }
    }

    /// Runs a library call, its typed error turned into the HTTP answer it stands for.
    @discardableResult
    static func library<T>(_ body: () async throws(LibraryError) -> T) async throws(APIError) -> T {
        do { return try await body() } catch { throw APIError(error) }
    }
}

/// `PUT /api/feed/items/{id}/watched`'s optional body (the web client sends `{progress_seconds}`).
struct ProgressBody: Decodable {
    var progressSeconds: Int?
    enum CodingKeys: String, CodingKey { case progressSeconds = "progress_seconds" }
}

/// The guide's `PATCH /api/feed/{id}/watched` body (the backend's `WatchStateUpdate`).
struct WatchedBody: Decodable {
    var isWatched: Bool
    var watchProgressSeconds: Int?
    enum CodingKeys: String, CodingKey { case isWatched = "is_watched", watchProgressSeconds = "watch_progress_seconds" }
}

/// The guide's `PATCH /api/feed/{id}/progress` body.
struct GuideProgressBody: Decodable {
    var watchProgressSeconds: Int
    enum CodingKeys: String, CodingKey { case watchProgressSeconds = "watch_progress_seconds" }
}

/// `/api/feed/by-channel`: the backend's `ChannelGroupedFeedResponse`.
struct ChannelGroupedFeedResponse: Encodable, Sendable {
    var channels: [ChannelGroupedFeed]
    var totalChannels: Int
    var totalItems: Int
    enum CodingKeys: String, CodingKey { case channels, totalChannels = "total_channels", totalItems = "total_items" }
}

struct ChannelGroupedFeed: Encodable, Sendable {
    var channelID: Int64
    var channelName: String
    @Nullable var channelAvatarURL: String?
    var platform: String
    var items: [FeedItemResponse]
    var totalItems: Int
    var unwatchedCount: Int
    enum CodingKeys: String, CodingKey {
        case channelID = "channel_id", channelName = "channel_name", channelAvatarURL = "channel_avatar_url", platform, items
        case totalItems = "total_items", unwatchedCount = "unwatched_count"
    }
}
