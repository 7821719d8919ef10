import Foundation
import XCTest

/// `/api/discover/*` (federated: the library's provider here; the others in `DiscoverRouteTests`),
/// `/api/feed/sync`, and OPML both ways.
final class DiscoverAndOPMLTests: XCTestCase {
    func testSearchAnswersTheBackendsShape() async throws {
        let h = try await APIHarness()
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let found = try await h.object("POST", "/api/discover/search", body: #"{"query": "concert", "platforms": ["library"]}"#)
        XCTAssertEqual(Set(found.keys), ["query", "search_type", "total_results", "results", "by_platform", "timings", "total_duration_ms",
                                         "platforms_searched", "platforms_failed"])
        XCTAssertEqual(found["total_results"] as? Int, 1)
        XCTAssertEqual(found["platforms_searched"] as? [String], ["library"])
        XCTAssertEqual(found["platforms_failed"] as? [String], [])
        let result = try XCTUnwrap((found["results"] as? [[String: Any]])?.first)
        XCTAssertEqual(result["title"] as? String, "Episode 2: A minute of A")
        XCTAssertEqual(result["upload_date"] as? String, "2026-11-07T09:00:00Z")
        XCTAssertEqual(result["subscribed"] as? Bool, true)
        XCTAssertNotNil(result["item_id"] as? Int)
        XCTAssertEqual((found["by_platform"] as? [String: [[String: Any]]])?["library"]?.count, 1)
        let bad = try await h.call("POST", "/api/discover/search", body: #"{"query": "x", "platforms": ["vimeo"]}"#)
        XCTAssertEqual(bad.status, 422, bad.text)
        let empty = try await h.call("POST", "/api/discover/search", body: #"{"query": "  "}"#)
        XCTAssertEqual(empty.status, 422, empty.text)
    }

    func testOPMLExportThenImportIntoAnotherLibrary() async throws {
        let first = try await APIHarness()
        _ = try await first.object("POST", "/api/subscriptions", body: #"{"url": "\#(first.feeds.url("/podcast.xml"))"}"#, status: 201)
        _ = try await first.object("POST", "/api/subscriptions", body: #"{"url": "\#(first.feeds.url("/atom.xml"))"}"#, status: 201)
        let exported = try await first.call("GET", "/api/subscriptions/opml")
        XCTAssertEqual(exported.status, 200)
        XCTAssertEqual(exported.headers["content-type"], "text/x-opml; charset=utf-8")
        XCTAssertTrue(exported.text.contains(first.feeds.url("/podcast.xml")))

        let second = try await APIHarness()
        let imported = try await second.object("POST", "/api/channels/opml", body: exported.text)
        XCTAssertEqual(Set(imported.keys), ["imported", "skipped", "failed", "channels", "errors"])
        XCTAssertEqual(imported["imported"] as? Int, 2)
        XCTAssertEqual(imported["skipped"] as? Int, 0)
        XCTAssertEqual(imported["failed"] as? Int, 0)
        XCTAssertEqual((imported["channels"] as? [[String: Any]])?.compactMap { $0["name"] as? String }.sorted(),
                       ["Example Engineering Blog", "The Tone Show"])
        let again = try await second.object("POST", "/api/channels/opml", body: exported.text)
        XCTAssertEqual(again["skipped"] as? Int, 2)
        let feed = try await second.object("GET", "/api/feed?platform=podcast")
        XCTAssertGreaterThan(feed["total"] as? Int ?? 0, 3)

        let broken = try await second.call("POST", "/api/channels/opml", body: "<opml><body><outline")
        XCTAssertEqual(broken.status, 422, broken.text)

        let sync = try await second.call("POST", "/api/feed/sync")
        XCTAssertEqual(sync.status, 200, sync.text)
        let results = try XCTUnwrap(try sync.json() as? [[String: Any]])
        XCTAssertEqual(results.count, 2)
        XCTAssertTrue(results.allSatisfy { $0["success"] as? Bool == true })
    }
}
