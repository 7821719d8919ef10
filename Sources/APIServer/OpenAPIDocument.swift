import Foundation

/// `/api/openapi.json`: OpenAPI 3.1 for every route, written here by hand (a table per route,
/// shapes once under components). `OpenAPITests` checks it against the routes the router
/// serves, both ways, so a route added without its entry (or the reverse) fails the suite.
enum OpenAPIDocument {
    /// One operation: method, path (`{id}` for parameters), what it does, its query parameters,
    /// its body's schema and its answer's.
    struct Operation {
        var method: String
        var path: String
        var summary: String
        var query: [(name: String, type: String, about: String)] = []
        var body: String? = nil
        var response: String? = nil
        var status = "200"
        /// Answers an HTML page, not JSON.
        var html = false
    }

    static func operations() -> [Operation] {
        var ops: [Operation] = [
            Operation(method: "get", path: "/", summary: "A page for a browser: what this server is, where this document is (public)", html: true),
            Operation(method: "get", path: "/health", summary: "Liveness and version (public)", response: "Health"),
            Operation(method: "get", path: "/api/health", summary: "Liveness and version (public)", response: "Health"),
            Operation(method: "get", path: "/api/auth/mode", summary: "open (no login) or protected (public)", response: "AuthMode"),
            Operation(method: "get", path: "/api/openapi.json", summary: "This document (public)"),
            Operation(method: "post", path: "/api/auth/login",
                      summary: "Log in with {username, password} or {username, pin, device_name}: the token, also as the session_token cookie; 200 with success false when wrong, 429 with Retry-After after too many failures (public)",
                      body: "LoginBody", response: "LoginResponse"),
            Operation(method: "post", path: "/api/auth/logout", summary: "End the session the request's token belongs to, clear the cookie (public)",
                      response: "Success"),
            Operation(method: "get", path: "/api/auth/me", summary: "Whom the request's token is for (public)", response: "CurrentUser"),
            Operation(method: "post", path: "/api/auth/session/validate", summary: "Whether the request's token is live (public)", response: "Valid"),
            Operation(method: "get", path: "/api/users", summary: "Users: every one for an admin, else yourself", response: "UserList"),
            Operation(method: "post", path: "/api/users", summary: "Add a user (admin only: 403 otherwise; 409 when the name is taken)",
                      body: "CreateUserBody", response: "User"),
            Operation(method: "get", path: "/api/users/{id}", summary: "One user (yourself, or anyone for an admin)", response: "User"),
            Operation(method: "delete", path: "/api/users/{id}", summary: "Remove a user with all their state (admin only; not the owner)",
                      response: "Success"),
            Operation(method: "put", path: "/api/users/{id}/pin", summary: "Set or clear a password (yourself with current_pin, or an admin)",
                      body: "SetPinBody", response: "SetPinResponse"),
            Operation(method: "get", path: "/api/feed", summary: "A page of the feed", query: [
                ("filter", "string", "all | unwatched | watched"), ("platform", "string", "youtube | rumble | podcast"),
                ("channel_ids", "string", "channel ids, comma-separated"), ("page", "integer", "from 1"),
                ("per_page", "integer", "1–100, default 50"), ("since", "string", "ISO 8601: published at or after"),
                ("mode", "string", "newest, catch_up, short_form, quick_watch, deep_dive, oldest, most_viewed, shortest, longest, random, discovery; the guide's Newest, Catch Up, Short Form, Discovery"),
                ("sort_by", "string", "newest | oldest | views | duration_asc | duration_desc | random"),
                ("duration_min", "integer", "seconds"), ("duration_max", "integer", "seconds"),
            ], response: "FeedResponse"),
            Operation(method: "get", path: "/api/feed/items/{id}", summary: "One item", response: "FeedItem"),
            Operation(method: "get", path: "/api/feed/history", summary: "Played items, latest play first", query: [
                ("page", "integer", "from 1"), ("per_page", "integer", "1–200"), ("include_completed", "boolean", "default true"),
            ], response: "FeedResponse"),
            Operation(method: "get", path: "/api/feed/by-channel", summary: "Recent items grouped by channel", query: [
                ("filter", "string", "all | unwatched | watched"), ("platform", "string", "youtube | rumble | podcast"),
                ("max_per_channel", "integer", "1–20, default 5"),
            ], response: "ChannelGroupedFeedResponse"),
            Operation(method: "post", path: "/api/feed/sync", summary: "Sync the active channels now", query: [("platform", "string", "only this platform")],
                      response: "SyncResultList"),
            Operation(method: "put", path: "/api/feed/items/{id}/watched", summary: "Mark watched (the backend's form)", body: "ProgressBody", response: "FeedItem"),
            Operation(method: "put", path: "/api/feed/items/{id}/unwatched", summary: "Mark unwatched (the backend's form)", response: "FeedItem"),
            Operation(method: "put", path: "/api/feed/items/{id}/progress", summary: "Set progress (the backend's form)",
                      query: [("progress_seconds", "integer", "required, ≥ 0")], response: "FeedItem"),
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
            Operation(method: "post", path: "/api/player/play", summary: "Play a library item or an http(s) URL (starts the daemon)", body: "PlayBody", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/pause", summary: "Pause", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/resume", summary: "Resume (starts the daemon)", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/stop", summary: "Stop", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/seek", summary: "Seek to position or by offset (seconds)", body: "SeekBody", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/speed", summary: "Set the speed (0.5–3)", body: "SpeedBody", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/volume", summary: "Set the volume (0–1)", body: "VolumeBody", response: "PlayerStatus"),
            Operation(method: "post", path: "/api/player/queue", summary: "Add to the up-next queue", body: "QueueBody", response: "QueueResponse"),
            Operation(method: "get", path: "/api/saved-videos", summary: "Saved videos, most recently saved first", query: [
                ("platform", "string", "youtube, rumble, podcast, web, or a platform a client saved with"),
                ("is_watched", "boolean", "only (un)watched"), ("limit", "integer", "1–100, default 50"), ("offset", "integer", "≥ 0"),
            ], response: "SavedVideoList"),
            Operation(method: "post", path: "/api/saved-videos",
                      summary: "Save: the guide's {video_url} (a library item's page or media URL, else the page is read) or the backend's full body; 201, the first save when saved before",
                      body: "SaveVideoBody", response: "SavedVideo", status: "201"),
            Operation(method: "post", path: "/api/saved-videos/from-url", summary: "Save by URL (the library's item, else the page is read); 201",
                      body: "SaveFromURLBody", response: "SavedVideo", status: "201"),
            Operation(method: "get", path: "/api/saved-videos/stats", summary: "Counts of saved videos", response: "SavedVideoStats"),
            Operation(method: "get", path: "/api/saved-videos/check", summary: "Whether a video is saved", query: [
                ("platform", "string", "required"), ("video_id", "string", "required"),
            ], response: "SavedVideoCheck"),
            Operation(method: "get", path: "/api/saved-videos/{id}", summary: "One saved video", response: "SavedVideo"),
            Operation(method: "put", path: "/api/saved-videos/{id}", summary: "Set notes, is_watched, watch_progress_seconds",
                      body: "UpdateSavedVideoBody", response: "SavedVideo"),
            Operation(method: "put", path: "/api/saved-videos/{id}/watched", summary: "Mark watched",
                      query: [("progress_seconds", "integer", "≥ 0, optional")], response: "SavedVideo"),
            Operation(method: "put", path: "/api/saved-videos/{id}/unwatched", summary: "Mark unwatched", response: "SavedVideo"),
            Operation(method: "put", path: "/api/saved-videos/{id}/progress", summary: "Set progress",
                      query: [("progress_seconds", "integer", "required, ≥ 0")], response: "SavedVideo"),
            Operation(method: "delete", path: "/api/saved-videos/{id}", summary: "Unsave (the item stays in the library)", status: "204"),
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
        ]
        for (base, form) in [("subscriptions", "the iOS guide's name"), ("channels", "the backend's name")] {
            ops += [
                Operation(method: "get", path: "/api/\(base)", summary: "Subscriptions (\(form))", query: [
                    ("platform", "string", "youtube | rumble | podcast"), ("is_active", "boolean", "only (in)active channels"),
                ], response: "ChannelList"),
                Operation(method: "post", path: "/api/\(base)", summary: "Subscribe: 201, or 200 with the channel already subscribed (\(form))",
                          body: "AddChannelBody", response: "Channel", status: "201"),
                Operation(method: "get", path: "/api/\(base)/{id}", summary: "One channel", response: "Channel"),
                Operation(method: "put", path: "/api/\(base)/{id}", summary: "Pause or resume polling (is_active)", body: "UpdateChannelBody", response: "Channel"),
                Operation(method: "delete", path: "/api/\(base)/{id}", summary: "Unsubscribe: its items go, history stays", status: "204"),
                Operation(method: "post", path: "/api/\(base)/{id}/sync", summary: "Sync one channel now", response: "SyncResult"),
                Operation(method: "get", path: "/api/\(base)/opml", summary: "Export OPML 2.0 (text/x-opml)"),
                Operation(method: "post", path: "/api/\(base)/opml", summary: "Import an OPML document (the body)", response: "ImportResult"),
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
                      query: [("since", "integer", "the last answer's timestamp; 0: all")], response: "GPodderSubscriptionChanges"),
            Operation(method: "post", path: "/api/2/subscriptions/{user}/{device}.json", summary: "gpodder: add and remove subscriptions",
                      body: "GPodderSubscriptionDelta", response: "GPodderUploadResult"),
            Operation(method: "get", path: "/api/2/episodes/{user}.json", summary: "gpodder: episode actions since", query: [
                ("since", "integer", "the last answer's timestamp; 0: all"), ("podcast", "string", "only this feed URL"),
                ("device", "string", "only this device's uploads"), ("aggregated", "boolean", "only each episode's latest action"),
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
                parameters.append(["name": name, "in": "path", "required": true, "schema": ["type": "integer", "minimum": 1]])
            }
            for name in ["user", "device"] where op.path.contains("{\(name)}") {
                parameters.append(["name": name, "in": "path", "required": true, "schema": ["type": "string"]])
            }
            for q in op.query { parameters.append(["name": q.name, "in": "query", "description": q.about, "schema": ["type": q.type]]) }
            if !parameters.isEmpty { operation["parameters"] = parameters }
            if let body = op.body {
                operation["requestBody"] = ["required": true, "content": ["application/json": ["schema": ["$ref": "#/components/schemas/\(body)"]]]]
            }
            var success: [String: Any] = ["description": op.status == "204" ? "done, no body" : "success"]
            if let response = op.response {
                success["content"] = ["application/json": ["schema": ["$ref": "#/components/schemas/\(response)"]]]
            } else if op.html {
                success["content"] = ["text/html": ["schema": ["type": "string"]]]
            }
            var responses: [String: Any] = [op.status: success]
            if op.path == "/api/auth/login" {
                for (code, why) in [("400", "malformed JSON"), ("422", "a field of the wrong type or missing"),
                                    ("429", "too many failed logins (Retry-After says when to try again)")] {
                    responses[code] = ["description": why, "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]]]
                }
            }
            if !APIServer.publicRoutes.contains("\(op.method.uppercased()) \(op.path)") {
                for (code, why) in [("400", "malformed JSON or a refused URL"), ("401", "not signed in"), ("404", "no such item, channel or route"),
                                    ("413", "body over 1 MiB"), ("422", "a parameter or field out of range or of the wrong type")] {
                    responses[code] = ["description": why, "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]]]
                }
                if op.path.hasPrefix("/api/player") {
                    var answers = [("409", "not in the player's present state (nothing is playing, the queue is empty)"),
                                   ("503", "the player daemon is not running, is busy (every client slot taken) or has no audio output")]
                    if op.path == "/api/player/events" { answers.append(("429", "too many event streams open for this user")) }
                    for (code, why) in answers {
                        responses[code] = ["description": why, "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]]]
                    }
                }
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

    private static func object(_ properties: [String: Any], required: [String]? = nil) -> [String: Any] {
        ["type": "object", "properties": properties, "required": required ?? Array(properties.keys).sorted()]
    }
    private static var int: [String: Any] { ["type": "integer"] }
    private static var string: [String: Any] { ["type": "string"] }
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
        "AuthMode": object(["mode": string, "allow_guest": bool]),
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
        "CreateUserBody": object(["username": string, "display_name": string, "pin": string, "password": string, "is_admin": bool,
                                  "avatar_color": string], required: ["username"]),
        "SetPinBody": object(["new_pin": nullable(string), "current_pin": nullable(string)], required: []),
        "SetPinResponse": object(["success": bool, "has_pin": bool]),
        "FeedItem": object([
            "id": int, "channel_id": int, "platform": string, "video_id": string, "video_url": string, "title": string,
            "description": nullable(string), "thumbnail_url": nullable(string), "duration_seconds": nullable(int),
            "view_count": nullable(int), "like_count": nullable(int), "tags": nullable(array(string)), "upload_date": date,
            "categories": nullable(array(string)), "audio_url": nullable(string), "audio_file_size": nullable(int),
            "audio_mime_type": nullable(string), "video_stream_url": nullable(string), "content_type": nullable(string),
            "is_watched": bool, "watched_at": nullable(date), "watch_progress_seconds": nullable(int), "discovered_at": date,
            "duration_formatted": string, "is_recent": bool, "channel_name": string, "channel_avatar_url": nullable(string),
        ]),
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
        ]),
        "ChannelList": object(["items": array(ref("Channel")), "total": int]),
        "SyncResult": object(["channel_id": int, "channel_name": string, "success": bool, "new_videos": int, "error": nullable(string)]),
        "SyncResultList": array(ref("SyncResult")),
        "ImportResult": object(["imported": int, "skipped": int, "failed": int, "channels": array(ref("Channel")), "errors": array(string)]),
        "AddChannelBody": object(["channel_url": string, "url": string], required: []),
        "UpdateChannelBody": object(["is_active": bool, "name": string], required: []),
        "ProgressBody": object(["progress_seconds": int], required: []),
        "WatchedBody": object(["is_watched": bool, "watch_progress_seconds": int], required: ["is_watched"]),
        "GuideProgressBody": object(["watch_progress_seconds": int]),
        "SearchBody": object(["query": string, "platforms": array(string), "type": string, "max_per_platform": int], required: ["query"]),
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
        "QuickSaveBody": object(["url": string]),
        "QuickSaveResponse": object(["type": string, "platform": string, "saved": ["oneOf": [ref("VideoResult"), ref("ChannelResult")]], "message": string]),
        "PlayerStatus": object([
            "status": string, "position": number, "duration": nullable(number), "title": nullable(string), "artist": nullable(string),
            "item_id": nullable(int), "url": nullable(string), "volume": number, "rate": number, "chapter": nullable(string),
            "error": nullable(string), "sleep_at": nullable(date),
        ]),
        "QueueResponse": object(["items": array(object(["target": string, "title": nullable(string), "item_id": nullable(int)])), "total": int]),
        "PlayBody": object(["item_id": int, "url": string, "target": string, "from_start": bool], required: []),
        "SeekBody": object(["position": number, "offset": number], required: []),
        "SpeedBody": object(["rate": number]),
        "VolumeBody": object(["volume": number]),
        "QueueBody": object(["targets": array(string), "next": bool], required: ["targets"]),
        "GPodderDeviceList": array(object(["id": string, "caption": string, "type": string, "subscriptions": int])),
        "GPodderDeviceBody": object(["caption": string, "type": string], required: []),
        "GPodderSubscriptionChanges": object(["add": array(string), "remove": array(string), "timestamp": int]),
        "GPodderSubscriptionDelta": object(["add": array(string), "remove": array(string)], required: []),
        "GPodderUploadResult": object(["timestamp": int, "update_urls": array(array(string))]),
        "GPodderAction": object([
            "podcast": string, "episode": string, "guid": string, "action": string, "device": string, "timestamp": string,
            "started": int, "position": int, "total": int,
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
            "video_url": string, "platform": string, "video_id": string, "title": string, "description": nullable(string),
            "thumbnail_url": nullable(string), "duration_seconds": nullable(int), "view_count": nullable(int), "upload_date": nullable(date),
            "channel_name": nullable(string), "channel_id": nullable(string), "channel_url": nullable(string), "notes": nullable(string),
        ], required: ["video_url"]),
        "SaveFromURLBody": object(["url": string, "notes": nullable(string)], required: ["url"]),
        "UpdateSavedVideoBody": object(["notes": string, "is_watched": bool, "watch_progress_seconds": int], required: []),
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
            "sort_order": int, "added_at": date, "is_watched": bool, "watched_at": nullable(date), "watch_progress_seconds": nullable(int),
        ]),
        "CreateCollectionBody": object(["name": string, "description": nullable(string)], required: ["name"]),
        "UpdateCollectionBody": object(["name": string, "description": nullable(string), "sort_order": int], required: []),
        "AddCollectionItemBody": object(["item_type": string, "url": string, "item_id": int, "thumbnail_url": nullable(string),
                                         "title": nullable(string)], required: []),
        "ReorderBody": object(["item_ids": array(int)]),
        "CollectionWatchedBody": object(["is_watched": bool]),
        "CollectionProgressBody": object(["progress_seconds": int]),
    ] }
}
