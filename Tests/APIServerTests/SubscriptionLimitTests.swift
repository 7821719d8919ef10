import APIServer
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Subscriptions through the server (issue 26: a 1 MiB OPML of 25,215 entries took 3 minutes of
/// a core and 377 MB, went on after its client left, and made 25,215 subscriptions, and the list
/// was one 14 MB answer): the list pages, an import and a user have caps that say so, and an
/// import stops when its client leaves.
final class SubscriptionLimitTests: XCTestCase {
    /// `count` subscriptions, recorded without fetching (`name-N`, feeds on example.com).
    private func subscribe(_ h: APIHarness, _ count: Int, platform: Platform = .podcast, prefix: String = "c") async throws {
        let polls = (0..<count).map { n in
            Poll(subject: .subscription(NewChannel(platform: platform, sourceURL: "https://example.com/\(prefix)\(n)",
                                                    feedURL: "https://example.com/\(prefix)\(n).xml", name: "\(prefix)-\(n)", reach: .anyAddress)),
                 outcome: .notFetched)
        }
        for result in await h.owner.apply(polls, now: 1000) { _ = try result.get() }
    }

    private func names(_ object: [String: Any]) -> [String] {
        (object["items"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    func testTheListPagesWhenAskedAndIsWholeOtherwise() async throws {
        let h = try await APIHarness()
        try await subscribe(h, 5)
        try await subscribe(h, 2, platform: .youtube, prefix: "y")
        // The web client's call: every subscription, in the backend's shape only.
        let all = try await h.object("GET", "/api/channels")
        XCTAssertEqual(all["total"] as? Int, 7)
        XCTAssertEqual(names(all), ["c-0", "c-1", "c-2", "c-3", "c-4", "y-0", "y-1"])
        XCTAssertEqual(Set(all.keys), ["items", "total"])
        // Pages, by name, with the feed's paging fields.
        let first = try await h.object("GET", "/api/subscriptions?per_page=3")
        XCTAssertEqual(names(first), ["c-0", "c-1", "c-2"])
        XCTAssertEqual(first["total"] as? Int, 7)
        XCTAssertEqual(first["page"] as? Int, 1)
        XCTAssertEqual(first["per_page"] as? Int, 3)
        XCTAssertEqual(first["has_more"] as? Bool, true)
        let last = try await h.object("GET", "/api/subscriptions?per_page=3&page=3")
        XCTAssertEqual(names(last), ["y-1"])
        XCTAssertEqual(last["has_more"] as? Bool, false)
        let defaulted = try await h.object("GET", "/api/channels?page=1")
        XCTAssertEqual(defaulted["per_page"] as? Int, APILimits.defaultPerPage)
        let far = try await h.object("GET", "/api/channels?page=\(Int.max)&per_page=\(APILimits.maxPerPage)")
        XCTAssertEqual(names(far), [])
        XCTAssertEqual(far["total"] as? Int, 7)
        XCTAssertEqual(far["has_more"] as? Bool, false)
        // Filters count within the page's total.
        let youtube = try await h.object("GET", "/api/channels?platform=youtube&per_page=1")
        XCTAssertEqual(names(youtube), ["y-0"])
        XCTAssertEqual(youtube["total"] as? Int, 2)
        let tooMany = try await h.call("GET", "/api/channels?per_page=\(APILimits.maxPerPage + 1)")
        XCTAssertEqual(tooMany.status, 422, tooMany.text)
        let zero = try await h.call("GET", "/api/channels?page=0")
        XCTAssertEqual(zero.status, 422)
    }

    func testAnImportPastItsCapIsRefusedWholeAndSaysTheCap() async throws {
        let h = try await APIHarness()
        let count = SubscriptionRule.maxPerImport + 1
        let outlines = (0..<count).map { #"<outline text="f\#($0)" xmlUrl="https://example.com/f\#($0).xml"/>"# }.joined()
        let opml = #"<?xml version="1.0"?><opml version="2.0"><body>\#(outlines)</body></opml>"#
        let reply = try await h.call("POST", "/api/subscriptions/opml", body: opml)
        XCTAssertEqual(reply.status, 422, reply.text)
        XCTAssertEqual(try reply.object()["detail"] as? String,
                       "the OPML document names \(count) feeds and one import takes at most \(SubscriptionRule.maxPerImport): split it")
        let list = try await h.object("GET", "/api/channels")
        XCTAssertEqual(list["total"] as? Int, 0, "nothing subscribed")
    }

    func testAUserPastTheCapIsRefusedAndToldSo() async throws {
        let h = try await APIHarness()
        try await subscribe(h, SubscriptionRule.maxPerUser - 1)
        // One more fits; the next does not, by any door.
        let url = h.feeds.url("/podcast.xml")
        _ = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(url)"}"#, status: 201)
        let refused = try await h.call("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/atom.xml"))"}"#)
        XCTAssertEqual(refused.status, 422, refused.text)
        XCTAssertEqual(try refused.object()["detail"] as? String,
                       "you follow \(SubscriptionRule.maxPerUser) channels and a user may follow at most \(SubscriptionRule.maxPerUser): "
                       + "one more would pass it (unsubscribe from some first)")
        let opml = #"<opml version="2.0"><body><outline xmlUrl="\#(h.feeds.url("/youtube.xml"))"/></body></opml>"#
        let imported = try await h.call("POST", "/api/channels/opml", body: opml)
        XCTAssertEqual(imported.status, 422, imported.text)
        XCTAssertTrue((try imported.object()["detail"] as? String)?.contains("at most \(SubscriptionRule.maxPerUser)") == true)
        // Subscribed already: answered as before (synced, 200), nothing added.
        _ = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(url)"}"#, status: 200)
        let list = try await h.object("GET", "/api/channels?per_page=1")
        XCTAssertEqual(list["total"] as? Int, SubscriptionRule.maxPerUser)
    }

    /// The import's client hangs up: its feeds stay subscribed (to be polled by later syncs),
    /// but no new fetch starts for them.
    func testAnImportStopsWhenItsClientLeaves() async throws {
        let h = try await APIHarness()
        let port = try XCTUnwrap(Int(h.base.split(separator: ":").last ?? ""))
        let count = 40
        let outlines = (0..<count).map { n in
            let url = h.feeds.url("/delay/2/podcast.xml?n=\(n)")
            return #"<outline text="slow \#(n)" xmlUrl="\#(url)"/>"#
        }
        let opml = #"<?xml version="1.0"?><opml version="2.0"><body>\#(outlines.joined())</body></opml>"#
        let client = try RawConnection(port: port)
        XCTAssertTrue(client.send("POST /api/subscriptions/opml HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(opml.utf8.count)\r\n\r\n" + opml))
        let path = "/delay/2/podcast.xml"
        XCTAssertTrue(eventually(timeout: 20) { ((try? h.feeds.stats().hits[path]) ?? 0) > 0 }, "the import started fetching")
        _ = consume client   // hangs up
        try await Task.sleep(for: .seconds(5))
        let afterLeaving = try h.feeds.stats().hits[path] ?? 0
        try await Task.sleep(for: .seconds(5))
        let later = try h.feeds.stats().hits[path] ?? 0
        XCTAssertEqual(later, afterLeaving, "fetches went on after the client left")
        XCTAssertLessThan(later, count)
        let list = try await h.object("GET", "/api/channels?per_page=1")
        XCTAssertEqual(list["total"] as? Int, count, "the feeds stay subscribed")
    }
}
