import Foundation
import TestSupport
import XCTest

/// `/api/discover/*` with the federated providers. iTunes and Rumble are stood in for by the
/// harness's server on 127.0.0.1, answering in their documented shapes (the services cannot be
/// reached from here). The server reads where they are from the environment when it starts, so
/// each test sets it before its harness (XCTest runs these tests one at a time).
final class DiscoverRouteTests: XCTestCase {
    private func harness(rumble: String? = nil) async throws -> APIHarness {
        // The feeds server is the harness's own, so its base is only known once it runs: a
        // first harness gives nothing but the paths; providers are pointed at a server of ours.
        let services = try TestHTTPServer()
        self.services = services
        try services.write("itunes/search", """
            {"resultCount": 2, "results": [
             {"wrapperType": "track", "kind": "podcast", "collectionId": 11, "collectionName": "The Tone Show", "artistName": "Tones",
              "feedUrl": "FEED", "collectionViewUrl": "https://podcasts.apple.com/us/podcast/id11", "releaseDate": "2026-11-13T09:00:00Z"},
             {"wrapperType": "track", "kind": "podcast", "collectionId": 12, "collectionName": "Tone Deaf", "artistName": "Someone",
              "feedUrl": "https://feeds.example.com/deaf.xml", "collectionViewUrl": "https://podcasts.apple.com/us/podcast/id12"}]}
            """)
        setenv("FEEDCTL_DISCOVER_ITUNES_URL", services.url("/itunes"), 1)
        setenv("FEEDCTL_DISCOVER_RUMBLE_URL", rumble ?? services.url("/rumble"), 1)
        setenv("FEEDCTL_DISCOVER_YTDLP", "/nonexistent/yt-dlp", 1)
        defer {
            for name in ["FEEDCTL_DISCOVER_ITUNES_URL", "FEEDCTL_DISCOVER_RUMBLE_URL", "FEEDCTL_DISCOVER_YTDLP"] { unsetenv(name) }
        }
        let h = try await APIHarness()
        // The podcast iTunes finds is the demo feed the harness serves.
        let body = try String(contentsOf: services.root.appendingPathComponent("itunes/search"), encoding: .utf8)
        try services.write("itunes/search", body.replacingOccurrences(of: "FEED", with: h.feeds.url("/podcast.xml")))
        return h
    }
    private var services: TestHTTPServer?

    func testChannelSearchMarksWhatIsFollowedAndQuickSaveFollows() async throws {
        let h = try await harness()
        let found = try await h.object("POST", "/api/discover/search",
                                       body: #"{"query": "tone", "platforms": ["itunes", "youtube"], "type": "channels", "max_per_platform": 5}"#)
        XCTAssertEqual(Set(found.keys), ["query", "search_type", "total_results", "results", "by_platform", "timings", "total_duration_ms",
                                         "platforms_searched", "platforms_failed"])
        XCTAssertEqual(found["search_type"] as? String, "channels")
        XCTAssertEqual(found["platforms_searched"] as? [String], ["itunes", "youtube"])
        XCTAssertEqual(found["platforms_failed"] as? [String], ["youtube"], "no yt-dlp here")
        let timings = try XCTUnwrap(found["timings"] as? [[String: Any]])
        XCTAssertEqual(timings.map { $0["success"] as? Bool }, [true, false])
        XCTAssertEqual(timings.last?["error"] as? String, "searching YouTube needs yt-dlp, which is not installed (pip install yt-dlp)")
        XCTAssertEqual(Set(timings[0].keys), ["platform", "duration_ms", "success", "error"])
        let results = try XCTUnwrap(found["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["name"] as? String }, ["The Tone Show", "Tone Deaf"])
        XCTAssertEqual(Set(results[0].keys), ["platform", "channel_id", "channel_url", "name", "description", "avatar_url", "banner_url",
                                              "subscriber_count", "video_count", "feed_url", "subscribed", "library_channel_id", "provider"])
        XCTAssertEqual(results.map { $0["subscribed"] as? Bool }, [false, false])
        XCTAssertEqual(results[0]["feed_url"] as? String, h.feeds.url("/podcast.xml"))

        // Quick-save follows it, then the same search marks it.
        let saved = try await h.object("POST", "/api/discover/quick-save", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        XCTAssertEqual(saved["type"] as? String, "channel")
        XCTAssertEqual(saved["platform"] as? String, "podcast")
        XCTAssertEqual(saved["message"] as? String, "Subscribed: The Tone Show")
        XCTAssertEqual((saved["saved"] as? [String: Any])?["name"] as? String, "The Tone Show")
        let again = try await h.object("POST", "/api/discover/quick-save", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 200)
        XCTAssertEqual(again["message"] as? String, "Already subscribed: The Tone Show")
        let marked = try await h.object("POST", "/api/discover/search", body: #"{"query": "tone", "platforms": ["itunes"], "type": "channels"}"#)
        XCTAssertEqual((marked["results"] as? [[String: Any]])?.map { $0["subscribed"] as? Bool }, [true, false])

        // A URL that is one of its episodes (here its media) is saved, not followed: it lands in Saved.
        let page = try await h.object("GET", "/api/feed?per_page=1")
        let episode = try XCTUnwrap((page["items"] as? [[String: Any]])?.first)
        let media = try XCTUnwrap(episode["audio_url"] as? String)
        let video = try await h.object("POST", "/api/discover/quick-save", body: #"{"url": "\#(media)"}"#, status: 201)
        XCTAssertEqual(video["type"] as? String, "video")
        XCTAssertEqual(video["message"] as? String, "Saved: \(episode["title"] as? String ?? "")")
        let savedVideo = try XCTUnwrap(video["saved"] as? [String: Any])
        XCTAssertEqual(savedVideo["item_id"] as? Int, episode["id"] as? Int)
        XCTAssertEqual(savedVideo["subscribed"] as? Bool, true)
        XCTAssertEqual(savedVideo["provider"] as? String, "library")
        XCTAssertEqual(Set(savedVideo.keys), ["platform", "video_id", "video_url", "title", "description", "thumbnail_url", "duration_seconds",
                                              "view_count", "upload_date", "channel_name", "channel_id", "channel_url", "channel_avatar_url",
                                              "like_count", "tags", "audio_url", "feed_url", "item_id", "subscribed", "provider"])
        _ = try await h.object("POST", "/api/discover/quick-save", body: #"{"url": "\#(media)"}"#, status: 201)
        let savedList = try await h.object("GET", "/api/saved-videos")
        XCTAssertEqual(savedList["total"] as? Int, 1, "saved once")
        XCTAssertEqual((savedList["items"] as? [[String: Any]])?.first?["item_id"] as? Int, episode["id"] as? Int)

        let playlists = try await h.call("POST", "/api/discover/search", body: #"{"query": "tone", "type": "playlists"}"#)
        XCTAssertEqual(playlists.status, 422, playlists.text)
        let many = try await h.call("POST", "/api/discover/search", body: #"{"query": "tone", "max_per_platform": 51}"#)
        XCTAssertEqual(many.status, 422, many.text)
    }

    func testVideoSearchAcrossProvidersNamesTheFailure() async throws {
        let h = try await harness(rumble: "http://127.0.0.1:9/nothing")
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let found = try await h.object("POST", "/api/discover/search", body: #"{"query": "tones", "platforms": ["library", "rumble"]}"#)
        XCTAssertEqual(found["search_type"] as? String, "videos")
        XCTAssertEqual(found["platforms_failed"] as? [String], ["rumble"])
        let results = try XCTUnwrap(found["results"] as? [[String: Any]])
        XCTAssertEqual(results.first?["title"] as? String, "Episode 3: Four tones")
        XCTAssertEqual(Set(results[0].keys), ["platform", "video_id", "video_url", "title", "description", "thumbnail_url", "duration_seconds",
                                              "view_count", "upload_date", "channel_name", "channel_id", "channel_url", "channel_avatar_url",
                                              "like_count", "tags", "audio_url", "feed_url", "item_id", "subscribed", "provider"])
        XCTAssertEqual((found["by_platform"] as? [String: [[String: Any]]])?["rumble"]?.count, 0)

        let platforms = try await h.object("GET", "/api/discover/platforms")
        XCTAssertEqual(platforms["total"] as? Int, 5)
        let list = try XCTUnwrap(platforms["platforms"] as? [[String: Any]])
        XCTAssertEqual(list.map { $0["id"] as? String }, ["library", "itunes", "podcastindex", "youtube", "rumble"])
        XCTAssertEqual(list.map { $0["supports_search"] as? Bool }, [true, true, false, false, true])
        XCTAssertEqual(Set(list[0].keys), ["id", "name", "icon", "color", "supports_search", "supports_channel_feed", "supports_playlists"])
    }

    func testDiscoveryModeIsNoLongerNewest() async throws {
        let h = try await APIHarness()
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/youtube.xml"))"}"#, status: 201)
        let newest = try await h.object("GET", "/api/feed?mode=newest&per_page=3")
        let discovery = try await h.object("GET", "/api/feed?mode=Discovery&per_page=3")
        let titles = { (page: [String: Any]) in (page["items"] as? [[String: Any]])?.compactMap { $0["channel_name"] as? String } ?? [] }
        // One per channel in turn (neither is played): the two channels alternate.
        let channels = titles(discovery)
        XCTAssertEqual(channels.count, 3)
        XCTAssertNotEqual(channels[0], channels[1])
        XCTAssertEqual(channels[0], channels[2])
        XCTAssertNotEqual(titles(newest), channels, "newest is not discovery")
        let bad = try await h.call("GET", "/api/feed?mode=discovery&filter=watched")
        XCTAssertEqual(bad.status, 422, bad.text)
    }
}
