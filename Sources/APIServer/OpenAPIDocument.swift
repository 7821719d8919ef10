import AccountExport
import FeedModel
import Foundation
import LibraryStore

/// `/api/openapi.json`: OpenAPI 3.1 for every route, written here by hand (a table per route,
/// shapes once under components). `OpenAPITests` checks it against the routes the router
/// serves, both ways, so a route added without its entry (or the reverse) fails the suite, and
/// probes the server with what the document allows and forbids: the bounds and values it states
/// are the server's (an integer query parameter's are the `IntParameter` its route reads, a
/// field's are its rule's constant), and every status the server answered is listed.
enum OpenAPIDocument {
    /// One operation: method, path (`{id}` for parameters), what it does, its query parameters,
    /// its body's schema and its answer's; `also` lists answers beyond those every route of its
    /// kind has (`errors(for:)`).
    struct Operation {
        var method: String
        var path: String
        var summary: String
        var query: [QueryParameter] = []
        var body: String? = nil
        var response: String? = nil
        var status = "200"
        var also: [String: String] = [:]
        /// Answers an HTML page, not JSON.
        var html = false
        /// Answers media bytes (audio), not JSON.
        var media = false
        /// Its 409 has this body, not an `Error`.
        var conflictResponse: String? = nil
        /// Answers an RSS feed, not JSON.
        var rss = false
    }

    /// A query parameter as documented: a whole number as its route reads it (`IntParameter`),
    /// or text (the values its route takes, when it takes only some), or true/false.
    indirect enum QueryParameter: Sendable {
        case int(IntParameter)
        case text(String, String, values: [String]? = nil, format: String? = nil, pattern: String? = nil)
        case bool(String, String)
        /// One the route cannot do without (422 when it is missing).
        case required(QueryParameter)

        var name: String {
            switch self {
            case .int(let parameter): parameter.name
            case .text(let name, _, _, _, _), .bool(let name, _): name
            case .required(let parameter): parameter.name
            }
        }

        var about: String {
            switch self {
            case .int(let parameter): "\(parameter.about): \(parameter.bounds), default \(parameter.defaultValue)"
            case .text(_, let about, _, _, _), .bool(_, let about): about
            case .required(let parameter): parameter.about
            }
        }

        var isRequired: Bool { if case .required = self { true } else { false } }

        var schema: [String: Any] {
            switch self {
            case .required(let parameter):
                var schema = parameter.schema
                schema["default"] = nil
                return schema
            case .int(let parameter):
                return ["type": "integer", "minimum": parameter.range.lowerBound, "maximum": parameter.range.upperBound,
                        "default": parameter.defaultValue]
            case .text(_, _, let values, let format, let pattern):
                var schema: [String: Any] = ["type": "string"]
                if let values { schema["enum"] = values }
                if let format { schema["format"] = format }
                if let pattern { schema["pattern"] = pattern }
                return schema
            case .bool:
                return ["type": "boolean"]
            }
        }
    }

    static let audioSummary = "What an <audio> element plays for the item (cookie or bearer auth): a downloaded episode from "
        + "its file, anything else proxied from its media host (YouTube and Rumble resolved with yt-dlp), with Range support "
        + "(206 and Content-Range); at most \(AudioProxyLimits.streamsPerUser) proxied streams per user and "
        + "\(AudioProxyLimits.streams) in all"
    static let audioAnswers = [
        "206": "the range asked for (Range: bytes=first-last, first- or -suffix; Content-Range says which)",
        "416": "the range is past the media's end (Content-Range: bytes */SIZE for a downloaded file)",
        "429": "this user has \(AudioProxyLimits.streamsPerUser) proxied streams open already (Retry-After)",
        "502": "the media host failed or refused (an HTTP error, a local address it may not reach, yt-dlp failed)",
        "503": "the server proxies \(AudioProxyLimits.streams) streams already (Retry-After)",
        "504": "the media host did not answer in time",
    ]

    /// What single sign-on's start routes answer besides success.
    static let signOnAnswers = [
        "404": "single sign-on is not configured on this server (or it runs with --open)",
        "502": "the OpenID provider could not be reached, or its discovery document is not usable",
    ]
    /// What a published collection's link may answer besides its collection.
    static let shared = ["404": "no collection was published at this link", "410": "its owner withdrew it (for good)"]

    static let filter = QueryParameter.text("filter", "which items by watch state", values: WatchFilter.allCases.map(\.rawValue))
    static let platform = QueryParameter.text("platform", "only this platform", values: Platform.allCases.map(\.rawValue))
    /// Ids separated by commas, each a positive 64-bit integer.
    static let idList = "^ *[1-9][0-9]{0,17}( *, *[1-9][0-9]{0,17})* *$"

    static func operations() -> [Operation] {
        var ops: [Operation] = [
            Operation(method: "get", path: "/", summary: "A page for a browser: what this server is, where this document is (public)", html: true),
            Operation(method: "get", path: "/health", summary: "Liveness and version (public)", response: "Health"),
            Operation(method: "get", path: "/api/health", summary: "Liveness and version (public)", response: "Health"),
            Operation(method: "get", path: "/api/auth/mode", summary: "open (no login) or protected, and the single sign-on button when there is one (public)", response: "AuthMode"),
            Operation(method: "get", path: "/api/openapi.json", summary: "This document (public)"),
            Operation(method: "post", path: "/api/auth/login",
                      summary: "Log in with {username, password} or {username, pin, device_name}: the token, also as the session_token cookie; 200 with success false when wrong, 429 with Retry-After after too many failures (public)",
                      body: "LoginBody", response: "LoginResponse"),
            Operation(method: "post", path: "/api/auth/logout", summary: "End the session the request's token belongs to, clear the cookie (public)",
                      response: "Success"),
            Operation(method: "get", path: "/api/auth/me", summary: "Whom the request's token is for (public)", response: "CurrentUser"),
            Operation(method: "post", path: "/api/auth/session/validate", summary: "Whether the request's token is live (public)", response: "Valid"),
            Operation(method: "get", path: "/api/auth/oidc/login",
                      summary: "Single sign-on from the web app: to the OpenID provider (Location), with a cookie tying the sign-in to this browser (public)",
                      query: [.text("next", "a path of this server to come back to once signed in (default /feed)")], status: "303",
                      also: signOnAnswers),
            Operation(method: "get", path: "/api/auth/oidc/mobile/login",
                      summary: "Single sign-on from a phone app: the provider's URL to open; the callback sends the app to redirect_uri?token=TOKEN (public)",
                      query: [.required(.text("redirect_uri", "one of the server's oidc.mobile_redirect_uris (400 otherwise)"))],
                      response: "AuthURL", also: signOnAnswers),
            Operation(method: "get", path: "/api/auth/oidc/callback",
                      summary: "Where the provider sends the person back: signed in, to the web app's page with the session cookie or to the app's URI with its token; refused, to the login page with sso_error or to the app's URI with error (public)",
                      query: [.text("code", "the provider's authorization code"), .text("state", "the sign-in's state"),
                              .text("error", "the provider's refusal"), .text("error_description", "its words")],
                      status: "303", also: ["404": signOnAnswers["404"] ?? ""]),
            Operation(method: "get", path: "/api/users", summary: "Users: every one for an admin, else yourself", response: "UserList"),
            Operation(method: "post", path: "/api/users", summary: "Add a user (admin only: 403 otherwise; 409 when the name is taken)",
                      body: "CreateUserBody", response: "User"),
            Operation(method: "get", path: "/api/users/{id}", summary: "One user (yourself, or anyone for an admin)", response: "User"),
            Operation(method: "delete", path: "/api/users/{id}",
                      summary: "Remove another user with everything of theirs (admin only; never the owner or the last admin: 409; your own account: DELETE /api/account)",
                      response: "Success"),
            Operation(method: "put", path: "/api/users/{id}/pin", summary: "Set or clear a password (yourself with current_pin, or an admin)",
                      body: "SetPinBody", response: "SetPinResponse"),
            Operation(method: "get", path: "/api/account/export",
                      summary: "Everything that is yours, as one JSON document (a versioned shape, streamed as it is read; an attachment)",
                      response: "AccountExport"),
            Operation(method: "get", path: "/api/account/export.opml", summary: "Your subscriptions as OPML 2.0 (text/x-opml; an attachment)"),
            Operation(method: "get", path: "/api/account/reauthentication",
                      summary: "How you prove who you are before deleting your account (proof: password, single_sign_on, username or none) and, with single sign-on, whether this session did so recently",
                      response: "Reauthentication"),
            Operation(method: "post", path: "/api/auth/oidc/reauthenticate",
                      summary: "Prove again who you are at the single sign-on provider (it asks you to sign in again): the provider's URL to send the browser to, with a cookie tying it to this browser; its callback marks this session re-authenticated and sends the browser back to next?reauthenticated=1",
                      query: [.text("next", "a path of this server to come back to (default /settings)")], response: "AuthURL",
                      also: ["404": signOnAnswers["404"] ?? "", "409": "your account is not linked to an account at the provider",
                             "502": signOnAnswers["502"] ?? ""]),
            Operation(method: "delete", path: "/api/account",
                      summary: "Delete your account and everything of yours, proving who you are again: {password}; with single sign-on and no password, a recent POST /api/auth/oidc/reauthenticate from this session (no body); {username} when you have neither; your sessions and event streams end",
                      body: "DeleteAccountBody", response: "Success",
                      also: ["403": "the password (or the user name typed) is wrong, or no recent re-authentication at the provider: nothing was deleted (or a request from another site)",
                             "409": "the library's owner or its last admin cannot be removed",
                             "429": "too many wrong passwords for this user (Retry-After)"]),
            Operation(method: "get", path: "/api/sessions", summary: "Your own live login sessions (current: this request's)", response: "SessionList"),
            Operation(method: "delete", path: "/api/sessions/{id}", summary: "End one of your sessions (its next request gets 401)", status: "204"),
            Operation(method: "get", path: "/api/feed", summary: "A page of the feed", query: [
                filter, platform, .text("channel_ids", "channel ids, comma-separated", pattern: idList),
                .int(.page), .int(.perPage), .text("since", "ISO 8601: published at or after", format: "date-time"),
                .text("mode", "a feed mode (the guide's spellings, Catch Up, Short Form…, are taken too)", values: FeedSelection.modeNames),
                .text("sort_by", "the order", values: FeedSelection.orderNames),
                .int(.durationMin), .int(.durationMax),
                .text("search", "words to find in titles, show notes and channel names, best match first (with platform, filter and one channel only)"),
            ], response: "FeedResponse"),
            Operation(method: "get", path: "/api/feed/items/{id}", summary: "One item, with its show notes as sanitized HTML, its chapters, transcript link and download state",
                      response: "FeedItemDetail"),
            Operation(method: "get", path: "/api/items/{id}/audio", summary: audioSummary, also: audioAnswers, media: true),
            Operation(method: "head", path: "/api/items/{id}/audio", summary: "The audio's head: type, length, range", also: audioAnswers,
                      media: true),
            Operation(method: "get", path: "/api/feed/history", summary: "Played items, latest play first", query: [
                .int(.page), .int(.perPage), .bool("include_completed", "default true"),
            ], response: "FeedResponse"),
            Operation(method: "get", path: "/api/feed/by-channel", summary: "Recent items grouped by channel", query: [
                filter, platform, .int(.maxPerChannel),
            ], response: "ChannelGroupedFeedResponse"),
            Operation(method: "post", path: "/api/feed/sync", summary: "Sync the active channels now", query: [platform],
                      response: "SyncResultList"),
            Operation(method: "put", path: "/api/feed/items/{id}/watched", summary: "Mark watched (the backend's form)", body: "ProgressBody", response: "FeedItem"),
            Operation(method: "put", path: "/api/feed/items/{id}/unwatched", summary: "Mark unwatched (the backend's form)", response: "FeedItem"),
            Operation(method: "put", path: "/api/feed/items/{id}/progress", summary: "Set progress (the backend's form)",
                      query: [.required(.int(.progressSeconds))], response: "FeedItem"),
            Operation(method: "patch", path: "/api/feed/{id}/watched", summary: "Mark watched or not (the iOS guide's form)", body: "WatchedBody", response: "FeedItem"),
            Operation(method: "patch", path: "/api/feed/{id}/progress", summary: "Set progress (the iOS guide's form)", body: "GuideProgressBody", response: "FeedItem"),
            Operation(method: "post", path: "/api/discover/search",
                      summary: "Search every discovery provider at once (type videos: VideoSearchResponse; channels: ChannelSearchResponse)",
                      body: "SearchBody", response: "DiscoverSearchResponse"),
            Operation(method: "get", path: "/api/discover/platforms", summary: "The discovery providers", response: "PlatformList"),
            Operation(method: "post", path: "/api/discover/quick-save", summary: "Save the video a URL names (201), else follow the channel it names (201; 200 when already followed)",
                      body: "QuickSaveBody", response: "QuickSaveResponse", status: "201"),
            Operation(method: "get", path: "/api/player", summary: "The player's status (the status contract)", response: "PlayerStatus"),
            Operation(method: "get", path: "/api/player/queue", summary: "The up-next queue", response: "QueueResponse"),
            Operation(method: "get", path: "/api/player/events", summary: "Server-sent events: `event: KIND`, `data: PlayerStatus`"),
            Operation(method: "get", path: "/api/events",
                      summary: "The signed-in user's changes by anyone (watch, saved, collection, subscription, sync) as server-sent events: `id: SEQ`, `event: KIND`, `data: JSON`; `Last-Event-ID` resumes (`event: reset` when too old); `: keepalive` every 15 s",
                      also: ["429": "too many event streams open for this user", "503": "the server holds its most event streams"]),
            Operation(method: "post", path: "/api/player/play", summary: "Play a library item or an http(s) URL (starts the daemon)", body: "PlayBody", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/pause", summary: "Pause", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/resume", summary: "Resume (starts the daemon)", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/stop", summary: "Stop", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/seek", summary: "Seek to position or by offset (seconds)", body: "SeekBody", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/speed", summary: "Set the speed (0.5–3)", body: "SpeedBody", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/volume", summary: "Set the volume (0–1)", body: "VolumeBody", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/queue", summary: "Add to the up-next queue", body: "QueueBody", response: "QueueResponse"),
            Operation(method: "get", path: "/api/saved-videos", summary: "Saved videos, most recently saved first", query: [
                .text("platform", "youtube, rumble, podcast, web, or a platform a client saved with"),
                .bool("is_watched", "only (un)watched"), .int(.limit), .int(.offset),
            ], response: "SavedVideoList"),
            Operation(method: "post", path: "/api/saved-videos",
                      summary: "Save: the guide's {video_url} (a library item's page or media URL, else the page is read) or the backend's full body; 201, the first save when saved before",
                      body: "SaveVideoBody", response: "SavedVideo", status: "201"),
            Operation(method: "post", path: "/api/saved-videos/from-url", summary: "Save by URL (the library's item, else the page is read); 201",
                      body: "SaveFromURLBody", response: "SavedVideo", status: "201"),
            Operation(method: "get", path: "/api/saved-videos/stats", summary: "Counts of saved videos", response: "SavedVideoStats"),
            Operation(method: "get", path: "/api/saved-videos/check", summary: "Whether a video is saved", query: [
                .required(.text("platform", "the platform it was saved with")), .required(.text("video_id", "its id there")),
            ], response: "SavedVideoCheck"),
            Operation(method: "get", path: "/api/saved-videos/{id}", summary: "One saved video", response: "SavedVideo"),
            Operation(method: "put", path: "/api/saved-videos/{id}", summary: "Set notes, is_watched, watch_progress_seconds",
                      body: "UpdateSavedVideoBody", response: "SavedVideo"),
            Operation(method: "put", path: "/api/saved-videos/{id}/watched", summary: "Mark watched",
                      query: [.int(.progressSeconds)], response: "SavedVideo"),
            Operation(method: "put", path: "/api/saved-videos/{id}/unwatched", summary: "Mark unwatched", response: "SavedVideo"),
            Operation(method: "put", path: "/api/saved-videos/{id}/progress", summary: "Set progress",
                      query: [.required(.int(.progressSeconds))], response: "SavedVideo"),
            Operation(method: "delete", path: "/api/saved-videos/{id}", summary: "Unsave (the item stays in the library)", status: "204"),
            Operation(method: "get", path: "/api/queue", summary: "The user's up-next queue (the library's: the CLI's and the daemon's too)", response: "Queue"),
            Operation(method: "post", path: "/api/queue", summary: "Queue a library item at the end, or next; a queued item stays where it is (next: moves to the front)",
                      body: "QueueAddBody", response: "Queue"),
            Operation(method: "put", path: "/api/queue/{id}", summary: "Move queue entry {id} to a 1-based position", body: "QueueMoveBody", response: "Queue"),
            Operation(method: "delete", path: "/api/queue/{id}", summary: "Remove queue entry {id}", response: "Queue"),
            Operation(method: "delete", path: "/api/queue", summary: "Empty the queue", response: "Queue"),
            Operation(method: "get", path: "/api/collections", summary: "Collections, by sort order then name", response: "CollectionList"),
            Operation(method: "post", path: "/api/collections", summary: "Create a collection (409 on a duplicate name)",
                      body: "CreateCollectionBody", response: "Collection", status: "201"),
            Operation(method: "post", path: "/api/collections/quick-add", summary: "Add a library item to Favorites (made when missing); 409 if there",
                      body: "AddCollectionItemBody", response: "CollectionItem", status: "201"),
            Operation(method: "get", path: "/api/collections/export/{id}", summary: "A collection and its items as a JSON attachment",
                      response: "CollectionExport"),
            Operation(method: "get", path: "/api/collections/{id}", summary: "A collection with its items", response: "CollectionWithItems"),
            Operation(method: "put", path: "/api/collections/{id}", summary: "Rename, describe or sort a collection",
                      body: "UpdateCollectionBody", response: "Collection"),
            Operation(method: "delete", path: "/api/collections/{id}", summary: "Delete a collection (its items stay in the library)", status: "204"),
            Operation(method: "post", path: "/api/collections/{id}/items", summary: "Add a library item (by its page or media url, or item_id); 409 if there",
                      body: "AddCollectionItemBody", response: "CollectionItem", status: "201"),
            Operation(method: "post", path: "/api/collections/{id}/items/reorder", summary: "Put these items first, in this order",
                      body: "ReorderBody", status: "204"),
            Operation(method: "delete", path: "/api/collections/{id}/items/{item_id}", summary: "Remove an item", status: "204"),
            Operation(method: "put", path: "/api/collections/{id}/items/{item_id}/watched", summary: "Mark the item watched or not",
                      body: "CollectionWatchedBody", response: "CollectionItem"),
            Operation(method: "put", path: "/api/collections/{id}/items/{item_id}/progress", summary: "Set the item's progress",
                      body: "CollectionProgressBody", response: "CollectionItem"),
            Operation(method: "get", path: "/api/collections/{id}/available-targets",
                      summary: "The other collections, each saying whether it holds any of this one's items", response: "AvailableTargets"),
            Operation(method: "post", path: "/api/collections/bulk-operation",
                      summary: "Copy or move items (a channel or collection stands for its items) in one transaction: duplicates skipped and counted, items not found listed",
                      body: "BulkOperationBody", response: "BulkOperationResponse"),
            Operation(method: "get", path: "/api/collections/{id}/publish", summary: "Whether the collection is published, and its links",
                      response: "Publication"),
            Operation(method: "post", path: "/api/collections/{id}/publish",
                      summary: "Publish the collection: its page, RSS and JSON links (a published one keeps its links)", response: "Publication"),
            Operation(method: "post", path: "/api/collections/{id}/unpublish",
                      summary: "Withdraw the collection's links for good (they answer 410; publishing again makes new ones); 404 when not published",
                      response: "Publication"),
            Operation(method: "get", path: "/api/followed-collections", summary: "The collections you follow (read-only), by name",
                      response: "FollowedCollectionList"),
            Operation(method: "post", path: "/api/followed-collections",
                      summary: "Follow a published collection by its link (this server's, or another feedctl server's)",
                      body: "FollowBody", response: "FollowedCollection", status: "201",
                      also: ["409": "you follow it already, or it is your own", "410": "its owner withdrew it",
                             "502": "the other server could not be read, or did not answer a published collection"]),
            Operation(method: "get", path: "/api/followed-collections/{id}", summary: "A followed collection with its items (none once withdrawn)",
                      response: "FollowedCollectionWithItems"),
            Operation(method: "delete", path: "/api/followed-collections/{id}", summary: "Stop following it", status: "204"),
            Operation(method: "get", path: "/shared/{token}", summary: "A published collection's page, read-only (public; 410 once withdrawn)",
                      also: shared, html: true),
            Operation(method: "get", path: "/shared/{token}/feed.xml",
                      summary: "A published collection as a podcast feed: RSS 2.0 with enclosures and iTunes tags (public; 410 once withdrawn)",
                      also: shared, rss: true),
            Operation(method: "get", path: "/api/shared/{token}", summary: "A published collection as JSON (public; 410 once withdrawn)",
                      response: "SharedCollection", also: shared),
        ]
        for operation in CollectionTransfer.Operation.allCases {
            ops.append(Operation(method: "post", path: "/api/collections/{id}/items/{item_id}/\(operation.rawValue)",
                                 summary: "\(operation.rawValue.capitalized) the item to another collection; 409 (the same shape, duplicate true) if it is there",
                                 body: "TransferItemBody", response: "TransferItemResponse", conflictResponse: "TransferItemResponse"))
        }
        for (base, form) in [("subscriptions", "the iOS guide's name"), ("channels", "the backend's name")] {
            ops += [
                Operation(method: "get", path: "/api/\(base)",
                          summary: "Subscriptions by name (\(form)): all of them, or one page when page or per_page is given (then with page, per_page and has_more)",
                          query: [platform, .bool("is_active", "only (in)active channels"), .int(.page), .int(.perPage)], response: "ChannelList"),
                Operation(method: "post", path: "/api/\(base)",
                          summary: "Subscribe: 201, or 200 with the channel already subscribed (\(form)); 422 past \(SubscriptionRule.maxPerUser) subscriptions",
                          body: "AddChannelBody", response: "Channel", status: "201", also: ["200": "subscribed already: synced"]),
                Operation(method: "get", path: "/api/\(base)/{id}", summary: "One channel", response: "Channel"),
                Operation(method: "put", path: "/api/\(base)/{id}", summary: "Pause or resume polling (is_active); the channel's playback speed (speed)", body: "UpdateChannelBody", response: "Channel"),
                Operation(method: "delete", path: "/api/\(base)/{id}", summary: "Unsubscribe: its items go (but those in collections), history stays", status: "204"),
                Operation(method: "post", path: "/api/\(base)/{id}/sync", summary: "Sync one channel now", response: "SyncResult"),
                Operation(method: "get", path: "/api/\(base)/opml", summary: "Export OPML 2.0 (text/x-opml)"),
                Operation(method: "post", path: "/api/\(base)/opml",
                          summary: "Import an OPML document (the body): at most \(SubscriptionRule.maxPerImport) feeds, and \(SubscriptionRule.maxPerUser) subscriptions in all (422 past either)",
                          response: "ImportResult", also: ["413": "body over 1 MiB"]),
            ]
        }
        // gpodder.net API v2 (AntennaPod, gPodder, Kasts): HTTP Basic or the `sessionid` cookie.
        ops += [
            Operation(method: "post", path: "/api/2/auth/{user}/login.json", summary: "gpodder: Basic → a `sessionid` cookie"),
            Operation(method: "post", path: "/api/2/auth/{user}/logout.json", summary: "gpodder: end the cookie's session"),
            Operation(method: "get", path: "/api/2/devices/{user}.json", summary: "gpodder: the user's devices", response: "GPodderDeviceList"),
            Operation(method: "post", path: "/api/2/devices/{user}/{device}.json", summary: "gpodder: create or update a device (empty answer)",
                      body: "GPodderDeviceBody"),
            Operation(method: "get", path: "/api/2/subscriptions/{user}/{device}.json", summary: "gpodder: subscriptions added and removed since",
                      query: [.int(.since)], response: "GPodderSubscriptionChanges"),
            Operation(method: "post", path: "/api/2/subscriptions/{user}/{device}.json", summary: "gpodder: add and remove subscriptions",
                      body: "GPodderSubscriptionDelta", response: "GPodderUploadResult"),
            Operation(method: "get", path: "/api/2/episodes/{user}.json", summary: "gpodder: episode actions since", query: [
                .int(.since), .text("podcast", "only this feed URL"),
                .text("device", "only this device's uploads"), .bool("aggregated", "only each episode's latest action"),
            ], response: "GPodderActionChanges"),
            Operation(method: "post", path: "/api/2/episodes/{user}.json", summary: "gpodder: upload episode actions", body: "GPodderActionList",
                      response: "GPodderUploadResult"),
        ]
        return ops
    }

    /// The document as JSON (keys sorted: the same bytes every time).
    static let json: String = {
        var paths: [String: [String: Any]] = [:]
        for op in operations() {
            var operation: [String: Any] = ["summary": op.summary, "operationId": "\(op.method)_\(op.path)"]
            var parameters: [[String: Any]] = []
            for name in ["id", "item_id"] where op.path.contains("{\(name)}") {
                parameters.append(["name": name, "in": "path", "required": true, "schema": int(1...Int(Int64.max))])
            }
            if op.path.contains("{user}") {
                parameters.append(["name": "user", "in": "path", "required": true, "schema": userName])
            }
            if op.path.contains("{token}") {
                parameters.append(["name": "token", "in": "path", "required": true,
                                   "schema": ["type": "string", "pattern": "^[0-9a-f]{\(SharingRule.tokenCharacters)}$"]])
            }
            if op.path.contains("{device}") {
                parameters.append(["name": "device", "in": "path", "required": true,
                                   "schema": ["type": "string", "pattern": "^[A-Za-z0-9._-]{1,\(SyncRule.maxDeviceIDBytes)}$"]])
            }
            for q in op.query {
                parameters.append(["name": q.name, "in": "query", "description": q.about, "schema": q.schema, "required": q.isRequired])
            }
            if !parameters.isEmpty { operation["parameters"] = parameters }
            if let body = op.body {
                operation["requestBody"] = ["required": true, "content": ["application/json": ["schema": ["$ref": "#/components/schemas/\(body)"]]]]
            }
            var success: [String: Any] = ["description": op.status == "204" ? "done, no body" : "success"]
            if let response = op.response {
                success["content"] = ["application/json": ["schema": ["$ref": "#/components/schemas/\(response)"]]]
            } else if op.html {
                success["content"] = ["text/html": ["schema": ["type": "string"]]]
            } else if op.rss {
                success["content"] = ["application/rss+xml": ["schema": ["type": "string"]]]
            } else if op.media {
                success["content"] = ["audio/*": ["schema": ["type": "string", "contentMediaType": "audio/*"]]]
            }
            var responses: [String: Any] = [op.status: success]
            for (code, why) in errors(for: op) where responses[code] == nil {
                // Another success (a 206's range) has the success's body; the rest are errors.
                let content = code.hasPrefix("2") ? success["content"] ?? [:]
                    : ["application/json": ["schema": ["$ref": "#/components/schemas/\(code == "409" ? op.conflictResponse ?? "Error" : "Error")"]]]
                responses[code] = ["description": why, "content": content]
            }
            operation["responses"] = responses
            paths[op.path, default: [:]][op.method] = operation
        }
        let document: [String: Any] = [
            "openapi": "3.1.0",
            "info": ["title": "feedctl", "version": "1", "description": "The WebSearch app's API over a feedctl library (docs/server.md)."],
            "paths": paths,
            "components": ["schemas": schemas],
        ]
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }()

    /// The answers an operation may give besides its success: those of every route of its kind,
    /// and its own (`Operation.also`). `OpenAPITests` checks each answer it gets is listed.
    static func errors(for op: Operation) -> [String: String] {
        let key = "\(op.method.uppercased()) \(op.path)"
        let writes = op.method != "get"
        var errors = ["400": "a malformed request: not JSON, a refused URL, no single Host", "500": "the library failed (the server's log says why)"]
        if op.body != nil || (writes && !APIServer.publicRoutes.contains(key)) {
            errors["413"] = "body over \(APILimits.maxBodyBytes) bytes"
            errors["422"] = "a field of the wrong type, missing, or out of its range"
        }
        if !op.query.isEmpty { errors["422"] = "a parameter or field out of range or of the wrong type" }
        if !APIServer.publicRoutes.contains(key) {
            errors["401"] = op.path.hasPrefix("/api/2/") ? "no gpodder.net sign-in (Basic or the sessionid cookie)" : "not signed in"
            errors["404"] = "no such item, channel, collection, user or device"
            errors["422"] = "a parameter or field out of range or of the wrong type"
        }
        if writes { errors["507"] = "the server's disk is full: nothing was changed (reads and logins still work)" }
        // CrossSiteMiddleware: --open answers loopback Host names only; a write carrying another site's Origin is refused.
        errors["403"] = writes ? "from another site (Origin), or under --open to a Host that is not loopback"
                               : "under --open, to a Host that is not loopback"
        if op.body != nil { errors["415"] = "a JSON body without Content-Type: application/json" }
        if op.path == "/api/auth/login" || op.path.hasPrefix("/api/2/") {
            errors["429"] = "too many failed logins (Retry-After says when to try again)"
        }
        if op.path.hasPrefix("/api/player") {
            errors["403"] = "the player plays for the library's owner only (or a request from another site)"
            errors["409"] = "not in the player's present state (nothing is playing, the queue is empty)"
            errors["502"] = "the player answered without its status"
            errors["503"] = "the player daemon is not running, is busy (every client slot taken) or has no audio output"
            if op.path == "/api/player/events" { errors["429"] = "too many event streams open for this user" }
        }
        if op.path.hasPrefix("/api/users") {
            errors["403"] = "only an admin may manage users (or a request from another site)"
            errors["409"] = "the name is taken"
            if op.method == "delete" {
                errors["403"] = "only an admin may remove users, and not themselves (DELETE /api/account), or a request from another site"
                errors["409"] = "the library's owner or its last admin cannot be removed"
            }
        }
        if op.path.hasPrefix("/api/collections") && writes { errors["409"] = "the name is taken, or the item is in the collection already" }
        if op.path.hasPrefix("/api/discover") { errors["503"] = "discovery is not configured" }
        return errors.merging(op.also) { _, own in own }
    }

    /// `AccountExport`'s document (version 1): docs/server.md, "Your data".
    private static var accountExport: [String: Any] {
        let target = object(["item_id": nullable(int), "url": nullable(string), "file": nullable(string)])
        return object([
            "format": oneOf([AccountExport.format]), "version": ["type": "integer", "const": AccountExport.version], "exported_at": int,
            "profile": object(["id": int, "name": string, "admin": bool, "owner": bool, "has_password": bool, "created_at": int]),
            "subscriptions": array(object(["channel_id": int, "platform": string, "name": string, "feed_url": string, "source_url": string,
                                           "image": nullable(string), "active": bool, "speed": nullable(number), "subscribed_at": int])),
            "watch_state": array(object(["item_id": int, "feed_url": string, "feed_item_id": string, "guid": nullable(string),
                                         "title": string, "url": nullable(string), "enclosure_url": nullable(string), "watched": bool,
                                         "progress_seconds": int, "watched_at": nullable(int), "updated_at": int])),
            "history": array(object(["id": int, "item_id": nullable(int), "title": string, "channel": string, "url": nullable(string),
                                     "position_seconds": nullable(int), "played_at": int])),
            "saved": array(object(["id": int, "item_id": nullable(int), "platform": string, "video_id": string, "video_url": string,
                                   "title": string, "description": nullable(string), "thumbnail_url": nullable(string),
                                   "duration_seconds": nullable(int), "upload_date": nullable(int), "channel_name": nullable(string),
                                   "channel_url": nullable(string), "watched": bool, "watched_at": nullable(int), "progress_seconds": int,
                                   "notes": nullable(string), "saved_at": int, "updated_at": int])),
            "collections": array(object(["id": int, "name": string, "description": nullable(string), "cover_url": nullable(string),
                                         "sort_order": int, "created_at": int, "updated_at": int,
                                         "items": array(object(["position": int, "item_id": int, "title": string, "channel": string,
                                                                "url": nullable(string), "enclosure_url": nullable(string), "added_at": int]))])),
            "up_next": array(object(["position": int, "title": string, "target": target])),
            "player": object(["volume": nullable(number),
                              "last_played": ["oneOf": [object(["target": target, "title": string, "position_seconds": number]), ["type": "null"]]]]),
            "gpodder": object([
                "devices": array(object(["id": string, "caption": string, "type": string, "updated_at": int])),
                "episode_actions": array(object(["id": int, "uploaded": int, "podcast": string, "episode": string, "guid": nullable(string),
                                                 "action": oneOf(EpisodeActionKind.allCases.map(\.rawValue)), "device": nullable(string),
                                                 "timestamp": int, "started": nullable(int), "position": nullable(int), "total": nullable(int)])),
            ]),
            "sessions": array(object(["id": int, "device": nullable(string), "created_at": int, "expires_at": int, "last_used_at": nullable(int)])),
        ])
    }

    private static func object(_ properties: [String: Any], required: [String]? = nil) -> [String: Any] {
        ["type": "object", "properties": properties, "required": required ?? Array(properties.keys).sorted()]
    }
    /// An object that needs one of `alternatives` (each a field it must have).
    private static func object(_ properties: [String: Any], oneOf alternatives: [String], exclusive: Bool) -> [String: Any] {
        var schema = object(properties, required: [])
        schema[exclusive ? "oneOf" : "anyOf"] = alternatives.map { ["required": [$0]] }
        return schema
    }
    private static var int: [String: Any] { ["type": "integer"] }
    private static var string: [String: Any] { ["type": "string"] }
    /// A whole number the server takes only within `range`.
    private static func int(_ range: ClosedRange<Int>) -> [String: Any] {
        ["type": "integer", "minimum": range.lowerBound, "maximum": range.upperBound]
    }
    private static func number(_ range: ClosedRange<Double>) -> [String: Any] {
        ["type": "number", "minimum": range.lowerBound, "maximum": range.upperBound]
    }
    /// Text of at most `characters` (code points, so at most as many characters as Swift
    /// counts), holding a non-space when `nonBlank`.
    private static func text(max characters: Int, nonBlank: Bool = false) -> [String: Any] {
        var schema: [String: Any] = ["type": "string", "maxLength": characters]
        if nonBlank { schema["minLength"] = 1; schema["pattern"] = "\\S" }
        return schema
    }
    /// A URL as the server takes one: at most `FieldLimits.maxURLBytes`, stated as ASCII (URLs are).
    private static var url: [String: Any] { ["type": "string", "maxLength": FieldLimits.maxURLBytes, "pattern": "^[!-~]*$"] }
    private static func oneOf(_ values: [String]) -> [String: Any] { ["type": "string", "enum": values] }
    /// A position in seconds, as the library keeps it.
    private static var seconds: [String: Any] { int(0...Int(Int32.max)) }
    /// A user name (`LibraryUsers.validName`), stated for printable ASCII, where a character
    /// is a byte; the server takes any one line of at most that many bytes of UTF-8.
    static var userName: [String: Any] {
        ["type": "string", "minLength": 1, "maxLength": LibraryUsers.maxNameBytes, "pattern": "^[ -~]*[!-~][ -~]*$",
         "description": "one line of at most \(LibraryUsers.maxNameBytes) bytes of UTF-8, without control characters"]
    }
    /// A password (`PasswordRule`), stated for printable ASCII as a user name is.
    private static var password: [String: Any] {
        ["type": "string", "minLength": PasswordRule.minLength, "maxLength": PasswordRule.maxBytes, "pattern": "^[ -~]*$",
         "description": "at least \(PasswordRule.minLength) characters and at most \(PasswordRule.maxBytes) bytes of UTF-8"]
    }
    private static var bool: [String: Any] { ["type": "boolean"] }
    private static var number: [String: Any] { ["type": "number"] }
    private static var date: [String: Any] { ["type": "string", "format": "date-time"] }
    /// The backend's `…SearchResponse` over one kind of result.
    private static func searchResponse(_ result: String) -> [String: Any] {
        object([
            "query": string, "search_type": string, "total_results": int, "results": array(ref(result)),
            "by_platform": ["type": "object", "additionalProperties": array(ref(result))],
            "timings": array(object(["platform": string, "duration_ms": int, "success": bool, "error": nullable(string)])),
            "total_duration_ms": int, "platforms_searched": array(string), "platforms_failed": array(string),
        ])
    }

    private static func nullable(_ schema: [String: Any]) -> [String: Any] {
        var s = schema; s["type"] = [schema["type"] ?? "string", "null"]; return s
    }
    private static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }
    private static func array(_ items: [String: Any]) -> [String: Any] { ["type": "array", "items": items] }

    /// Built on each call: `[String: Any]` is not Sendable, so it cannot be a shared constant.
    private static var schemas: [String: Any] { [
        "Error": object(["detail": string]),
        "Health": object(["status": string, "version": string]),
        "AuthMode": object(["mode": string, "allow_guest": bool,
                            "single_sign_on": ["oneOf": [object(["provider": string, "login_url": string]), ["type": "null"]]]]),
        "AuthURL": object(["auth_url": string]),
        "Reauthentication": object(["proof": string, "provider": nullable(string), "reauthenticated": bool]),
        "LoginBody": object(["username": string, "password": string, "pin": string, "device_name": string], required: ["username"]),
        "UserPublic": object(["id": int, "username": string, "display_name": string, "avatar_color": string, "has_pin": bool]),
        "LoginResponse": object(["success": bool, "token": nullable(string), "user": ["oneOf": [ref("UserPublic"), ["type": "null"]]],
                                 "message": nullable(string)]),
        "CurrentUser": object(["authenticated": bool, "user": ["oneOf": [ref("UserPublic"), ["type": "null"]]]]),
        "Valid": object(["valid": bool]),
        "Success": object(["success": bool]),
        "User": object(["id": int, "username": string, "display_name": string, "avatar_color": string, "has_pin": bool,
                        "is_admin": bool, "created_at": date, "last_login_at": nullable(date)]),
        "UserList": object(["users": array(ref("User")), "total": int]),
        "CreateUserBody": object(["username": userName, "display_name": string, "pin": password, "password": password, "is_admin": bool,
                                  "avatar_color": string], required: ["username"]),
        "SetPinBody": object(["new_pin": nullable(password), "current_pin": nullable(string)], required: []),
        "SetPinResponse": object(["success": bool, "has_pin": bool]),
        "DeleteAccountBody": object(["password": string, "username": string], required: []),
        "AccountExport": accountExport,
        "FeedItem": object([
            "id": int, "channel_id": int, "platform": string, "video_id": string, "video_url": string, "title": string,
            "description": nullable(string), "thumbnail_url": nullable(string), "duration_seconds": nullable(int),
            "view_count": nullable(int), "like_count": nullable(int), "tags": nullable(array(string)), "upload_date": date,
            "categories": nullable(array(string)), "audio_url": nullable(string), "audio_file_size": nullable(int),
            "audio_mime_type": nullable(string), "video_stream_url": nullable(string), "content_type": nullable(string),
            "is_watched": bool, "watched_at": nullable(date), "watch_progress_seconds": nullable(int), "discovered_at": date,
            "duration_formatted": string, "is_recent": bool, "channel_name": string, "channel_avatar_url": nullable(string),
        ]),
        "FeedItemWithNotes": ["allOf": [ref("FeedItem"), object(["description_html": nullable(string)])]],
        "FeedItemDetail": ["allOf": [ref("FeedItemWithNotes"), object([
            "chapters": nullable(array(object(["start_seconds": ["type": "number", "minimum": 0], "title": string, "url": nullable(string)]))),
            "transcript_url": nullable(string),
            "download": object(["state": ["type": "string", "enum": ["downloaded", "partial", "none"]], "bytes": nullable(int)]),
        ])]],
        "Queue": object(["items": array(object(["id": int, "position": int, "title": string, "target": string,
                                                "item": ["oneOf": [ref("FeedItem"), ["type": "null"]]]]))]),
        "QueueAddBody": object(["item_id": int(1...Int(Int64.max)), "next": bool], required: ["item_id"]),
        "QueueMoveBody": object(["position": ["type": "integer", "minimum": 1]]),
        "FeedResponse": object(["items": array(ref("FeedItem")), "total": int, "page": int, "per_page": int, "has_more": bool]),
        "ChannelGroupedFeedResponse": object(["channels": array(object([
            "channel_id": int, "channel_name": string, "channel_avatar_url": nullable(string), "platform": string,
            "items": array(ref("FeedItem")), "total_items": int, "unwatched_count": int,
        ])), "total_channels": int, "total_items": int]),
        "Channel": object([
            "id": int, "platform": string, "platform_channel_id": string, "channel_url": string, "name": string,
            "description": nullable(string), "avatar_url": nullable(string), "banner_url": nullable(string),
            "subscriber_count": nullable(int), "is_active": bool, "last_synced_at": nullable(date), "last_sync_error": nullable(string),
            "consecutive_errors": int, "import_source": nullable(string), "created_at": date, "updated_at": date,
            "display_name": string, "video_count": int, "unwatched_count": int, "feed_url": string,
            "speed": nullable(number(PlaybackSpeed.range)), "warnings": array(string),
        ]),
        "Session": object(["id": int, "device": nullable(string), "created_at": date, "expires_at": date,
                           "last_used_at": nullable(date), "current": bool]),
        "SessionList": object(["sessions": array(ref("Session")), "total": int]),
        "ChannelList": object(["items": array(ref("Channel")), "total": int]),
        "SyncResult": object(["channel_id": int, "channel_name": string, "success": bool, "new_videos": int, "error": nullable(string)]),
        "SyncResultList": array(ref("SyncResult")),
        "ImportResult": object(["imported": int, "skipped": int, "failed": int, "channels": array(ref("Channel")), "errors": array(string)]),
        "AddChannelBody": object(["channel_url": url, "url": url], oneOf: ["channel_url", "url"], exclusive: false),
        "UpdateChannelBody": object(["is_active": bool, "speed": number(PlaybackSpeed.range)], required: []),
        "ProgressBody": object(["progress_seconds": seconds], required: []),
        "WatchedBody": object(["is_watched": bool, "watch_progress_seconds": seconds], required: ["is_watched"]),
        "GuideProgressBody": object(["watch_progress_seconds": seconds]),
        "SearchBody": object(["query": ["type": "string", "minLength": 1, "maxLength": DiscoveryRule.maxQueryBytes, "pattern": "^[ -~]*[!-~][ -~]*$"],
                              "platforms": array(string), "type": oneOf(["videos", "channels"]),
                              "max_per_platform": int(1...DiscoveryRule.maxPerProvider)], required: ["query"]),
        "DiscoverSearchResponse": ["oneOf": [ref("VideoSearchResponse"), ref("ChannelSearchResponse")]],
        "VideoSearchResponse": searchResponse("VideoResult"),
        "ChannelSearchResponse": searchResponse("ChannelResult"),
        "VideoResult": object([
            "platform": string, "video_id": string, "video_url": string, "title": string, "description": nullable(string),
            "thumbnail_url": nullable(string), "duration_seconds": nullable(int), "view_count": nullable(int), "upload_date": nullable(date),
            "channel_name": nullable(string), "channel_id": nullable(string), "channel_url": nullable(string),
            "channel_avatar_url": nullable(string), "like_count": nullable(int), "tags": array(string), "audio_url": nullable(string),
            "feed_url": nullable(string), "item_id": nullable(int), "subscribed": bool, "provider": string,
        ]),
        "ChannelResult": object([
            "platform": string, "channel_id": string, "channel_url": string, "name": string, "description": nullable(string),
            "avatar_url": nullable(string), "banner_url": nullable(string), "subscriber_count": nullable(int), "video_count": nullable(int),
            "feed_url": nullable(string), "subscribed": bool, "library_channel_id": nullable(int), "provider": string,
        ]),
        "PlatformList": object([
            "platforms": array(object(["id": string, "name": string, "icon": string, "color": string, "supports_search": bool,
                                       "supports_channel_feed": bool, "supports_playlists": bool])),
            "total": int,
        ]),
        "QuickSaveBody": object(["url": url]),
        "QuickSaveResponse": object(["type": string, "platform": string, "saved": ["oneOf": [ref("VideoResult"), ref("ChannelResult")]], "message": string]),
        "PlayerStatus": object([
            "status": string, "position": number, "duration": nullable(number), "title": nullable(string), "artist": nullable(string),
            "item_id": nullable(int), "url": nullable(string), "volume": number, "rate": number, "chapter": nullable(string),
            "error": nullable(string), "sleep_at": nullable(date),
        ]),
        "QueueResponse": object(["items": array(object(["target": string, "title": nullable(string), "item_id": nullable(int)])), "total": int]),
        "PlayBody": object(["item_id": int(1...Int(Int64.max)), "url": string, "target": string, "from_start": bool],
                           oneOf: ["item_id", "url", "target"], exclusive: false),
        "SeekBody": object(["position": number(0...PlayerLimits.maxPosition), "offset": number(-PlayerLimits.maxPosition...PlayerLimits.maxPosition)],
                           oneOf: ["position", "offset"], exclusive: true),
        "SpeedBody": object(["rate": number(PlaybackSpeed.range)]),
        "VolumeBody": object(["volume": number(PlayerVolume.range)]),
        "QueueBody": object(["targets": ["type": "array", "items": string, "minItems": 1], "next": bool], required: ["targets"]),
        "GPodderDeviceList": array(object(["id": string, "caption": string, "type": string, "subscriptions": int])),
        "GPodderDeviceBody": object(["caption": string, "type": string], required: []),
        "GPodderSubscriptionChanges": object(["add": array(string), "remove": array(string), "timestamp": int]),
        "GPodderSubscriptionDelta": object(["add": array(string), "remove": array(string)], required: []),
        "GPodderUploadResult": object(["timestamp": int, "update_urls": array(array(string))]),
        "GPodderAction": object([
            "podcast": string, "episode": string, "guid": string, "action": oneOf(EpisodeActionKind.allCases.map(\.rawValue)),
            "device": string, "timestamp": string,
            "started": int(-Int(PlayerLimits.maxPosition)...Int(PlayerLimits.maxPosition)),
            "position": int(-Int(PlayerLimits.maxPosition)...Int(PlayerLimits.maxPosition)),
            "total": int(-Int(PlayerLimits.maxPosition)...Int(PlayerLimits.maxPosition)),
        ], required: ["podcast", "episode", "action"]),
        "GPodderActionList": array(ref("GPodderAction")),
        "GPodderActionChanges": object(["actions": array(ref("GPodderAction")), "timestamp": int]),
        "SavedVideo": object([
            "id": int, "platform": string, "video_id": string, "video_url": string, "title": string, "description": nullable(string),
            "thumbnail_url": nullable(string), "duration_seconds": nullable(int), "view_count": nullable(int), "upload_date": nullable(date),
            "channel_name": nullable(string), "channel_id": nullable(string), "channel_url": nullable(string), "is_watched": bool,
            "watched_at": nullable(date), "watch_progress_seconds": nullable(int), "notes": nullable(string), "saved_at": date,
            "updated_at": date, "duration_formatted": string, "item_id": nullable(int),
        ]),
        "SavedVideoList": object(["items": array(ref("SavedVideo")), "total": int]),
        "SavedVideoStats": object(["total_videos": int, "watched_videos": int, "unwatched_videos": int,
                                   "by_platform": ["type": "object", "additionalProperties": int]]),
        "SavedVideoCheck": object(["is_saved": bool, "platform": string, "video_id": string]),
        "SaveVideoBody": object([
            "video_url": ["type": "string", "maxLength": 500, "pattern": "^[!-~]*$"], "platform": text(max: 50, nonBlank: true),
            "video_id": text(max: 100, nonBlank: true), "title": text(max: 500, nonBlank: true), "description": nullable(string),
            "thumbnail_url": nullable(string), "duration_seconds": nullable(int(0...Int(Int64.max))),
            "view_count": nullable(int(0...Int(Int64.max))), "upload_date": nullable(date),
            "channel_name": nullable(string), "channel_id": nullable(string), "channel_url": nullable(string), "notes": nullable(string),
        ], required: ["video_url"]),
        "SaveFromURLBody": object(["url": url, "notes": nullable(string)], required: ["url"]),
        "UpdateSavedVideoBody": object(["notes": string, "is_watched": bool, "watch_progress_seconds": seconds], required: []),
        "Collection": object([
            "id": int, "name": string, "slug": string, "description": nullable(string), "cover_url": nullable(string),
            "sort_order": int, "item_count": int, "created_at": date, "updated_at": date,
        ]),
        "CollectionWithItems": object([
            "id": int, "name": string, "slug": string, "description": nullable(string), "cover_url": nullable(string),
            "sort_order": int, "item_count": int, "created_at": date, "updated_at": date, "items": array(ref("CollectionItem")),
        ]),
        "CollectionList": object(["items": array(ref("Collection")), "total": int]),
        "CollectionExport": object(["name": string, "slug": string, "description": nullable(string), "item_count": int,
                                    "created_at": date, "items": array(ref("CollectionItem"))]),
        "CollectionItem": object([
            "id": int, "item_type": string, "url": string, "thumbnail_url": nullable(string), "title": nullable(string),
            "source_url": nullable(string), "domain": nullable(string), "embed_type": nullable(string), "video_id": nullable(string),
            "channel_name": string, "sort_order": int, "added_at": date, "is_watched": bool, "watched_at": nullable(date), "watch_progress_seconds": nullable(int),
        ]),
        "CreateCollectionBody": object(["name": text(max: CollectionRule.maxNameCharacters, nonBlank: true),
                                        "description": nullable(text(max: CollectionRule.maxDescriptionCharacters))], required: ["name"]),
        "UpdateCollectionBody": object(["name": text(max: CollectionRule.maxNameCharacters, nonBlank: true),
                                        "description": nullable(text(max: CollectionRule.maxDescriptionCharacters)),
                                        "sort_order": int(0...Int(Int64.max))], required: []),
        "AddCollectionItemBody": object(["item_type": oneOf(["image", "video", "podcast_episode"]), "url": url, "item_id": int(1...Int(Int64.max)),
                                         "thumbnail_url": nullable(string), "title": nullable(string)], oneOf: ["item_id", "url"], exclusive: false),
        "ReorderBody": object(["item_ids": array(int(1...Int(Int64.max)))]),
        "CollectionWatchedBody": object(["is_watched": bool]),
        "CollectionProgressBody": object(["progress_seconds": seconds]),
        "TransferItemBody": object(["target_collection_id": int(1...Int(Int64.max)), "preserve_metadata": bool], required: ["target_collection_id"]),
        "TransferItemResponse": object(["success": bool, "message": string, "duplicate": bool, "items_affected": int]),
        "AvailableTargets": object(["collections": array(object(["id": int, "name": string, "item_count": int, "has_items": bool]))]),
        "BulkOperationBody": object([
            "operation": oneOf(CollectionTransfer.Operation.allCases.map(\.rawValue)),
            "source_collection_id": int(1...Int(Int64.max)), "target_collection_id": int(1...Int(Int64.max)),
            "items": ["type": "array", "minItems": 1, "maxItems": CollectionRule.maxTransferSubjects,
                      "items": object(["item_id": int(1...Int(Int64.max)), "item_type": oneOf(TransferSubject.Kind.allCases.map(\.rawValue))],
                                      required: ["item_id"])],
            "preserve_metadata": bool,
        ], required: ["operation", "source_collection_id", "target_collection_id", "items"]),
        "BulkOperationResponse": object([
            "success": bool, "message": string, "items_affected": int, "duplicates_skipped": int,
            "errors": array(object(["item_id": int, "item_type": string, "error": string])),
        ]),
        "Publication": object(["published": bool, "url": nullable(string), "rss_url": nullable(string), "json_url": nullable(string),
                               "published_at": nullable(date)]),
        "SharedItem": object([
            "title": string, "channel_name": string, "platform": nullable(string), "published_at": nullable(date),
            "duration_seconds": nullable(int), "audio_url": nullable(string), "audio_type": nullable(string), "audio_length": nullable(int),
            "thumbnail_url": nullable(string), "url": nullable(string), "guid": string, "added_at": date,
        ]),
        "SharedCollection": object([
            "name": string, "description": nullable(string), "cover_url": nullable(string), "owner_name": string, "updated_at": date,
            "url": nullable(string), "rss_url": nullable(string), "json_url": nullable(string), "item_count": int,
            "items": array(ref("SharedItem")),
        ]),
        "FollowBody": object(["url": url]),
        "FollowedCollection": object(followed),
        "FollowedCollectionList": object(["items": array(ref("FollowedCollection")), "total": int]),
        "FollowedCollectionWithItems": object(followed.merging(["items": array(ref("SharedItem"))]) { a, _ in a }),
    ] }

    /// A followed collection's fields.
    private static var followed: [String: Any] { [
        "id": int, "url": string, "name": string, "description": nullable(string), "owner_name": string, "cover_url": nullable(string),
        "item_count": int, "remote": bool, "source_url": nullable(string), "withdrawn": bool, "withdrawn_at": nullable(date),
        "followed_at": date, "refreshed_at": nullable(date), "last_error": nullable(string),
    ] }
}
