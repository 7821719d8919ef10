import Accounts
import Dispatch
import FeedModel
import FeedText
import Hummingbird
import LibraryStore

/// `feedctl serve` without `--open`: every private route needs a session token, sent as
/// `Authorization: Bearer T` or the `session_token` cookie. A token is looked up by its SHA-256
/// (the library stores nothing else); a missing, unknown, expired or revoked one is no user, so
/// the route answers 401 (never a fallback to an admin, as the backend has when no token is sent).
/// The user found carries their own store (`library(user)`), so one user never reads or changes
/// another's state.
///
/// Logins (`login`) go through the server's `CredentialCheck`: bcrypt off the event loop,
/// throttled per stored user name and per address (`LoginThrottle`), failing the same way, with
/// the same bcrypt work, whether the name exists or not.
public struct TokenAuthenticator: Authenticator {
    public let users: (any UserStore & IdentityStore)?
    let store: any UserStore & IdentityStore & SignInStore
    private let library: @Sendable (UserID) -> any APILibrary
    let clock: @Sendable () -> Int64
    /// The server's login throttle; gpodder.net's Basic sign-ins count against it too.
    let attempts = LoginAttempts()
    /// Sessions opened while the library's disk was full, not written yet.
    let pending = PendingSessions()
    /// How every door that takes a password checks one (with `attempts`).
    var credentials: CredentialCheck { CredentialCheck(users: store, attempts: attempts) }

    /// `library` gives a user's own view of the library (`LibraryDatabase.store(for:)`); `clock`
    /// is the time sessions are created and checked at (tests move it).
    public init(users: any UserStore & IdentityStore & SignInStore, library: @escaping @Sendable (UserID) -> any APILibrary,
                clock: @escaping @Sendable () -> Int64 = { Clock.now() }) {
        self.store = users; self.users = users; self.library = library; self.clock = clock
    }

    public var mode: String { "protected" }
    public var logins: TokenAuthenticator? { self }

    public func authenticate(_ request: Request) async throws -> APIUser? {
        guard let token = Self.token(in: request) else { return nil }
        return try await user(presenting: token)
    }

    /// The user whose live session `token` is, with that session; nil for anything else.
    func user(presenting token: SessionToken) async throws -> APIUser? {
        let now = clock()
        if let (session, user) = try await Self.liveSession(token, store, now: now) {
            return APIUser(id: user.id, name: user.name, isAdmin: user.isAdmin, hasPassword: user.hasPassword,
                           sessionID: session.id, library: library(user.id))
        }
        guard pending.count > 0, let (user, sessionID) = try await pending.user(tokenHash: try token.hash, now: now, store: store) else {
            return nil
        }
        return APIUser(id: user.id, name: user.name, isAdmin: user.isAdmin, hasPassword: user.hasPassword,
                       sessionID: sessionID, library: library(user.id))
    }

    /// The live session `token` opens and its user; nil for anything else (the gpodder.net
    /// routes' `sessionid` cookie is such a token too).
    static func liveSession(_ token: SessionToken, _ store: any UserStore, now: Int64) async throws -> (Session, User)? {
        guard let live = try await store.session(tokenHash: try token.hash, now: now) else { return nil }
        return (live.session, live.user)
    }

    /// The token a request presents: the bearer token, else the `session_token` cookie. Text that
    /// cannot be one of ours (empty, or longer than any token we make) is none, unread by the store.
    static func token(in request: Request) -> SessionToken? {
        // Read on every request: the bearer token without lowercasing or collecting candidates,
        // the cookies parsed only when there is none.
        var text: Substring?
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].utf8.elementsEqual("bearer".utf8, by: { asciiLowercased($0) == $1 }), !parts[1].isEmpty {
                text = parts[1]
            }
        }
        if text == nil, let cookie = request.cookies[SessionCookie.name]?.value, !cookie.isEmpty { text = Substring(cookie) }
        guard let text, text.utf8.count <= 512 else { return nil }
        return SessionToken(presented: String(text))
    }

    /// What a login came to.
    enum LoginOutcome: Sendable {
        case success(SessionToken, User)
        /// Wrong name or password: the same answer for both.
        case failure
        /// Too many failures: try again after this many seconds.
        case throttled(Int64)
        /// The user signs in through single sign-on only.
        case singleSignOnOnly
    }

    /// Checks `password` for `name` and, if it is right, opens a session (`deviceName` is what
    /// `feedctl user sessions` shows). `address` is the peer the throttle counts; `passwordSignIn`,
    /// whether a user with a single sign-on identity may use a password.
    func login(name: String, password: String, deviceName: String?, address: String,
               passwordSignIn: PasswordSignIn = .everyone) async throws(APIError) -> LoginOutcome {
        var check = credentials
        check.passwordSignIn = passwordSignIn
        let user: User
        switch try await check.check(name: name, password: password, address: address, now: clock()) {
        case .verified(let verified): user = verified
        case .wrong: return .failure
        case .throttled(let wait): return .throttled(wait)
        case .singleSignOnOnly: return .singleSignOnOnly
        }
        return .success(try await openSession(for: user, deviceName: deviceName), user)
    }

    /// A new session for `user` (a password checked, or a single sign-on verified): its token,
    /// which is shown once; the library keeps its hash.
    func openSession(for user: User, deviceName: String?) async throws(APIError) -> SessionToken {
        let token = SessionToken()
        let tokenHash: String
        do { tokenHash = try token.hash } catch { throw APIError(error) }
        do throws(LibraryError) {
            _ = try await store.createSession(user: user.id, tokenHash: tokenHash, deviceName: deviceName, now: clock())
        } catch where error.isDiskFull {
            // A full disk must not lock everyone out: the session waits in memory until it can be
            // written (reads still work, so the password's hash is at hand).
            guard let hash = try? await store.passwordHash(of: user.name),
                  pending.keep(tokenHash: tokenHash, user: user.id, deviceName: deviceName, passwordHash: hash, now: clock())
            else { throw APIError(error) }
        } catch {
            throw APIError(error)
        }
        return token
    }

    /// Ends the session `token` opened while the disk was full, if it is still pending.
    func logout(pending token: SessionToken) {
        if let hash = try? token.hash { pending.forget(tokenHash: hash) }
    }

    /// Ends session `id` (the one a logout request presented).
    func logout(session id: Int64) async throws(LibraryError) {
        do throws(LibraryError) {
            try await store.revokeSession(id: id)
        } catch .noSession {
            // Ended meanwhile (another logout, `feedctl user revoke`): done all the same.
        }
    }

    /// Runs blocking work (bcrypt: ~0.25 s at cost 12) on a Dispatch thread, not on the event
    /// loop or the cooperative pool.
    static func offLoop<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

/// The `session_token` cookie browsers get at login: HttpOnly (no script reads it), SameSite=Lax
/// (not sent on another site's POST), for the whole server, for the session's lifetime.
enum SessionCookie {
    static let name = "session_token"

    /// `secure` (served over TLS, `--tls-cert`): browsers then send it only over HTTPS. `named`:
    /// gpodder.net's clients call theirs `sessionid`.
    static func set(_ token: SessionToken, named cookie: String = name, secure: Bool) -> String {
        "\(cookie)=\(token.text); Path=/; Max-Age=\(SessionRule.lifetime); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// What logout sends: the cookie, emptied and expired.
    static func clear(named cookie: String = name, secure: Bool) -> String {
        "\(cookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }
}
