import APIServer
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Following published collections over HTTP (issue 29): one of this server's, live (the
/// owner's changes reach the follower's event stream) until withdrawn; one of another feedctl
/// server's (a second real server on 127.0.0.1), read again at each sync, withdrawn when it
/// answers 410, one unreachable server costing the others nothing. Followed collections are
/// listed apart from the user's own, read-only, with their owner.
final class FollowedCollectionTests: XCTestCase {
    /// Bob, a second user of `h`, signed in.
    private func bob(on h: APIHarness) async throws -> String {
        _ = try await h.addUser("bob", password: "bobs password", admin: false)
        return try await h.login("bob", "bobs password")
    }

    /// Publishes the collection; its page's link, whole.
    private func publish(_ h: APIHarness, _ token: String, _ collection: Int) async throws -> String {
        let published = try await h.object("POST", "/api/collections/\(collection)/publish", token: token)
        return h.base + (try XCTUnwrap(published["url"] as? String))
    }

    private func idOf(_ object: [String: Any]) throws -> Int { try XCTUnwrap(object["id"] as? Int, "\(object)") }

    private func follow(_ h: APIHarness, _ url: String, token: String, status: Int = 201,
                        file: StaticString = #filePath, line: UInt = #line) async throws -> [String: Any] {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["url": url]), as: UTF8.self)
        return try await h.object("POST", "/api/followed-collections", body: body, status: status, token: token, file: file, line: line)
    }

    func testFollowingACollectionOfThisServerShowsItsChangesLiveUntilItIsWithdrawn() async throws {
        let (h, alice, collection, items) = try await PublishedCollectionTests.aliceWithACollection(events: true)
        let bob = try await bob(on: h)
        let url = try await publish(h, alice, collection)

        // Refusals: not a link, a link never published, one's own.
        let notALink = try await follow(h, "https://example.com/feed.xml", token: bob, status: 422)
        XCTAssertTrue((notALink["detail"] as? String)?.contains("is not a link of a published collection") == true, "\(notALink)")
        _ = try await follow(h, "/shared/" + String(repeating: "0", count: SharingRule.tokenCharacters), token: bob, status: 422)
        _ = try await follow(h, url, token: alice, status: 422)

        let stream = try EventStream(port: h.port, path: "/api/events", headers: ["Authorization": "Bearer \(bob)"])
        defer { stream.close() }
        XCTAssertNotNil(EventStreamTests.position(stream.read(until: EventStreamTests.firstMessage, timeout: 10)))

        let followed = try await follow(h, url, token: bob)
        let id = try idOf(followed)
        XCTAssertEqual(followed["url"] as? String, url)
        XCTAssertEqual(followed["name"] as? String, "Road trip")
        XCTAssertEqual(followed["owner_name"] as? String, "alice")
        XCTAssertEqual(followed["item_count"] as? Int, 3)
        XCTAssertEqual(followed["remote"] as? Bool, false)
        XCTAssertEqual(followed["withdrawn"] as? Bool, false)
        let twice = try await follow(h, url + "/feed.xml", token: bob, status: 409)
        XCTAssertEqual(twice["detail"] as? String, "you follow that collection already (followed collection \(id))")

        // Listed apart: bob's own collections hold nothing; his followed ones hold alice's.
        await assertEqual(try await h.object("GET", "/api/collections", token: bob)["total"] as? Int, 0)
        let listed = try await h.object("GET", "/api/followed-collections", token: bob)
        XCTAssertEqual((listed["items"] as? [[String: Any]])?.map { $0["id"] as? Int }, [id])
        await assertEqual(try await h.object("GET", "/api/followed-collections", token: alice)["total"] as? Int, 0)
        var seen = try await h.object("GET", "/api/followed-collections/\(id)", token: bob)
        let titles = try XCTUnwrap(seen["items"] as? [[String: Any]]).compactMap { $0["title"] as? String }
        XCTAssertEqual(titles.count, 3)
        XCTAssertTrue(try XCTUnwrap(seen["items"] as? [[String: Any]]).allSatisfy { ($0["audio_url"] as? String)?.hasPrefix("http") == true },
                      "each item plays by its enclosure")

        // Alice's change arrives on bob's stream, as a change of what he follows.
        await assertEqual(try await h.call("DELETE", "/api/collections/\(collection)/items/\(items[0])", token: alice).status, 204)
        let updated = #"{"followed_id":\#(id),"action":"updated"}"#
        let received = stream.read(until: updated, timeout: 10)
        XCTAssertTrue(EventStreamTests.events(in: received).contains { $0.kind == "followed" && $0.data == updated }, received)
        XCTAssertFalse(received.contains("collection_id"), "alice's own changes are hers: \(received)")
        seen = try await h.object("GET", "/api/followed-collections/\(id)", token: bob)
        XCTAssertEqual(seen["item_count"] as? Int, 2)
        XCTAssertEqual((seen["items"] as? [[String: Any]])?.count, 2)

        // Read-only: bob's collection routes know nothing of it.
        await assertEqual(try await h.call("DELETE", "/api/collections/\(collection)/items/\(items[1])", token: bob).status, 404)

        // Withdrawn: bob's stream hears it, his list marks it, its items are gone.
        _ = try await h.object("POST", "/api/collections/\(collection)/unpublish", token: alice)
        let withdrawn = #"{"followed_id":\#(id),"action":"withdrawn"}"#
        XCTAssertTrue(stream.read(until: withdrawn, timeout: 10).contains(withdrawn))
        seen = try await h.object("GET", "/api/followed-collections/\(id)", token: bob)
        XCTAssertEqual(seen["withdrawn"] as? Bool, true)
        XCTAssertTrue(isWireDate(seen["withdrawn_at"]))
        XCTAssertEqual(seen["name"] as? String, "Road trip", "still shown by name")
        XCTAssertEqual((seen["items"] as? [[String: Any]])?.count, 0)

        // Another user cannot see or drop bob's follow; bob can.
        _ = try await h.addUser("carol", password: "carols password", admin: false)
        let carol = try await h.login("carol", "carols password")
        await assertEqual(try await h.call("GET", "/api/followed-collections/\(id)", token: carol).status, 404)
        await assertEqual(try await h.call("DELETE", "/api/followed-collections/\(id)", token: carol).status, 404)
        let withdrawnLink = try await follow(h, url, token: carol, status: 410)
        XCTAssertEqual(withdrawnLink["detail"] as? String, "that collection was withdrawn by its owner")
        await assertEqual(try await h.call("DELETE", "/api/followed-collections/\(id)", token: bob).status, 204)
        let removed = #"{"followed_id":\#(id),"action":"removed"}"#
        XCTAssertTrue(stream.read(until: removed, timeout: 10).contains(removed))
        await assertEqual(try await h.object("GET", "/api/followed-collections", token: bob)["total"] as? Int, 0)
    }

    func testFollowingACollectionOfAnotherServerIsReadAgainAtEachSync() async throws {
        // Alice's server, and bob's: two real servers on 127.0.0.1, each with its own library.
        let (there, alice, collection, items) = try await PublishedCollectionTests.aliceWithACollection()
        let url = try await publish(there, alice, collection)
        let here = try await APIHarness(logins: true, events: true)
        let bob = try await bob(on: here)

        let followed = try await follow(here, url, token: bob)
        let id = try idOf(followed)
        XCTAssertEqual(followed["remote"] as? Bool, true)
        XCTAssertEqual(followed["source_url"] as? String, url.replacingOccurrences(of: "/shared/", with: "/api/shared/"))
        XCTAssertEqual(followed["owner_name"] as? String, "alice")
        XCTAssertEqual(followed["item_count"] as? Int, 3)
        XCTAssertTrue(isWireDate(followed["refreshed_at"]))
        _ = try await follow(here, url + "/feed.xml", token: bob, status: 409)
        let read = try await here.object("GET", "/api/followed-collections/\(id)", token: bob)
        let readItems = try XCTUnwrap(read["items"] as? [[String: Any]])
        XCTAssertEqual(readItems.count, 3)
        XCTAssertTrue(readItems.allSatisfy { ($0["audio_url"] as? String)?.hasPrefix(there.feeds.url("/")) == true }, "\(readItems)")

        // A third server, whose collection bob follows too, goes away: its refresh fails on its own.
        let (gone, carol, carolsCollection, _) = try await PublishedCollectionTests.aliceWithACollection(name: "Carol's")
        let goneURL = try await publish(gone, carol, carolsCollection)
        let goneID = try idOf(try await follow(here, goneURL, token: bob))
        await gone.stop()

        // Alice changes hers; bob's sync reads it again (his event stream hears of it).
        let stream = try EventStream(port: here.port, path: "/api/events", headers: ["Authorization": "Bearer \(bob)"])
        defer { stream.close() }
        _ = stream.read(until: EventStreamTests.firstMessage, timeout: 10)
        _ = try await there.call("DELETE", "/api/collections/\(collection)/items/\(items[2])", token: alice)
        _ = try await there.object("PUT", "/api/collections/\(collection)", body: #"{"name": "Road trip, shorter"}"#, token: alice)
        await assertEqual(try await here.object("GET", "/api/followed-collections/\(id)", token: bob)["item_count"] as? Int, 3,
                          "another server's collection is as the last read left it")
        let synced = try await here.call("POST", "/api/feed/sync", token: bob)
        XCTAssertEqual(synced.status, 200, synced.text)
        let updated = #"{"followed_id":\#(id),"action":"updated"}"#
        XCTAssertTrue(stream.read(until: updated, timeout: 10).contains(updated))
        var seen = try await here.object("GET", "/api/followed-collections/\(id)", token: bob)
        XCTAssertEqual(seen["name"] as? String, "Road trip, shorter")
        XCTAssertEqual(seen["item_count"] as? Int, 2)
        XCTAssertNil(seen["last_error"] as? String)
        let failed = try await here.object("GET", "/api/followed-collections/\(goneID)", token: bob)
        XCTAssertTrue((failed["last_error"] as? String)?.hasPrefix(goneURL.replacingOccurrences(of: "/shared/", with: "/api/shared/")) == true,
                      "\(failed)")
        XCTAssertEqual(failed["withdrawn"] as? Bool, false)
        XCTAssertEqual(failed["item_count"] as? Int, 3, "kept as it was")

        // Withdrawn there: the next sync marks it withdrawn here, its items gone.
        _ = try await there.object("POST", "/api/collections/\(collection)/unpublish", token: alice)
        _ = try await here.call("POST", "/api/feed/sync", token: bob)
        seen = try await here.object("GET", "/api/followed-collections/\(id)", token: bob)
        XCTAssertEqual(seen["withdrawn"] as? Bool, true)
        XCTAssertEqual((seen["items"] as? [[String: Any]])?.count, 0)
        let withdrawn = #"{"followed_id":\#(id),"action":"withdrawn"}"#
        XCTAssertTrue(stream.read(until: withdrawn, timeout: 10).contains(withdrawn))
        // And a withdrawn link followed anew is refused as withdrawn.
        _ = try await here.addUser("dora", password: "doras password", admin: false)
        let dora = try await here.login("dora", "doras password")
        _ = try await follow(here, url, token: dora, status: 410)
    }

    /// A server that fetches only public addresses refuses to follow a link on a local one, up
    /// front; one of its own collections is followed whatever host its link names.
    func testAServerWithoutPrivateFeedsFollowsNoLocalLinkOfAnotherServer() async throws {
        let (there, alice, collection, _) = try await PublishedCollectionTests.aliceWithACollection()
        let url = try await publish(there, alice, collection)
        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: false, version: "test")
        let here = try await APIHarness(configuration: configuration, logins: true)
        let bob = try await bob(on: here)
        let refused = try await follow(here, url, token: bob, status: 400)
        XCTAssertTrue((refused["detail"] as? String)?.contains("is a local address") == true, "\(refused)")
        await assertEqual(try await here.object("GET", "/api/followed-collections", token: bob)["total"] as? Int, 0)
    }
}
