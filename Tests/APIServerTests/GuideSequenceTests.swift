import Foundation
import XCTest

/// The iOS guide's `APIClient` calls, in the order its app makes them, with exact shapes: the
/// backend's schemas (app/schemas/*.py), dates the guide's `.iso8601` decoder reads.
final class GuideSequenceTests: XCTestCase {
    /// The backend's FeedItemWithChannel keys, every one present (null included).
    static let itemKeys: Set<String> = [
        "id", "channel_id", "platform", "video_id", "video_url", "title", "description", "thumbnail_url", "duration_seconds",
        "view_count", "like_count", "tags", "upload_date", "categories", "audio_url", "audio_file_size", "audio_mime_type",
        "video_stream_url", "content_type", "is_watched", "watched_at", "watch_progress_seconds", "discovered_at",
        "duration_formatted", "is_recent", "channel_name", "channel_avatar_url",
    ]
    /// The backend's ChannelResponse keys, plus feedctl's `feed_url`, `speed` and `warnings`.
    static let channelKeys: Set<String> = [
        "id", "platform", "platform_channel_id", "channel_url", "name", "description", "avatar_url", "banner_url",
        "subscriber_count", "is_active", "last_synced_at", "last_sync_error", "consecutive_errors", "import_source",
        "created_at", "updated_at", "display_name", "video_count", "unwatched_count", "feed_url", "speed", "warnings",
    ]

    func testTheGuidesCallSequence() async throws {
        let h = try await APIHarness()

        let health = try await h.object("GET", "/health")
        XCTAssertEqual(health["status"] as? String, "healthy")
        XCTAssertEqual(health["version"] as? String, "test")
        let mode = try await h.object("GET", "/api/auth/mode")
        XCTAssertEqual(mode["mode"] as? String, "open")
        XCTAssertEqual(mode["allow_guest"] as? Bool, false)

        // addChannel(url:) → POST /subscriptions {"url"}: 201 with the channel.
        let feedURL = h.feeds.url("/podcast.xml")
        let added = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(feedURL)"}"#, status: 201)
        XCTAssertEqual(Set(added.keys), Self.channelKeys)
        let channelID = try XCTUnwrap(added["id"] as? Int)
        XCTAssertEqual(added["name"] as? String, "The Tone Show")
        XCTAssertEqual(added["platform"] as? String, "podcast")
        XCTAssertEqual(added["channel_url"] as? String, feedURL)
        XCTAssertEqual(added["platform_channel_id"] as? String, feedURL)
        XCTAssertEqual(added["video_count"] as? Int, 3)
        XCTAssertEqual(added["unwatched_count"] as? Int, 3)
        XCTAssertEqual(added["is_active"] as? Bool, true)
        XCTAssertEqual(added["created_at"] as? String, "2026-11-20T00:00:00Z")
        XCTAssertEqual(added["last_synced_at"] as? String, "2026-11-20T00:00:00Z")
        XCTAssertTrue(added["description"] is NSNull)
        XCTAssertEqual(added["avatar_url"] as? String, h.feeds.url("/cover.png"))

        // getChannels → GET /subscriptions: {items, total}.
        let channels = try await h.object("GET", "/api/subscriptions")
        XCTAssertEqual(Set(channels.keys), ["items", "total"])
        XCTAssertEqual(channels["total"] as? Int, 1)
        XCTAssertEqual((channels["items"] as? [[String: Any]])?.first?["id"] as? Int, channelID)

        // getFeed(filter:platform:mode:page:) with the guide's mode names.
        let feed = try await h.object("GET", "/api/feed?filter=all&mode=Newest&page=1")
        XCTAssertEqual(Set(feed.keys), ["items", "total", "page", "per_page", "has_more"])
        XCTAssertEqual(feed["total"] as? Int, 3)
        XCTAssertEqual(feed["page"] as? Int, 1)
        XCTAssertEqual(feed["per_page"] as? Int, 50)
        XCTAssertEqual(feed["has_more"] as? Bool, false)
        let items = try XCTUnwrap(feed["items"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["title"] as? String }, ["Episode 3: Four tones", "Episode 2: A minute of A", "Episode 1: Hello"])
        let first = try XCTUnwrap(items.first)
        XCTAssertEqual(Set(first.keys), Self.itemKeys)
        XCTAssertEqual(first["channel_id"] as? Int, channelID)
        XCTAssertEqual(first["platform"] as? String, "podcast")
        XCTAssertEqual(first["video_id"] as? String, "tone-show-3")
        XCTAssertEqual(first["upload_date"] as? String, "2026-11-14T09:00:00Z")
        XCTAssertEqual(first["discovered_at"] as? String, "2026-11-20T00:00:00Z")
        XCTAssertEqual(first["audio_url"] as? String, h.feeds.url("/media/tones-60s.mp3"))
        XCTAssertEqual(first["video_url"] as? String, h.feeds.url("/media/tones-60s.mp3"), "no page link: the media")
        XCTAssertEqual(first["audio_mime_type"] as? String, "audio/mpeg")
        XCTAssertEqual(first["audio_file_size"] as? Int, 482_000)
        XCTAssertEqual(first["content_type"] as? String, "audio")
        XCTAssertEqual(first["duration_seconds"] as? Int, 60)
        XCTAssertEqual(first["duration_formatted"] as? String, "1:00")
        XCTAssertEqual(first["is_watched"] as? Bool, false)
        XCTAssertTrue(first["watched_at"] is NSNull)
        XCTAssertEqual(first["watch_progress_seconds"] as? Int, 0)
        XCTAssertEqual(first["is_recent"] as? Bool, false)
        XCTAssertEqual(first["channel_name"] as? String, "The Tone Show")
        XCTAssertEqual(first["description"] as? String, "440, 660, 880 and 1100 Hz: fifteen seconds each.")
        for key in ["like_count", "tags", "categories", "video_stream_url", "view_count", "thumbnail_url"] {
            XCTAssertTrue(first[key] is NSNull, key)
        }
        let itemID = try XCTUnwrap(first["id"] as? Int)

        // The guide's other mode names.
        let catchUp = try await h.object("GET", "/api/feed?mode=Catch%20Up&page=1")
        XCTAssertEqual((catchUp["items"] as? [[String: Any]])?.map { $0["title"] as? String },
                       ["Episode 2: A minute of A", "Episode 3: Four tones"],
                       "what was missed in the last 14 days, oldest first (episode 1 is 20 days old)")
        let short = try await h.object("GET", "/api/feed?mode=Short%20Form&page=1")
        XCTAssertEqual((short["items"] as? [[String: Any]])?.map { $0["title"] as? String }, ["Episode 3: Four tones", "Episode 2: A minute of A", "Episode 1: Hello"],
                       "every demo episode is at most 180 s")
        let discovery = try await h.object("GET", "/api/feed?mode=Discovery&page=1")
        XCTAssertEqual(discovery["total"] as? Int, 3)

        // markWatched(id:watched:) → PATCH /feed/{id}/watched {"is_watched"}.
        let watched = try await h.object("PATCH", "/api/feed/\(itemID)/watched", body: #"{"is_watched": true}"#)
        XCTAssertEqual(Set(watched.keys), Self.itemKeys)
        XCTAssertEqual(watched["is_watched"] as? Bool, true)
        XCTAssertEqual(watched["watched_at"] as? String, "2026-11-20T00:00:00Z")
        let unwatchedOnly = try await h.object("GET", "/api/feed?filter=unwatched&page=1")
        XCTAssertEqual(unwatchedOnly["total"] as? Int, 2)

        // updateProgress(id:seconds:) → PATCH /feed/{id}/progress {"watch_progress_seconds"}.
        let progressed = try await h.object("PATCH", "/api/feed/\(itemID)/progress", body: #"{"watch_progress_seconds": 42}"#)
        XCTAssertEqual(progressed["watch_progress_seconds"] as? Int, 42)
        let unwatched = try await h.object("PATCH", "/api/feed/\(itemID)/watched", body: #"{"is_watched": false}"#)
        XCTAssertEqual(unwatched["is_watched"] as? Bool, false)
        XCTAssertTrue(unwatched["watched_at"] is NSNull)

        // getSavedVideos, saveVideo(videoUrl:) → POST /saved-videos {"video_url"}, unsaveVideo(id:).
        let noneSaved = try await h.object("GET", "/api/saved-videos")
        XCTAssertEqual(noneSaved["total"] as? Int, 0)
        XCTAssertEqual((noneSaved["items"] as? [[String: Any]])?.count, 0)
        let saved = try await h.object("POST", "/api/saved-videos", body: #"{"video_url": "\#(h.feeds.url("/media/tones-60s.mp3"))"}"#, status: 201)
        XCTAssertEqual(Set(saved.keys), SavedVideoAndCollectionTests.savedKeys)
        XCTAssertEqual(saved["title"] as? String, "Episode 3: Four tones")
        XCTAssertEqual(saved["item_id"] as? Int, itemID)
        XCTAssertTrue(isWireDate(saved["saved_at"]))
        let savedID = try XCTUnwrap(saved["id"] as? Int)
        let savedList = try await h.object("GET", "/api/saved-videos")
        XCTAssertEqual((savedList["items"] as? [[String: Any]])?.map { $0["id"] as? Int }, [savedID])
        let unsaved = try await h.call("DELETE", "/api/saved-videos/\(savedID)")
        XCTAssertEqual(unsaved.status, 204)
        XCTAssertEqual(unsaved.body.count, 0)

        // getCollections, createCollection(name:) → POST /collections {"name"}.
        let created = try await h.object("POST", "/api/collections", body: #"{"name": "Later"}"#, status: 201)
        XCTAssertEqual(Set(created.keys), SavedVideoAndCollectionTests.collectionKeys)
        XCTAssertEqual(created["item_count"] as? Int, 0)
        XCTAssertTrue(isWireDate(created["created_at"]))
        let collections = try await h.object("GET", "/api/collections")
        XCTAssertEqual(collections["total"] as? Int, 1)
        XCTAssertEqual((collections["items"] as? [[String: Any]])?.map { $0["name"] as? String }, ["Later"])

        // syncChannel(id:) → POST /subscriptions/{id}/sync.
        let sync = try await h.object("POST", "/api/subscriptions/\(channelID)/sync")
        XCTAssertEqual(Set(sync.keys), ["channel_id", "channel_name", "success", "new_videos", "error"])
        XCTAssertEqual(sync["channel_id"] as? Int, channelID)
        XCTAssertEqual(sync["channel_name"] as? String, "The Tone Show")
        XCTAssertEqual(sync["success"] as? Bool, true)
        XCTAssertEqual(sync["new_videos"] as? Int, 0)
        XCTAssertTrue(sync["error"] is NSNull)

        // deleteChannel(id:) → DELETE /subscriptions/{id}: 204, then it is gone.
        let deleted = try await h.call("DELETE", "/api/subscriptions/\(channelID)")
        XCTAssertEqual(deleted.status, 204)
        XCTAssertEqual(deleted.body.count, 0)
        let gone = try await h.call("GET", "/api/subscriptions/\(channelID)")
        XCTAssertEqual(gone.status, 404)
        XCTAssertEqual(try gone.object()["detail"] as? String, "no channel \(channelID)")
        let empty = try await h.object("GET", "/api/feed")
        XCTAssertEqual(empty["total"] as? Int, 0)
    }

    /// Every date the API writes is what the guide's `.iso8601` decoder reads.
    func testEveryDateIsISO8601UTCWithoutFraction() async throws {
        let h = try await APIHarness()
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let feed = try await h.object("GET", "/api/feed")
        let item = try XCTUnwrap((feed["items"] as? [[String: Any]])?.first)
        let id = try XCTUnwrap(item["id"] as? Int)
        let watched = try await h.object("PATCH", "/api/feed/\(id)/watched", body: #"{"is_watched": true}"#)
        for key in ["upload_date", "discovered_at", "watched_at"] { XCTAssertTrue(isWireDate(watched[key]), "\(key): \(watched[key] ?? "missing")") }
        let channels = try await h.object("GET", "/api/channels")
        let channel = try XCTUnwrap((channels["items"] as? [[String: Any]])?.first)
        for key in ["created_at", "updated_at", "last_synced_at"] { XCTAssertTrue(isWireDate(channel[key]), "\(key): \(channel[key] ?? "missing")") }
    }
}
