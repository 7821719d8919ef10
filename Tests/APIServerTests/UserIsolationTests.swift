import LibraryStore
import Foundation
import XCTest

/// Two users on one server: each token acts on its own user's store, so another user's item and
/// channel ids are "not found", their lists never show, and a change by one is not seen by the
/// other, on every per-user route.
final class UserIsolationTests: XCTestCase {
    /// A server with logins and two users, alice and bob, each logged in: (server, alice, her token, his token).
    private func aliceAndBob() async throws -> (APIHarness, User, alice: String, bob: String) {
        let h = try await APIHarness(logins: true)
        let alice = try await h.addUser("alice", password: "correct horse", admin: false)
        _ = try await h.addUser("bob", password: "bobs password", admin: false)
        return (h, alice, try await h.login("alice", "correct horse"), try await h.login("bob", "bobs password"))
    }

    func testAnotherUsersIdsAreNotFoundAndTheirListsNeverShow() async throws {
        let (h, aliceUser, alice, bob) = try await aliceAndBob()

        let podcast = h.feeds.url("/podcast.xml"), atom = h.feeds.url("/atom.xml")
        let aliceAdded = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(podcast)"}"#, status: 201, token: alice)
        let aliceChannel = try XCTUnwrap(aliceAdded["id"] as? Int)
        let bobAdded = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(atom)"}"#, status: 201, token: bob)
        let bobChannel = try XCTUnwrap(bobAdded["id"] as? Int)
        let aliceFeed = try await h.object("GET", "/api/feed", token: alice)
        let aliceItems = try XCTUnwrap(aliceFeed["items"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
        XCTAssertEqual(aliceItems.count, 3)
        let item = try XCTUnwrap(aliceItems.first)
        _ = try await h.object("PATCH", "/api/feed/\(item)/progress", body: #"{"watch_progress_seconds": 30}"#, token: alice)

        // Bob's lists hold nothing of alice's.
        let bobFeed = try await h.object("GET", "/api/feed?per_page=100", token: bob)
        let bobItems = try XCTUnwrap(bobFeed["items"] as? [[String: Any]])
        XCTAssertFalse(bobItems.isEmpty)
        XCTAssertTrue(bobItems.allSatisfy { $0["channel_id"] as? Int == bobChannel })
        XCTAssertTrue(Set(bobItems.compactMap { $0["id"] as? Int }).isDisjoint(with: aliceItems))
        for path in ["/api/subscriptions", "/api/channels"] {
            let list = try await h.object("GET", path, token: bob)
            XCTAssertEqual((list["items"] as? [[String: Any]])?.map { $0["id"] as? Int }, [bobChannel], path)
        }
        let byChannel = try await h.object("GET", "/api/feed/by-channel", token: bob)
        XCTAssertEqual((byChannel["channels"] as? [[String: Any]])?.map { $0["channel_id"] as? Int }, [bobChannel])
        let history = try await h.object("GET", "/api/feed/history", token: bob)
        XCTAssertEqual(history["total"] as? Int, 0)
        let found = try await h.object("POST", "/api/discover/search", body: #"{"query": "concert"}"#, token: bob)
        XCTAssertEqual(found["total_results"] as? Int, 0, "alice's episode is not found by bob's search")
        let opml = try await h.call("GET", "/api/subscriptions/opml", token: bob)
        XCTAssertEqual(opml.status, 200)
        XCTAssertFalse(opml.text.contains(podcast))
        XCTAssertTrue(opml.text.contains(atom))

        // Alice's ids are "not found" to bob on every per-user route, and change nothing.
        let notFound: [(String, String, String?)] = [
            ("GET", "/api/feed/items/\(item)", nil),
            ("PATCH", "/api/feed/\(item)/watched", #"{"is_watched": true}"#),
            ("PATCH", "/api/feed/\(item)/progress", #"{"watch_progress_seconds": 99}"#),
            ("PUT", "/api/feed/items/\(item)/watched", nil),
            ("PUT", "/api/feed/items/\(item)/unwatched", nil),
            ("PUT", "/api/feed/items/\(item)/progress?progress_seconds=99", nil),
            ("GET", "/api/subscriptions/\(aliceChannel)", nil), ("GET", "/api/channels/\(aliceChannel)", nil),
            ("PUT", "/api/subscriptions/\(aliceChannel)", #"{"is_active": false}"#),
            ("PUT", "/api/channels/\(aliceChannel)", #"{"is_active": false}"#),
            ("POST", "/api/subscriptions/\(aliceChannel)/sync", nil), ("POST", "/api/channels/\(aliceChannel)/sync", nil),
            ("DELETE", "/api/subscriptions/\(aliceChannel)", nil), ("DELETE", "/api/channels/\(aliceChannel)", nil),
            ("GET", "/api/feed?channel_ids=\(aliceChannel)", nil),
            ("GET", "/api/users/\(aliceUser.id.rawValue)", nil),
            ("PUT", "/api/users/\(aliceUser.id.rawValue)/pin", #"{"new_pin": "taken over!"}"#),
        ]
        for (method, path, body) in notFound {
            let reply = try await h.call(method, path, body: body, token: bob)
            if path.hasPrefix("/api/feed?") {
                XCTAssertEqual(reply.status, 200, path)
                XCTAssertEqual(try reply.object()["total"] as? Int, 0, "\(path): another user's channel filters to nothing")
            } else {
                XCTAssertEqual(reply.status, 404, "\(method) \(path): \(reply.text)")
            }
        }
        // The player plays for the library's owner: nobody else drives it or reads what it plays.
        for (method, path, body) in [("GET", "/api/player", nil), ("GET", "/api/player/queue", nil),
                                     ("POST", "/api/player/play", #"{"item_id": \#(item)}"#), ("POST", "/api/player/pause", nil)] {
            let reply = try await h.call(method, path, body: body, token: bob)
            XCTAssertEqual(reply.status, 403, "\(method) \(path): \(reply.text)")
        }
        let deleteUser = try await h.call("DELETE", "/api/users/\(aliceUser.id.rawValue)", token: bob)
        XCTAssertEqual(deleteUser.status, 403)
        let bobUsers = try await h.object("GET", "/api/users", token: bob)
        XCTAssertEqual((bobUsers["users"] as? [[String: Any]])?.map { $0["username"] as? String }, ["bob"])

        // Alice's state is as she left it.
        let mine = try await h.object("GET", "/api/feed/items/\(item)", token: alice)
        XCTAssertEqual(mine["is_watched"] as? Bool, false)
        XCTAssertEqual(mine["watch_progress_seconds"] as? Int, 30)
        let aliceChannels = try await h.object("GET", "/api/subscriptions", token: alice)
        XCTAssertEqual((aliceChannels["items"] as? [[String: Any]])?.first?["is_active"] as? Bool, true)
        XCTAssertEqual(aliceChannels["total"] as? Int, 1)
        let aliceLogin = try await h.object("POST", "/api/auth/login", body: #"{"username": "alice", "password": "correct horse"}"#)
        XCTAssertEqual(aliceLogin["success"] as? Bool, true, "her password is unchanged")
    }

    /// Saved videos and collections with real logins (`SavedVideoAndCollectionTests` drives
    /// them through a test authenticator): alice's are "not found" to bob on every route, his
    /// lists never show them, and nothing he sends changes them.
    func testAnotherUsersSavedVideosAndCollectionsAreNotFound() async throws {
        let (h, aliceUser, alice, bob) = try await aliceAndBob()
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201, token: alice)
        let item = try await h.database.store(for: aliceUser.id).id(of: "tone-show-3")
        let saved = try await h.object("POST", "/api/saved-videos", body: #"{"video_url": "\#(h.feeds.url("/media/tones-60s.mp3"))"}"#,
                                       status: 201, token: alice)
        let savedID = try XCTUnwrap(saved["id"] as? Int)
        let collection = try await h.object("POST", "/api/collections", body: #"{"name": "Alice's"}"#, status: 201, token: alice)
        let collectionID = try XCTUnwrap(collection["id"] as? Int)
        _ = try await h.object("POST", "/api/collections/\(collectionID)/items", body: #"{"item_id": \#(item)}"#, status: 201, token: alice)

        let notFound: [(String, String, String?)] = [
            ("GET", "/api/saved-videos/\(savedID)", nil),
            ("PUT", "/api/saved-videos/\(savedID)", #"{"notes": "mine now", "is_watched": true}"#),
            ("PUT", "/api/saved-videos/\(savedID)/watched", nil), ("PUT", "/api/saved-videos/\(savedID)/unwatched", nil),
            ("PUT", "/api/saved-videos/\(savedID)/progress?progress_seconds=5", nil),
            ("DELETE", "/api/saved-videos/\(savedID)", nil),
            ("GET", "/api/collections/\(collectionID)", nil), ("GET", "/api/collections/export/\(collectionID)", nil),
            ("PUT", "/api/collections/\(collectionID)", #"{"name": "Bob's"}"#),
            ("POST", "/api/collections/\(collectionID)/items", #"{"item_id": \#(item)}"#),
            ("POST", "/api/collections/\(collectionID)/items/reorder", #"{"item_ids": [\#(item)]}"#),
            ("PUT", "/api/collections/\(collectionID)/items/\(item)/watched", #"{"is_watched": true}"#),
            ("PUT", "/api/collections/\(collectionID)/items/\(item)/progress", #"{"progress_seconds": 9}"#),
            ("DELETE", "/api/collections/\(collectionID)/items/\(item)", nil),
            ("DELETE", "/api/collections/\(collectionID)", nil),
        ]
        for (method, path, body) in notFound {
            let reply = try await h.call(method, path, body: body, token: bob)
            XCTAssertEqual(reply.status, 404, "\(method) \(path): \(reply.text)")
        }
        let bobsSaved = try await h.object("GET", "/api/saved-videos", token: bob)
        XCTAssertEqual(bobsSaved["total"] as? Int, 0)
        let bobsCollections = try await h.call("GET", "/api/collections", token: bob)
        XCTAssertFalse(bobsCollections.text.contains("Alice's"), bobsCollections.text)

        // Alice's are as she left them.
        let mine = try await h.object("GET", "/api/saved-videos/\(savedID)", token: alice)
        XCTAssertEqual(mine["is_watched"] as? Bool, false)
        XCTAssertNotEqual(mine["notes"] as? String, "mine now")
        let hers = try await h.object("GET", "/api/collections/\(collectionID)", token: alice)
        XCTAssertEqual(hers["name"] as? String, "Alice's")
        XCTAssertEqual((hers["items"] as? [Any])?.count, 1)
    }

    /// Both follow the same feed (one shared channel): what one watches, plays or pauses is his.
    func testASharedChannelKeepsEachUsersState() async throws {
        let (h, _, alice, bob) = try await aliceAndBob()
        let podcast = h.feeds.url("/podcast.xml")
        let aliceAdded = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(podcast)"}"#, status: 201, token: alice)
        let aliceChannel = try XCTUnwrap(aliceAdded["id"] as? Int)
        let bobAdd = try await h.call("POST", "/api/subscriptions", body: #"{"url": "\#(podcast)"}"#, token: bob)
        XCTAssertEqual(bobAdd.status, 201, "a new subscription for bob: \(bobAdd.text)")
        XCTAssertEqual(try bobAdd.object()["id"] as? Int, aliceChannel, "one channel, polled once")
        let bobFeedFirst = try await h.object("GET", "/api/feed", token: bob)
        let items = try XCTUnwrap(bobFeedFirst["items"] as? [[String: Any]])
        XCTAssertEqual(items.count, 3)
        let item = try XCTUnwrap(items.first?["id"] as? Int)

        _ = try await h.object("PATCH", "/api/feed/\(item)/watched", body: #"{"is_watched": true}"#, token: bob)
        _ = try await h.object("PUT", "/api/feed/items/\(items[1]["id"] as? Int ?? 0)/progress?progress_seconds=12", token: bob)
        _ = try await h.object("PUT", "/api/channels/\(aliceChannel)", body: #"{"is_active": false}"#, token: bob)

        let aliceItem = try await h.object("GET", "/api/feed/items/\(item)", token: alice)
        XCTAssertEqual(aliceItem["is_watched"] as? Bool, false)
        let unwatched = try await h.object("GET", "/api/feed?filter=unwatched", token: alice)
        XCTAssertEqual(unwatched["total"] as? Int, 3)
        let progressed = try await h.object("GET", "/api/feed/items/\(items[1]["id"] as? Int ?? 0)", token: alice)
        XCTAssertEqual(progressed["watch_progress_seconds"] as? Int, 0)
        let aliceSees = try await h.object("GET", "/api/subscriptions/\(aliceChannel)", token: alice)
        XCTAssertEqual(aliceSees["is_active"] as? Bool, true)
        XCTAssertEqual(aliceSees["unwatched_count"] as? Int, 3)
        let bobSees = try await h.object("GET", "/api/subscriptions/\(aliceChannel)", token: bob)
        XCTAssertEqual(bobSees["unwatched_count"] as? Int, 2)

        // Bob unsubscribes: alice keeps the channel and its items.
        let removed = try await h.call("DELETE", "/api/subscriptions/\(aliceChannel)", token: bob)
        XCTAssertEqual(removed.status, 204)
        let aliceFeed = try await h.object("GET", "/api/feed", token: alice)
        XCTAssertEqual(aliceFeed["total"] as? Int, 3)
        let bobFeed = try await h.object("GET", "/api/feed", token: bob)
        XCTAssertEqual(bobFeed["total"] as? Int, 0)
    }
}
