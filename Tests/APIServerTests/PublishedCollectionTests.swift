import APIServer
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Published collections over HTTP (issue 29) on the real server: `POST …/publish` answers its
/// links; the page, the RSS and the JSON answer anyone without a session and show nothing of the
/// owner but the collection; unpublishing makes them 410 and publishing again makes new ones;
/// withdrawal is one rule (unpublished, deleted, owner removed).
final class PublishedCollectionTests: XCTestCase {
    /// A server with logins and alice, who follows the demo podcast and has a collection of its
    /// three episodes (the newest first) with some state of hers on them: (server, alice's
    /// token, the collection's id, its items' ids).
    static func aliceWithACollection(configuration: ServerConfiguration? = nil, events: Bool = false,
                                     name: String = "Road trip") async throws -> (APIHarness, String, Int, [Int]) {
        let h: APIHarness
        if let configuration { h = try await APIHarness(configuration: configuration, logins: true, events: events) }
        else { h = try await APIHarness(logins: true, events: events) }
        _ = try await h.addUser("alice", password: "correct horse", admin: false)
        let alice = try await h.login("alice", "correct horse")
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201, token: alice)
        let feed = try await h.object("GET", "/api/feed", token: alice)
        let items = try XCTUnwrap(feed["items"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
        XCTAssertEqual(items.count, 3)
        let body = try JSONSerialization.data(withJSONObject: ["name": name, "description": "for the drive"])
        let created = try await h.object("POST", "/api/collections", body: String(decoding: body, as: UTF8.self), status: 201, token: alice)
        let collection = try XCTUnwrap(created["id"] as? Int)
        for item in items {
            _ = try await h.object("POST", "/api/collections/\(collection)/items", body: #"{"item_id": \#(item)}"#, status: 201, token: alice)
        }
        // Alice's own state, which no link may show.
        _ = try await h.object("PATCH", "/api/feed/\(items[0])/progress", body: #"{"watch_progress_seconds": 754}"#, token: alice)
        _ = try await h.object("PATCH", "/api/feed/\(items[1])/watched", body: #"{"is_watched": true}"#, token: alice)
        let aliceStore = h.database.store(for: try await h.owner.user(named: "alice").id)
        _ = try await aliceStore.saveVideo(item: Int64(items[2]), notes: "ALICES-PRIVATE-NOTE", now: APIHarness.now)
        _ = try await aliceStore.appendHistory(item: Int64(items[0]), position: 754, now: APIHarness.now)
        return (h, alice, collection, items)
    }

    /// A GET without any session (no token, no cookie).
    static func anonymous(_ h: APIHarness, _ url: String, accept: String = "*/*") async throws -> APIHarness.Reply {
        let path = url.hasPrefix("http") ? String(url.dropFirst(h.base.count)) : url
        return try await h.call("GET", path, headers: ["Accept": accept])
    }

    func testPublishingAnswersLinksThatAnyoneReadsWithoutASession() async throws {
        let (h, alice, collection, _) = try await Self.aliceWithACollection(name: #"<script>alert("road")</script> & trip"#)
        await assertEqual(try await h.object("GET", "/api/collections/\(collection)/publish", token: alice)["published"] as? Bool, false)
        let published = try await h.object("POST", "/api/collections/\(collection)/publish", token: alice)
        XCTAssertEqual(published["published"] as? Bool, true)
        XCTAssertTrue(isWireDate(published["published_at"]))
        let url = try XCTUnwrap(published["url"] as? String), rss = try XCTUnwrap(published["rss_url"] as? String)
        let json = try XCTUnwrap(published["json_url"] as? String)
        // Paths, as this server knows no public address; an unguessable token in each.
        let token = String(url.dropFirst("/shared/".count))
        XCTAssertEqual(token.count, SharingRule.tokenCharacters)
        XCTAssertNotNil(ShareToken(token))
        XCTAssertEqual(rss, "/shared/\(token)/feed.xml")
        XCTAssertEqual(json, "/api/shared/\(token)")
        // Publishing again keeps the link; asking says the same.
        let again = try await h.object("POST", "/api/collections/\(collection)/publish", token: alice)
        XCTAssertEqual(again["url"] as? String, url)
        await assertEqual(try await h.object("GET", "/api/collections/\(collection)/publish", token: alice)["url"] as? String, url)

        // The JSON: the collection, its owner's name, its items' public facts, links whole (the request's host).
        let reply = try await Self.anonymous(h, json)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.headers["cache-control"], "no-cache")
        let document = try reply.object()
        XCTAssertEqual(document["name"] as? String, #"<script>alert("road")</script> & trip"#)
        XCTAssertEqual(document["description"] as? String, "for the drive")
        XCTAssertEqual(document["owner_name"] as? String, "alice")
        XCTAssertEqual(document["url"] as? String, h.base + url)
        XCTAssertEqual(document["rss_url"] as? String, h.base + rss)
        XCTAssertEqual(document["item_count"] as? Int, 3)
        let items = try XCTUnwrap(document["items"] as? [[String: Any]])
        XCTAssertEqual(items.count, 3)
        for item in items {
            XCTAssertEqual(Set(item.keys), ["title", "channel_name", "platform", "published_at", "duration_seconds", "audio_url",
                                            "audio_type", "audio_length", "thumbnail_url", "url", "guid", "added_at"])
            XCTAssertTrue((item["audio_url"] as? String)?.hasPrefix("http") == true, "\(item)")
        }
        // Nothing of alice's own: progress, watched marks, saved items, notes, history, ids.
        for text in [reply.text, try await Self.anonymous(h, rss).text, try await Self.anonymous(h, url, accept: "text/html").text] {
            for secret in ["ALICES-PRIVATE-NOTE", "watch", "progress", "saved", "\"id\"", "notes"] {
                XCTAssertFalse(text.contains(secret), "a link shows \(secret): \(text.prefix(400))")
            }
        }

        // The RSS: a podcast feed with the items' enclosures.
        let feed = try await Self.anonymous(h, rss)
        XCTAssertEqual(feed.status, 200)
        XCTAssertEqual(feed.headers["content-type"], "application/rss+xml; charset=utf-8")
        XCTAssertEqual(feed.text.components(separatedBy: "<enclosure ").count - 1, 3)
        XCTAssertTrue(feed.text.contains("<title>&lt;script&gt;alert(&quot;road&quot;)&lt;/script&gt; &amp; trip</title>"), feed.text)
        XCTAssertTrue(feed.text.contains("<itunes:author>alice</itunes:author>"))

        // The page: escaped, no script, no referrer leaving it.
        let page = try await Self.anonymous(h, url, accept: "text/html")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertEqual(page.headers["referrer-policy"], "no-referrer")
        XCTAssertTrue(page.headers["content-security-policy"]?.hasPrefix("default-src 'none'") == true)
        XCTAssertFalse(page.text.contains("<script"), "the collection's name is text, not markup")
        XCTAssertTrue(page.text.contains("&lt;script&gt;alert(&quot;road&quot;)&lt;/script&gt; &amp; trip"))
        XCTAssertEqual(page.text.components(separatedBy: "<audio controls").count - 1, 3, "each item plays in the page")
        XCTAssertTrue(page.text.contains("shared by alice"))

        // Another user cannot publish, unpublish or read alice's collection's link.
        _ = try await h.addUser("bob", password: "bobs password", admin: false)
        let bob = try await h.login("bob", "bobs password")
        for (method, path) in [("GET", "publish"), ("POST", "publish"), ("POST", "unpublish")] {
            let refused = try await h.call(method, "/api/collections/\(collection)/\(path)", token: bob)
            XCTAssertEqual(refused.status, 404, "\(method) \(path): \(refused.text)")
        }
        await assertEqual(try await Self.anonymous(h, json).status, 200, "bob's tries changed nothing")
        // The server's log holds no link: its token is the key to the collection.
        XCTAssertTrue(h.log.all.contains("GET /shared/…/feed.xml 200"), "\(h.log.all.suffix(5))")
        h.assertLogHolds(noneOf: [token])
    }

    func testUnpublishingAnswers410ForGoodAndPublishingAgainMakesANewLink() async throws {
        let (h, alice, collection, _) = try await Self.aliceWithACollection()
        let first = try await h.object("POST", "/api/collections/\(collection)/publish", token: alice)
        let firstLinks = try ["url", "rss_url", "json_url"].map { try XCTUnwrap(first[$0] as? String) }
        let unpublished = try await h.object("POST", "/api/collections/\(collection)/unpublish", token: alice)
        XCTAssertEqual(unpublished["published"] as? Bool, false)
        func assertWithdrawn(_ links: [String], line: UInt = #line) async throws {
            let page = try await Self.anonymous(h, links[0], accept: "text/html")
            XCTAssertEqual(page.status, 410, line: line)
            XCTAssertTrue(page.text.contains("This collection was withdrawn"), page.text, line: line)
            let rss = try await Self.anonymous(h, links[1])
            XCTAssertEqual(rss.status, 410, line: line)
            let json = try await Self.anonymous(h, links[2])
            XCTAssertEqual(json.status, 410, line: line)
            XCTAssertEqual(try json.object()["detail"] as? String, "that collection was withdrawn by its owner", line: line)
        }
        try await assertWithdrawn(firstLinks)
        await assertEqual(try await h.object("GET", "/api/collections/\(collection)/publish", token: alice)["published"] as? Bool, false)
        let again = try await h.call("POST", "/api/collections/\(collection)/unpublish", token: alice)
        XCTAssertEqual(again.status, 404)
        XCTAssertEqual(try again.object()["detail"] as? String, "collection \(collection) is not published")

        let second = try await h.object("POST", "/api/collections/\(collection)/publish", token: alice)
        let secondLinks = try ["url", "rss_url", "json_url"].map { try XCTUnwrap(second[$0] as? String) }
        XCTAssertNotEqual(secondLinks, firstLinks, "a new link")
        try await assertWithdrawn(firstLinks)
        await assertEqual(try await Self.anonymous(h, secondLinks[2]).status, 200)

        // Deleting the collection withdraws its link too; a token never published is not found.
        _ = try await h.call("DELETE", "/api/collections/\(collection)", token: alice)
        try await assertWithdrawn(secondLinks)
        let unknown = String(repeating: "ab", count: SharingRule.tokenCharacters / 2)
        for path in ["/shared/\(unknown)", "/shared/\(unknown)/feed.xml", "/api/shared/\(unknown)", "/api/shared/not-a-token", "/shared/x/feed.xml"] {
            await assertEqual(try await Self.anonymous(h, path, accept: "text/html").status, 404, path)
        }
    }

    /// An owner removed by an admin: their links are withdrawn with their collections.
    func testAnOwnerRemovedWithdrawsTheirLinks() async throws {
        let (h, alice, collection, _) = try await Self.aliceWithACollection()
        let published = try await h.object("POST", "/api/collections/\(collection)/publish", token: alice)
        let json = try XCTUnwrap(published["json_url"] as? String)
        _ = try await h.addUser("root", password: "admin password", admin: true)
        let root = try await h.login("root", "admin password")
        let aliceID = try await h.owner.user(named: "alice").id.rawValue
        let removed = try await h.call("DELETE", "/api/users/\(aliceID)", token: root)
        XCTAssertEqual(removed.status, 200, removed.text)
        await assertEqual(try await Self.anonymous(h, json).status, 410)
    }

    /// A server that knows its public address (`server.public_url`) answers whole links under it.
    func testAServerWithAPublicAddressAnswersWholeLinks() async throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: true, version: "test")
        configuration.publicURL = "https://feeds.example.org/podcasts/"
        let (h, alice, collection, _) = try await Self.aliceWithACollection(configuration: configuration)
        let published = try await h.object("POST", "/api/collections/\(collection)/publish", token: alice)
        let url = try XCTUnwrap(published["url"] as? String)
        XCTAssertTrue(url.hasPrefix("https://feeds.example.org/podcasts/shared/"), url)
        XCTAssertEqual(published["rss_url"] as? String, url + "/feed.xml")
        let json = try XCTUnwrap(published["json_url"] as? String)
        XCTAssertEqual(json, url.replacingOccurrences(of: "/shared/", with: "/api/shared/"))
        let reply = try await Self.anonymous(h, "/api/shared/" + url.suffix(SharingRule.tokenCharacters))
        let document = try reply.object()
        XCTAssertEqual(document["url"] as? String, url)
    }
}
