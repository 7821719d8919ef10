import Hummingbird
import NIOCore

/// The routes whose work can take long: parsing what they fetch (a feed, an OPML document, a
/// page), or building a whole list as one answer. The server's tasks run on SwiftNIO's event
/// loops (`EventLoopsExecutor`), and every connection on a loop waits while one of them
/// computes (issue 26: one 34 MB feed subscribed through the API stalled `/health` for 2.3 s).
/// These run instead on Swift's global concurrent executor, a pool as wide as the machine has
/// cores and not one of the loops, and their answer is encoded there too. Only their reading
/// of the request and the writing of the answer's bytes stay on the loop.
///
/// Their work also stops when the client goes away (the task is cancelled: a sync stores what
/// it finished and fetches nothing more), instead of running on for nobody.
struct OffLoopMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    /// The server's connections (whether a request's client has left); nil: never looked at.
    let connections: ClientConnections?

    /// `METHOD /path` as `APIServer.routes` lists them.
    static let routes: Set<String> = {
        var routes: Set<String> = [
            "GET /api/feed/by-channel", "GET /api/feed/history", "POST /api/feed/sync",
            "POST /api/discover/search", "POST /api/discover/quick-save",
            "POST /api/saved-videos", "POST /api/saved-videos/from-url",
            "GET /api/collections/{id}", "GET /api/collections/export/{id}", "POST /api/collections/{id}/items/reorder",
            "GET /api/2/subscriptions/{user}/{device}.json", "POST /api/2/subscriptions/{user}/{device}.json",
            "GET /api/2/episodes/{user}.json", "POST /api/2/episodes/{user}.json",
        ]
        for base in ["subscriptions", "channels"] {
            routes.formUnion(["GET /api/\(base)", "POST /api/\(base)", "POST /api/\(base)/{id}/sync",
                              "GET /api/\(base)/opml", "POST /api/\(base)/opml"])
        }
        return routes
    }()

    /// How often a long request looks whether its client is still connected.
    static let clientCheckInterval: Duration = .seconds(1)

    func handle(_ request: Request, context: APIRequestContext,
                next: (Request, APIRequestContext) async throws -> Response) async throws -> Response {
        guard Self.routes.contains("\(request.method.rawValue) \(APIServer.routeName(context.endpointPath ?? ""))") else {
            return try await next(request, context)
        }
        let (connection, connections) = (context.connection, connections)
        return try await withoutActuallyEscaping(next) { next in
            // Called once, from the child task below, while this task waits for it.
            nonisolated(unsafe) let next = next
            return try await withTaskExecutorPreference(globalConcurrentExecutor) {
                try await withThrowingTaskGroup(of: Response?.self) { group in
                    group.addTask { try await next(request, context) }
                    group.addTask {
                        // Ends (nil) when the connection closes, or throws when cancelled first.
                        while !(connection.flatMap { connections?.clientLeft($0) } ?? false) {
                            try await Task.sleep(for: Self.clientCheckInterval)
                        }
                        return nil
                    }
                    defer { group.cancelAll() }
                    guard let first = try await group.next(), let response = first else {
                        throw APIError(.badRequest, "the client closed the connection")
                    }
                    return response
                }
            }
        }
    }
}

extension APIServer {
    /// A route's path as `routes` writes it: `{name}` for Hummingbird's `:name`.
    static func routeName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
    }
}
