import FeedModel

/// A single sign-on between its start and the provider's callback (`feedctl serve`'s
/// `/api/auth/oidc/…`). Kept in the library, not in the memory of the server that started it:
/// behind a balancer the callback may reach another replica.
///
/// The state is kept only as its SHA-256 (what the callback's `state` is looked up by). The nonce
/// and the PKCE verifier are kept as they are, because the callback needs them as they are (the
/// ID token must carry the nonce; the token request sends the verifier). That is acceptable: they
/// stay on the server (never sent to the browser: the provider sees only the verifier's S256
/// challenge), live at most `SignInRule.lifetime`, and are deleted as the callback takes them, so
/// each works once; without the authorization code, which the provider hands only to the
/// browser that signed in, the verifier signs nobody in.
public struct PendingSignIn: Sendable, Equatable {
    public enum Destination: Sendable, Equatable {
        /// The web app: back to `next` (a path of this server) with a session cookie; the
        /// callback must carry the cookie whose SHA-256 is `browser`.
        case web(next: String, browser: String)
        /// A phone app: to `redirectURI?token=…`.
        case mobile(redirectURI: String)
        /// A signed-in person proving again who they are (before deleting their account): the
        /// fresh sign-in marks `session` as re-authenticated, then back to `next`; the browser's
        /// cookie as `web`'s.
        case reauthentication(session: Int64, next: String, browser: String)

        /// The hash of the cookie the callback must carry (a browser's sign-ins), nil for a phone app's.
        public var browser: String? {
            switch self {
            case .web(_, let browser), .reauthentication(_, _, let browser): browser
            case .mobile: nil
            }
        }
    }

    /// SHA-256 of the sign-in's `state`, hex.
    public var stateHash: String
    public var nonce: String
    public var verifier: String
    /// The callback URL sent to the provider: the token request repeats it.
    public var callback: String
    public var destination: Destination
    public var started: Int64

    public init(stateHash: String, nonce: String, verifier: String, callback: String, destination: Destination, started: Int64) {
        self.stateHash = stateHash; self.nonce = nonce; self.verifier = verifier; self.callback = callback
        self.destination = destination; self.started = started
    }
}

/// The single sign-ons under way, and the sessions whose person just proved again who they are:
/// what every replica of a server on one library must see alike.
public protocol SignInStore: Sendable {
    /// Keeps `signIn` (started at `signIn.started`, which is now). Sign-ins that can no longer
    /// finish (`SignInRule.isLive`) go first; if `capacity` (`SignInRule.capacity`, smaller in
    /// tests) are still kept, the oldest go until there is room. `invalid` for an empty field (a
    /// state kept already fails as a constraint: states are 32 random bytes).
    func keepSignIn(_ signIn: PendingSignIn, capacity: Int) async throws(LibraryError)
    /// The sign-in kept under `stateHash`, deleted as it is read, in one statement: a second
    /// take of it finds nothing, whichever replica asks. nil when there is none, or when it can
    /// no longer finish at `now` (it is deleted all the same).
    func takeSignIn(stateHash: String, now: Int64) async throws(LibraryError) -> PendingSignIn?
    /// Records that the person at session `session` signed in again at the provider at
    /// `authenticated` (replacing an earlier record). `noSession` if there is no such session.
    func recordReauthentication(session: Int64, authenticated: Int64) async throws(LibraryError)
    /// When the person at `session` last re-authenticated (nil: never). It goes with its session.
    func reauthentication(session: Int64) async throws(LibraryError) -> Int64?
}

extension SignInStore {
    /// Keeps `signIn`, at most `SignInRule.capacity` kept.
    public func keepSignIn(_ signIn: PendingSignIn) async throws(LibraryError) {
        try await keepSignIn(signIn, capacity: SignInRule.capacity)
    }
}

/// A sign-in as the `sign_ins` table's columns, for both stores: one mapping, checked once.
public struct SignInColumns: Sendable {
    public var nextPath: String?
    public var browserHash: String?
    public var session: Int64?
    public var mobileRedirect: String?

    /// `signIn`'s destination as columns; `invalid` if a field it needs is empty.
    public init(_ signIn: PendingSignIn) throws(LibraryError) {
        var fields = [signIn.stateHash, signIn.nonce, signIn.verifier, signIn.callback]
        switch signIn.destination {
        case .web(let next, let browser):
            nextPath = next; browserHash = browser
            fields += [next, browser]
        case .mobile(let uri):
            mobileRedirect = uri
            fields.append(uri)
        case .reauthentication(let session, let next, let browser):
            self.session = session; nextPath = next; browserHash = browser
            fields += [next, browser]
        }
        guard !fields.contains(where: \.isEmpty) else { throw .invalid("a sign-in needs its state, nonce, verifier, callback and destination") }
    }

    public init(nextPath: String?, browserHash: String?, session: Int64?, mobileRedirect: String?) {
        self.nextPath = nextPath; self.browserHash = browserHash; self.session = session; self.mobileRedirect = mobileRedirect
    }

    /// The destination these columns hold (the schema's CHECK allows no other combination).
    public var destination: PendingSignIn.Destination? {
        if let mobileRedirect { return .mobile(redirectURI: mobileRedirect) }
        guard let nextPath, let browserHash else { return nil }
        if let session { return .reauthentication(session: session, next: nextPath, browser: browserHash) }
        return .web(next: nextPath, browser: browserHash)
    }
}
