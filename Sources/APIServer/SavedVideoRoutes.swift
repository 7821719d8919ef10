import FeedIngest
import FeedModel
import FeedParsing
import Foundation
import HTTPFetch
import Hummingbird
import LibraryStore

/// `/api/saved-videos`, as the backend serves it and as the iOS guide calls it. Saving takes
/// the guide's bare `{video_url}`, the backend's full body, or `/from-url`'s `{url, notes}`: a
/// URL that is a library item's page or media saves that item (its watch state is the feed's);
/// any other page is read (through the private-address policy) for its title, picture and
/// duration, where the backend answers 422 to the bare form. Saving again answers the first
/// save, 201, unchanged (the backend's rule).
struct SavedVideoRoutes {
    let clock: @Sendable () -> Int64
    /// The server's fetcher (public addresses only, unless --allow-private-feeds): a saved
    /// page is read through it, redirects and its oEmbed link included.
    let fetcher: Fetcher
    let policy: FeedURLPolicy

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("saved-videos") { request, context in try await list(request, context) }
        group.post("saved-videos") { request, context in
            let body = try await RequestBody.decode(SaveVideoBody.self, request, context: context)
            return try await save(body, url: body.videoURL, field: "video_url", context)
        }
        group.post("saved-videos/from-url") { request, context in
            let body = try await RequestBody.decode(SaveVideoBody.self, request, context: context)
            return try await save(SaveVideoBody(notes: body.notes), url: body.url ?? body.videoURL, field: "url", context)
        }
        group.get("saved-videos/stats") { _, context in try await stats(context) }
        group.get("saved-videos/check") { request, context in try await check(request, context) }
        group.get("saved-videos/:id") { _, context in
            let library = try context.library()
            let id = try pathID(context)
            return SavedVideoResponse(try await FeedRoutes.library { () async throws(LibraryError) in try await library.savedVideo(id: id) })
        }
        group.put("saved-videos/:id") { request, context in
            let body = try await RequestBody.decode(UpdateSavedVideoBody.self, request, context: context)
            return try await update(pathID(context), SavedVideoChange(notes: body.notes, watched: body.isWatched,
                                                                      progressSeconds: body.watchProgressSeconds), context)
        }
        group.put("saved-videos/:id/watched") { request, context in
            let progress = try QueryParameters(request).int(.progressSeconds)
            return try await update(pathID(context), SavedVideoChange(watched: true, progressSeconds: progress), context)
        }
        group.put("saved-videos/:id/unwatched") { _, context in
            try await update(pathID(context), SavedVideoChange(watched: false), context)
        }
        group.put("saved-videos/:id/progress") { request, context in
            guard let seconds = try QueryParameters(request).int(.progressSeconds) else {
                throw APIError.unprocessable("progress_seconds is required")
            }
            return try await update(pathID(context), SavedVideoChange(progressSeconds: seconds), context)
        }
        group.delete("saved-videos/:id") { _, context in
            let library = try context.library()
            let id = try pathID(context)
            try await FeedRoutes.library { () async throws(LibraryError) in try await library.deleteSavedVideo(id: id) }
            return Response(status: .noContent)
        }
    }

    func list(_ request: Request, _ context: APIRequestContext) async throws -> SavedVideoListResponse {
        let library = try context.library()
        let query = QueryParameters(request)
        let selection = SavedVideoQuery(platform: query.string("platform"), watched: try query.bool("is_watched"),
                                        limit: try query.value(.limit), offset: try query.value(.offset))
        let (videos, total) = try await FeedRoutes.library { () async throws(LibraryError) in try await library.savedVideos(selection) }
        return SavedVideoListResponse(items: videos.map(SavedVideoResponse.init), total: total)
    }

    func stats(_ context: APIRequestContext) async throws -> SavedVideoStatsResponse {
        let library = try context.library()
        let (videos, total) = try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.savedVideos(SavedVideoQuery(limit: -1))
        }
        let watched = videos.filter(\.watched).count
        return SavedVideoStatsResponse(totalVideos: total, watchedVideos: watched, unwatchedVideos: total - watched,
                                       byPlatform: Dictionary(grouping: videos, by: \.page.platform).mapValues(\.count))
    }

    func check(_ request: Request, _ context: APIRequestContext) async throws -> SavedVideoCheckResponse {
        let library = try context.library()
        let query = QueryParameters(request)
        guard let platform = query.string("platform"), let videoID = query.string("video_id") else {
            throw APIError.unprocessable("platform and video_id are required")
        }
        let (videos, _) = try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.savedVideos(SavedVideoQuery(platform: platform, limit: -1))
        }
        return SavedVideoCheckResponse(isSaved: videos.contains { $0.page.videoID == videoID }, platform: platform, videoID: videoID)
    }

    func update(_ id: Int64, _ change: SavedVideoChange, _ context: APIRequestContext) async throws -> SavedVideoResponse {
        let library = try context.library()
        if let progress = change.progressSeconds, progress < 0 {
            throw APIError.unprocessable("watch_progress_seconds must be at least 0 (got \(progress))")
        }
        let now = clock()
        return SavedVideoResponse(try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.updateSavedVideo(id: id, change, now: now)
        })
    }

    /// Saves `url`: the library's item when it is one, else the page the body describes (the
    /// backend's full body) or, with only a URL, the page as read from the web.
    func save(_ body: SaveVideoBody, url: String?, field: String, _ context: APIRequestContext) async throws -> EditedResponse<SavedVideoResponse> {
        let library = try context.library()
        guard let url = url?.trimmingCharacters(in: .whitespacesAndNewlines), !url.isEmpty else {
            throw APIError.unprocessable("\(field) is required")
        }
        guard url.utf8.count <= 8192 else { throw APIError.unprocessable("\(field) is longer than 8 KB") }
        let now = clock()
        let notes = body.notes
        // The library's item: the one the body names by platform and video id (several items
        // may share one URL: a feed whose episodes point at one file), else by its URL, else the
        // same YouTube or Rumble video by another URL (`youtu.be/ID`, `/shorts/ID`).
        let identity = SavedPageIdentity(url: url)
        let named = body.platform.flatMap { Platform(rawValue: $0.lowercased()) }.flatMap { platform in body.videoID.map { (platform, $0) } }
        let known = try await FeedRoutes.library { () async throws(LibraryError) -> Int64? in
            if let (platform, videoID) = named, let item = try await library.itemID(platform: platform, videoID: videoID) { return item }
            if let item = try await library.itemID(forURL: url) { return item }
            if let platform = Platform(rawValue: identity.platform), identity.videoID != url,
               let item = try await library.itemID(platform: platform, videoID: identity.videoID) { return item }
            return nil
        }
        if let item = known {
            let saved = try await FeedRoutes.library { () async throws(LibraryError) in try await library.saveVideo(item: item, notes: notes, now: now) }
            return EditedResponse(status: .created, response: SavedVideoResponse(saved.video))
        }
        let page = body.title != nil ? try Self.page(describedBy: body, url: url) : try await read(url)
        let saved = try await FeedRoutes.library { () async throws(LibraryError) in try await library.saveVideo(page: page, notes: notes, now: now) }
        return EditedResponse(status: .created, response: SavedVideoResponse(saved.video))
    }

    /// The backend's `SavedVideoCreate`: what the client says, checked as its schema checks it.
    static func page(describedBy body: SaveVideoBody, url: String) throws(APIError) -> SavedPage {
        guard let platform = body.platform, !platform.isEmpty else { throw .unprocessable("platform is required") }
        guard let videoID = body.videoID, !videoID.isEmpty else { throw .unprocessable("video_id is required") }
        guard let title = body.title, !title.isEmpty else { throw .unprocessable("title is required") }
        for (name, value, limit) in [("platform", platform, 50), ("video_id", videoID, 100), ("video_url", url, 500), ("title", title, 500)]
        where value.count > limit {
            throw .unprocessable("\(name) is longer than \(limit) characters")
        }
        if let duration = body.durationSeconds, duration < 0 { throw .unprocessable("duration_seconds must be at least 0 (got \(duration))") }
        if let views = body.viewCount, views < 0 { throw .unprocessable("view_count must be at least 0 (got \(views))") }
        var uploadDate: Int64?
        if let text = body.uploadDate {
            guard let date = WireDate.parse(text) else { throw .unprocessable("upload_date must be an ISO 8601 date, not \"\(text)\"") }
            uploadDate = date
        }
        return SavedPage(platform: platform, videoID: videoID, videoURL: url, title: title, description: body.description,
                         thumbnailURL: body.thumbnailURL, durationSeconds: body.durationSeconds, viewCount: body.viewCount,
                         uploadDate: uploadDate, channelName: body.channelName, channelRef: body.channelID, channelURL: body.channelURL)
    }

    /// A page the library does not hold, read from the web: 400 when it may not or cannot be read.
    func read(_ url: String) async throws(APIError) -> SavedPage {
        if let refusal = policy.refusal(forPage: url) { throw .badRequest(refusal) }
        let read: (finalURL: String, metadata: VideoPageMetadata)
        do {
            read = try await VideoPageReader(fetcher: fetcher).read(url)
        } catch {
            throw .badRequest(error.description)
        }
        let (finalURL, metadata) = read
        let identity = SavedPageIdentity(url: url)
        return SavedPage(platform: identity.platform, videoID: identity.videoID, videoURL: url,
                         title: metadata.title ?? metadata.canonicalURL ?? finalURL, description: metadata.description,
                         thumbnailURL: metadata.thumbnailURL, durationSeconds: metadata.durationSeconds,
                         uploadDate: metadata.uploadDate, channelName: metadata.channelName, channelURL: metadata.channelURL)
    }
}

/// What names a page saved by its URL, as the backend names saved videos: its platform and the
/// platform's id for it (a YouTube video id, a Rumble `v…` token); any other page is `web`,
/// named by its URL (so saving it twice finds the first).
struct SavedPageIdentity: Equatable {
    var platform: String
    var videoID: String

    /// Whether `url` is a YouTube or Rumble video's page (its id read from it), not a channel's
    /// or any other page.
    func namesAVideo(_ url: String) -> Bool { platform != "web" && videoID != url }

    init(url: String) {
        let parts = URLComponents(string: url)
        let path = (parts?.path ?? "").split(separator: "/").map(String.init)
        switch Platform.pagePlatform(ofURL: url) {
        case .youtube?:
            let host = parts?.host?.lowercased() ?? ""
            let id = host == "youtu.be" ? path.first
                : parts?.queryItems?.first(where: { $0.name == "v" })?.value
                ?? (path.count >= 2 && ["shorts", "live", "embed"].contains(path[0]) ? path[1] : nil)
            platform = "youtube"; videoID = id ?? url
        case .rumble?:
            let token = path.first.flatMap { $0.hasPrefix("v") ? String($0.prefix { $0 != "-" && $0 != "." }) : nil }
            platform = "rumble"; videoID = token ?? url
        default:
            platform = "web"; videoID = url
        }
    }
}
