import Hummingbird
import LibraryStore

/// Where a request's credentials are checked: `OpenOwner` (`--open`: no login) or
/// `TokenAuthenticator` (a bearer token or the `session_token` cookie, against the sessions the
/// library stores by their hash).
public protocol Authenticator: Sendable {
    /// The user `request` acts for, or nil when it carries no valid credentials (the route then
    /// answers 401). Must never log the credentials it reads.
    func authenticate(_ request: Request) async throws -> APIUser?
    /// What `/api/auth/mode` says, in the backend's words: `open` (no login) or `protected`.
    var mode: String { get }
    /// The logins this server takes (`/api/auth/login`); nil when it takes none (`--open`).
    var logins: TokenAuthenticator? { get }
    /// The library's users, for `/api/users`; nil when the server was given none.
    var users: (any UserStore & IdentityStore)? { get }
}

/// `feedctl serve --open`: one owner, no login. Every request acts for the library's owner, so
/// the server refuses to start unless it listens on loopback only (`ServerOptions.validate`).
public struct OpenOwner: Authenticator {
    let owner: APIUser
    public let users: (any UserStore & IdentityStore)?

    /// `users`: the library's users, which the owner (an admin) may list and manage through
    /// `/api/users`; without it those routes answer 404.
    public init(library: any APILibrary, users: (any UserStore & IdentityStore)? = nil, name: String = "owner") {
        self.owner = APIUser(id: .owner, name: name, isAdmin: true, library: library)
        self.users = users
    }

    public func authenticate(_ request: Request) async throws -> APIUser? { owner }
    public var mode: String { "open" }
    public var logins: TokenAuthenticator? { nil }
}

/// Puts the authenticated user into the context of every private route; 401 without one.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let authenticator: any Authenticator

    func handle(_ request: Request, context: APIRequestContext,
                next: (Request, APIRequestContext) async throws -> Response) async throws -> Response {
        guard let user = try await authenticator.authenticate(request) else { throw APIError.unauthorized }
        var context = context
        context.user = user
        return try await next(request, context)
    }
}

/// The player's routes: the one daemon plays for the library's owner (it records progress and
/// history as theirs, and its status names what they play), so only the owner drives it; anyone
/// else signed in gets 403.
struct OwnerOnlyMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(_ request: Request, context: APIRequestContext,
                next: (Request, APIRequestContext) async throws -> Response) async throws -> Response {
        guard let user = context.user else { throw APIError.unauthorized }
        guard user.id == .owner else {
            throw APIError(.forbidden, "the player plays for the library's owner: only they may use it")
        }
        return try await next(request, context)
    }
}
