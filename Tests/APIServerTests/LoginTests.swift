import Accounts
import APIServer
import FeedModel
import Foundation
import LibraryStore
import XCTest

/// Logins over HTTP (`feedctl serve` without `--open`): the guide's and the web client's calls
/// with exact shapes, the cookie, failures, malformed bodies, the throttle, and the log.
final class LoginTests: XCTestCase {
    /// The backend's `UserPublic` keys.
    static let publicUserKeys: Set<String> = ["id", "username", "display_name", "avatar_color", "has_pin"]

    func testTheGuidesCallSequenceWithALogin() async throws {
        let h = try await APIHarness(logins: true)
        let alice = try await h.addUser("alice", password: "correct horse", admin: false)

        let mode = try await h.object("GET", "/api/auth/mode")
        XCTAssertEqual(mode["mode"] as? String, "protected")
        XCTAssertEqual(mode["allow_guest"] as? Bool, false)
        // Before the login every private route is closed.
        let closed = try await h.call("GET", "/api/feed")
        XCTAssertEqual(closed.status, 401)

        // login(username:password:) → POST /auth/login {"username", "password"}.
        let reply = try await h.call("POST", "/api/auth/login", body: #"{"username": "alice", "password": "correct horse"}"#)
        XCTAssertEqual(reply.status, 200, reply.text)
        let login = try reply.object()
        XCTAssertEqual(Set(login.keys), ["success", "token", "user", "message"])
        XCTAssertEqual(login["success"] as? Bool, true)
        XCTAssertTrue(login["message"] is NSNull)
        let token = try XCTUnwrap(login["token"] as? String)
        XCTAssertEqual(token.count, 43, "32 random bytes, base64url without padding")
        XCTAssertNil(token.range(of: #"[^A-Za-z0-9_-]"#, options: .regularExpression))
        let user = try XCTUnwrap(login["user"] as? [String: Any])
        XCTAssertEqual(Set(user.keys), Self.publicUserKeys)
        XCTAssertEqual(user["id"] as? Int, Int(alice.id.rawValue))
        XCTAssertEqual(user["username"] as? String, "alice")
        XCTAssertEqual(user["display_name"] as? String, "alice")
        XCTAssertEqual(user["avatar_color"] as? String, "#6366f1")
        XCTAssertEqual(user["has_pin"] as? Bool, true)
        let cookie = try XCTUnwrap(reply.headers["set-cookie"])
        XCTAssertEqual(cookie, "session_token=\(token); Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax")
        // The library keeps the token's hash only.
        let hashes = try h.database.strings("SELECT token_hash FROM sessions")
        XCTAssertEqual(hashes, [try SessionToken.hash(of: token)])
        h.token = token

        let me = try await h.object("GET", "/api/auth/me")
        XCTAssertEqual(me["authenticated"] as? Bool, true)
        XCTAssertEqual(Set(try XCTUnwrap(me["user"] as? [String: Any]).keys), Self.publicUserKeys)
        XCTAssertEqual((me["user"] as? [String: Any])?["username"] as? String, "alice")

        // addChannel → feed → markWatched → updateProgress → getChannels, as alice.
        let added = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        XCTAssertEqual(Set(added.keys), GuideSequenceTests.channelKeys)
        let channelID = try XCTUnwrap(added["id"] as? Int)
        let feed = try await h.object("GET", "/api/feed?filter=all&mode=Newest&page=1")
        XCTAssertEqual(Set(feed.keys), ["items", "total", "page", "per_page", "has_more"])
        XCTAssertEqual(feed["total"] as? Int, 3)
        let first = try XCTUnwrap((feed["items"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(first.keys), GuideSequenceTests.itemKeys)
        let itemID = try XCTUnwrap(first["id"] as? Int)
        let watched = try await h.object("PATCH", "/api/feed/\(itemID)/watched", body: #"{"is_watched": true}"#)
        XCTAssertEqual(watched["is_watched"] as? Bool, true)
        XCTAssertEqual(watched["watched_at"] as? String, "2026-11-20T00:00:00Z")
        let progressed = try await h.object("PATCH", "/api/feed/\(itemID)/progress", body: #"{"watch_progress_seconds": 42}"#)
        XCTAssertEqual(progressed["watch_progress_seconds"] as? Int, 42)
        let channels = try await h.object("GET", "/api/subscriptions")
        XCTAssertEqual(Set(channels.keys), ["items", "total"])
        XCTAssertEqual((channels["items"] as? [[String: Any]])?.map { $0["id"] as? Int }, [channelID])
        // getUsers → GET /users: alice is no admin, so only herself.
        let users = try await h.object("GET", "/api/users")
        XCTAssertEqual(Set(users.keys), ["users", "total"])
        XCTAssertEqual((users["users"] as? [[String: Any]])?.map { $0["username"] as? String }, ["alice"])
        XCTAssertEqual(Set(try XCTUnwrap((users["users"] as? [[String: Any]])?.first).keys),
                       ["id", "username", "display_name", "avatar_color", "has_pin", "is_admin", "created_at", "last_login_at"])
        XCTAssertEqual((users["users"] as? [[String: Any]])?.first?["last_login_at"] as? String, "2026-11-20T00:00:00Z")

        // logout → the token is dead: 401 on the next call, as the guide's APIClient expects.
        let logout = try await h.call("POST", "/api/auth/logout")
        XCTAssertEqual(logout.status, 200)
        XCTAssertEqual(try logout.object()["success"] as? Bool, true)
        XCTAssertEqual(logout.headers["set-cookie"], "session_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
        let after = try await h.call("GET", "/api/feed")
        XCTAssertEqual(after.status, 401)
        XCTAssertEqual(after.headers["www-authenticate"], "Bearer")
        XCTAssertNotNil(try after.object()["detail"] as? String)
        let meAfter = try await h.object("GET", "/api/auth/me")
        XCTAssertEqual(meAfter["authenticated"] as? Bool, false)
        XCTAssertTrue(meAfter["user"] is NSNull)
        let sessions = try await h.owner.sessions(of: nil)
        XCTAssertEqual(sessions.count, 0)

        h.assertLogHolds(noneOf: [token, "correct horse"])
    }

    /// The web client: `auth.login(username, pin, deviceName)`, `/auth/me` with the bearer token,
    /// the settings page's `/api/users` with only the cookie (it sends no Authorization), logout.
    func testTheWebClientsCalls() async throws {
        let h = try await APIHarness(logins: true)
        _ = try await h.addUser("root", password: "admin password", admin: true)
        let reply = try await h.call("POST", "/api/auth/login",
                                     body: #"{"username": "root", "pin": "admin password", "device_name": "Firefox on Linux"}"#)
        let login = try reply.object()
        XCTAssertEqual(login["success"] as? Bool, true, reply.text)
        let token = try XCTUnwrap(login["token"] as? String)
        let sessions = try await h.owner.sessions(of: nil)
        XCTAssertEqual(sessions.map(\.deviceName), ["Firefox on Linux"])

        let me = try await h.object("GET", "/api/auth/me", token: token)
        XCTAssertEqual(me["authenticated"] as? Bool, true)
        let valid = try await h.object("POST", "/api/auth/session/validate", token: token)
        XCTAssertEqual(valid["valid"] as? Bool, true)

        // The settings page: fetch('/api/users') and fetch('/api/users', {POST}), cookie only.
        let cookie = ["Cookie": "session_token=\(token)"]
        let list = try await h.call("GET", "/api/users", headers: cookie)
        XCTAssertEqual(list.status, 200, list.text)
        XCTAssertEqual(try list.object()["total"] as? Int, 2, "the owner and root")
        let created = try await h.call("POST", "/api/users", body: """
            {"username": "carol", "display_name": "Carol", "avatar_color": "#ff0000", "is_admin": false, "pin": "carols secret"}
            """, headers: cookie)
        XCTAssertEqual(created.status, 200, created.text)
        let carol = try created.object()
        XCTAssertEqual(Set(carol.keys), ["id", "username", "display_name", "avatar_color", "has_pin", "is_admin", "created_at", "last_login_at"])
        XCTAssertEqual(carol["username"] as? String, "carol")
        XCTAssertEqual(carol["has_pin"] as? Bool, true)
        XCTAssertEqual(carol["is_admin"] as? Bool, false)
        XCTAssertEqual(carol["created_at"] as? String, "2026-11-20T00:00:00Z")
        XCTAssertTrue(carol["last_login_at"] is NSNull)
        let stored = try await h.owner.passwordHash(of: "carol")
        XCTAssertTrue(stored?.hasPrefix("$2b$12$") == true, "bcrypt at PasswordRule.bcryptCost: \(stored ?? "nil")")
        let duplicate = try await h.call("POST", "/api/users", body: #"{"username": "carol", "display_name": "C"}"#, headers: cookie)
        XCTAssertEqual(duplicate.status, 409, duplicate.text)
        let short = try await h.call("POST", "/api/users", body: #"{"username": "dave", "display_name": "D", "pin": "1234"}"#, headers: cookie)
        XCTAssertEqual(short.status, 422, short.text)
        let carolLogin = try await h.object("POST", "/api/auth/login", body: #"{"username": "carol", "pin": "carols secret"}"#)
        XCTAssertEqual(carolLogin["success"] as? Bool, true)
        let carolToken = try XCTUnwrap(carolLogin["token"] as? String)
        // Carol is no admin: she may not add users.
        let refused = try await h.call("POST", "/api/users", body: #"{"username": "eve", "display_name": "E"}"#, token: carolToken)
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertEqual(try refused.object()["detail"] as? String, "only an admin may manage users")
        // Her own password, with the current one.
        let carolID = try XCTUnwrap(carol["id"] as? Int)
        let wrongCurrent = try await h.call("PUT", "/api/users/\(carolID)/pin", body: #"{"current_pin": "nope", "new_pin": "another secret"}"#,
                                            token: carolToken)
        XCTAssertEqual(wrongCurrent.status, 400, wrongCurrent.text)
        let changed = try await h.object("PUT", "/api/users/\(carolID)/pin", body: #"{"current_pin": "carols secret", "new_pin": "another secret"}"#,
                                         token: carolToken)
        XCTAssertEqual(changed["has_pin"] as? Bool, true)
        // The admin removes her: her token dies with her.
        let removed = try await h.call("DELETE", "/api/users/\(carolID)", headers: cookie)
        XCTAssertEqual(removed.status, 200, removed.text)
        let gone = try await h.call("GET", "/api/feed", token: carolToken)
        XCTAssertEqual(gone.status, 401)

        // Logout with the cookie alone ends that session.
        let logout = try await h.call("POST", "/api/auth/logout", headers: cookie)
        XCTAssertEqual(logout.status, 200)
        let afterCookie = try await h.call("GET", "/api/users", headers: cookie)
        XCTAssertEqual(afterCookie.status, 401)
        h.assertLogHolds(noneOf: [token, carolToken, "admin password", "carols secret", "another secret"])
    }

    /// An admin's own password needs the current one too (a stolen admin session must not take
    /// the account); an admin setting another user's does not.
    func testAnAdminChangingTheirOwnPasswordGivesTheCurrentOne() async throws {
        let h = try await APIHarness(logins: true)
        let root = try await h.addUser("root", password: "admin password", admin: true)
        let bob = try await h.addUser("bob", password: "bobs password", admin: false)
        let token = try await h.login("root", "admin password")
        for body in [#"{"new_pin": "taken over 1"}"#, #"{"current_pin": "wrong", "new_pin": "taken over 1"}"#, #"{"new_pin": null}"#] {
            let refused = try await h.call("PUT", "/api/users/\(root.id.rawValue)/pin", body: body, token: token)
            XCTAssertEqual(refused.status, 400, "\(body): \(refused.text)")
        }
        let still = try await h.object("POST", "/api/auth/login", body: #"{"username": "root", "password": "admin password"}"#)
        XCTAssertEqual(still["success"] as? Bool, true, "the admin's password is unchanged")
        let changed = try await h.object("PUT", "/api/users/\(root.id.rawValue)/pin",
                                         body: #"{"current_pin": "admin password", "new_pin": "new admin password"}"#, token: token)
        XCTAssertEqual(changed["has_pin"] as? Bool, true)
        let other = try await h.object("PUT", "/api/users/\(bob.id.rawValue)/pin", body: #"{"new_pin": "set by the admin"}"#, token: token)
        XCTAssertEqual(other["has_pin"] as? Bool, true)
        let bobLogin = try await h.object("POST", "/api/auth/login", body: #"{"username": "bob", "password": "set by the admin"}"#)
        XCTAssertEqual(bobLogin["success"] as? Bool, true)
    }

    /// A wrong password, a name nobody has, and a user without a password answer alike: 200
    /// with success false (the backend's status and shape), no token, no cookie.
    func testFailedLoginsAnswerAsTheBackendAndTellNothing() async throws {
        let h = try await APIHarness(logins: true)
        _ = try await h.addUser("alice", password: "correct horse", admin: false)
        _ = try await h.owner.addUser(name: "nopass", isAdmin: false, passwordHash: nil, now: APIHarness.now)
        var bodies: [String] = []
        for body in [#"{"username": "alice", "password": "wrong horse"}"#, #"{"username": "mallory", "password": "correct horse"}"#,
                     #"{"username": "nopass", "password": ""}"#, #"{"username": "nopass"}"#, #"{"username": "alice"}"#] {
            let reply = try await h.call("POST", "/api/auth/login", body: body)
            XCTAssertEqual(reply.status, 200, body)
            XCTAssertNil(reply.headers["set-cookie"], body)
            bodies.append(reply.text)
        }
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bodies[0].utf8)) as? [String: Any])
        XCTAssertEqual(object["success"] as? Bool, false)
        XCTAssertTrue(object["token"] is NSNull)
        XCTAssertTrue(object["user"] is NSNull)
        XCTAssertEqual(object["message"] as? String, "invalid user name or password")
        for body in bodies.dropFirst() {
            let other = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? NSDictionary)
            XCTAssertEqual(other, object as NSDictionary, "every failure answers the same")
        }
        let sessions = try await h.owner.sessions(of: nil)
        XCTAssertEqual(sessions.count, 0)
    }

    func testMalformedLoginBodiesAre400Or422() async throws {
        let h = try await APIHarness(logins: true)
        let cases: [(String, Int)] = [
            ("not json", 400), ("", 400), ("{", 400), ("{}", 422), ("[]", 422), ("null", 422), (#"{"username": 5}"#, 422),
            (#"{"username": "a", "password": 7}"#, 422), (#"{"username": "a", "pin": ["x"]}"#, 422),
            (#"{"username": "a", "password": "p", "device_name": {}}"#, 422),
        ]
        for (body, status) in cases {
            let reply = try await h.call("POST", "/api/auth/login", body: body)
            XCTAssertEqual(reply.status, status, "\(body): \(reply.text)")
            XCTAssertNotNil(try reply.object()["detail"] as? String, body)
        }
    }

    /// `LoginThrottle`: five failures for a name, then 429 with Retry-After even for the right
    /// password; other names from the same address go on until the address's twenty.
    func testFailedLoginsAreThrottledPerUserAndPerAddress() async throws {
        let h = try await APIHarness(logins: true)
        _ = try await h.addUser("alice", password: "correct horse", admin: false)
        _ = try await h.addUser("bob", password: "bobs password", admin: false)
        for _ in 0..<LoginThrottle.maxFailuresPerUser {
            let reply = try await h.object("POST", "/api/auth/login", body: #"{"username": "alice", "password": "guess"}"#)
            XCTAssertEqual(reply["success"] as? Bool, false)
        }
        let throttled = try await h.call("POST", "/api/auth/login", body: #"{"username": "alice", "password": "correct horse"}"#)
        XCTAssertEqual(throttled.status, 429, throttled.text)
        XCTAssertEqual(throttled.headers["retry-after"], String(LoginThrottle.windowSeconds))
        XCTAssertEqual(try throttled.object()["detail"] as? String, "too many failed logins: try again in 900 s")
        // Bob, from the same address, is not held up by alice's failures.
        let bob = try await h.object("POST", "/api/auth/login", body: #"{"username": "bob", "password": "bobs password"}"#)
        XCTAssertEqual(bob["success"] as? Bool, true)
        // Once the window has passed, alice gets in.
        h.clock.advance(by: LoginThrottle.windowSeconds)
        let alice = try await h.object("POST", "/api/auth/login", body: #"{"username": "alice", "password": "correct horse"}"#)
        XCTAssertEqual(alice["success"] as? Bool, true)

        // The address: twenty failures over four names (five each, none past its own limit).
        h.clock.advance(by: LoginThrottle.windowSeconds)
        let names = (1...(LoginThrottle.maxFailuresPerAddress / LoginThrottle.maxFailuresPerUser)).map { "user\($0)" }
        for name in names { _ = try await h.addUser(name, password: "password of \(name)", admin: false) }
        for name in names {
            for _ in 0..<LoginThrottle.maxFailuresPerUser {
                let reply = try await h.call("POST", "/api/auth/login", body: #"{"username": "\#(name)", "password": "guess"}"#)
                XCTAssertEqual(reply.status, 200)
            }
        }
        let held = try await h.call("POST", "/api/auth/login", body: #"{"username": "bob", "password": "bobs password"}"#)
        XCTAssertEqual(held.status, 429, held.text)
        XCTAssertNotNil(held.headers["retry-after"])
        h.assertLogHolds(noneOf: ["correct horse", "bobs password", "guess"])
    }

    /// Sessions last `SessionRule.lifetime` by the server's clock; `feedctl user revoke` (the
    /// store's revoke) ends them at once.
    func testTokensExpireAndAreRevoked() async throws {
        let h = try await APIHarness(logins: true)
        let alice = try await h.addUser("alice", password: "correct horse", admin: false)
        let token = try await h.login("alice", "correct horse")
        h.clock.advance(by: SessionRule.lifetime - 1)
        let alive = try await h.call("GET", "/api/feed", token: token)
        XCTAssertEqual(alive.status, 200, "one second before it expires")
        h.clock.advance(by: 1)
        let expired = try await h.call("GET", "/api/feed", token: token)
        XCTAssertEqual(expired.status, 401, "30 days after the login")
        let cookieExpired = try await h.call("GET", "/api/feed", headers: ["Cookie": "session_token=\(token)"])
        XCTAssertEqual(cookieExpired.status, 401)

        // `feedctl user revoke ID`.
        let second = try await h.login("alice", "correct horse")
        let live = try await h.call("GET", "/api/subscriptions", token: second)
        XCTAssertEqual(live.status, 200)
        let aliceSessions = try await h.owner.sessions(of: alice.id)
        let session = try XCTUnwrap(aliceSessions.first)
        try await h.owner.revokeSession(id: session.id)
        let revoked = try await h.call("GET", "/api/subscriptions", token: second)
        XCTAssertEqual(revoked.status, 401)
        // `feedctl user revoke --all alice`.
        let third = try await h.login("alice", "correct horse")
        let fourth = try await h.login("alice", "correct horse")
        try await h.owner.revokeSessions(of: alice.id)
        for dead in [third, fourth] {
            let reply = try await h.call("GET", "/api/subscriptions", token: dead)
            XCTAssertEqual(reply.status, 401)
        }
    }

    /// Every route but the public ones answers 401 without a token, with a made-up one, with a
    /// made-up cookie and with credentials of another scheme; the public ones answer without one.
    func testEveryPrivateRouteAnswers401WithoutAValidToken() async throws {
        let h = try await APIHarness(logins: true)
        _ = try await h.addUser("alice", password: "correct horse", admin: false)
        // An admin with a password: the backend hands a request without a token its first admin.
        _ = try await h.addUser("root", password: "admin password", admin: true)
        let good = try await h.login("alice", "correct horse")
        let authenticator = TokenAuthenticator(users: h.owner, library: { _ in h.owner })
        let routes = try APIServer.routes(configuration: ServerConfiguration(host: "127.0.0.1", port: 0), authenticator: authenticator)
        XCTAssertTrue(APIServer.publicRoutes.isSubset(of: Set(routes)), "every public route is served")
        let privateRoutes = routes.filter { !APIServer.publicRoutes.contains($0) }
        XCTAssertGreaterThan(privateRoutes.count, 40)
        let credentials: [(String, [String: String])] = [
            ("none", [:]), ("a made-up bearer token", ["Authorization": "Bearer \(String(repeating: "A", count: 43))"]),
            ("an empty bearer token", ["Authorization": "Bearer "]), ("a made-up cookie", ["Cookie": "session_token=nothing"]),
            ("Basic", ["Authorization": "Basic YWxpY2U6Y29ycmVjdCBob3JzZQ=="]),
            ("the token's hash", ["Authorization": "Bearer \(try SessionToken.hash(of: good))"]),
            ("the token, cut", ["Authorization": "Bearer \(good.dropLast())"]),
        ]
        for route in privateRoutes {
            let parts = route.split(separator: " ")
            // gpodder.net's routes (`/api/2/`) take their own credentials, Basic or their cookie,
            // for the user in the path (here another user than alice, whose Basic is tried).
            let gpodder = parts[1].hasPrefix("/api/2/")
            let method = String(parts[0]), path = String(parts[1]).replacingOccurrences(of: "{id}", with: "1")
                .replacingOccurrences(of: "{user}", with: "root").replacingOccurrences(of: "{device}", with: "phone")
            let body = ["POST", "PUT", "PATCH"].contains(method) ? "{}" : nil
            for (what, headers) in credentials {
                // curl for gpodder's: URLSession on Linux waits forever on a Basic challenge.
                let reply = gpodder ? try await h.curl(method, path, body: body, headers: headers)
                                    : try await h.call(method, path, body: body, headers: headers)
                XCTAssertEqual(reply.status, 401, "\(route) with \(what): \(reply.text)")
                XCTAssertEqual(reply.headers["www-authenticate"], gpodder ? #"Basic realm="feedctl""# : "Bearer", route)
            }
        }
        for route in APIServer.publicRoutes.sorted() {
            let parts = route.split(separator: " ")
            // A published collection's link that was never published: not found, without a token too.
            let token = String(repeating: "0", count: SharingRule.tokenCharacters)
            let path = String(parts[1]).replacingOccurrences(of: "{token}", with: token)
            let reply = try await h.call(String(parts[0]), path, body: parts[0] == "POST" ? #"{"username": "x"}"# : nil)
            // Single sign-on's answer 404 on a server without it (SingleSignOnTests signs in through them).
            XCTAssertEqual(reply.status, parts[1].contains("{token}") || route.contains("/oidc/") ? 404 : 200, "\(route): \(reply.text)")
        }
    }

    /// `feedctl serve --open` takes no logins; it says so in the backend's shape.
    func testOpenModeTakesNoLogins() async throws {
        let h = try await APIHarness()
        let login = try await h.object("POST", "/api/auth/login", body: #"{"username": "owner", "password": "whatever1"}"#)
        XCTAssertEqual(login["success"] as? Bool, false)
        XCTAssertTrue(login["token"] is NSNull)
        let me = try await h.object("GET", "/api/auth/me")
        XCTAssertEqual(me["authenticated"] as? Bool, true, "every request acts for the owner")
        let users = try await h.object("GET", "/api/users")
        XCTAssertEqual(users["total"] as? Int, 1)
    }
}

extension APIHarness {
    /// A user with `password` hashed at bcrypt's lowest cost (the tests' logins stay fast; the
    /// cost is read from the hash, so the server checks it as any other).
    @discardableResult
    func addUser(_ name: String, password: String, admin: Bool) async throws -> User {
        try await owner.addUser(name: name, isAdmin: admin, passwordHash: try Password.hash(password, cost: 4), now: APIHarness.now)
    }

    /// Logs in and answers the token.
    func login(_ name: String, _ password: String, file: StaticString = #filePath, line: UInt = #line) async throws -> String {
        let reply = try await object("POST", "/api/auth/login", body: #"{"username": "\#(name)", "password": "\#(password)"}"#, file: file, line: line)
        return try XCTUnwrap(reply["token"] as? String, "login of \(name) failed: \(reply)", file: file, line: line)
    }

    /// Nothing the server logged holds any of `secrets`.
    func assertLogHolds(noneOf secrets: [String], file: StaticString = #filePath, line: UInt = #line) {
        let lines = log.all
        XCTAssertFalse(lines.isEmpty, "the server logged its requests", file: file, line: line)
        for secret in secrets where !secret.isEmpty {
            for logged in lines { XCTAssertFalse(logged.contains(secret), "the log holds a secret: \(logged)", file: file, line: line) }
        }
    }
}
