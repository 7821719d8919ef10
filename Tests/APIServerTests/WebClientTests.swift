import Foundation
import XCTest

/// The web client's calls (src/lib/api/client.ts) for the same features, with exact shapes.
final class WebClientTests: XCTestCase {
    private func subscribedHarness() async throws -> (h: APIHarness, channel: Int, items: [[String: Any]]) {
        let h = try await APIHarness()
        let added = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let channel = try XCTUnwrap(added["id"] as? Int)
        let feed = try await h.object("GET", "/api/feed")
        return (h, channel, try XCTUnwrap(feed["items"] as? [[String: Any]]))
    }

    func testChannelsListGetUpdateSyncDelete() async throws {
        let (h, channel, _) = try await subscribedHarness()
        let atom = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/atom.xml"))"}"#, status: 201)
        XCTAssertEqual(atom["platform"] as? String, "podcast", "an Atom blog is stored as a podcast-platform feed")

        let list = try await h.object("GET", "/api/channels?platform=podcast")
        XCTAssertEqual(list["total"] as? Int, 2)
        XCTAssertEqual(Set(try XCTUnwrap((list["items"] as? [[String: Any]])?.first).keys), GuideSequenceTests.channelKeys)
        let youtube = try await h.object("GET", "/api/channels?platform=youtube")
        XCTAssertEqual(youtube["total"] as? Int, 0)

        let one = try await h.object("GET", "/api/channels/\(channel)")
        XCTAssertEqual(one["name"] as? String, "The Tone Show")

        let paused = try await h.object("PUT", "/api/channels/\(channel)", body: #"{"is_active": false}"#)
        XCTAssertEqual(paused["is_active"] as? Bool, false)
        let inactive = try await h.object("GET", "/api/channels?is_active=false")
        XCTAssertEqual((inactive["items"] as? [[String: Any]])?.map { $0["id"] as? Int }, [channel])

        let sync = try await h.object("POST", "/api/channels/\(channel)/sync")
        XCTAssertEqual(sync["success"] as? Bool, true)

        // Adding the same feed again answers its channel (200, not a second one).
        let again = try await h.call("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/podcast.xml"))"}"#)
        XCTAssertEqual(again.status, 200)
        XCTAssertEqual(try again.object()["id"] as? Int, channel)

        let deleted = try await h.call("DELETE", "/api/channels/\(channel)")
        XCTAssertEqual(deleted.status, 204)
        let deletedAgain = try await h.call("DELETE", "/api/channels/\(channel)")
        XCTAssertEqual(deletedAgain.status, 404)
        let syncGone = try await h.call("POST", "/api/channels/\(channel)/sync")
        XCTAssertEqual(syncGone.status, 404)
    }

    func testFeedPagingFiltersAndOrders() async throws {
        let (h, channel, items) = try await subscribedHarness()
        XCTAssertEqual(items.count, 3)

        // getFeed({channel_id, per_page, page}) pages with has_more.
        let first = try await h.object("GET", "/api/feed?filter=unwatched&channel_ids=\(channel)&per_page=2&page=1")
        XCTAssertEqual(first["total"] as? Int, 3)
        XCTAssertEqual(first["per_page"] as? Int, 2)
        XCTAssertEqual(first["has_more"] as? Bool, true)
        XCTAssertEqual((first["items"] as? [[String: Any]])?.count, 2)
        let second = try await h.object("GET", "/api/feed?filter=unwatched&channel_ids=\(channel)&per_page=2&page=2")
        XCTAssertEqual(second["has_more"] as? Bool, false)
        XCTAssertEqual((second["items"] as? [[String: Any]])?.map { $0["title"] as? String }, ["Episode 1: Hello"])
        let past = try await h.object("GET", "/api/feed?per_page=2&page=9")
        XCTAssertEqual((past["items"] as? [[String: Any]])?.count, 0)
        XCTAssertEqual(past["total"] as? Int, 3)

        let oldest = try await h.object("GET", "/api/feed?sort_by=oldest")
        XCTAssertEqual((oldest["items"] as? [[String: Any]])?.map { $0["title"] as? String },
                       ["Episode 1: Hello", "Episode 2: A minute of A", "Episode 3: Four tones"])
        let shortest = try await h.object("GET", "/api/feed?mode=shortest")
        XCTAssertEqual((shortest["items"] as? [[String: Any]])?.first?["title"] as? String, "Episode 1: Hello")
        let ranged = try await h.object("GET", "/api/feed?duration_min=30&duration_max=60&since=2026-11-10T00:00:00Z")
        XCTAssertEqual((ranged["items"] as? [[String: Any]])?.map { $0["title"] as? String }, ["Episode 3: Four tones"])
        let quick = try await h.object("GET", "/api/feed?mode=quick_watch")
        XCTAssertEqual(quick["total"] as? Int, 3, "all under 10 minutes and unwatched")
        let deep = try await h.object("GET", "/api/feed?mode=deep_dive")
        XCTAssertEqual(deep["total"] as? Int, 0)
        let catchUp = try await h.object("GET", "/api/feed?mode=catch_up&per_page=1&page=2")
        XCTAssertEqual(catchUp["total"] as? Int, 2)
        XCTAssertEqual((catchUp["items"] as? [[String: Any]])?.map { $0["title"] as? String }, ["Episode 3: Four tones"])
        XCTAssertEqual(catchUp["has_more"] as? Bool, false)
    }

    func testWatchStateInTheBackendsForm() async throws {
        let (h, _, items) = try await subscribedHarness()
        let id = try XCTUnwrap(items.first?["id"] as? Int)

        // markFeedItemWatched(id) sends {"progress_seconds": undefined}, i.e. `{}`.
        let watched = try await h.object("PUT", "/api/feed/items/\(id)/watched", body: "{}")
        XCTAssertEqual(Set(watched.keys), GuideSequenceTests.itemKeys)
        XCTAssertEqual(watched["is_watched"] as? Bool, true)
        let noBody = try await h.object("PUT", "/api/feed/items/\(id)/watched")
        XCTAssertEqual(noBody["is_watched"] as? Bool, true)
        let watchedList = try await h.object("GET", "/api/feed?filter=watched")
        XCTAssertEqual((watchedList["items"] as? [[String: Any]])?.map { $0["id"] as? Int }, [id])

        let unwatched = try await h.object("PUT", "/api/feed/items/\(id)/unwatched")
        XCTAssertEqual(unwatched["is_watched"] as? Bool, false)
        let progress = try await h.object("PUT", "/api/feed/items/\(id)/progress?progress_seconds=30")
        XCTAssertEqual(progress["watch_progress_seconds"] as? Int, 30)
        let item = try await h.object("GET", "/api/feed/items/\(id)")
        XCTAssertEqual(item["watch_progress_seconds"] as? Int, 30)
        XCTAssertEqual(Set(item.keys), GuideSequenceTests.itemKeys.union(["description_html", "chapters", "transcript_url", "download"]),
                       "the one item carries its notes as HTML, its chapters, transcript link and download state")

        let byChannel = try await h.object("GET", "/api/feed/by-channel?filter=all")
        XCTAssertEqual(Set(byChannel.keys), ["channels", "total_channels", "total_items"])
        XCTAssertEqual(byChannel["total_channels"] as? Int, 1)
        XCTAssertEqual(byChannel["total_items"] as? Int, 3)
        let group = try XCTUnwrap((byChannel["channels"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(group.keys), ["channel_id", "channel_name", "channel_avatar_url", "platform", "items", "total_items", "unwatched_count"])
        XCTAssertEqual((group["items"] as? [[String: Any]])?.count, 3)
        XCTAssertEqual(group["unwatched_count"] as? Int, 3)

        // Nothing was played through the player: the history is empty, and well formed.
        let history = try await h.object("GET", "/api/feed/history?page=1&per_page=10&include_completed=false")
        XCTAssertEqual(Set(history.keys), ["items", "total", "page", "per_page", "has_more"])
        XCTAssertEqual(history["total"] as? Int, 0)
    }

    func testHistoryListsPlayedItemsOncePerItem() async throws {
        let (h, _, items) = try await subscribedHarness()
        let ids = items.compactMap { $0["id"] as? Int }.map(Int64.init)
        let library = h.owner
        _ = try await library.appendHistory(item: ids[2], position: 10, now: APIHarness.now - 30)
        _ = try await library.appendHistory(item: ids[0], position: 5, now: APIHarness.now - 20)
        _ = try await library.appendHistory(item: ids[2], position: 20, now: APIHarness.now - 10)
        let history = try await h.object("GET", "/api/feed/history")
        XCTAssertEqual((history["items"] as? [[String: Any]])?.compactMap { ($0["id"] as? Int).map(Int64.init) }, [ids[2], ids[0]])
        XCTAssertEqual(history["total"] as? Int, 2)
    }
}
