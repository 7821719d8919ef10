import Accounts
import Digests
import FeedModel
import Foundation
import Hummingbird
import LibraryStore
import OpenIDConnect

/// Single sign-on's routes, public (`/api/auth/oidc/…`): a sign-in starts here, goes to the
/// provider with an authorization code request (PKCE S256, `state`, `nonce`, kept in the library
/// so that any replica may take the callback, used once: `SignInStore`), and comes back to the
/// callback, which exchanges the code, verifies the ID token, finds (or links, or makes) the
/// user and opens a session exactly as a password login does:
/// - the web app's (`login`): the browser is sent on to the provider with a cookie that ties the
///   sign-in to it, and comes back to the app's page with the `session_token` cookie;
/// - a phone app's (`mobile/login?redirect_uri=URI`, URI one of `oidc.mobile_redirect_uris`):
///   answers `{auth_url}` for the app to open; the callback sends the browser to
///   `URI?token=TOKEN`, a session token `/api/auth/me` takes as a bearer token;
/// - a re-authentication (`reauthenticate`, a signed-in person before deleting their account):
///   opens no session, marks this one re-authenticated and goes back to the page it came from.
/// A refusal once the sign-in is known goes back where the sign-in would have: the app's login
/// page with `?sso_error=`, or `URI?error=`; before that (an unknown or used `state`) it is
/// answered here, `{"detail"}` with its status.
struct SingleSignOnRoutes {
    let signOn: SingleSignOn?
    let logins: TokenAuthenticator?
    /// Served over TLS: the cookies are `Secure`, and the callback URL made from `Host` is https.
    let secure: Bool
    let clock: @Sendable () -> Int64
    let log: @Sendable (String) -> Void

    /// The cookie that ties a web sign-in to the browser that started it: only this path sees it.
    static let browserCookie = "feedctl_sso"

    func add(to router: Router<APIRequestContext>) {
        router.get("api/auth/oidc/login") { request, _ in try await answer { () throws(SignInRefusal) in try await webLogin(request) } }
        router.get("api/auth/oidc/mobile/login") { request, _ in
            try await answer { () throws(SignInRefusal) in try await mobileLogin(request) }
        }
        router.get("api/auth/oidc/callback") { request, _ in try await answer { () throws(SignInRefusal) in try await callback(request) } }
    }

    /// The route that needs a session: a signed-in person proving again who they are.
    func addPrivate(to group: RouterGroup<APIRequestContext>) {
        group.post("auth/oidc/reauthenticate") { request, context in
            try await answer { () throws(SignInRefusal) in try await startReauthentication(request, context) }
        }
    }

    /// `POST /api/auth/oidc/reauthenticate?next=PATH` (default `/settings`): `{auth_url}` for the
    /// web app to send the browser to, a sign-in at the provider that must ask the person again
    /// (`prompt=login`, `max_age=0`), with the browser's cookie as a web sign-in's. Its callback
    /// marks this session re-authenticated (`reauthenticate`) and sends the browser back to
    /// `next?reauthenticated=1`; there `DELETE /api/account` accepts (`Reauthentication`).
    func startReauthentication(_ request: Request, _ context: APIRequestContext) async throws(SignInRefusal) -> Response {
        let (signOn, logins) = try configured()
        guard let caller = context.user, let session = caller.sessionID else { throw .api(.unauthorized) }
        let identities: [UserIdentity]
        do { identities = try await logins.store.identities(of: caller.id) } catch { throw .library(error) }
        guard identities.contains(where: { $0.issuer == signOn.settings.client.issuer }) else { throw .noIdentityHere(signOn.settings.providerName) }
        let next = Self.safeNext(request.uri.queryParameters["next"].map(String.init) ?? "/settings")
        let browser = SignInSecrets.random()
        let url = try await start(request, signOn, logins, destination: .reauthentication(session: session, next: next, browser: try Self.hash(browser)),
                                  freshLogin: true)
        return authURL(url, cookie: browserCookie(browser))
    }

    /// `GET /api/auth/oidc/login?next=PATH`: to the provider, with the browser's cookie.
    func webLogin(_ request: Request) async throws(SignInRefusal) -> Response {
        let (signOn, logins) = try configured()
        let next = Self.safeNext(request.uri.queryParameters["next"].map(String.init))
        let browser = SignInSecrets.random()
        let url = try await start(request, signOn, logins, destination: .web(next: next, browser: try Self.hash(browser)))
        var headers = HTTPFields()
        headers[.location] = url
        headers[.cacheControl] = "no-store"
        headers[values: .setCookie].append(browserCookie(browser))
        return Response(status: .seeOther, headers: headers)
    }

    /// `GET /api/auth/oidc/mobile/login?redirect_uri=URI`: `{auth_url}` for the app to open.
    func mobileLogin(_ request: Request) async throws(SignInRefusal) -> Response {
        let (signOn, logins) = try configured()
        guard let uri = request.uri.queryParameters["redirect_uri"].map(String.init), !uri.isEmpty else {
            throw .missingParameter("redirect_uri")
        }
        guard signOn.settings.mobileRedirectURIs.contains(uri) else { throw .unregisteredRedirect(LibraryError.quoted(uri)) }
        return authURL(try await start(request, signOn, logins, destination: .mobile(redirectURI: uri)))
    }

    /// `{auth_url}` for a client to send the browser to (with the cookie that ties it to the sign-in).
    private func authURL(_ url: String, cookie: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        if let cookie { headers[values: .setCookie].append(cookie) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: Self.json(["auth_url": url]))))
    }

    /// A new sign-in kept under its `state`'s hash; the provider's URL for it.
    private func start(_ request: Request, _ signOn: SingleSignOn, _ logins: TokenAuthenticator, destination: PendingSignIn.Destination,
                       freshLogin: Bool = false) async throws(SignInRefusal) -> String {
        let callback = try callbackURL(request, signOn.settings)
        let secrets = SignInSecrets()
        let url: String
        do { url = try await signOn.client.authorizationURL(redirectURI: callback, secrets: secrets, freshLogin: freshLogin) } catch {
            throw .openID(error)
        }
        let stateHash = try Self.hash(secrets.state)
        let signIn = PendingSignIn(stateHash: stateHash, nonce: secrets.nonce, verifier: secrets.verifier, callback: callback,
                                   destination: destination, started: clock())
        do { try await logins.store.keepSignIn(signIn) } catch { throw .library(error) }
        return url
    }

    /// `GET /api/auth/oidc/callback?code=…&state=…` (or `error=…`): the sign-in's end.
    func callback(_ request: Request) async throws(SignInRefusal) -> Response {
        let (signOn, logins) = try configured()
        let query = request.uri.queryParameters
        guard let state = query["state"].map(String.init), !state.isEmpty else { throw .missingParameter("state") }
        let stateHash = try Self.hash(state)
        let taken: PendingSignIn?
        do { taken = try await logins.store.takeSignIn(stateHash: stateHash, now: clock()) } catch { throw .library(error) }
        guard let signIn = taken else { throw .unknownState }
        let secrets = SignInSecrets(state: state, nonce: signIn.nonce, verifier: signIn.verifier)
        do throws(SignInRefusal) {
            if let error = query["error"] {
                // Providers write the query as a form: `+` for a space.
                let why = [error, query["error_description"]].compactMap { $0 }.joined(separator: ": ").replacingOccurrences(of: "+", with: " ")
                throw .providerSaid(OpenIDError.shown(why))
            }
            if let browser = signIn.destination.browser {
                guard let cookie = request.cookies[Self.browserCookie]?.value, (try? Self.hash(cookie)) == browser else { throw .otherBrowser }
            }
            guard let code = query["code"].map(String.init), !code.isEmpty else { throw .missingParameter("code") }
            let claims: IDTokenClaims
            do { claims = try await signOn.client.signIn(code: code, redirectURI: signIn.callback, secrets: secrets) } catch {
                throw .openID(error)
            }
            let device: String
            switch signIn.destination {
            case .web: device = "web (\(signOn.settings.providerName))"
            case .mobile: device = "app (\(signOn.settings.providerName))"
            case .reauthentication(let session, let next, _):
                let user = try await reauthenticate(request, session: session, claims: claims, started: signIn.started, signOn, logins)
                log("single sign-on: \(user.name) signed in again through \(signOn.settings.providerName)")
                return reauthenticated(next)
            }
            let user = try await signOn.user(for: claims, in: logins.store, now: clock())
            let token: SessionToken
            do { token = try await logins.openSession(for: user, deviceName: device) } catch { throw .api(error) }
            log("single sign-on: \(user.name) through \(signOn.settings.providerName)")
            return signedIn(token, signIn.destination)
        } catch {
            log("single sign-on refused: \(error)")
            return refused(error, signIn.destination)
        }
    }

    /// A re-authentication's end: the browser still holds `session` (its cookie came with the
    /// callback), the identity the provider vouches for is one of that session's user's, and
    /// the person signed in at the provider after the re-authentication started (`auth_time`).
    /// The session is then marked re-authenticated at that time, in the library (any replica
    /// reads it). Returns the user.
    private func reauthenticate(_ request: Request, session: Int64, claims: IDTokenClaims, started: Int64, _ signOn: SingleSignOn,
                                _ logins: TokenAuthenticator) async throws(SignInRefusal) -> APIUser {
        let caller: APIUser?
        do { caller = try await logins.authenticate(request) } catch let error as LibraryError {
            throw .library(error)
        } catch let error as DigestUnavailable {
            throw .api(APIError(error))
        } catch {
            throw .api(APIError(.internalServerError, "this session could not be checked: try again"))
        }
        guard let caller, caller.sessionID == session else { throw .notThisSession }
        let linked: User?
        do { linked = try await logins.store.user(issuer: signOn.settings.client.issuer, subject: claims.subject, now: clock()) } catch {
            throw .library(error)
        }
        guard linked?.id == caller.id else { throw .notYourIdentity(signOn.settings.providerName) }
        // Core §3.1.2.1: asked with max_age, the token must say when the person signed in.
        guard let authenticated = claims.authTime, authenticated + SignInRule.clockLeeway >= started,
              SignInRule.isFreshReauthentication(authenticated, now: clock()) else { throw .staleAuthentication }
        do { try await logins.store.recordReauthentication(session: session, authenticated: authenticated) } catch { throw .library(error) }
        return caller
    }

    /// Back to the page the re-authentication started from, which may now go on.
    private func reauthenticated(_ next: String) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        headers[.location] = Self.appending("reauthenticated", "1", to: next)
        headers[values: .setCookie].append(clearBrowserCookie)
        return Response(status: .seeOther, headers: headers)
    }

    private func signedIn(_ token: SessionToken, _ destination: PendingSignIn.Destination) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        switch destination {
        case .web(let next, _):
            headers[.location] = next
            headers[values: .setCookie].append(SessionCookie.set(token, secure: secure))
            headers[values: .setCookie].append(clearBrowserCookie)
        case .mobile(let uri):
            headers[.location] = Self.appending("token", token.text, to: uri)
        case .reauthentication(_, let next, _):
            // A re-authentication opens no session (the callback answers it with `reauthenticated`).
            headers[.location] = next
        }
        return Response(status: .seeOther, headers: headers)
    }

    private func refused(_ refusal: SignInRefusal, _ destination: PendingSignIn.Destination) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        switch destination {
        case .web(let next, _):
            headers[.location] = "/login?" + [("next", next), ("sso_error", refusal.description)].map { "\($0.0)=\(Self.escape($0.1))" }.joined(separator: "&")
            headers[values: .setCookie].append(clearBrowserCookie)
        case .mobile(let uri):
            headers[.location] = Self.appending("error", refusal.description, to: uri)
        case .reauthentication(_, let next, _):
            headers[.location] = Self.appending("sso_error", refusal.description, to: next)
            headers[values: .setCookie].append(clearBrowserCookie)
        }
        return Response(status: .seeOther, headers: headers)
    }

    /// The cookie that ties a sign-in to this browser: only the callback's path sees it.
    private func browserCookie(_ value: String) -> String {
        "\(Self.browserCookie)=\(value); Path=/api/auth/oidc; Max-Age=\(SignInRule.lifetime); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    private var clearBrowserCookie: String {
        "\(Self.browserCookie)=; Path=/api/auth/oidc; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    private func configured() throws(SignInRefusal) -> (SingleSignOn, TokenAuthenticator) {
        guard let signOn, let logins else { throw .notConfigured }
        return (signOn, logins)
    }

    /// `oidc.redirect_uri`, else this server's callback at the `Host` the request was sent to.
    private func callbackURL(_ request: Request, _ settings: SingleSignOnSettings) throws(SignInRefusal) -> String {
        if let fixed = settings.redirectURI { return fixed }
        guard let host = request.head.authority, CrossSiteMiddleware.name(ofAuthority: host) != nil else { throw .noHost }
        return (secure ? "https://" : "http://") + host + SingleSignOnSettings.callbackPath
    }

    /// Runs a route, a refusal answered as `{"detail"}` with its status.
    private func answer(_ body: () async throws(SignInRefusal) -> Response) async throws -> Response {
        do { return try await body() } catch { throw Self.apiError(error) }
    }

    /// Each refusal's status: the request's fault (400), nobody to sign in (403), not here
    /// (404), the provider's fault (502), a token refused (401).
    static func apiError(_ refusal: SignInRefusal) -> APIError {
        switch refusal {
        case .notConfigured: return APIError(.notFound, refusal.description)
        case .unknownState, .otherBrowser, .missingParameter, .unregisteredRedirect, .noHost, .notThisSession:
            return .badRequest(refusal.description)
        case .providerSaid: return APIError(.unauthorized, refusal.description)
        case .openID(let error): return APIError(error.isProviderFailure ? .badGateway : .unauthorized, refusal.description)
        case .noAccount, .notYourIdentity: return APIError(.forbidden, refusal.description)
        case .noIdentityHere: return APIError(.conflict, refusal.description)
        case .staleAuthentication: return APIError(.unauthorized, refusal.description)
        case .library(let error): return APIError(error)
        case .api(let error): return error
        }
    }

    /// Only a path of this server: never another site (an open redirect), as the login page's `safeNext`.
    static func safeNext(_ text: String?) -> String {
        guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/\\"), !text.hasPrefix("/login"),
              !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else { return "/feed" }
        return text
    }

    static func appending(_ name: String, _ value: String, to uri: String) -> String {
        uri + (uri.contains("?") ? "&" : "?") + name + "=" + escape(value)
    }

    /// Percent-encodes all but the unreserved characters.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func hash(_ text: String) throws(SignInRefusal) -> String {
        do { return try SessionToken.hash(of: text) } catch { throw .api(APIError(error)) }
    }

    private static func json(_ object: [String: String]) -> String {
        (try? APIRequestContext.encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
