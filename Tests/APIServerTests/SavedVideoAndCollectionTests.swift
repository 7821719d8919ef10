import APIServer
import FeedModel
import Foundation
import Hummingbird
import LibraryStore
import XCTest

/// `/api/saved-videos` and `/api/collections` (issue 15) in both clients' forms, against the real
/// server on 127.0.0.1, with exact shapes; pages saved by URL are served by the test HTTP server.
final class SavedVideoAndCollectionTests: XCTestCase {
    static let savedKeys: Set<String> = [
        "id", "platform", "video_id", "video_url", "title", "description", "thumbnail_url", "duration_seconds", "view_count",
        "upload_date", "channel_name", "channel_id", "channel_url", "is_watched", "watched_at", "watch_progress_seconds",
        "notes", "saved_at", "updated_at", "duration_formatted", "item_id",
    ]
    static let collectionKeys: Set<String> = [
        "id", "name", "slug", "description", "cover_url", "sort_order", "item_count", "created_at", "updated_at",
    ]
    static let collectionItemKeys: Set<String> = [
        "id", "item_type", "url", "thumbnail_url", "title", "source_url", "domain", "embed_type", "video_id", "channel_name", "sort_order",
        "added_at", "is_watched", "watched_at", "watch_progress_seconds",
    ]

    /// A video page as sites serve it: Open Graph, JSON-LD, a canonical link.
    static let page = """
        <!DOCTYPE html><html><head>
        <title>Fallback title</title>
        <meta property="og:title" content="A  walk in   the hills">
        <meta property="og:image" content="/img/hills.jpg">
        <meta property="og:description" content="Forty minutes of birdsong.">
        <link rel="canonical" href="/watch/hills">
        <script type="application/ld+json">{"@context": "https://schema.org", "@graph": [{"@type": "WebPage"},
          {"@type": "VideoObject", "name": "JSON-LD name", "duration": "PT40M12S", "uploadDate": "2026-10-01T08:00:00Z",
           "author": {"@type": "Person", "name": "Hill Walker", "url": "/c/walker"}}]}</script>
        </head><body><p>Hello</p></body></html>
        """

    private func subscribed(_ h: APIHarness) async throws -> [[String: Any]] {
        _ = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let feedItems = try await h.object("GET", "/api/feed?sort_by=oldest")["items"] as? [[String: Any]]
        return try XCTUnwrap(feedItems)
    }

    private func items(_ object: [String: Any]) throws -> [[String: Any]] { try XCTUnwrap(object["items"] as? [[String: Any]]) }

    // MARK: Saved videos

    /// The iOS guide: `POST /saved-videos {video_url}` with a library item's media URL, list,
    /// `DELETE /saved-videos/{id}`. Saving again answers the first save (the backend's rule).
    func testTheGuideSavesALibraryItemByItsURL() async throws {
        let h = try await APIHarness()
        let feed = try await subscribed(h)
        let third = try XCTUnwrap(feed.last)
        let media = try XCTUnwrap(third["audio_url"] as? String)
        XCTAssertEqual(media, h.feeds.url("/media/tones-60s.mp3"))

        let saved = try await h.object("POST", "/api/saved-videos", body: #"{"video_url": "\#(media)"}"#, status: 201)
        XCTAssertEqual(Set(saved.keys), Self.savedKeys)
        XCTAssertEqual(saved["item_id"] as? Int, third["id"] as? Int)
        XCTAssertEqual(saved["title"] as? String, "Episode 3: Four tones")
        XCTAssertEqual(saved["platform"] as? String, "podcast")
        XCTAssertEqual(saved["video_id"] as? String, "tone-show-3")
        XCTAssertEqual(saved["video_url"] as? String, media)
        XCTAssertEqual(saved["channel_name"] as? String, "The Tone Show")
        XCTAssertEqual(saved["duration_seconds"] as? Int, 60)
        XCTAssertEqual(saved["duration_formatted"] as? String, "1:00")
        XCTAssertEqual(saved["is_watched"] as? Bool, false)
        XCTAssertEqual(saved["watch_progress_seconds"] as? Int, 0)
        XCTAssertTrue(saved["notes"] is NSNull)
        XCTAssertTrue(saved["watched_at"] is NSNull)
        XCTAssertTrue(isWireDate(saved["saved_at"]) && isWireDate(saved["updated_at"]) && isWireDate(saved["upload_date"]))
        let id = try XCTUnwrap(saved["id"] as? Int)

        let again = try await h.object("POST", "/api/saved-videos", body: #"{"video_url": "\#(media)", "notes": "later"}"#, status: 201)
        XCTAssertEqual(again["id"] as? Int, id, "the first save, not a second one")
        XCTAssertTrue(again["notes"] is NSNull, "answered unchanged")

        let list = try await h.object("GET", "/api/saved-videos")
        XCTAssertEqual(Set(list.keys), ["items", "total"])
        XCTAssertEqual(list["total"] as? Int, 1)
        XCTAssertEqual(try items(list).map { $0["id"] as? Int }, [id])

        // The item's watch state is the feed's: watching it through saved videos shows in the feed.
        let watched = try await h.object("PUT", "/api/saved-videos/\(id)/watched")
        XCTAssertEqual(watched["is_watched"] as? Bool, true)
        XCTAssertTrue(isWireDate(watched["watched_at"]))
        let item = try await h.object("GET", "/api/feed/items/\(try XCTUnwrap(third["id"] as? Int))")
        XCTAssertEqual(item["is_watched"] as? Bool, true)
        let unwatched = try await h.object("GET", "/api/saved-videos?is_watched=false")
        XCTAssertEqual(unwatched["total"] as? Int, 0)

        let deleted = try await h.call("DELETE", "/api/saved-videos/\(id)")
        XCTAssertEqual(deleted.status, 204)
        let deletedAgain = try await h.call("DELETE", "/api/saved-videos/\(id)").status
        XCTAssertEqual(deletedAgain, 404)
        let gotAfterDelete = try await h.call("GET", "/api/saved-videos/\(id)").status
        XCTAssertEqual(gotAfterDelete, 404)
        let totalAfterDelete = try await h.object("GET", "/api/saved-videos")["total"] as? Int
        XCTAssertEqual(totalAfterDelete, 0)
        let stillThere = try await h.call("GET", "/api/feed/items/\(try XCTUnwrap(third["id"] as? Int))")
        XCTAssertEqual(stillThere.status, 200, "unsaving leaves the item in the library")
    }

    /// The web client: the backend's full body, list filters and paging, get, update notes,
    /// watched/unwatched/progress, stats, check, delete.
    func testTheWebClientsSavedVideoCalls() async throws {
        let h = try await APIHarness()
        _ = try await subscribed(h)
        let body = """
            {"platform": "youtube", "video_id": "dQw4w9WgXcQ", "video_url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
             "title": "A song", "description": null, "thumbnail_url": "https://i.ytimg.com/vi/dQw4w9WgXcQ/hq.jpg",
             "duration_seconds": 212, "view_count": 1500000000, "upload_date": "2009-10-25T06:57:33",
             "channel_name": "Rick", "channel_id": "UCuAXFkgsw1L7xaCfnd5JJOw", "channel_url": "https://www.youtube.com/channel/UCuAXFkgsw1L7xaCfnd5JJOw",
             "notes": "classic"}
            """
        let saved = try await h.object("POST", "/api/saved-videos", body: body, status: 201)
        XCTAssertEqual(Set(saved.keys), Self.savedKeys)
        XCTAssertEqual(saved["title"] as? String, "A song")
        XCTAssertEqual(saved["upload_date"] as? String, "2009-10-25T06:57:33Z", "a zone-less date is UTC, written with Z")
        XCTAssertEqual(saved["view_count"] as? Int, 1_500_000_000)
        XCTAssertEqual(saved["channel_id"] as? String, "UCuAXFkgsw1L7xaCfnd5JJOw")
        XCTAssertEqual(saved["duration_formatted"] as? String, "3:32")
        XCTAssertEqual(saved["notes"] as? String, "classic")
        XCTAssertTrue(saved["item_id"] is NSNull)
        let id = try XCTUnwrap(saved["id"] as? Int)
        let media = h.feeds.url("/media/a440-60s.ogg")
        let episode = try await h.object("POST", "/api/saved-videos/from-url", body: #"{"url": "\#(media)", "notes": "A"}"#, status: 201)
        XCTAssertEqual(episode["notes"] as? String, "A")
        XCTAssertEqual(episode["title"] as? String, "Episode 2: A minute of A")

        let youtube = try await h.object("GET", "/api/saved-videos?platform=youtube")
        XCTAssertEqual(try items(youtube).map { $0["id"] as? Int }, [id])
        let paged = try await h.object("GET", "/api/saved-videos?limit=1&offset=1")
        XCTAssertEqual(paged["total"] as? Int, 2)
        XCTAssertEqual(try items(paged).map { $0["id"] as? Int }, [id], "newest first: the episode was saved last")
        let gotTitle = try await h.object("GET", "/api/saved-videos/\(id)")["title"] as? String
        XCTAssertEqual(gotTitle, "A song")

        let noted = try await h.object("PUT", "/api/saved-videos/\(id)", body: #"{"notes": "watch with Ana"}"#)
        XCTAssertEqual(noted["notes"] as? String, "watch with Ana")
        XCTAssertEqual(noted["is_watched"] as? Bool, false)
        let watched = try await h.object("PUT", "/api/saved-videos/\(id)/watched?progress_seconds=200")
        XCTAssertEqual(watched["is_watched"] as? Bool, true)
        XCTAssertEqual(watched["watch_progress_seconds"] as? Int, 200)
        XCTAssertEqual(watched["watched_at"] as? String, "2026-11-20T00:00:00Z")
        let unwatched = try await h.object("PUT", "/api/saved-videos/\(id)/unwatched")
        XCTAssertEqual(unwatched["is_watched"] as? Bool, false)
        XCTAssertTrue(unwatched["watched_at"] is NSNull)
        let progress = try await h.object("PUT", "/api/saved-videos/\(id)/progress?progress_seconds=42")
        XCTAssertEqual(progress["watch_progress_seconds"] as? Int, 42)
        XCTAssertEqual(progress["is_watched"] as? Bool, false)
        let both = try await h.object("PUT", "/api/saved-videos/\(id)", body: #"{"is_watched": true, "watch_progress_seconds": 7}"#)
        XCTAssertEqual(both["is_watched"] as? Bool, true)
        XCTAssertEqual(both["watch_progress_seconds"] as? Int, 7)

        let stats = try await h.object("GET", "/api/saved-videos/stats")
        XCTAssertEqual(stats["total_videos"] as? Int, 2)
        XCTAssertEqual(stats["watched_videos"] as? Int, 1)
        XCTAssertEqual(stats["unwatched_videos"] as? Int, 1)
        XCTAssertEqual(stats["by_platform"] as? [String: Int], ["youtube": 1, "podcast": 1])
        let check = try await h.object("GET", "/api/saved-videos/check?platform=youtube&video_id=dQw4w9WgXcQ")
        XCTAssertEqual(check["is_saved"] as? Bool, true)
        let checkOther = try await h.object("GET", "/api/saved-videos/check?platform=youtube&video_id=other")
        XCTAssertEqual(checkOther["is_saved"] as? Bool, false)

        // The same page again: the first save, 201, unchanged.
        let again = try await h.object("POST", "/api/saved-videos", body: body.replacingOccurrences(of: "A song", with: "Renamed"), status: 201)
        XCTAssertEqual(again["id"] as? Int, id)
        XCTAssertEqual(again["title"] as? String, "A song")

        let deleteStatus = try await h.call("DELETE", "/api/saved-videos/\(id)").status
        XCTAssertEqual(deleteStatus, 204)
        let totalLeft = try await h.object("GET", "/api/saved-videos")["total"] as? Int
        XCTAssertEqual(totalLeft, 1)
    }

    /// A YouTube video of a subscribed channel, saved by another of its URLs (`youtu.be/ID`), or
    /// by the backend's body naming its platform and video id, is the library's item.
    func testAVideoSavedByAnotherURLIsTheLibrarysItem() async throws {
        let h = try await APIHarness()
        let channel = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/youtube.xml"))"}"#, status: 201)
        XCTAssertEqual(channel["platform"] as? String, "youtube")
        let short = try await h.object("POST", "/api/saved-videos", body: #"{"video_url": "https://youtu.be/dQw4w9WgXcQ"}"#, status: 201)
        let item = try XCTUnwrap(short["item_id"] as? Int)
        XCTAssertEqual(short["video_url"] as? String, "https://www.youtube.com/watch?v=dQw4w9WgXcQ")
        XCTAssertEqual(short["platform"] as? String, "youtube")
        let full = try await h.object("POST", "/api/saved-videos", body: """
            {"platform": "youtube", "video_id": "aBcDeFgHiJk", "video_url": "https://m.youtube.com/watch?v=aBcDeFgHiJk&t=3", "title": "T"}
            """, status: 201)
        let other = try XCTUnwrap(full["item_id"] as? Int)
        XCTAssertNotEqual(other, item)
        let list = try await h.object("GET", "/api/saved-videos?platform=youtube")
        XCTAssertEqual(list["total"] as? Int, 2)
    }

    /// A bare URL the library does not hold: the server reads the page (Open Graph over JSON-LD
    /// over `<title>`; relative links resolved), where the backend answers 422.
    func testSavingAnUnknownPageReadsItsMetadata() async throws {
        let h = try await APIHarness()
        try h.feeds.write("watch/hills.html", Self.page)
        let url = h.feeds.url("/watch/hills.html")
        let saved = try await h.object("POST", "/api/saved-videos", body: #"{"video_url": "\#(url)"}"#, status: 201)
        XCTAssertEqual(Set(saved.keys), Self.savedKeys)
        XCTAssertEqual(saved["title"] as? String, "A walk in the hills")
        XCTAssertEqual(saved["thumbnail_url"] as? String, h.feeds.url("/img/hills.jpg"))
        XCTAssertEqual(saved["description"] as? String, "Forty minutes of birdsong.")
        XCTAssertEqual(saved["duration_seconds"] as? Int, 2412)
        XCTAssertEqual(saved["upload_date"] as? String, "2026-10-01T08:00:00Z")
        XCTAssertEqual(saved["channel_name"] as? String, "Hill Walker")
        XCTAssertEqual(saved["channel_url"] as? String, h.feeds.url("/c/walker"))
        XCTAssertEqual(saved["platform"] as? String, "web")
        XCTAssertEqual(saved["video_id"] as? String, url)
        XCTAssertEqual(saved["video_url"] as? String, url)
        XCTAssertTrue(saved["item_id"] is NSNull)

        // A page naming itself only through oEmbed, saved with /from-url and notes.
        try h.feeds.write("bare.html", #"<html><head><link rel="alternate" type="application/json+oembed" href="/oembed.json"></head></html>"#)
        try h.feeds.write("oembed.json", #"{"type": "video", "title": "From oEmbed", "thumbnail_url": "https://img.example/t.jpg", "author_name": "Em"}"#)
        let bare = try await h.object("POST", "/api/saved-videos/from-url", body: #"{"url": "\#(h.feeds.url("/bare.html"))", "notes": "n"}"#, status: 201)
        XCTAssertEqual(bare["title"] as? String, "From oEmbed")
        XCTAssertEqual(bare["thumbnail_url"] as? String, "https://img.example/t.jpg")
        XCTAssertEqual(bare["channel_name"] as? String, "Em")
        XCTAssertEqual(bare["notes"] as? String, "n")

        // A page that cannot be fetched: 400 with the reason, nothing saved.
        let missing = try await h.call("POST", "/api/saved-videos", body: #"{"video_url": "\#(h.feeds.url("/nope.html"))"}"#)
        XCTAssertEqual(missing.status, 400, missing.text)
        XCTAssertTrue(missing.text.contains("404"), missing.text)
        let totalSaved = try await h.object("GET", "/api/saved-videos")["total"] as? Int
        XCTAssertEqual(totalSaved, 2)
    }

    /// Without --allow-private-feeds a page on a local address is not fetched: 400, nothing saved.
    func testAPrivatePageIsRefusedWithoutAllowPrivateFeeds() async throws {
        let h = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true,
                                                                        allowPrivateFeeds: false, version: "test"))
        try h.feeds.write("watch/hills.html", Self.page)
        for body in [#"{"video_url": "\#(h.feeds.url("/watch/hills.html"))"}"#,
                     #"{"url": "http://localhost:\#(URL(string: h.feeds.base)?.port ?? 1)/watch/hills.html"}"#] {
            let path = body.hasPrefix(#"{"url""#) ? "/api/saved-videos/from-url" : "/api/saved-videos"
            let refused = try await h.call("POST", path, body: body)
            XCTAssertEqual(refused.status, 400, refused.text)
            XCTAssertTrue(refused.text.contains("refused") && refused.text.contains("--allow-private-feeds"), refused.text)
        }
        let file = try await h.call("POST", "/api/saved-videos", body: #"{"video_url": "file:///etc/passwd"}"#)
        XCTAssertEqual(file.status, 400, file.text)
        let totalSaved = try await h.object("GET", "/api/saved-videos")["total"] as? Int
        XCTAssertEqual(totalSaved, 0)
    }

    // MARK: Collections

    /// The web client's collection calls with the backend's ids and shapes; the guide's
    /// `POST /collections {name}`; the CLI's name-based view of the same collection.
    func testCollections() async throws {
        let h = try await APIHarness()
        let feed = try await subscribed(h)
        let ids = try feed.map { try XCTUnwrap($0["id"] as? Int) }
        let media = try feed.map { try XCTUnwrap($0["audio_url"] as? String) }

        let created = try await h.object("POST", "/api/collections", body: #"{"name": "Road trip", "description": "for the car"}"#, status: 201)
        XCTAssertEqual(Set(created.keys), Self.collectionKeys)
        XCTAssertEqual(created["slug"] as? String, "road-trip")
        XCTAssertEqual(created["description"] as? String, "for the car")
        XCTAssertEqual(created["item_count"] as? Int, 0)
        XCTAssertEqual(created["sort_order"] as? Int, 0)
        XCTAssertTrue(created["cover_url"] is NSNull)
        XCTAssertTrue(isWireDate(created["created_at"]) && isWireDate(created["updated_at"]))
        let id = try XCTUnwrap(created["id"] as? Int)
        let duplicate = try await h.call("POST", "/api/collections", body: #"{"name": "Road trip"}"#)
        XCTAssertEqual(duplicate.status, 409, duplicate.text)
        let guide = try await h.object("POST", "/api/collections", body: #"{"name": "Later"}"#, status: 201)
        XCTAssertTrue(guide["description"] is NSNull)

        // Items: by the backend's {item_type, url} (a library item's media URL) or by item_id.
        let first = try await h.object("POST", "/api/collections/\(id)/items",
                                       body: #"{"item_type": "podcast_episode", "url": "\#(media[0])", "title": "ignored"}"#, status: 201)
        XCTAssertEqual(Set(first.keys), Self.collectionItemKeys)
        XCTAssertEqual(first["id"] as? Int, ids[0])
        XCTAssertEqual(first["item_type"] as? String, "podcast_episode")
        XCTAssertEqual(first["url"] as? String, media[0])
        XCTAssertEqual(first["title"] as? String, "Episode 1: Hello")
        XCTAssertEqual(first["domain"] as? String, "127.0.0.1")
        XCTAssertEqual(first["sort_order"] as? Int, 1)
        XCTAssertEqual(first["video_id"] as? String, "tone-show-1")
        XCTAssertEqual(first["channel_name"] as? String, "The Tone Show")
        _ = try await h.object("POST", "/api/collections/\(id)/items", body: #"{"item_id": \#(ids[1])}"#, status: 201)
        _ = try await h.object("POST", "/api/collections/\(id)/items", body: #"{"item_type": "video", "url": "\#(media[2])"}"#, status: 201)
        let twice = try await h.call("POST", "/api/collections/\(id)/items", body: #"{"item_id": \#(ids[1])}"#)
        XCTAssertEqual(twice.status, 409, twice.text)
        let unknown = try await h.call("POST", "/api/collections/\(id)/items", body: #"{"item_type": "video", "url": "https://elsewhere.example/v"}"#)
        XCTAssertEqual(unknown.status, 404, "a URL of no library item is not found, as an id is: \(unknown.text)")
        let unknownItem = try await h.call("POST", "/api/collections/\(id)/items", body: #"{"item_id": 9999}"#).status
        XCTAssertEqual(unknownItem, 404)

        let reordered = try await h.call("POST", "/api/collections/\(id)/items/reorder", body: #"{"item_ids": [\#(ids[2]), \#(ids[0])]}"#)
        XCTAssertEqual(reordered.status, 204, reordered.text)
        var full = try await h.object("GET", "/api/collections/\(id)")
        XCTAssertEqual(Set(full.keys), Self.collectionKeys.union(["items"]))
        XCTAssertEqual(full["item_count"] as? Int, 3)
        XCTAssertEqual(try items(full).map { $0["id"] as? Int }, [ids[2], ids[0], ids[1]])
        XCTAssertEqual(try items(full).map { $0["sort_order"] as? Int }, [1, 2, 3])
        let badOrder = try await h.call("POST", "/api/collections/\(id)/items/reorder", body: #"{"item_ids": [9999]}"#)
        XCTAssertEqual(badOrder.status, 404, badOrder.text)
        // The CLI sees the same collection, in the same order.
        let cliOrder = try await h.owner.collection("Road trip").map { Int($0.id) }
        XCTAssertEqual(cliOrder, [ids[2], ids[0], ids[1]])

        let watched = try await h.object("PUT", "/api/collections/\(id)/items/\(ids[0])/watched", body: #"{"is_watched": true}"#)
        XCTAssertEqual(watched["is_watched"] as? Bool, true)
        XCTAssertTrue(isWireDate(watched["watched_at"]))
        let progress = try await h.object("PUT", "/api/collections/\(id)/items/\(ids[1])/progress", body: #"{"progress_seconds": 9}"#)
        XCTAssertEqual(progress["watch_progress_seconds"] as? Int, 9)
        let feedProgress = try await h.object("GET", "/api/feed/items/\(ids[1])")["watch_progress_seconds"] as? Int
        XCTAssertEqual(feedProgress, 9)

        let removed = try await h.call("DELETE", "/api/collections/\(id)/items/\(ids[0])")
        XCTAssertEqual(removed.status, 204)
        let removedAgain = try await h.call("DELETE", "/api/collections/\(id)/items/\(ids[0])").status
        XCTAssertEqual(removedAgain, 404)
        full = try await h.object("GET", "/api/collections/\(id)")
        XCTAssertEqual(try items(full).map { $0["sort_order"] as? Int }, [1, 2])

        let renamed = try await h.object("PUT", "/api/collections/\(id)", body: #"{"name": "Long drive", "sort_order": 2}"#)
        XCTAssertEqual(renamed["name"] as? String, "Long drive")
        XCTAssertEqual(renamed["slug"] as? String, "long-drive")
        XCTAssertEqual(renamed["description"] as? String, "for the car", "not sent: kept")
        XCTAssertEqual(renamed["sort_order"] as? Int, 2)
        let cleared = try await h.object("PUT", "/api/collections/\(id)", body: #"{"description": null}"#)
        XCTAssertTrue(cleared["description"] is NSNull)
        let clash = try await h.call("PUT", "/api/collections/\(id)", body: #"{"name": "Later"}"#)
        XCTAssertEqual(clash.status, 409, clash.text)

        let list = try await h.object("GET", "/api/collections")
        XCTAssertEqual(Set(list.keys), ["items", "total"])
        XCTAssertEqual(list["total"] as? Int, 2)
        XCTAssertEqual(try items(list).map { $0["name"] as? String }, ["Later", "Long drive"], "by sort order, then name")

        // The backend's quick-add (Favorites, made on first use) and export.
        let quick = try await h.object("POST", "/api/collections/quick-add", body: #"{"item_type": "podcast_episode", "url": "\#(media[2])"}"#, status: 201)
        XCTAssertEqual(quick["id"] as? Int, ids[2])
        let quickAgain = try await h.call("POST", "/api/collections/quick-add", body: #"{"item_id": \#(ids[2])}"#)
        XCTAssertEqual(quickAgain.status, 409, quickAgain.text)
        let withFavorites = try await h.object("GET", "/api/collections")
        let favorites = try XCTUnwrap(try items(withFavorites).first { $0["name"] as? String == "Favorites" })
        XCTAssertEqual(favorites["description"] as? String, "Quick-saved favorites")
        XCTAssertEqual(favorites["item_count"] as? Int, 1)
        let exported = try await h.call("GET", "/api/collections/export/\(id)")
        XCTAssertEqual(exported.status, 200, exported.text)
        XCTAssertEqual(exported.headers["content-disposition"], #"attachment; filename="long-drive.json""#)
        let document = try exported.object()
        XCTAssertEqual(Set(document.keys), ["name", "slug", "description", "item_count", "created_at", "items"])
        XCTAssertEqual(try items(document).map { $0["id"] as? Int }, [ids[2], ids[1]])
        let missingExport = try await h.call("GET", "/api/collections/export/9999")
        XCTAssertEqual(missingExport.status, 404)

        let deleteStatus = try await h.call("DELETE", "/api/collections/\(id)").status
        XCTAssertEqual(deleteStatus, 204)
        let gotAfterDelete = try await h.call("GET", "/api/collections/\(id)").status
        XCTAssertEqual(gotAfterDelete, 404)
        let deletedAgain = try await h.call("DELETE", "/api/collections/\(id)").status
        XCTAssertEqual(deletedAgain, 404)
        let itemStatus = try await h.call("GET", "/api/feed/items/\(ids[1])").status
        XCTAssertEqual(itemStatus, 200, "its items stay in the library")
    }

    // MARK: Bad input

    func testMalformedBodiesAndParametersAreRefusedNever500() async throws {
        let h = try await APIHarness()
        _ = try await subscribed(h)
        let collectionID = try await h.object("POST", "/api/collections", body: #"{"name": "C"}"#, status: 201)["id"] as? Int
        let collection = try XCTUnwrap(collectionID)
        let savedReply = try await h.object("POST", "/api/saved-videos", body: """
            {"platform": "youtube", "video_id": "x", "video_url": "https://www.youtube.com/watch?v=x", "title": "X"}
            """, status: 201)
        let saved = try XCTUnwrap(savedReply["id"] as? Int)
        let cases: [(String, String, String?, Int)] = [
            ("POST", "/api/saved-videos", "{", 400),
            ("POST", "/api/saved-videos", "[]", 422),
            ("POST", "/api/saved-videos", "{}", 422),
            ("POST", "/api/saved-videos", #"{"video_url": 5}"#, 422),
            ("POST", "/api/saved-videos", #"{"video_url": "  "}"#, 422),
            ("POST", "/api/saved-videos", #"{"video_url": "https://a.example/v", "title": "T"}"#, 422),
            ("POST", "/api/saved-videos", #"{"video_url": "https://a.example/v", "title": "T", "platform": "web", "video_id": "v", "duration_seconds": -1}"#, 422),
            ("POST", "/api/saved-videos", #"{"video_url": "https://a.example/v", "title": "T", "platform": "web", "video_id": "v", "upload_date": "soon"}"#, 422),
            ("POST", "/api/saved-videos/from-url", #"{"notes": "n"}"#, 422),
            ("POST", "/api/saved-videos/from-url", "not json", 400),
            ("GET", "/api/saved-videos?limit=0", nil, 422),
            ("GET", "/api/saved-videos?limit=\(APILimits.maxPerPage + 1)", nil, 422),
            ("GET", "/api/saved-videos?offset=-1", nil, 422),
            ("GET", "/api/saved-videos?is_watched=maybe", nil, 422),
            ("GET", "/api/saved-videos/abc", nil, 422),
            ("GET", "/api/saved-videos/check?platform=youtube", nil, 422),
            ("PUT", "/api/saved-videos/\(saved)", #"{"notes": 3}"#, 422),
            ("PUT", "/api/saved-videos/\(saved)", #"{"watch_progress_seconds": -5}"#, 422),
            ("PUT", "/api/saved-videos/\(saved)", "{", 400),
            ("PUT", "/api/saved-videos/\(saved)/progress", nil, 422),
            ("PUT", "/api/saved-videos/\(saved)/progress?progress_seconds=-1", nil, 422),
            ("PUT", "/api/saved-videos/\(saved)/watched?progress_seconds=x", nil, 422),
            ("POST", "/api/collections", "{", 400),
            ("POST", "/api/collections", "{}", 422),
            ("POST", "/api/collections", #"{"name": ""}"#, 422),
            ("POST", "/api/collections", #"{"name": "\#(String(repeating: "n", count: 101))"}"#, 422),
            ("POST", "/api/collections", #"{"name": "D", "description": "\#(String(repeating: "d", count: 501))"}"#, 422),
            ("PUT", "/api/collections/\(collection)", #"{"sort_order": -1}"#, 422),
            ("PUT", "/api/collections/\(collection)", #"{"name": 7}"#, 422),
            ("POST", "/api/collections/\(collection)/items", "{}", 422),
            ("POST", "/api/collections/\(collection)/items", #"{"item_type": "song", "url": "x"}"#, 422),
            ("POST", "/api/collections/\(collection)/items", #"{"item_id": "one"}"#, 422),
            ("POST", "/api/collections/\(collection)/items/reorder", #"{"item_ids": "1,2"}"#, 422),
            ("POST", "/api/collections/\(collection)/items/reorder", "{", 400),
            ("PUT", "/api/collections/\(collection)/items/1/progress", #"{"progress_seconds": -1}"#, 422),
            ("PUT", "/api/collections/\(collection)/items/1/watched", #"{}"#, 422),
            ("GET", "/api/collections/0", nil, 422),
        ]
        for (method, path, body, status) in cases {
            let reply = try await h.call(method, path, body: body)
            XCTAssertEqual(reply.status, status, "\(method) \(path) \(body ?? ""): \(reply.text)")
            XCTAssertNotNil(try reply.object()["detail"] as? String, "\(method) \(path): \(reply.text)")
        }
        let totalSaved = try await h.object("GET", "/api/saved-videos")["total"] as? Int
        XCTAssertEqual(totalSaved, 1, "nothing saved by a refused request")
        let totalCollections = try await h.object("GET", "/api/collections")["total"] as? Int
        XCTAssertEqual(totalCollections, 1)
    }

    // MARK: Two users

    /// Saved videos and collections are per user: another user's ids are 404 on every route,
    /// lists hold only one's own, and names are unique per user.
    func testTwoUsersAreIsolated() async throws {
        let h = try await APIHarness(authenticator: { library in
            let bob = try await library.owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            return HeaderUser(owner: library.owner, bob: library.store(for: bob.id))
        })
        let ownerFeed = try await subscribed(h)
        let media = try XCTUnwrap(ownerFeed.first?["audio_url"] as? String)
        // Bob follows the same feed: the same items, his own state.
        let bobChannel = try await bob(h, "POST", "/api/channels", #"{"channel_url": "\#(h.feeds.url("/podcast.xml"))"}"#)
        XCTAssertEqual(bobChannel.status, 201, bobChannel.text)

        let savedID = try await h.object("POST", "/api/saved-videos", body: #"{"video_url": "\#(media)"}"#, status: 201)["id"] as? Int
        let saved = try XCTUnwrap(savedID)
        let pageReply = try await h.object("POST", "/api/saved-videos", body: """
            {"platform": "web", "video_id": "p", "video_url": "https://a.example/p", "title": "P"}
            """, status: 201)
        let page = try XCTUnwrap(pageReply["id"] as? Int)
        let collectionID = try await h.object("POST", "/api/collections", body: #"{"name": "Mine"}"#, status: 201)["id"] as? Int
        let collection = try XCTUnwrap(collectionID)
        let itemID = try XCTUnwrap(ownerFeed.first?["id"] as? Int)
        _ = try await h.object("POST", "/api/collections/\(collection)/items", body: #"{"item_id": \#(itemID)}"#, status: 201)

        for id in [saved, page] {
            for (method, path, body) in [("GET", "/api/saved-videos/\(id)", nil), ("PUT", "/api/saved-videos/\(id)", #"{"notes": "x"}"#),
                                         ("PUT", "/api/saved-videos/\(id)/watched", nil), ("PUT", "/api/saved-videos/\(id)/unwatched", nil),
                                         ("PUT", "/api/saved-videos/\(id)/progress?progress_seconds=3", nil),
                                         ("DELETE", "/api/saved-videos/\(id)", nil)] as [(String, String, String?)] {
                let reply = try await bob(h, method, path, body)
                XCTAssertEqual(reply.status, 404, "\(method) \(path): \(reply.text)")
            }
        }
        for (method, path, body) in [("GET", "/api/collections/\(collection)", nil), ("PUT", "/api/collections/\(collection)", #"{"name": "Z"}"#),
                                     ("POST", "/api/collections/\(collection)/items", #"{"item_id": \#(itemID)}"#),
                                     ("DELETE", "/api/collections/\(collection)/items/\(itemID)", nil),
                                     ("POST", "/api/collections/\(collection)/items/reorder", #"{"item_ids": [\#(itemID)]}"#),
                                     ("PUT", "/api/collections/\(collection)/items/\(itemID)/watched", #"{"is_watched": true}"#),
                                     ("DELETE", "/api/collections/\(collection)", nil)] as [(String, String, String?)] {
            let reply = try await bob(h, method, path, body)
            XCTAssertEqual(reply.status, 404, "\(method) \(path): \(reply.text)")
        }
        let bobSavedTotal = try await bob(h, "GET", "/api/saved-videos", nil).object()["total"] as? Int
        XCTAssertEqual(bobSavedTotal, 0)
        let bobCollectionsTotal = try await bob(h, "GET", "/api/collections", nil).object()["total"] as? Int
        XCTAssertEqual(bobCollectionsTotal, 0)

        // Bob saves the same item: his own saved video, with his own watch state.
        let bobSaved = try await bob(h, "POST", "/api/saved-videos", #"{"video_url": "\#(media)"}"#)
        XCTAssertEqual(bobSaved.status, 201, bobSaved.text)
        let bobID = try XCTUnwrap(try bobSaved.object()["id"] as? Int)
        XCTAssertNotEqual(bobID, saved)
        let bobWatched = try await bob(h, "PUT", "/api/saved-videos/\(bobID)/watched", nil).status
        XCTAssertEqual(bobWatched, 200)
        let ownerWatched = try await h.object("GET", "/api/saved-videos/\(saved)")["is_watched"] as? Bool
        XCTAssertEqual(ownerWatched, false)
        let ownerGetsBobs = try await h.call("GET", "/api/saved-videos/\(bobID)").status
        XCTAssertEqual(ownerGetsBobs, 404)
        let bobMine = try await bob(h, "POST", "/api/collections", #"{"name": "Mine"}"#)
        XCTAssertEqual(bobMine.status, 201, "names are unique per user: \(bobMine.text)")

        // Nothing of the owner's changed.
        let ownerTotal = try await h.object("GET", "/api/saved-videos")["total"] as? Int
        XCTAssertEqual(ownerTotal, 2)
        let mine = try await h.object("GET", "/api/collections/\(collection)")
        XCTAssertEqual(mine["name"] as? String, "Mine")
        XCTAssertEqual(try items(mine).map { $0["id"] as? Int }, [itemID])
    }

    private func bob(_ h: APIHarness, _ method: String, _ path: String, _ body: String?) async throws -> APIHarness.Reply {
        try await h.call(method, path, body: body, headers: ["X-Test-User": "bob"])
    }
}

/// Two users without logins (the token authenticator is another change): `X-Test-User: bob`
/// acts for bob, anything else for the owner. Test-only.
struct HeaderUser: Authenticator {
    let owner: APIUser
    let bob: APIUser
    init(owner: any APILibrary, bob: any APILibrary) {
        self.owner = APIUser(name: "owner", isAdmin: true, library: owner)
        self.bob = APIUser(name: "bob", isAdmin: false, library: bob)
    }
    func authenticate(_ request: Request) async throws -> APIUser? {
        request.headers.first { $0.name.canonicalName == "x-test-user" }?.value == "bob" ? bob : owner
    }
    var mode: String { "open" }
    var logins: TokenAuthenticator? { nil }
    var users: (any UserStore & IdentityStore)? { nil }
}
