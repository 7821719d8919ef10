import Foundation
import XCTest

/// What the web app's Settings and Channels screens need beyond the backend's API: a user's own
/// sessions (listed, revoked) and a channel's playback speed and parse warnings.
final class SessionAndChannelSettingsTests: XCTestCase {
    func testAUserListsAndRevokesOnlyTheirOwnSessions() async throws {
        let h = try await APIHarness(logins: true)
        _ = try await h.addUser("alice", password: "correct horse", admin: false)
        _ = try await h.addUser("bob", password: "battery staple", admin: true)
        func login(_ name: String, _ password: String, device: String) async throws -> String {
            let reply = try await h.object("POST", "/api/auth/login",
                                           body: #"{"username": "\#(name)", "pin": "\#(password)", "device_name": "\#(device)"}"#)
            return try XCTUnwrap(reply["token"] as? String)
        }
        let laptop = try await login("alice", "correct horse", device: "laptop")
        let phone = try await login("alice", "correct horse", device: "phone")
        let bobs = try await login("bob", "battery staple", device: "desk")

        let listed = try await h.object("GET", "/api/sessions", token: laptop)
        let sessions = try XCTUnwrap(listed["sessions"] as? [[String: Any]])
        XCTAssertEqual(listed["total"] as? Int, 2)
        XCTAssertEqual(Set(sessions.compactMap { $0["device"] as? String }), ["laptop", "phone"], "never bob's")
        XCTAssertEqual(Set(try XCTUnwrap(sessions.first).keys), ["id", "device", "created_at", "expires_at", "last_used_at", "current"])
        XCTAssertEqual(sessions.filter { $0["current"] as? Bool == true }.compactMap { $0["device"] as? String }, ["laptop"])
        let phoneID = try XCTUnwrap(sessions.first { $0["device"] as? String == "phone" }?["id"] as? Int)

        // Bob, an admin, cannot end Alice's session through this route: it is not his.
        let refused = try await h.call("DELETE", "/api/sessions/\(phoneID)", token: bobs)
        XCTAssertEqual(refused.status, 404, refused.text)
        let stillLive = try await h.call("GET", "/api/feed", token: phone)
        XCTAssertEqual(stillLive.status, 200)

        let revoked = try await h.call("DELETE", "/api/sessions/\(phoneID)", token: laptop)
        XCTAssertEqual(revoked.status, 204, revoked.text)
        let ended = try await h.call("GET", "/api/feed", token: phone)
        XCTAssertEqual(ended.status, 401)
        let after = try await h.object("GET", "/api/sessions", token: laptop)
        XCTAssertEqual((after["sessions"] as? [[String: Any]])?.compactMap { $0["device"] as? String }, ["laptop"])
        let again = try await h.call("DELETE", "/api/sessions/\(phoneID)", token: laptop)
        XCTAssertEqual(again.status, 404, "gone already")
        let anonymous = try await h.call("GET", "/api/sessions")
        XCTAssertEqual(anonymous.status, 401, "no token")
    }

    func testAChannelCarriesItsSpeedAndItsParseWarnings() async throws {
        let h = try await APIHarness()
        try h.feeds.write("truncated.xml", """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Cut Short</title>
            <item><title>Whole</title><guid>whole</guid><enclosure url="\(h.feeds.url("/a.mp3"))" type="audio/mpeg" length="1"/></item>
            <item><title>Cut
            """)
        let added = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/truncated.xml"))"}"#, status: 201)
        let id = try XCTUnwrap(added["id"] as? Int)
        XCTAssertTrue(added["speed"] is NSNull)
        let warnings = try XCTUnwrap(added["warnings"] as? [String])
        XCTAssertTrue(warnings.contains("the document ends inside an item, which was dropped"), "\(warnings)")

        let set = try await h.object("PUT", "/api/channels/\(id)", body: #"{"speed": 1.5}"#)
        XCTAssertEqual(set["speed"] as? Double, 1.5)
        let listed = try await h.object("GET", "/api/channels")
        XCTAssertEqual((listed["items"] as? [[String: Any]])?.first?["speed"] as? Double, 1.5)
        XCTAssertEqual((listed["items"] as? [[String: Any]])?.first?["warnings"] as? [String], warnings)
        let tooFast = try await h.call("PUT", "/api/channels/\(id)", body: #"{"speed": 9}"#)
        XCTAssertEqual(tooFast.status, 422, tooFast.text)
        let unchanged = try await h.object("GET", "/api/channels/\(id)")
        XCTAssertEqual(unchanged["speed"] as? Double, 1.5, "unchanged")
    }
}
