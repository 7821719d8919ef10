import Hummingbird

/// What HTTP asks of every exchange, whatever the route:
/// - a request carries exactly one `Host` (RFC 9112 §3.2: a missing or repeated one is a 400,
///   as a client or proxy that sends two may be smuggling one past the other);
/// - every answer says `X-Content-Type-Options: nosniff` (a browser never reads a JSON error as
///   HTML), `X-Frame-Options: DENY` (no page frames the server's) and `Cache-Control: no-store`
///   (answers are one user's: the login's carries a token) unless its route chose a cache policy.
struct HTTPRulesMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    static let host = HTTPFields.Element.Name("Host")!   // a valid field name, written out
    static let frameOptions = HTTPFields.Element.Name("X-Frame-Options")!
    static let contentTypeOptions = HTTPFields.Element.Name("X-Content-Type-Options")!

    func handle(_ request: Request, context: APIRequestContext,
                next: (Request, APIRequestContext) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            // The first Host is the request's authority; any other stays among the fields.
            let hosts = (request.head.authority == nil ? 0 : 1) + request.headers[values: Self.host].count
            if hosts != 1 {
                throw APIError(.badRequest, hosts == 0 ? "the request has no Host header (HTTP/1.1 needs one)"
                                                        : "the request has \(hosts) Host headers (HTTP/1.1 takes one)")
            }
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[Self.contentTypeOptions] = "nosniff"
        response.headers[Self.frameOptions] = "DENY"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}

extension APIServer {
    /// The methods a path may be asked with; a path served with some answers the others 405.
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, .connect]

    /// Every path the router serves answers the methods it does not serve (`TRACE` among them)
    /// with 405 and `Allow`, rather than "no such route": Hummingbird's router answers 404 for a
    /// method a path lacks. Added after `router(...)`, so `routes` lists only what is served.
    static func addMethodNotAllowed(to router: Router<APIRequestContext>) {
        var served: [String: (path: RouterPath, methods: Set<HTTPRequest.Method>)] = [:]
        for route in router.routes {
            served[route.path.description, default: (route.path, [])].methods.insert(route.method)
        }
        for (path, var methods) in served.values {
            // HEAD goes with GET (`autoGenerateHeadEndpoints`).
            if methods.contains(.get) { methods.insert(.head) }
            let allow = methods.map(\.rawValue).sorted().joined(separator: ", ")
            for method in Self.methods where !methods.contains(method) {
                router.on(path, method: method) { _, _ -> Response in
                    var headers = HTTPFields()
                    headers[.contentType] = "application/json; charset=utf-8"
                    headers[.allow] = allow
                    let detail = "\(method.rawValue) is not served here: this path takes \(allow)"
                    return Response(status: .methodNotAllowed, headers: headers,
                                    body: .init(byteBuffer: ByteBuffer(string: APIError.json(detail: detail))))
                }
            }
        }
    }
}
