import FeedModel
import Hummingbird

/// Every failure answers `{"detail": "…"}` with its status: the API's own errors as they are,
/// Hummingbird's (an unknown route, a body over the cap) with their status and a sentence, and
/// anything else as a 500 whose cause goes to the log, not to the client.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let log: @Sendable (String) -> Void

    func handle(_ request: Request, context: APIRequestContext,
                next: (Request, APIRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            if let cause = error.cause { log("error: \(request.method) \(request.uri.path): \(cause)") }
            throw error
        } catch let error as HTTPError {
            throw APIError(error.status, error.body ?? Self.sentence(error.status))
        } catch {
            log("error: \(request.method) \(request.uri.path): \(error)")
            throw APIError(.internalServerError, "internal error (logged by the server)")
        }
    }

    static func sentence(_ status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: return "no such route"
        case .methodNotAllowed: return "method not allowed on this route"
        case .contentTooLarge: return "request body too large"
        default: return status.reasonPhrase
        }
    }
}

/// One line per request: method, path (never the query or headers: tokens travel there) and
/// status.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let log: @Sendable (String) -> Void

    /// The path as logged: a published collection's token is the key to it, so it is left out
    /// (`/shared/…/feed.xml`): whoever reads the log must not be able to follow the link.
    static func logged(_ path: String) -> String {
        for prefix in [SharingRule.pagePrefix, SharingRule.jsonPrefix] where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            return prefix + "…" + (rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "")
        }
        return path
    }

    func handle(_ request: Request, context: APIRequestContext,
                next: (Request, APIRequestContext) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            log("\(request.method) \(Self.logged(request.uri.path)) \(response.status.code)")
            return response
        } catch let error as any HTTPResponseError {
            log("\(request.method) \(Self.logged(request.uri.path)) \(error.status.code)")
            throw error
        }
    }
}
