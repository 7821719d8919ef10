import Accounts
import FeedModel
import Foundation
import Hummingbird
import LibraryStore
import Synchronization

/// What the gpodder.net routes act on for a user: subscribing goes through the ingest
/// pipeline, devices and episode actions through their stores.
public typealias GPodderLibrary = SyncStore & SyncDeviceStore & EpisodeActionStore

/// The accounts the gpodder.net routes check credentials against, and each user's store.
public struct GPodderAccounts: Sendable {
    let users: any UserStore & IdentityStore
    let library: @Sendable (UserID) -> any GPodderLibrary

    public init(users: any UserStore & IdentityStore, library: @escaping @Sendable (UserID) -> any GPodderLibrary) {
        self.users = users; self.library = library
    }
}

/// A user the gpodder.net routes act for.
struct GPodderUser: Sendable {
    var id: UserID
    var name: String
    var library: any GPodderLibrary
    /// The session the request is signed in with: the `sessionid` cookie's, or the one a Basic
    /// sign-in was given.
    var sessionID: Int64?
    /// A `Set-Cookie` for the answer: the session a Basic sign-in was given, when the request
    /// did not already carry its cookie.
    var setCookie: String? = nil
}

/// Why a gpodder.net request was refused: answered with a Basic challenge (urllib, which
/// mygpoclient uses, sends credentials only after one), or 429 with when to try again.
struct GPodderRefusal: Error {
    var status: HTTPResponse.Status
    var detail: String
    var retryAfter: Int64? = nil

    static func unauthorized(_ detail: String) -> GPodderRefusal { GPodderRefusal(status: .unauthorized, detail: detail) }

    var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        if status == .unauthorized { headers[.wwwAuthenticate] = "Basic realm=\"feedctl\"" }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: APIError.json(detail: detail))))
    }
}

/// The gpodder.net API's credentials, checked on every call: HTTP Basic (a user with a
/// password: the owner has none until `feedctl user passwd`, so `--open` opens no sync), or the
/// `sessionid` cookie (a session like any other: `user sessions` lists it, `user revoke` ends
/// it). A Basic sign-in is answered with that cookie, as gpodder.net does: mygpoclient (urllib)
/// sends Basic only after a challenge and gives its password out at most three times, so
/// gPodder relies on the cookie. The same credentials get the same session back while it
/// lives, so a client that ignores cookies (AntennaPod sends Basic on every call) makes one
/// session, not one per request. The user named in the path must be the one signed in.
/// Separate from the bearer-token `Authenticator`: gpodder clients speak neither bearer tokens
/// nor `--open`.
final class GPodderAuth: Sendable {
    let accounts: GPodderAccounts?
    let clock: @Sendable () -> Int64
    /// The server's login throttle (`TokenAuthenticator.attempts` when it takes logins): a
    /// guess through either door counts against both.
    let attempts: LoginAttempts
    /// Served over TLS: the `sessionid` cookie is `Secure`.
    let secure: Bool
    /// `oidc.forbid_password_login`: gpodder's Basic sign-in is a password sign-in too.
    let passwordSignIn: PasswordSignIn
    /// bcrypt's check (`CredentialCheck.verify`); a test counts its runs.
    let verify: @Sendable (_ password: String, _ hash: String) -> Bool
    /// Basic credentials bcrypt accepted, by the hash of name, password and stored hash, with
    /// when they lapse (`SyncRule.basicCacheSeconds`): clients send Basic on every call.
    private let verified = Mutex<[String: Int64]>([:])
    /// The session handed to each Basic sign-in (by the same key): its token, to hand it again.
    private let issued = Mutex<[String: (token: String, session: Int64)]>([:])

    init(accounts: GPodderAccounts?, clock: @escaping @Sendable () -> Int64, attempts: LoginAttempts, secure: Bool,
         passwordSignIn: PasswordSignIn = .everyone,
         verify: @escaping @Sendable (_ password: String, _ hash: String) -> Bool = CredentialCheck.bcrypt) {
        self.accounts = accounts; self.clock = clock; self.attempts = attempts; self.secure = secure
        self.passwordSignIn = passwordSignIn; self.verify = verify
    }

    /// The user `request` (from `address`) acts for, checked against `pathUser` (the `{user}` of the route).
    func user(_ request: Request, address: String, pathUser: String?) async throws -> GPodderUser {
        guard let accounts else { throw GPodderRefusal.unauthorized("this server has no accounts to sync with") }
        let now = clock()
        let user: GPodderUser
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("basic ") {
            user = try await basic(String(header.dropFirst(6)), accounts, address: address, now: now,
                                   cookie: request.cookies["sessionid"]?.value)
        } else if let token = request.cookies["sessionid"]?.value, !token.isEmpty {
            guard let (session, found) = try await TokenAuthenticator.liveSession(SessionToken(presented: token), accounts.users, now: now)
            else { throw GPodderRefusal.unauthorized("the session has ended: log in again") }
            user = GPodderUser(id: found.id, name: found.name, library: accounts.library(found.id), sessionID: session.id)
        } else {
            throw GPodderRefusal.unauthorized("sign in with HTTP Basic (your feedctl user name and password)")
        }
        if let pathUser, pathUser != user.name {
            throw GPodderRefusal.unauthorized("signed in as another user than the one the path names")
        }
        return user
    }

    /// Forgets the token handed out for a session that ended (`logout.json`).
    func forget(session: Int64) {
        issued.withLock { table in table = table.filter { $0.value.session != session } }
    }

    private func basic(_ encoded: String, _ accounts: GPodderAccounts, address: String, now: Int64, cookie: String?) async throws -> GPodderUser {
        guard let data = Data(base64Encoded: encoded.trimmingCharacters(in: .whitespaces)),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else {
            throw GPodderRefusal.unauthorized("malformed Basic credentials")
        }
        let name = String(text[..<colon]), password = String(text[text.index(after: colon)...])
        var signedIn = try await remembered(name: name, password: password, accounts)
        if let known = signedIn, verified.withLock({ ($0[known.key] ?? 0) > now }) {
            // Accepted by bcrypt within `SyncRule.basicCacheSeconds`, with the same stored hash.
        } else {
            // The server's one check (`CredentialCheck`): throttled by the stored name, bcrypt
            // whether the name exists or not.
            let check = CredentialCheck(users: accounts.users, attempts: attempts, passwordSignIn: passwordSignIn, verify: verify)
            switch try await check.check(name: name, password: password, address: address, now: now) {
            case .verified:
                signedIn = try await remembered(name: name, password: password, accounts)
            case .wrong:
                throw GPodderRefusal.unauthorized("wrong user name or password")
            case .singleSignOnOnly:
                throw GPodderRefusal.unauthorized("this user signs in through single sign-on only, not with a password")
            case .throttled(let wait):
                throw GPodderRefusal(status: .tooManyRequests, detail: "too many failed logins for this user: try again in \(wait) s",
                                     retryAfter: wait)
            }
            guard let key = signedIn?.key else { throw GPodderRefusal.unauthorized("wrong user name or password") }
            verified.withLock { table in
                if table.count > 1_000 { table = table.filter { $0.value > now } }
                table[key] = now + SyncRule.basicCacheSeconds
            }
        }
        guard let (found, key) = signedIn else { throw GPodderRefusal.unauthorized("wrong user name or password") }
        let (token, session) = try await session(for: key, user: found.id, accounts, now: now)
        return GPodderUser(id: found.id, name: found.name, library: accounts.library(found.id), sessionID: session,
                           setCookie: cookie == token ? nil : sessionCookie(token))
    }

    /// The user `name` names with a password, and the key of these credentials (the hash of the
    /// stored name, the password given and the stored hash, so a new password takes effect at
    /// once); nil for a name that is nobody's or has no password.
    private func remembered(name: String, password: String, _ accounts: GPodderAccounts) async throws -> (user: User, key: String)? {
        guard let valid = LibraryUsers.validName(name) else { return nil }
        let user: User, hash: String?
        do throws(LibraryError) {
            user = try await accounts.users.user(named: valid)
            hash = try await accounts.users.passwordHash(of: user.name)
        } catch .noUser {
            return nil
        } catch {
            throw APIError(error)
        }
        guard let hash else { return nil }
        return (user, try SessionToken.hash(of: "\(user.name)\u{0}\(password)\u{0}\(hash)"))
    }

    /// The session handed to these credentials before, while it lives (not revoked, not
    /// expired), else a new one.
    private func session(for key: String, user: UserID, _ accounts: GPodderAccounts, now: Int64) async throws -> (String, Int64) {
        if let known = issued.withLock({ $0[key] }),
           let live = try await accounts.users.session(tokenHash: try SessionToken.hash(of: known.token), now: now), live.user.id == user {
            return (known.token, live.session.id)
        }
        let token = SessionToken()
        let tokenHash = try token.hash
        let session = try await FeedRoutes.library { () async throws(LibraryError) in
            try await accounts.users.createSession(user: user, tokenHash: tokenHash, deviceName: "gpodder", now: now)
        }
        issued.withLock { table in
            if table.count > 1_000 { table.removeAll() }
            table[key] = (token.text, session.id)
        }
        return (token.text, session.id)
    }

    func sessionCookie(_ token: String) -> String {
        SessionCookie.set(SessionToken(presented: token), named: "sessionid", secure: secure)
    }
}
