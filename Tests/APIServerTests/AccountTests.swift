import Accounts
import APIServer
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// `/api/account` and `DELETE /api/users/{id}` (issue 29, "Accounts"): a user downloads
/// everything that is theirs (JSON, and their subscriptions as OPML) and nothing of anyone
/// else's; deletes their account only by proving again who they are (a wrong password deletes
/// nothing); an admin removes another user, never the owner or the last admin; a removed user's
/// sessions and event streams end at once, and nobody else's data changes.
final class AccountTests: XCTestCase {
    private func harness(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> APIHarness {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: false, allowPrivateFeeds: true, version: "test")
        configure(&configuration)
        return try await APIHarness(configuration: configuration, logins: true, events: true)
    }

    private static let alicePassword = "alice's password", bobPassword = "bob's password"

    /// Alice and bob, each signed in, each with something in every list the export holds; bob's
    /// notes and names say "bob" so his data is seen if it leaks. (alice, bob, their tokens)
    private func aliceAndBob(_ h: APIHarness) async throws -> (alice: User, bob: User, aliceToken: String, bobToken: String) {
        let alice = try await h.addUser("alice", password: Self.alicePassword, admin: false)
        let bob = try await h.addUser("bob", password: Self.bobPassword, admin: false)
        let aliceToken = try await h.login("alice", Self.alicePassword), bobToken = try await h.login("bob", Self.bobPassword)
        for (user, token, feed) in [(alice, aliceToken, "/podcast.xml"), (bob, bobToken, "/atom.xml")] {
            _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url(feed))"}"#, status: 201, token: token)
            let items = try await unwrap(try await h.object("GET", "/api/feed", token: token)["items"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
            let first = try XCTUnwrap(items.first)
            _ = try await h.object("PATCH", "/api/feed/\(first)/progress", body: #"{"watch_progress_seconds": 30}"#, token: token)
            let collection = try await h.object("POST", "/api/collections", body: #"{"name": "\#(user.name)'s picks"}"#, status: 201, token: token)
            _ = try await h.object("POST", "/api/collections/\(try XCTUnwrap(collection["id"] as? Int))/items", body: #"{"item_id": \#(first)}"#,
                                   status: 201, token: token)
            _ = try await h.object("POST", "/api/queue", body: #"{"item_id": \#(first)}"#, token: token)
            let store = h.database.store(for: user.id)
            _ = try await store.saveVideo(page: SavedPage(platform: "youtube", videoID: "v-\(user.name)", videoURL: "https://www.youtube.com/watch?v=v-\(user.name)",
                                                          title: "A video \(user.name) kept"), notes: "\(user.name)'s private note", now: APIHarness.now)
            try await store.appendHistory(item: Int64(first), position: 12, now: APIHarness.now)
            try await store.saveVolume(0.5, now: APIHarness.now)
            try await store.saveSyncDevice(id: "\(user.name)-phone", caption: "\(user.name)'s phone", type: .mobile, now: APIHarness.now)
            _ = try await store.recordEpisodeActions([EpisodeAction(podcast: "https://example.com/\(user.name).xml", episode: "https://example.com/\(user.name).mp3",
                                                                    kind: .download, device: "\(user.name)-phone", timestamp: APIHarness.now)], now: APIHarness.now)
        }
        return (alice, bob, aliceToken, bobToken)
    }

    func testTheExportHoldsEverythingOfTheUsersAndNothingOfAnothers() async throws {
        let h = try await harness()
        let (alice, bob, aliceToken, bobToken) = try await aliceAndBob(h)
        let laptop = try await h.login("alice", Self.alicePassword)
        // Past one page of the export's reads: the lists that grow without bound come in pages.
        let store = h.database.store(for: alice.id)
        let channel = try await unwrap(try await store.allChannels().first).id
        let items = try await store.itemIDs(channelID: channel)
        for n in 0..<520 { try await store.appendHistory(item: items[n % items.count], position: n, now: APIHarness.now + Int64(n)) }
        // Her collection published, and dora's, which she follows.
        let picks = try await unwrap(try await store.collectionDetails().first).id
        let published = try await h.object("POST", "/api/collections/\(picks)/publish", token: aliceToken)
        let dora = try await h.addUser("dora", password: "dora's password", admin: false)
        let doras = try await h.database.store(for: dora.id).createCollection("dora's mix", description: nil, now: APIHarness.now)
        let doraLink = try await h.database.store(for: dora.id).publishCollection(id: doras.id, token: .random(), now: APIHarness.now)
        _ = try await h.object("POST", "/api/followed-collections", body: #"{"url": "/shared/\#(doraLink.token)"}"#, status: 201, token: aliceToken)
        // Her account at an OpenID provider, and bob's (which must not show).
        try await h.owner.link(issuer: "https://id.example", subject: "alice-sub", email: "alice@example.com", to: alice.id, now: APIHarness.now)
        try await h.owner.link(issuer: "https://id.example", subject: "bob-sub", email: nil, to: bob.id, now: APIHarness.now)

        let reply = try await h.call("GET", "/api/account/export", token: aliceToken)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.headers["content-type"], "application/json; charset=utf-8")
        XCTAssertEqual(reply.headers["content-disposition"], "attachment; filename=\"feedctl-my-data.json\"")
        XCTAssertEqual(reply.headers["cache-control"], "no-store")
        let document = try reply.object()
        XCTAssertEqual(document["format"] as? String, "feedctl-account-export")
        XCTAssertEqual(document["version"] as? Int, 1)
        // The stated order of the keys.
        let keys = ["format", "version", "exported_at", "profile", "subscriptions", "watch_state", "history", "saved", "collections",
                    "followed", "up_next", "player", "gpodder", "sessions", "identities"]
        XCTAssertEqual(Set(document.keys), Set(keys))
        let offsets = keys.map { reply.text.range(of: "\"\($0)\":")?.lowerBound }
        XCTAssertEqual(offsets.compactMap { $0 }, offsets.compactMap { $0 }.sorted())
        XCTAssertEqual(offsets.compactMap { $0 }.count, keys.count)

        let profile = try XCTUnwrap(document["profile"] as? [String: Any])
        XCTAssertEqual(profile["name"] as? String, "alice")
        XCTAssertEqual(profile["id"] as? Int, Int(alice.id.rawValue))
        XCTAssertEqual(profile["has_password"] as? Bool, true)
        // Exactly hers, list by list, as her own store has them.
        func list(_ key: String) throws -> [[String: Any]] { try XCTUnwrap(document[key] as? [[String: Any]], key) }
        XCTAssertEqual(try list("subscriptions").compactMap { $0["feed_url"] as? String }, [h.feeds.url("/podcast.xml")])
        let states = try await store.watchStates(after: 0, limit: 1000)
        XCTAssertEqual(try list("watch_state").compactMap { ($0["item_id"] as? Int).map(Int64.init) }, states.map(\.item))
        XCTAssertEqual(try list("watch_state").first?["progress_seconds"] as? Int, 30)
        XCTAssertEqual(try list("history").count, 521)
        XCTAssertEqual(try list("history").compactMap { $0["position_seconds"] as? Int }, [12] + Array(0..<520))
        let saved = try list("saved")
        XCTAssertEqual(saved.map { $0["notes"] as? String }, ["alice's private note"])
        XCTAssertEqual(saved.first?["video_id"] as? String, "v-alice")
        let collections = try list("collections")
        XCTAssertEqual(collections.map { $0["name"] as? String }, ["alice's picks"])
        XCTAssertEqual((collections.first?["items"] as? [[String: Any]])?.map { ($0["item_id"] as? Int).map(Int64.init) }, [states.first?.item])
        XCTAssertEqual(collections.first?["published"] as? String, published["url"] as? String, "where it is published")
        let followed = try list("followed")
        XCTAssertEqual(followed.map { $0["name"] as? String }, ["dora's mix"])
        XCTAssertEqual(followed.first?["owner_name"] as? String, "dora")
        XCTAssertEqual(followed.first?["url"] as? String, "/shared/\(doraLink.token)")
        XCTAssertEqual(try list("up_next").map { ($0["target"] as? [String: Any])?["item_id"] as? Int }.map { $0.map(Int64.init) }, [states.first?.item])
        XCTAssertEqual((document["player"] as? [String: Any])?["volume"] as? Double, 0.5)
        let gpodder = try XCTUnwrap(document["gpodder"] as? [String: Any])
        XCTAssertEqual((gpodder["devices"] as? [[String: Any]])?.map { $0["id"] as? String }, ["alice-phone"])
        XCTAssertEqual((gpodder["episode_actions"] as? [[String: Any]])?.map { $0["podcast"] as? String }, ["https://example.com/alice.xml"])
        let sessions = try await h.owner.sessions(of: alice.id)
        XCTAssertEqual(try list("sessions").compactMap { ($0["id"] as? Int).map(Int64.init) }, sessions.map(\.id))
        XCTAssertEqual(sessions.count, 2)
        XCTAssertEqual(try list("identities").map { [$0["issuer"] as? String, $0["subject"] as? String, $0["email"] as? String] },
                       [["https://id.example", "alice-sub", "alice@example.com"]])
        XCTAssertEqual(try list("identities").first?["linked_at"] as? Int, Int(APIHarness.now))
        // Nothing of bob's, and no secret of hers.
        for leak in ["bob", h.feeds.url("/atom.xml"), aliceToken, laptop, bobToken, "$2", "password_hash", "token"] {
            XCTAssertFalse(reply.text.contains(leak), "the export holds \(leak)")
        }

        let opml = try await h.call("GET", "/api/account/export.opml", token: aliceToken)
        XCTAssertEqual(opml.status, 200)
        XCTAssertEqual(opml.headers["content-type"], "text/x-opml; charset=utf-8")
        XCTAssertTrue(opml.text.contains(h.feeds.url("/podcast.xml")))
        XCTAssertFalse(opml.text.contains(h.feeds.url("/atom.xml")))
        for path in ["/api/account/export", "/api/account/export.opml"] {
            let anonymous = try await h.call("GET", path, token: "")
            XCTAssertEqual(anonymous.status, 401, path)
        }
    }

    func testDeletingYourAccountTakesYourPasswordAndErasesEverythingOfYoursAtOnce() async throws {
        let dir = TempDir()
        let media = dir.file("media")
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: false, allowPrivateFeeds: true, version: "test")
        configuration.mediaDirectory = media
        let h = try await APIHarness(configuration: configuration, logins: true, events: true, dir: dir)
        let (alice, bob, aliceToken, bobToken) = try await aliceAndBob(h)
        // A downloaded episode of the channel only she follows, and one of bob's.
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        func downloaded(_ user: User) async throws -> String {
            let store = h.database.store(for: user.id)
            let channel = try await unwrap(try await store.allChannels().first).id
            return "\(media)/\(try await unwrap(try await store.itemIDs(channelID: channel).first))_Episode.mp3"
        }
        let aliceFile = try await downloaded(alice), bobFile = try await downloaded(bob)
        for file in [aliceFile, bobFile] { XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("ID3".utf8))) }
        let laptop = try await h.login("alice", Self.alicePassword)
        let gpodder = try await h.curl("POST", "/api/2/auth/alice/login.json",
                                       headers: ["Authorization": "Basic " + Data("alice:\(Self.alicePassword)".utf8).base64EncodedString()])
        let sessionCookie = try XCTUnwrap(gpodder.headers["set-cookie"]?.split(separator: ";").first.map(String.init), "gpodder's sessionid")
        let stream = try EventStream(port: h.port, path: "/api/events", headers: ["Authorization": "Bearer \(aliceToken)"])
        defer { stream.close() }
        XCTAssertNotNil(EventStreamTests.position(stream.read(until: EventStreamTests.firstMessage, timeout: 10)))
        let bobBefore = try await h.call("GET", "/api/account/export", token: bobToken)
        let aliceChannel = try await unwrap(try await h.database.store(for: alice.id).allChannels().first).id

        // Refused without the password or with a wrong one: nothing is deleted.
        let bare = try await h.call("DELETE", "/api/account", token: aliceToken)
        XCTAssertEqual(bare.status, 422, bare.text)
        for body in [#"{"password": "not hers at all"}"#, #"{"username": "alice"}"#] {
            let wrong = try await h.call("DELETE", "/api/account", body: body, token: aliceToken)
            XCTAssertEqual(wrong.status, body.contains("username") ? 422 : 403, "\(body): \(wrong.text)")
        }
        await assertEqual(try await h.call("GET", "/api/feed", token: aliceToken).status, 200, "still signed in")
        await assertEqual(try await h.database.store(for: alice.id).allChannels().map(\.id), [aliceChannel], "nothing of hers went")

        let deleted = try await h.call("DELETE", "/api/account", body: #"{"password": "\#(Self.alicePassword)"}"#, token: aliceToken)
        XCTAssertEqual(deleted.status, 200, deleted.text)
        XCTAssertEqual(try deleted.object()["success"] as? Bool, true)
        XCTAssertTrue(deleted.headers["set-cookie"]?.hasPrefix("session_token=; ") == true, "the browser's cookie is cleared")

        // Every session ended: the token, another device's, gpodder's cookie; the stream ended.
        for token in [aliceToken, laptop] {
            await assertEqual(try await h.call("GET", "/api/feed", token: token).status, 401)
            await assertEqual(try await h.call("GET", "/api/account/export", token: token).status, 401)
        }
        let synced = try await h.curl("GET", "/api/2/devices/alice.json", headers: ["Cookie": sessionCookie])
        XCTAssertEqual(synced.status, 401, synced.text)
        let ended = stream.read(until: "\r\n0\r\n\r\n", timeout: 10)
        XCTAssertTrue(ended.hasSuffix("\r\n0\r\n\r\n"), "her event stream ends: \(ended.suffix(200))")
        let login = try await h.object("POST", "/api/auth/login", body: #"{"username": "alice", "password": "\#(Self.alicePassword)"}"#)
        XCTAssertEqual(login["success"] as? Bool, false)
        await assertThrows(LibraryError.noUser("alice")) { try await h.owner.user(named: "alice") }
        await assertEqual(try await h.database.store(for: alice.id).savedVideos(SavedVideoQuery()).total, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: aliceFile), "her channel's downloaded file went with it")
        XCTAssertTrue(FileManager.default.fileExists(atPath: bobFile), "bob's stays")

        // Bob's account is as it was: his token works, his export is the same but for when it was made.
        let bobAfter = try await h.call("GET", "/api/account/export", token: bobToken)
        func withoutTime(_ reply: APIHarness.Reply) throws -> NSDictionary {
            var object = try reply.object()
            object["exported_at"] = nil
            return object as NSDictionary
        }
        XCTAssertEqual(try withoutTime(bobAfter), try withoutTime(bobBefore))
        await assertEqual(try await h.owner.user(named: "bob"), bob)
        XCTAssertTrue(h.log.all.contains { $0.contains("account removed: alice (by themselves)") }, "\(h.log.all.suffix(5))")
        h.assertLogHolds(noneOf: [Self.alicePassword, aliceToken, laptop])
    }

    /// A user with neither a password nor a single sign-on identity (here, one `user add` made,
    /// with a session of theirs) confirms by typing their user name. (A single sign-on user
    /// confirms at the provider: SingleSignOnTests.)
    func testAUserWithoutAPasswordConfirmsByTypingTheirName() async throws {
        let h = try await harness()
        let carol = try await h.owner.addUser(name: "carol", isAdmin: false, passwordHash: nil, now: APIHarness.now)
        let token = SessionToken()
        try await h.owner.createSession(user: carol.id, tokenHash: try token.hash, deviceName: "sso", now: APIHarness.now)
        let how = try await h.call("GET", "/api/account/reauthentication", token: token.text).object()
        XCTAssertEqual(how["proof"] as? String, "username")
        await assertEqual(try await h.call("DELETE", "/api/account", body: #"{"password": "anything"}"#, token: token.text).status, 422)
        await assertEqual(try await h.call("DELETE", "/api/account", body: #"{"username": "Carol"}"#, token: token.text).status, 403)
        await assertEqual(try await h.call("GET", "/api/feed", token: token.text).status, 200, "nothing happened")
        let deleted = try await h.call("DELETE", "/api/account", body: #"{"username": "carol"}"#, token: token.text)
        XCTAssertEqual(deleted.status, 200, deleted.text)
        await assertEqual(try await h.call("GET", "/api/feed", token: token.text).status, 401)
        await assertThrows(LibraryError.noUser("carol")) { try await h.owner.user(named: "carol") }
    }

    func testAnAdminRemovesAnotherUserButNotThemselvesTheOwnerOrTheLastAdmin() async throws {
        let h = try await harness()
        let root = try await h.addUser("root", password: "root's password", admin: true)
        let rootToken = try await h.login("root", "root's password")
        let (alice, bob, aliceToken, bobToken) = try await aliceAndBob(h)
        let stream = try EventStream(port: h.port, path: "/api/events", headers: ["Authorization": "Bearer \(bobToken)"])
        defer { stream.close() }
        XCTAssertNotNil(EventStreamTests.position(stream.read(until: EventStreamTests.firstMessage, timeout: 10)))

        await assertEqual(try await h.call("DELETE", "/api/users/\(bob.id.rawValue)", token: aliceToken).status, 403, "only admins")
        let removed = try await h.call("DELETE", "/api/users/\(bob.id.rawValue)", token: rootToken)
        XCTAssertEqual(removed.status, 200, removed.text)
        await assertEqual(try await h.call("GET", "/api/feed", token: bobToken).status, 401)
        XCTAssertTrue(stream.read(until: "\r\n0\r\n\r\n", timeout: 10).hasSuffix("\r\n0\r\n\r\n"), "his event stream ends")
        await assertEqual(try await h.call("GET", "/api/feed", token: aliceToken).status, 200)
        await assertEqual(try await h.database.store(for: alice.id).allChannels().map(\.feedURL), [h.feeds.url("/podcast.xml")])
        XCTAssertTrue(h.log.all.contains { $0.contains("account removed: bob (by root)") })

        let own = try await h.call("DELETE", "/api/users/\(root.id.rawValue)", token: rootToken)
        XCTAssertEqual(own.status, 403, own.text)
        XCTAssertTrue(try own.object()["detail"] as? String == "to delete your own account, use DELETE /api/account: it asks for your password")
        let owner = try await h.call("DELETE", "/api/users/\(UserID.owner.rawValue)", token: rootToken)
        XCTAssertEqual(owner.status, 409, owner.text)

        // The owner made no admin (by hand: nothing in feedctl does it): root is the last admin.
        try h.database.execute("UPDATE users SET is_admin = 0 WHERE id = \(UserID.owner.rawValue)")
        let last = try await h.call("DELETE", "/api/account", body: #"{"password": "root's password"}"#, token: rootToken)
        XCTAssertEqual(last.status, 409, last.text)
        XCTAssertEqual(try last.object()["detail"] as? String,
                       "\"root\" is the library's last admin and cannot be removed: make another admin first (feedctl user add --admin)")
        await assertEqual(try await h.call("GET", "/api/users", token: rootToken).status, 200, "root is still there")
    }

    /// A stream needs its session throughout: revoked through the API, its streams end at once;
    /// ended elsewhere (the CLI, another replica, signing out), at the next keepalive; another
    /// session's stream goes on.
    func testAStreamEndsWithItsSession() async throws {
        let h = try await harness { $0.changeStreams.keepalive = .milliseconds(300) }
        _ = try await h.addUser("erin", password: "erin's password", admin: false)
        let phone = try await h.login("erin", "erin's password"), laptop = try await h.login("erin", "erin's password")
        let tablet = try await h.login("erin", "erin's password")
        func open(_ token: String) throws -> EventStream {
            let stream = try EventStream(port: h.port, path: "/api/events", headers: ["Authorization": "Bearer \(token)"])
            XCTAssertNotNil(EventStreamTests.position(stream.read(until: EventStreamTests.firstMessage, timeout: 10)))
            return stream
        }
        let phoneStream = try open(phone), laptopStream = try open(laptop), tabletStream = try open(tablet)
        defer { [phoneStream, laptopStream, tabletStream].forEach { $0.close() } }
        let sessions = try await unwrap(try await h.object("GET", "/api/sessions", token: laptop)["sessions"] as? [[String: Any]])
        // The laptop revokes the phone (the first made, the oldest `created_at`).
        let oldest = try XCTUnwrap(sessions.min { ($0["id"] as? Int ?? 0) < ($1["id"] as? Int ?? 0) }?["id"] as? Int)
        await assertEqual(try await h.call("DELETE", "/api/sessions/\(oldest)", token: laptop).status, 204)
        let ended = phoneStream.read(until: "\r\n0\r\n\r\n", timeout: 10)
        XCTAssertTrue(ended.hasSuffix("\r\n0\r\n\r\n"), "the revoked session's stream ends: \(ended.suffix(200))")
        // The tablet's session ends elsewhere (as `feedctl user revoke` does): at the next keepalive.
        let tabletID = try await unwrap(try await h.owner.sessions(of: nil).max { $0.id < $1.id }).id
        try await h.owner.revokeSession(id: tabletID)
        let tabletEnded = tabletStream.read(until: "\r\n0\r\n\r\n", timeout: 10)
        XCTAssertTrue(tabletEnded.hasSuffix("\r\n0\r\n\r\n"), String(tabletEnded.suffix(200)))
        // The laptop's goes on.
        let still = laptopStream.read(until: ": keepalive\n\n", timeout: 10)
        XCTAssertTrue(still.contains(": keepalive\n\n") && !still.hasSuffix("\r\n0\r\n\r\n"), String(still.suffix(200)))
    }

    /// Removed by another process (the CLI, another replica): the stream ends at its next keepalive.
    func testAStreamOfAUserRemovedElsewhereEndsAtTheNextKeepalive() async throws {
        let h = try await harness { $0.changeStreams.keepalive = .milliseconds(300) }
        _ = try await h.addUser("dave", password: "dave's password", admin: false)
        let token = try await h.login("dave", "dave's password")
        let stream = try EventStream(port: h.port, path: "/api/events", headers: ["Authorization": "Bearer \(token)"])
        defer { stream.close() }
        XCTAssertTrue(stream.read(until: ": keepalive\n\n", timeout: 10).contains(": keepalive\n\n"))
        try await h.owner.removeUser(named: "dave")
        let ended = stream.read(until: "\r\n0\r\n\r\n", timeout: 10)
        XCTAssertTrue(ended.hasSuffix("\r\n0\r\n\r\n"), String(ended.suffix(200)))
    }
}
