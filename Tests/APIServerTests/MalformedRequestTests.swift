import APIServer
import FeedModel
import Foundation
import XCTest

/// Bad input: one clear line (`{"detail"}`), a 4xx, nothing changed; never a 500.
final class MalformedRequestTests: XCTestCase {
    private func assertRefused(_ h: APIHarness, _ method: String, _ path: String, body: String? = nil, status: Int,
                               mentions: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let reply = try await h.call(method, path, body: body)
        XCTAssertEqual(reply.status, status, "\(method) \(path): \(reply.text)", file: file, line: line)
        let detail = try XCTUnwrap(try reply.object()["detail"] as? String, reply.text, file: file, line: line)
        XCTAssertTrue(detail.contains(mentions), "\(detail) should mention \(mentions)", file: file, line: line)
        XCTAssertFalse(detail.contains("\n"), file: file, line: line)
    }

    func testMalformedBodiesAndParameters() async throws {
        let h = try await APIHarness()
        let url = h.feeds.url("/podcast.xml")
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(url)"}"#, status: 201)
        let feed = try await h.object("GET", "/api/feed")
        let id = try XCTUnwrap((feed["items"] as? [[String: Any]])?.first?["id"] as? Int)

        try await assertRefused(h, "POST", "/api/subscriptions", body: #"{"url": "#, status: 400, mentions: "malformed JSON")
        try await assertRefused(h, "POST", "/api/channels", body: "[1, 2]", status: 422, mentions: "object")
        try await assertRefused(h, "POST", "/api/channels", body: "{}", status: 422, mentions: "channel_url")
        try await assertRefused(h, "POST", "/api/channels", body: #"{"channel_url": 5}"#, status: 422, mentions: "channel_url")
        try await assertRefused(h, "POST", "/api/channels", body: #"{"channel_url": "not a url"}"#, status: 400, mentions: "not an http(s) URL")
        try await assertRefused(h, "PATCH", "/api/feed/\(id)/watched", body: #"{"is_watched": "yes"}"#, status: 422, mentions: "is_watched")
        try await assertRefused(h, "PATCH", "/api/feed/\(id)/watched", body: "", status: 400, mentions: "malformed JSON")
        try await assertRefused(h, "PATCH", "/api/feed/\(id)/progress", body: #"{"watch_progress_seconds": -5}"#, status: 422, mentions: "at least 0")
        // JSON whose number does not fit its field is a 422 naming it (Foundation calls it "not valid JSON").
        for number in ["1e400", "1.5", "99999999999999999999", "-1e400"] {
            try await assertRefused(h, "PATCH", "/api/feed/\(id)/progress", body: #"{"watch_progress_seconds": \#(number)}"#, status: 422,
                                    mentions: "watch_progress_seconds must be a whole number within range (got \(number))")
        }
        try await assertRefused(h, "PATCH", "/api/feed/\(id)/progress", body: #"{"watch_progress_seconds": 1.}"#, status: 400, mentions: "malformed JSON")
        try await assertRefused(h, "PATCH", "/api/feed/\(id)/progress", body: String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
                                status: 400, mentions: "malformed JSON")
        try await assertRefused(h, "PUT", "/api/feed/items/\(id)/progress?progress_seconds=abc", status: 422, mentions: "progress_seconds")
        try await assertRefused(h, "PUT", "/api/feed/items/\(id)/progress", status: 422, mentions: "progress_seconds is required")
        try await assertRefused(h, "GET", "/api/feed?page=0", status: 422, mentions: "page")
        try await assertRefused(h, "GET", "/api/feed?per_page=\(APILimits.maxPerPage + 1)", status: 422, mentions: "per_page must be from 1 to \(APILimits.maxPerPage)")
        try await assertRefused(h, "GET", "/api/feed?page=99999999999999999999", status: 422, mentions: "page")
        try await assertRefused(h, "GET", "/api/feed?filter=some", status: 422, mentions: "filter")
        try await assertRefused(h, "GET", "/api/feed?mode=bogus", status: 422, mentions: "mode")
        try await assertRefused(h, "GET", "/api/feed?sort_by=best", status: 422, mentions: "sort_by")
        try await assertRefused(h, "GET", "/api/feed?platform=vimeo", status: 422, mentions: "platform")
        try await assertRefused(h, "GET", "/api/feed?channel_ids=1,x", status: 422, mentions: "channel_ids")
        try await assertRefused(h, "GET", "/api/feed?since=yesterday", status: 422, mentions: "since")
        try await assertRefused(h, "GET", "/api/feed?duration_min=90&duration_max=10", status: 422, mentions: "duration_min")
        try await assertRefused(h, "GET", "/api/feed?mode=catch_up&filter=watched", status: 422, mentions: "catch_up")
        try await assertRefused(h, "GET", "/api/feed/items/abc", status: 422, mentions: "id")
        try await assertRefused(h, "GET", "/api/feed/items/999999", status: 404, mentions: "no item 999999")
        try await assertRefused(h, "PATCH", "/api/feed/999999/watched", body: #"{"is_watched": true}"#, status: 404, mentions: "999999")
        try await assertRefused(h, "GET", "/api/subscriptions/999999", status: 404, mentions: "no channel 999999")
        try await assertRefused(h, "GET", "/api/nothing-here", status: 404, mentions: "no such route")

        // The largest page a client may ask for is an empty page, not a trap that ends the server.
        for path in ["/api/feed?page=9223372036854775807&per_page=100", "/api/feed?page=9223372036854775807&mode=catch_up",
                     "/api/feed/history?page=9223372036854775807&per_page=200"] {
            let far = try await h.object("GET", path)
            XCTAssertEqual((far["items"] as? [Any])?.count, 0, path)
            XCTAssertEqual(far["has_more"] as? Bool, false, path)
        }

        // A body over the cap is refused before it is read whole.
        let big = #"{"url": ""# + String(repeating: "a", count: 1_100_000) + #""}"#
        let reply = try await h.call("POST", "/api/subscriptions", body: big)
        XCTAssertEqual(reply.status, 413, reply.text)

        // Nothing above changed the library.
        let after = try await h.object("GET", "/api/feed")
        XCTAssertEqual(after["total"] as? Int, 3)
        XCTAssertEqual((after["items"] as? [[String: Any]])?.allSatisfy { $0["is_watched"] as? Bool == false && $0["watch_progress_seconds"] as? Int == 0 }, true)
        let channels = try await h.object("GET", "/api/channels")
        XCTAssertEqual(channels["total"] as? Int, 1)
        XCTAssertFalse(h.log.all.contains { $0.contains(" 500") }, h.log.all.joined(separator: "\n"))
    }

    /// Without --allow-private-feeds, a feed on a loopback address is refused and nothing is fetched.
    func testFeedsOnLocalAddressesAreRefusedByDefault() async throws {
        let h = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true, version: "test"))
        for url in [h.feeds.url("/podcast.xml"), "http://localhost:\(h.feeds.port)/podcast.xml", "http://[::1]:\(h.feeds.port)/podcast.xml",
                    "http://10.1.2.3/feed.xml", "http://169.254.169.254/latest/meta-data/", "http://192.168.1.1/rss"] {
            try await assertRefused(h, "POST", "/api/subscriptions", body: #"{"url": "\#(url)"}"#, status: 400, mentions: "--allow-private-feeds")
        }
        XCTAssertEqual(try h.feeds.stats().hits["/podcast.xml"] ?? 0, 0, "nothing was fetched")
        let channels = try await h.object("GET", "/api/channels")
        XCTAssertEqual(channels["total"] as? Int, 0)
    }

    /// What the up-front check cannot see, the server's fetcher refuses at connect time: a name
    /// the system resolver does not know (so the check lets it through) but libcurl resolves
    /// to loopback itself (`*.localhost`, RFC 6761), as a name that resolves differently at
    /// fetch time would. (A public feed that redirects to a private address takes the same
    /// path, the connect of its second hop: `AddressPolicyTests`; no public address exists here.)
    func testTheServersFetcherRefusesLocalAddressesTheCheckCannotSee() async throws {
        let h = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true, version: "test"))
        let url = "http://feeds.localhost:\(h.feeds.port)/podcast.xml"
        let reply = try await h.call("POST", "/api/subscriptions", body: #"{"url": "\#(url)"}"#)
        XCTAssertTrue((400..<500).contains(reply.status), "\(reply.status) \(reply.text)")
        XCTAssertTrue(reply.text.contains("is a local address"), reply.text)
        XCTAssertEqual(try h.feeds.stats().hits["/podcast.xml"] ?? 0, 0, "nothing was fetched")
        let channels = try await h.object("GET", "/api/channels")
        XCTAssertEqual(channels["total"] as? Int, 0)
    }

    func testCORSIsOffUnlessAnOriginIsGiven() async throws {
        let closed = try await APIHarness()
        let plain = try await closed.call("GET", "/api/feed", headers: ["Origin": "https://app.example"])
        XCTAssertEqual(plain.status, 200)
        XCTAssertNil(plain.headers["access-control-allow-origin"])

        let open = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true, corsOrigin: "https://app.example",
                                                                           allowPrivateFeeds: true, version: "test"))
        let allowed = try await open.call("GET", "/api/feed", headers: ["Origin": "https://app.example"])
        XCTAssertEqual(allowed.headers["access-control-allow-origin"], "https://app.example")
    }

    func testTheLogHoldsNeitherQueriesNorHeaders() async throws {
        let h = try await APIHarness()
        _ = try await h.call("GET", "/api/feed?token=secret-in-query", headers: ["Authorization": "Bearer secret-in-header"])
        XCTAssertTrue(h.log.all.contains("GET /api/feed 200"), h.log.all.joined(separator: "\n"))
        XCTAssertFalse(h.log.all.contains { $0.contains("secret") })
    }

    func testOpenModeOnlyOnLoopbackAndNothingWithoutAnAuthenticator() {
        XCTAssertNil(ServerConfiguration(host: "127.0.0.1", open: true).check(hasAuthenticator: false))
        XCTAssertNil(ServerConfiguration(host: "::1", open: true).check(hasAuthenticator: false))
        XCTAssertNil(ServerConfiguration(host: "localhost", open: true).check(hasAuthenticator: false))
        XCTAssertEqual(ServerConfiguration(host: "0.0.0.0", open: true).check(hasAuthenticator: false)?.description,
                       "--open serves the library without login, so only on loopback (127.0.0.1, ::1, localhost), not 0.0.0.0")
        XCTAssertNotNil(ServerConfiguration(host: "192.168.1.5", open: true).check(hasAuthenticator: true))
        XCTAssertEqual(ServerConfiguration(host: "127.0.0.1", open: false).check(hasAuthenticator: false)?.description,
                       "no login is available yet: start with --open (one owner, no login, loopback only)")
        XCTAssertNil(ServerConfiguration(host: "0.0.0.0", open: false).check(hasAuthenticator: true))
    }
}
