import Accounts
import FeedIngest
import FeedModel
import Foundation
import HTTPFetch
import Hummingbird
import LibraryStore

/// The gpodder.net API v2 that AntennaPod, gPodder and Kasts sync with, over the same library:
/// a subscription added on a phone is subscribed through `channel add`'s own path (the feed is
/// fetched), a removal unsubscribes, and the subscriptions are the user's whatever the device;
/// episode actions move the user's progress and watched marks (`EpisodeActionStore`). Mounted
/// whatever the server's mode, behind `GPodderAuth` (never `--open`'s owner).
struct GPodderRoutes {
    let auth: GPodderAuth
    let clock: @Sendable () -> Int64
    /// The server's fetcher (public addresses only, unless --allow-private-feeds).
    let fetcher: Fetcher
    let policy: FeedURLPolicy
    let youTubeOrigin: String

    func add(to router: Router<APIRequestContext>) {
        let api = router.group("api/2")
        api.post("auth/{user}/login.json") { request, context in
            try await respond(request, context) { user in try await login(user, request) }
        }
        api.post("auth/{user}/logout.json") { request, context in
            try await respond(request, context) { user in try await logout(user) }
        }
        api.get("devices/{user}.json") { request, context in
            try await respond(request, context) { user in try await json(devices(user)) }
        }
        api.post("devices/{user}/{device}.json") { request, context in
            try await respond(request, context) { user in try await saveDevice(user, try deviceID(context), request, context) }
        }
        api.get("subscriptions/{user}/{device}.json") { request, context in
            try await respond(request, context) { user in try await json(pullSubscriptions(user, try deviceID(context), request)) }
        }
        api.post("subscriptions/{user}/{device}.json") { request, context in
            try await respond(request, context) { user in
                try await json(uploadSubscriptions(user, try deviceID(context), request, context))
            }
        }
        api.get("episodes/{user}.json") { request, context in
            try await respond(request, context) { user in try await json(pullActions(user, request)) }
        }
        api.post("episodes/{user}.json") { request, context in
            try await respond(request, context) { user in try await json(uploadActions(user, request, context)) }
        }
    }

    /// Authenticates, then runs `body`; a refusal is answered with its Basic challenge.
    private func respond(_ request: Request, _ context: APIRequestContext,
                         _ body: (GPodderUser) async throws -> Response) async throws -> Response {
        let pathUser = context.parameters.get("user").map { $0.removingPercentEncoding ?? $0 }
        do {
            let user = try await auth.user(request, address: context.peerAddress ?? "unknown", pathUser: pathUser)
            var response = try await body(user)
            if let cookie = user.setCookie, response.headers[.setCookie] == nil { response.headers[.setCookie] = cookie }
            return response
        } catch let refusal as GPodderRefusal {
            return refusal.response
        }
    }

    // MARK: Auth

    /// Signed in: a Basic sign-in's answer carries the `sessionid` cookie (HttpOnly,
    /// SameSite=Lax) that later calls may send instead (`respond` adds it).
    func login(_ user: GPodderUser, _ request: Request) async throws -> Response {
        Response(status: .ok)
    }

    /// Ends the session the request is signed in with, and clears the cookie.
    func logout(_ user: GPodderUser) async throws -> Response {
        if let id = user.sessionID {
            let users = try users()
            try await FeedRoutes.library { () async throws(LibraryError) in try await users.revokeSession(id: id) }
            auth.forget(session: id)
        }
        var headers = HTTPFields()
        headers[.setCookie] = SessionCookie.clear(named: "sessionid", secure: auth.secure)
        return Response(status: .ok, headers: headers)
    }

    private func users() throws -> any UserStore {
        guard let accounts = auth.accounts else { throw APIError.unauthorized }
        return accounts.users
    }

    // MARK: Devices

    func devices(_ user: GPodderUser) async throws -> [GPodderDevice] {
        let library = user.library
        let (devices, channels) = try await FeedRoutes.library { () async throws(LibraryError) in
            (try await library.syncDevices(), try await library.allChannels())
        }
        return devices.map { GPodderDevice(id: $0.id, caption: $0.caption, type: $0.type.rawValue, subscriptions: channels.count) }
    }

    /// 200 with an empty body (mygpoclient reads an empty answer as success).
    func saveDevice(_ user: GPodderUser, _ device: String, _ request: Request, _ context: APIRequestContext) async throws -> Response {
        let body = try await RequestBody.decode(GPodderDeviceBody.self, request, context: context, emptyAs: GPodderDeviceBody(), anyType: true)
        var type: SyncDeviceType?
        if let text = body.type {
            guard let known = SyncDeviceType(rawValue: text.lowercased()) else {
                throw APIError.badRequest("type must be one of \(SyncDeviceType.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\"")
            }
            type = known
        }
        let library = user.library, now = clock()
        try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.saveSyncDevice(id: device, caption: body.caption, type: type, now: now)
        }
        return Response(status: .ok)
    }

    /// A device is known once it syncs, as gpodder.net creates it on first use.
    private func register(_ device: String, _ library: any GPodderLibrary) async throws {
        let now = clock()
        try await FeedRoutes.library { () async throws(LibraryError) in
            if try await library.syncDevices().contains(where: { $0.id == device }) { return }
            try await library.saveSyncDevice(id: device, caption: nil, type: nil, now: now)
        }
    }

    // MARK: Subscriptions

    func pullSubscriptions(_ user: GPodderUser, _ device: String, _ request: Request) async throws -> GPodderSubscriptionChanges {
        let since = try QueryParameters(request).value(.since)
        try await register(device, user.library)
        let library = user.library
        let changes = try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.subscriptionChanges(since: Int64(since))
        }
        return GPodderSubscriptionChanges(add: changes.added, remove: changes.removed, timestamp: changes.timestamp)
    }

    /// Adds subscribe through `channel add`'s path (fetched now); a feed that cannot be fetched
    /// stays subscribed with its error for later syncs (as `channel import` keeps it). A URL
    /// the server refuses (not http(s), a local address) comes back in `update_urls` as
    /// `[url, ""]`, one stored under another URL (a redirect, a YouTube page) as `[url, feed]`.
    func uploadSubscriptions(_ user: GPodderUser, _ device: String, _ request: Request,
                             _ context: APIRequestContext) async throws -> GPodderUploadResult {
        let body = try await RequestBody.decode(GPodderSubscriptionDelta.self, request, context: context, anyType: true)
        let add = (body.add ?? []).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let remove = (body.remove ?? []).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let both = add.first(where: Set(remove).contains) {
            throw APIError.badRequest("\(both) is both added and removed")
        }
        try SubscriptionRoutes.checkImportSize(add.count, "the upload")
        var unknown = 0
        for url in add where try await FeedRoutes.library({ () async throws(LibraryError) in try await user.library.channel(feedURL: url) }) == nil {
            unknown += 1
        }
        try await SubscriptionRoutes.checkCap(user.library, adding: unknown)
        try await register(device, user.library)
        let library = user.library
        var updates: [[String]] = []
        for url in add {
            if let stored = try await subscribe(url, library) {
                if stored != url { updates.append([url, stored]) }
            } else {
                updates.append([url, ""])
            }
        }
        for url in remove {
            let channels = try await FeedRoutes.library { () async throws(LibraryError) in try await library.allChannels() }
            for channel in channels where channel.feedURL == url || channel.sourceURL == url {
                try await FeedRoutes.library { () async throws(LibraryError) in _ = try await library.removeChannel(id: channel.id) }
            }
        }
        let timestamp = try await FeedRoutes.library { () async throws(LibraryError) in try await library.syncClock() }
        return GPodderUploadResult(timestamp: timestamp, updateURLs: updates)
    }

    /// The feed URL `url` is subscribed as, or nil when it is refused.
    private func subscribe(_ url: String, _ library: any GPodderLibrary) async throws -> String? {
        guard url.utf8.count <= FieldLimits.maxURLBytes, policy.refusal(for: url) == nil,
              let target = SubscriptionURL.classify(url) else { return nil }
        if let known = try await FeedRoutes.library({ () async throws(LibraryError) in try await library.channel(feedURL: url) }) {
            return known.feedURL
        }
        let now = clock()
        do throws(SyncError) {
            let added = try await Subscriber(syncer: Syncer(store: library, reach: policy.reach, fetcher: fetcher), youTubeOrigin: youTubeOrigin).add(url, now: now)
            return added.first?.channel.feedURL
        } catch {
            // A feed that cannot be fetched now stays subscribed with its error, to be retried
            // (as `channel import` keeps one); what is not a feed URL is refused.
            guard case .feed(let feedURL) = target else { return nil }
            let feed = NewChannel(platform: Platform(guessingFrom: feedURL), sourceURL: url, feedURL: feedURL, name: feedURL, reach: policy.reach)
            do throws(LibraryError) {
                _ = try await Syncer(store: library, reach: policy.reach, fetcher: fetcher).subscribe(feed, failedWith: error, now: now)
                return feedURL
            } catch {
                return nil
            }
        }
    }

    // MARK: Episode actions

    func pullActions(_ user: GPodderUser, _ request: Request) async throws -> GPodderActionChanges {
        let query = QueryParameters(request)
        let since = try query.value(.since)
        let aggregated = try query.bool("aggregated") ?? false
        let asked = EpisodeActionQuery(since: Int64(since), podcast: query.string("podcast"), device: query.string("device"),
                                       aggregated: aggregated)
        let library = user.library
        let (actions, timestamp) = try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.episodeActions(asked)
        }
        return GPodderActionChanges(actions: actions.map(GPodderAction.init), timestamp: timestamp)
    }

    /// All or nothing: one malformed action refuses the upload (400 naming it), so a client
    /// never half-uploads and loses the rest.
    func uploadActions(_ user: GPodderUser, _ request: Request, _ context: APIRequestContext) async throws -> GPodderUploadResult {
        let wire = try await RequestBody.decode([GPodderAction].self, request, context: context, anyType: true)
        let now = clock()
        var actions: [EpisodeAction] = []
        for (index, action) in wire.enumerated() { actions.append(try action.episodeAction(index: index, now: now).get()) }
        for device in Set(actions.compactMap(\.device)).sorted() { try await register(device, user.library) }
        let library = user.library
        let timestamp = try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.recordEpisodeActions(actions, now: now)
        }
        return GPodderUploadResult(timestamp: timestamp, updateURLs: [])
    }

    // MARK: Helpers

    private func deviceID(_ context: APIRequestContext) throws(APIError) -> String {
        let text = context.parameters.get("device").map { $0.removingPercentEncoding ?? $0 } ?? ""
        guard let id = SyncRule.validDeviceID(text) else {
            throw .badRequest("a device id is 1 to \(SyncRule.maxDeviceIDBytes) letters, digits, dots, dashes or underscores, not \"\(text)\"")
        }
        return id
    }

    private func json(_ value: some Encodable) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let data = try APIRequestContext.encoder.encode(value)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
