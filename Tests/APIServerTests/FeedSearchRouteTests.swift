import APIServer
import Foundation
import TestSupport
import XCTest

/// `GET /api/feed?search=TEXT` (the web app's search box): the library's own search (`SearchRule`)
/// over the user's items, best match first, under the feed's platform, watch and channel filters.
final class FeedSearchRouteTests: XCTestCase {
    func testTheFeedSearchesTheLibrary() async throws {
        let h = try await APIHarness()
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)

        let found = try await h.object("GET", "/api/feed?search=tones")
        let titles = try XCTUnwrap(found["items"] as? [[String: Any]]).compactMap { $0["title"] as? String }
        XCTAssertEqual(titles, ["Episode 3: Four tones"])
        XCTAssertEqual(found["has_more"] as? Bool, false)

        // Words are words, as typed: prefixes match; punctuation is no syntax.
        let prefix = try await h.object("GET", "/api/feed?search=\("epis\"ode (".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        XCTAssertEqual((prefix["items"] as? [Any])?.count, 0, "\(prefix)")
        let all = try await h.object("GET", "/api/feed?search=episode&per_page=2")
        XCTAssertEqual((all["items"] as? [Any])?.count, 2)
        XCTAssertEqual(all["has_more"] as? Bool, true)
        let rest = try await h.object("GET", "/api/feed?search=episode&per_page=2&page=2")
        XCTAssertEqual((rest["items"] as? [Any])?.count, 1)
        XCTAssertEqual(rest["has_more"] as? Bool, false)

        // The filters apply; an order or a length does not go with a search.
        let watched = try await h.object("GET", "/api/feed?search=tones&filter=watched")
        XCTAssertEqual((watched["items"] as? [Any])?.count, 0)
        let youtube = try await h.object("GET", "/api/feed?search=tones&platform=youtube")
        XCTAssertEqual((youtube["items"] as? [Any])?.count, 0)
        for refused in ["mode=newest", "sort_by=oldest", "duration_min=60"] {
            let reply = try await h.call("GET", "/api/feed?search=tones&\(refused)")
            XCTAssertEqual(reply.status, 422, "\(refused): \(reply.text)")
            XCTAssertEqual(try reply.object()["detail"] as? String,
                           "search takes platform, filter and one channel only (its results come best match first)")
        }
        // Only blanks: no search, the feed.
        let blank = try await h.object("GET", "/api/feed?search=%20%20")
        XCTAssertEqual((blank["items"] as? [Any])?.count, 3)
    }
}
