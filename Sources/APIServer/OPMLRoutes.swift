import FeedIngest
import FeedModel
import HTTPFetch
import FeedParsing
import Hummingbird
import LibraryStore

/// OPML 2.0 under both subscription names: `GET /api/subscriptions/opml` exports (as `channel
/// export`), `POST` with an OPML document imports (as `channel import`: new feeds recorded in
/// the file's order, then synced; feeds already subscribed are skipped) and answers the
/// backend's `ImportResult`. Feed URLs on local addresses are refused one by one, as `add` does.
struct OPMLRoutes {
    let clock: @Sendable () -> Int64
    /// The server's fetcher (`APIServer.fetcher`: public addresses only, unless --allow-private-feeds).
    let fetcher: Fetcher
    let policy: FeedURLPolicy

    func add(to group: RouterGroup<APIRequestContext>) {
        for base in ["subscriptions", "channels"] {
            group.get(RouterPath("\(base)/opml")) { _, context in try await export(context) }
            group.post(RouterPath("\(base)/opml")) { request, context in try await importOPML(request, context) }
        }
    }

    func export(_ context: APIRequestContext) async throws -> Response {
        try await Self.exportResponse(try context.library(), now: clock())
    }

    /// The user's subscriptions as an OPML attachment (`/api/account/export.opml` answers it too).
    static func exportResponse(_ library: any ChannelStore, now: Int64) async throws -> Response {
        let text = try await FeedRoutes.library { () async throws(LibraryError) in try await OPMLSubscriptions.export(library, now: now) }
        var headers = HTTPFields()
        headers[.contentType] = "text/x-opml; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"feedctl-subscriptions.opml\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func importOPML(_ request: Request, _ context: APIRequestContext) async throws -> ImportResultResponse {
        let library = try context.library()
        let body = try await RequestBody.bytes(request, context: context)
        let feeds: [OPMLFeed]
        do {
            feeds = try OPML.parse(Array(body.readableBytesView), file: "the request body")
        } catch {
            throw APIError.unprocessable(error.description)
        }
        // A document without one feed outline is refused, not "imported 0": it is not what was meant.
        guard !feeds.isEmpty else { throw APIError.unprocessable("the OPML document names no feeds (no outline with an xmlUrl)") }
        try SubscriptionRoutes.checkImportSize(feeds.count, "the OPML document")
        var errors: [String] = []
        let allowed = feeds.filter { feed in
            guard let refusal = policy.refusal(for: feed.xmlURL) else { return true }
            errors.append(refusal)
            return false
        }
        let (channels, known) = try await FeedRoutes.library { () async throws(LibraryError) in
            try await OPMLSubscriptions.newChannels(allowed, in: library, reach: policy.reach)
        }
        try await SubscriptionRoutes.checkCap(library, adding: channels.count)
        let report = await Syncer(store: library, reach: policy.reach, fetcher: fetcher).subscribe(channels, now: clock())
        var added: [ChannelResponse] = []
        for result in report.channels where result.id > 0 {
            if let response = try? await SubscriptionRoutes.response(result.id, library) { added.append(response) }
        }
        errors += report.channels.compactMap(\.error)
        return ImportResultResponse(imported: added.count, skipped: known, failed: feeds.count - known - added.count,
                                    channels: added, errors: errors)
    }
}

/// The backend's `ImportResult`. A feed that could not be fetched is subscribed still (with
/// its error, for later syncs, as `channel import` keeps it): it counts as imported, and its
/// error is listed.
struct ImportResultResponse: ResponseEncodable, Sendable {
    var imported: Int
    var skipped: Int
    var failed: Int
    var channels: [ChannelResponse]
    var errors: [String]
}
