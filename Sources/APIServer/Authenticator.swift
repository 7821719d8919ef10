import Hummingbird

/// The slot where a request's credentials are checked. The token check (bearer token or
/// `session_token` cookie, against the sessions the Accounts module stores) goes here; until
/// then the only one is `OpenOwner`, which `--open` chooses.
public protocol Authenticator: Sendable {
    /// The user `request` acts for, or nil when it carries no valid credentials (the route then
    /// answers 401). Must never log the credentials it reads.
    func authenticate(_ request: Request) async throws -> APIUser?
    /// What `/api/auth/mode` says, in the backend's words: `open` (no login) or `protected`.
    var mode: String { get }
}

/// `feedctl serve --open`: one owner, no login. Every request acts for the library's owner, so
/// the server refuses to start unless it listens on loopback only (`ServerOptions.validate`).
public struct OpenOwner: Authenticator {
    let owner: APIUser

    public init(library: any APILibrary, name: String = "owner") {
        self.owner = APIUser(name: name, isAdmin: true, library: library)
    }

    public func authenticate(_ request: Request) async throws -> APIUser? { owner }
    public var mode: String { "open" }
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
