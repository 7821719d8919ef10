@testable import APIServer
import Foundation
import LibraryStore
import OpenIDConnect
import TestSupport
import XCTest

/// Single sign-on through a real OpenID provider on 127.0.0.1 (oidc-provider-mock from PyPI):
/// the web app's sign-in (authorization code, PKCE, state, nonce; the browser's cookie) and a
/// phone app's, each ending in a session as a password login's, with curl as the browser and
/// the app (no redirect followed: each hop is checked). The refusals that need tokens the real
/// provider will not mint (expired, badly signed, without a nonce, for another audience or from
/// another issuer) go through the test's own issuer on 127.0.0.1, with its own keys
/// (`Tests/Support/oidc_provider.py test-issuer`), which also checks the PKCE verifier and the
/// client's secret (client_secret_post) as a strict provider does.
final class SingleSignOnTests: XCTestCase {
    /// `database`: a library another server serves too (`TestDatabase.replica`).
    private func server(_ settings: SingleSignOnSettings?, passwordSignIn: PasswordSignIn = .everyone,
                        database: TestDatabase? = nil) async throws -> APIHarness {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: false, allowPrivateFeeds: true, version: "test")
        configuration.singleSignOn = settings
        configuration.passwordSignIn = passwordSignIn
        return try await APIHarness(configuration: configuration, logins: true, database: database)
    }

    /// A web sign-in started: where the browser goes, and the cookie it got.
    private func startWeb(_ h: APIHarness, next: String = "/feed", file: StaticString = #filePath, line: UInt = #line) async throws
        -> (url: String, cookie: String) {
        let reply = try await OpenIDTestHTTP.send("GET", h.base + "/api/auth/oidc/login?next=" + OpenIDTestProvider.form(next))
        XCTAssertEqual(reply.status, 303, reply.text, file: file, line: line)
        let url = try XCTUnwrap(reply.headers["location"], file: file, line: line)
        let cookie = try XCTUnwrap(reply.cookie(SingleSignOnRoutes.browserCookie), file: file, line: line)
        return (url, cookie)
    }

    private func get(_ url: String, cookie: String? = nil, bearer: String? = nil) async throws -> OpenIDTestHTTP.Reply {
        var headers: [String: String] = [:]
        if let cookie { headers["Cookie"] = cookie }
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
        return try await OpenIDTestHTTP.send("GET", url, headers: headers)
    }

    private func json(_ reply: OpenIDTestHTTP.Reply) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any], reply.text)
    }

    private func query(_ url: String) -> [String: String] {
        Dictionary((URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
    }

    /// The whole web sign-in at the real provider: the login page's route sends the browser
    /// there with a code request (PKCE S256, state, nonce), the person signs in, the callback
    /// answers the session cookie and the page asked for; the session is a password login's.
    /// The same callback again (a replayed `state`) signs nobody in.
    func testAWebSignInAtTheRealProvider() async throws {
        let provider = try OpenIDTestProvider(.real)
        let h = try await server(SingleSignOnSettings(issuer: provider.issuer, clientID: "feedctl-web", clientSecret: "s3cret",
                                                      providerName: "Mock ID", allowSignup: true))
        let mode = try json(try await get(h.base + "/api/auth/mode"))
        XCTAssertEqual(mode["single_sign_on"] as? [String: String], ["provider": "Mock ID", "login_url": "/api/auth/oidc/login"])

        try await provider.setClaims(subject: "alice-sub", ["email": "alice@example.com", "email_verified": true, "preferred_username": "alice"])
        let (url, cookie) = try await startWeb(h, next: "/collections")
        XCTAssertTrue(url.hasPrefix(provider.issuer + "/oauth2/authorize?"), url)
        let asked = query(url)
        XCTAssertEqual(asked["response_type"], "code")
        XCTAssertEqual(asked["client_id"], "feedctl-web")
        XCTAssertEqual(asked["redirect_uri"], h.base + "/api/auth/oidc/callback")
        XCTAssertEqual(asked["scope"], "openid email profile")
        XCTAssertEqual(asked["code_challenge_method"], "S256")
        XCTAssertEqual(asked["code_challenge"]?.count, 43)
        XCTAssertEqual(asked["state"]?.count, 43)
        XCTAssertEqual(asked["nonce"]?.count, 43)

        let back = try await provider.authorize(url, as: "alice-sub")
        XCTAssertTrue(back.hasPrefix(h.base + "/api/auth/oidc/callback?"), back)
        let done = try await get(back, cookie: "\(SingleSignOnRoutes.browserCookie)=\(cookie)")
        XCTAssertEqual(done.status, 303, done.text)
        XCTAssertEqual(done.headers["location"], "/collections")
        let session = try XCTUnwrap(done.cookie("session_token"), "\(done.cookies)")
        XCTAssertFalse(session.isEmpty)
        XCTAssertEqual(done.cookie(SingleSignOnRoutes.browserCookie), "", "the sign-in's cookie is cleared")

        let me = try json(try await get(h.base + "/api/auth/me", cookie: "session_token=\(session)"))
        XCTAssertEqual(me["authenticated"] as? Bool, true)
        let user = try XCTUnwrap(me["user"] as? [String: Any])
        XCTAssertEqual(user["username"] as? String, "alice")
        XCTAssertEqual(user["has_pin"] as? Bool, false)
        let sessions = try await get(h.base + "/api/sessions", cookie: "session_token=\(session)")
        XCTAssertEqual(sessions.status, 200, "a private route takes the session")
        XCTAssertTrue(sessions.text.contains("web (Mock ID)"), sessions.text)
        let alice = try await h.owner.user(named: "alice")
        await assertEqual(try await h.owner.identities(of: nil),
                          [UserIdentity(userID: alice.id, issuer: provider.issuer, subject: "alice-sub", email: "alice@example.com",
                                        createdAt: try await h.owner.identities(of: nil).first?.createdAt ?? 0, lastUsedAt: nil)])

        // A replayed state: nobody signed in, no cookie.
        let replay = try await get(back, cookie: "\(SingleSignOnRoutes.browserCookie)=\(cookie)")
        XCTAssertEqual(replay.status, 400, replay.text)
        XCTAssertEqual(try json(replay)["detail"] as? String, SignInRefusal.unknownState.description)
        XCTAssertNil(replay.cookie("session_token"))

        // Again: the same user (found by issuer and subject), nobody new.
        let again = try await startWeb(h)
        let second = try await get(try await provider.authorize(again.url, as: "alice-sub"),
                                   cookie: "\(SingleSignOnRoutes.browserCookie)=\(again.cookie)")
        XCTAssertEqual(second.headers["location"], "/feed")
        let secondMe = try json(try await get(h.base + "/api/auth/me", cookie: "session_token=\(try XCTUnwrap(second.cookie("session_token")))"))
        XCTAssertEqual((secondMe["user"] as? [String: Any])?["id"] as? Int64, alice.id.rawValue)
        await assertEqual(try await h.owner.users().count, 2)
    }

    /// Two servers on one library, each on its own connection (issue 28's replicas behind a
    /// balancer, on the engine under test: CI runs it on PostgreSQL too): a sign-in started on
    /// one finishes on the other, and the session it opens is valid on both; the same callback
    /// again is refused on either. (With the sign-ins in one server's memory the other answered
    /// "unknown state".)
    func testASignInStartedOnOneReplicaFinishesOnTheOther() async throws {
        let provider = try OpenIDTestProvider(.real)
        let settings = SingleSignOnSettings(issuer: provider.issuer, clientID: "feedctl-web", clientSecret: "s3cret", providerName: "Mock ID",
                                            allowSignup: true)
        let a = try await server(settings)
        let b = try await server(settings, database: try await a.database.replica())
        try await provider.setClaims(subject: "roamer-sub", ["preferred_username": "roamer"])
        let (url, cookie) = try await startWeb(a, next: "/collections")
        let back = try await provider.authorize(url, as: "roamer-sub")
        XCTAssertTrue(back.hasPrefix(a.base + SingleSignOnSettings.callbackPath + "?"), back)
        // The balancer sends the provider's redirect to the other replica.
        let onB = b.base + back.dropFirst(a.base.count)
        let browser = "\(SingleSignOnRoutes.browserCookie)=\(cookie)"
        let done = try await get(onB, cookie: browser)
        XCTAssertEqual(done.status, 303, done.text)
        XCTAssertEqual(done.headers["location"], "/collections", done.headers["location"] ?? "")
        let session = try XCTUnwrap(done.cookie("session_token"), "\(done.cookies) \(done.headers)")
        for replica in [a, b] {
            let me = try json(try await get(replica.base + "/api/auth/me", cookie: "session_token=\(session)"))
            XCTAssertEqual(me["authenticated"] as? Bool, true, replica.base)
            XCTAssertEqual((me["user"] as? [String: Any])?["username"] as? String, "roamer", replica.base)
        }
        for replica in [a, b] {
            let replay = try await get(replica.base + back.dropFirst(a.base.count), cookie: browser)
            XCTAssertEqual(replay.status, 400, "\(replica.base): \(replay.text)")
            XCTAssertEqual(try json(replay)["detail"] as? String, SignInRefusal.unknownState.description)
            XCTAssertNil(replay.cookie("session_token"))
        }
    }

    // MARK: Re-authentication before deleting an account

    /// A web sign-in through `provider` as `subject`: the session cookie's value.
    private func signIn(_ h: APIHarness, _ provider: OpenIDTestProvider, as subject: String,
                        file: StaticString = #filePath, line: UInt = #line) async throws -> String {
        let (url, cookie) = try await startWeb(h, file: file, line: line)
        let done = try await get(try await provider.authorize(url, as: subject), cookie: "\(SingleSignOnRoutes.browserCookie)=\(cookie)")
        return try XCTUnwrap(done.cookie("session_token"), "\(done.headers)", file: file, line: line)
    }

    /// `POST /api/auth/oidc/reauthenticate` from `session`: the provider's URL and the browser's cookie.
    private func startReauthentication(_ h: APIHarness, session: String, file: StaticString = #filePath,
                                       line: UInt = #line) async throws -> (url: String, cookies: String) {
        let reply = try await OpenIDTestHTTP.send("POST", h.base + "/api/auth/oidc/reauthenticate?next=%2Fsettings",
                                                  headers: ["Cookie": "session_token=\(session)"])
        XCTAssertEqual(reply.status, 200, reply.text, file: file, line: line)
        let url = try XCTUnwrap(try json(reply)["auth_url"] as? String, file: file, line: line)
        let browser = try XCTUnwrap(reply.cookie(SingleSignOnRoutes.browserCookie), file: file, line: line)
        return (url, "session_token=\(session); \(SingleSignOnRoutes.browserCookie)=\(browser)")
    }

    /// Where the test issuer's authorization endpoint sends the browser (it asks nothing).
    private func location(of url: String) async throws -> String {
        let hop = try await get(url)
        return try XCTUnwrap(hop.headers["location"], "\(hop.status) \(hop.text)")
    }

    private func deleteAccount(_ h: APIHarness, session: String, body: String = "{}") async throws -> OpenIDTestHTTP.Reply {
        try await OpenIDTestHTTP.send("DELETE", h.base + "/api/account", body: Data(body.utf8),
                                      headers: ["Cookie": "session_token=\(session)", "Content-Type": "application/json"])
    }

    /// A user who signs in through the provider only deletes their account after signing in
    /// there again from this session (`prompt=login`, `max_age=0`): not without it, not with
    /// their user name typed, not with another user's identity at the provider, not from
    /// another session of theirs; then it goes.
    func testASingleSignOnUserDeletesTheirAccountAfterSigningInAgainAtTheProvider() async throws {
        let provider = try OpenIDTestProvider(.real)
        let h = try await server(SingleSignOnSettings(issuer: provider.issuer, clientID: "feedctl-web", clientSecret: "s3cret",
                                                      providerName: "Mock ID", allowSignup: true))
        // The server's clock is the provider's (auth_time is compared with it).
        h.clock.advance(by: Int64(Date().timeIntervalSince1970) - APIHarness.now)
        try await provider.setClaims(subject: "alice-sub", ["preferred_username": "alice"])
        try await provider.setClaims(subject: "bob-sub", ["preferred_username": "bob"])
        let alice = try await signIn(h, provider, as: "alice-sub")
        _ = try await signIn(h, provider, as: "bob-sub")
        let aliceElsewhere = try await signIn(h, provider, as: "alice-sub")

        let how = try json(try await get(h.base + "/api/account/reauthentication", cookie: "session_token=\(alice)"))
        XCTAssertEqual(how["proof"] as? String, "single_sign_on")
        XCTAssertEqual(how["provider"] as? String, "Mock ID")
        XCTAssertEqual(how["reauthenticated"] as? Bool, false)
        for body in ["{}", #"{"username": "alice"}"#] {
            let refused = try await deleteAccount(h, session: alice, body: body)
            XCTAssertEqual(refused.status, 403, "\(body): \(refused.text)")
            XCTAssertTrue(try json(refused)["detail"] as? String ?? "" == "confirm with Mock ID first (POST /api/auth/oidc/reauthenticate), then delete within 5 minutes: nothing was deleted", refused.text)
        }

        // Signing in again as someone else at the provider proves nothing.
        let (asBob, cookies) = try await startReauthentication(h, session: alice)
        XCTAssertEqual(query(asBob)["prompt"], "login")
        XCTAssertEqual(query(asBob)["max_age"], "0")
        let wrong = try await get(try await provider.authorize(asBob, as: "bob-sub"), cookie: cookies)
        XCTAssertEqual(wrong.status, 303, wrong.text)
        let wrongLocation = try XCTUnwrap(wrong.headers["location"])
        XCTAssertTrue(wrongLocation.hasPrefix("/settings?sso_error="), wrongLocation)
        XCTAssertEqual(query("http://x" + wrongLocation)["sso_error"], SignInRefusal.notYourIdentity("Mock ID").description)
        await assertEqual(try await deleteAccount(h, session: alice).status, 403)

        let (again, againCookies) = try await startReauthentication(h, session: alice)
        let back = try await get(try await provider.authorize(again, as: "alice-sub"), cookie: againCookies)
        XCTAssertEqual(back.status, 303, back.text)
        XCTAssertEqual(back.headers["location"], "/settings?reauthenticated=1")
        XCTAssertNil(back.cookie("session_token"), "a re-authentication opens no session")
        let now = try json(try await get(h.base + "/api/account/reauthentication", cookie: "session_token=\(alice)"))
        XCTAssertEqual(now["reauthenticated"] as? Bool, true)
        // Only the session that re-authenticated may delete.
        await assertEqual(try await deleteAccount(h, session: aliceElsewhere).status, 403)

        let deleted = try await deleteAccount(h, session: alice)
        XCTAssertEqual(deleted.status, 200, deleted.text)
        let me = try json(try await get(h.base + "/api/auth/me", cookie: "session_token=\(alice)"))
        XCTAssertEqual(me["authenticated"] as? Bool, false)
        await assertEqual(try await h.owner.users().map(\.name).contains("alice"), false)
        await assertEqual(try await h.owner.identities(of: nil).map(\.subject), ["bob-sub"])
    }

    /// The ID token of a re-authentication must say the person signed in after it started
    /// (`auth_time`, which `max_age` makes required): one that says earlier (the provider
    /// remembered them), or says nothing, is refused; the test's own issuer mints both.
    /// Starting one needs an identity at this provider.
    func testAReauthenticationNeedsAFreshAuthTime() async throws {
        let issuer = try OpenIDTestProvider(.testIssuer(clientID: "feedctl-test", clientSecret: "test-secret"))
        let h = try await server(SingleSignOnSettings(issuer: issuer.issuer, clientID: "feedctl-test", clientSecret: "test-secret",
                                                      allowSignup: true))
        h.clock.advance(by: Int64(Date().timeIntervalSince1970) - APIHarness.now)
        let (url, cookie) = try await startWeb(h)
        let hop = try await get(url)
        let signedIn = try await get(try XCTUnwrap(hop.headers["location"]), cookie: "\(SingleSignOnRoutes.browserCookie)=\(cookie)")
        let tess = try XCTUnwrap(signedIn.cookie("session_token"), "\(signedIn.headers)")
        let now = Int64(Date().timeIntervalSince1970)
        for shape in [["claims": ["auth_time": now - 3600]], [:]] as [[String: Any]] {
            let (again, cookies) = try await startReauthentication(h, session: tess)
            try await issuer.shapeNextToken(shape)
            let done = try await get(try await location(of: again), cookie: cookies)
            XCTAssertEqual(query("http://x" + (done.headers["location"] ?? ""))["sso_error"], SignInRefusal.staleAuthentication.description,
                           "\(shape)")
            await assertEqual(try await deleteAccount(h, session: tess).status, 403, "\(shape)")
        }
        let (again, cookies) = try await startReauthentication(h, session: tess)
        try await issuer.shapeNextToken(["claims": ["auth_time": now]])
        let done = try await get(try await location(of: again), cookie: cookies)
        XCTAssertEqual(done.headers["location"], "/settings?reauthenticated=1", done.headers["location"] ?? "")
        // The callback without the session that started it (another browser's cookie jar) proves nothing.
        let (other, otherCookies) = try await startReauthentication(h, session: tess)
        let hopped = try await get(try await location(of: other),
                                   cookie: otherCookies.replacingOccurrences(of: "session_token=\(tess)", with: "session_token=forged"))
        XCTAssertEqual(query("http://x" + (hopped.headers["location"] ?? ""))["sso_error"], SignInRefusal.notThisSession.description)
        await assertEqual(try await deleteAccount(h, session: tess).status, 200)

        // A user with a password gives it; one without an identity here cannot start one.
        _ = try await h.addUser("pat", password: "pats password", admin: false)
        let pat = try await h.login("pat", "pats password")
        let patHow = try json(try await get(h.base + "/api/account/reauthentication", bearer: pat))
        XCTAssertEqual(patHow["proof"] as? String, "password")
        XCTAssertTrue(patHow["provider"] is NSNull)
        let refused = try await OpenIDTestHTTP.send("POST", h.base + "/api/auth/oidc/reauthenticate", headers: ["Authorization": "Bearer \(pat)"])
        XCTAssertEqual(refused.status, 409, refused.text)
    }

    /// The callback must come back to the browser that started the sign-in (its cookie): a
    /// link made to sign someone into another's account does nothing. The state is used up.
    func testTheCallbackNeedsTheBrowserThatStartedIt() async throws {
        let provider = try OpenIDTestProvider(.real)
        let h = try await server(SingleSignOnSettings(issuer: provider.issuer, clientID: "feedctl-web", clientSecret: "s", allowSignup: true))
        let (url, cookie) = try await startWeb(h)
        let back = try await provider.authorize(url, as: "mallory")
        let elsewhere = try await get(back)
        XCTAssertEqual(elsewhere.status, 303)
        XCTAssertNil(elsewhere.cookie("session_token"))
        let location = try XCTUnwrap(elsewhere.headers["location"])
        XCTAssertTrue(location.hasPrefix("/login?"), location)
        XCTAssertEqual(query("http://x" + location)["sso_error"], SignInRefusal.otherBrowser.description)
        let again = try await get(back, cookie: "\(SingleSignOnRoutes.browserCookie)=\(cookie)")
        XCTAssertEqual(again.status, 400, "the state was used")
        await assertEqual(try await h.owner.users().count, 1, "nobody was made")
    }

    /// Sign-up off: only a linked identity, or (email linking on) a verified email that names a
    /// user, signs in; an unverified one links to nobody.
    func testSignUpOffAndVerifiedEmailLinking() async throws {
        let provider = try OpenIDTestProvider(.real)
        let h = try await server(SingleSignOnSettings(issuer: provider.issuer, clientID: "feedctl-web", clientSecret: "s",
                                                      allowSignup: false, linkVerifiedEmail: true))
        let bob = try await h.owner.addUser(name: "bob@example.com", isAdmin: false, passwordHash: nil, now: APIHarness.now)
        try await provider.setClaims(subject: "bob-sub", ["email": "bob@example.com", "email_verified": true])
        try await provider.setClaims(subject: "mallory-sub", ["email": "bob@example.com", "email_verified": false])
        try await provider.setClaims(subject: "carol-sub", ["email": "carol@example.com", "email_verified": true])

        func signIn(_ subject: String) async throws -> OpenIDTestHTTP.Reply {
            let (url, cookie) = try await startWeb(h)
            return try await get(try await provider.authorize(url, as: subject), cookie: "\(SingleSignOnRoutes.browserCookie)=\(cookie)")
        }
        let linked = try await signIn("bob-sub")
        XCTAssertNotNil(linked.cookie("session_token"), linked.headers["location"] ?? "")
        await assertEqual(try await h.owner.identities(of: bob.id).map(\.subject), ["bob-sub"])

        for subject in ["mallory-sub", "carol-sub"] {
            let refused = try await signIn(subject)
            XCTAssertNil(refused.cookie("session_token"), subject)
            XCTAssertEqual(query("http://x" + (refused.headers["location"] ?? ""))["sso_error"],
                           SignInRefusal.noAccount("127.0.0.1").description, subject)
        }
        await assertEqual(try await h.owner.users().count, 2, "nobody was made")
        await assertEqual(try await h.owner.identities(of: nil).map(\.subject), ["bob-sub"])
    }

    /// A phone app's sign-in: `{auth_url}` for a registered redirect URI only; the callback
    /// hands the app its token at that URI, and the token is a session `/api/auth/me` takes as
    /// a bearer token. (A refusal goes back to the app as `error`: testRefusedTokensSignNobodyIn.)
    func testAMobileSignIn() async throws {
        let provider = try OpenIDTestProvider(.real)
        let h = try await server(SingleSignOnSettings(issuer: provider.issuer, clientID: "feedctl-app", clientSecret: "s", allowSignup: true,
                                                      mobileRedirectURIs: ["viewvault://auth"]))
        for unregistered in ["evil://steal", "viewvault://auth/more", "https://attacker.example/cb", ""] {
            let reply = try await get(h.base + "/api/auth/oidc/mobile/login?redirect_uri=" + OpenIDTestProvider.form(unregistered))
            XCTAssertEqual(reply.status, 400, "\(unregistered): \(reply.text)")
            XCTAssertNil(try json(reply)["auth_url"])
        }
        let start = try await get(h.base + "/api/auth/oidc/mobile/login?redirect_uri=" + OpenIDTestProvider.form("viewvault://auth"))
        XCTAssertEqual(start.status, 200, start.text)
        let url = try XCTUnwrap(try json(start)["auth_url"] as? String)
        XCTAssertTrue(url.hasPrefix(provider.issuer + "/oauth2/authorize?"))
        XCTAssertEqual(query(url)["code_challenge_method"], "S256")

        let done = try await get(try await provider.authorize(url, as: "phone-user"))
        XCTAssertEqual(done.status, 303, done.text)
        let location = try XCTUnwrap(done.headers["location"])
        XCTAssertTrue(location.hasPrefix("viewvault://auth?token="), location)
        XCTAssertNil(done.cookie("session_token"), "the app gets its token at its URI, not a cookie")
        let token = try XCTUnwrap(query(location)["token"])
        let me = try json(try await get(h.base + "/api/auth/me", bearer: token))
        XCTAssertEqual(me["authenticated"] as? Bool, true)
        let sessions = try await get(h.base + "/api/sessions", bearer: token)
        XCTAssertEqual(sessions.status, 200)

        let denied = try await get(h.base + "/api/auth/oidc/mobile/login?redirect_uri=viewvault%3A%2F%2Fauth")
        let back = try await provider.authorize(try XCTUnwrap(try json(denied)["auth_url"] as? String), as: "phone-user", deny: true)
        // This provider's refusal carries no `state` (RFC 6749 §4.1.2.1 asks for it): nobody can
        // tell which sign-in it ends, so it is answered here, not sent to an app.
        let refused = try await get(back)
        XCTAssertEqual(refused.status, 400, "\(back): \(refused.text)")
        XCTAssertEqual(try json(refused)["detail"] as? String, SignInRefusal.missingParameter("state").description)
        XCTAssertNil(refused.headers["location"])
    }

    /// Tokens that must sign nobody in, each minted by the test's own issuer (the real provider
    /// mints none of them) and answered by the callback: back to the login page with why, no
    /// session, nobody made. Then one it may: ES256, after PKCE and the client's secret were checked.
    func testRefusedTokensSignNobodyIn() async throws {
        let issuer = try OpenIDTestProvider(.testIssuer(clientID: "feedctl-test", clientSecret: "test-secret"))
        let h = try await server(SingleSignOnSettings(issuer: issuer.issuer, clientID: "feedctl-test", clientSecret: "test-secret",
                                                      allowSignup: true, mobileRedirectURIs: ["sora://signed-in"]))
        let now = Int64(Date().timeIntervalSince1970)
        let cases: [(String, [String: Any], OpenIDError)] = [
            ("wrong audience", ["claims": ["aud": "other-app"]], .wrongAudience),
            ("expired", ["claims": ["exp": now - 3600, "iat": now - 7200]], .expired),
            ("signed by a key the provider does not publish", ["key": "unpublished"], .badSignature),
            ("a signature byte changed", ["alg": "ES256", "tamper": "signature"], .badSignature),
            ("no nonce", ["drop": ["nonce"]], .nonceMismatch),
            ("another nonce", ["claims": ["nonce": "not-this-sign-ins"]], .nonceMismatch),
            ("an issuer that is not configured", ["claims": ["iss": "https://elsewhere.example"]], .wrongIssuer("https://elsewhere.example")),
        ]
        for (what, shape, expected) in cases {
            let (url, cookie) = try await startWeb(h)
            try await issuer.shapeNextToken(shape)
            let hop = try await get(url)
            XCTAssertEqual(hop.status, 302, what)
            let done = try await get(try XCTUnwrap(hop.headers["location"]), cookie: "\(SingleSignOnRoutes.browserCookie)=\(cookie)")
            XCTAssertEqual(done.status, 303, what)
            XCTAssertNil(done.cookie("session_token"), what)
            XCTAssertEqual(query("http://x" + (done.headers["location"] ?? ""))["sso_error"], expected.description, what)
        }
        // A phone app's refusals go back to its URI: a token for another audience, the person saying no.
        for (shape, expected) in [(["claims": ["aud": "other-app"]] as [String: Any], OpenIDError.wrongAudience.description),
                                  (["deny": true], SignInRefusal.providerSaid("access_denied: the person said no").description)] {
            let start = try await get(h.base + "/api/auth/oidc/mobile/login?redirect_uri=sora%3A%2F%2Fsigned-in")
            try await issuer.shapeNextToken(shape)
            let hop = try await get(try XCTUnwrap(try json(start)["auth_url"] as? String))
            let done = try await get(try XCTUnwrap(hop.headers["location"]))
            let location = try XCTUnwrap(done.headers["location"])
            XCTAssertTrue(location.hasPrefix("sora://signed-in?error="), location)
            XCTAssertEqual(query(location)["error"], expected)
            XCTAssertNil(query(location)["token"])
        }
        await assertEqual(try await h.owner.users().count, 1, "nobody was made")
        await assertEqual(try await h.owner.sessions(of: nil).count, 0)

        let (url, cookie) = try await startWeb(h)
        try await issuer.shapeNextToken(["alg": "ES256"])
        let hop = try await get(url)
        let done = try await get(try XCTUnwrap(hop.headers["location"]), cookie: "\(SingleSignOnRoutes.browserCookie)=\(cookie)")
        XCTAssertNotNil(done.cookie("session_token"), done.headers["location"] ?? "")
        await assertEqual(try await h.owner.users().map(\.name).last, "tess")
        let requests = try await issuer.stats().tokenRequests
        let request = try XCTUnwrap(requests.last)
        XCTAssertEqual(request["client_id"] as? String, "feedctl-test", "client_secret_post, as its discovery says")
        XCTAssertTrue(request["authorization"] is NSNull, "no Basic header")
        XCTAssertEqual((request["code_verifier"] as? String)?.count, 43)
    }

    /// A configured issuer the provider's discovery document does not name (here with a
    /// trailing slash the real provider's `iss` lacks) is not that provider: 502, no sign-in.
    func testAnIssuerThatIsNotTheProvidersIsRefused() async throws {
        let provider = try OpenIDTestProvider(.real)
        let h = try await server(SingleSignOnSettings(issuer: provider.issuer + "/", clientID: "feedctl-web", clientSecret: "s"))
        let reply = try await get(h.base + "/api/auth/oidc/login")
        XCTAssertEqual(reply.status, 502, reply.text)
        XCTAssertEqual(try json(reply)["detail"] as? String,
                       OpenIDError.badDiscovery("it names issuer \(provider.issuer), not \(provider.issuer)/").description)
        XCTAssertNil(reply.cookie(SingleSignOnRoutes.browserCookie))
    }

    /// `oidc.forbid_password_login`: a user with an identity cannot sign in with a password (the
    /// API's login, gpodder's Basic sign-in); others still can.
    func testPasswordSignInForbiddenForLinkedUsers() async throws {
        let h = try await server(SingleSignOnSettings(issuer: "https://id.example.com/", clientID: "c", clientSecret: nil),
                                 passwordSignIn: .onlyWithoutIdentity)
        let dan = try await h.addUser("dan", password: "dans password", admin: false)
        _ = try await h.addUser("erin", password: "erins password", admin: false)
        try await h.owner.link(issuer: "https://id.example.com/", subject: "dan-sub", email: nil, to: dan.id, now: APIHarness.now)
        let refused = try await h.object("POST", "/api/auth/login", body: #"{"username": "dan", "password": "dans password"}"#)
        XCTAssertEqual(refused["success"] as? Bool, false)
        XCTAssertEqual(refused["message"] as? String, "this account signs in through single sign-on only: use the sign-in button of its provider")
        let wrong = try await h.object("POST", "/api/auth/login", body: #"{"username": "dan", "password": "not it"}"#)
        XCTAssertEqual(wrong["message"] as? String, "invalid user name or password", "only the right password learns it")
        _ = try await h.login("erin", "erins password")
        let basic = Data("dan:dans password".utf8).base64EncodedString()
        let gpodder = try await h.curl("POST", "/api/2/auth/dan/login.json", headers: ["Authorization": "Basic \(basic)"])
        XCTAssertEqual(gpodder.status, 401, gpodder.text)
    }

    /// Without `[oidc]` the routes answer 404 and the login page shows no button.
    func testOffWithoutConfiguration() async throws {
        let h = try await server(nil)
        let mode = try json(try await get(h.base + "/api/auth/mode"))
        XCTAssertTrue(mode["single_sign_on"] is NSNull, "\(mode)")
        for path in ["/api/auth/oidc/login", "/api/auth/oidc/mobile/login?redirect_uri=x%3A%2F%2Fy", "/api/auth/oidc/callback?state=x&code=y"] {
            let reply = try await get(h.base + path)
            XCTAssertEqual(reply.status, 404, path)
            XCTAssertEqual(try json(reply)["detail"] as? String, SignInRefusal.notConfigured.description)
        }
    }
}
