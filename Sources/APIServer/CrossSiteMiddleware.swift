import Hummingbird

/// What a browser may make the server do from another site (issue 26). A page elsewhere (or a
/// name of its own rebound to this machine's address) could otherwise have a signed-in browser,
/// or anyone's in `--open` mode, subscribe, create collections or start playback:
/// - in `--open` mode, requests are answered only when their `Host` is a loopback name
///   (`localhost`, `127.0.0.1`, `[::1]`, with any port) or one `--allowed-host` names, so a
///   rebound name reaches nothing, reads included;
/// - a write (any method but GET, HEAD and OPTIONS) that carries an `Origin` (what browsers
///   send) is accepted only from this server's own origin (the `Host` it was sent to, whatever
///   the scheme: behind a TLS proxy the browser's is https) or the `--cors` origin. Requests
///   without `Origin` (the CLI, curl, the iOS app, gpodder clients) go on;
/// - JSON bodies must say so (`RequestBody.decode`: 415 otherwise), so a form or a `text/plain`
///   post, which a page may send anywhere without asking, is no API call.
struct CrossSiteMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    /// `--open`: only loopback `Host` names (and `allowedHosts`).
    let open: Bool
    let allowedHosts: Set<String>
    let corsOrigin: String?

    func handle(_ request: Request, context: APIRequestContext,
                next: (Request, APIRequestContext) async throws -> Response) async throws -> Response {
        let host = request.head.authority
        if open {
            guard let host, let name = Self.name(ofAuthority: host),
                  ServerConfiguration.isLoopback(name) || allowedHosts.contains(name) else {
                throw APIError(.forbidden, "this server runs with --open and answers only requests to localhost, 127.0.0.1 or [::1]"
                               + " (not \(host.map { "\"\($0)\"" } ?? "one without a Host")); --allowed-host NAME adds a name")
            }
        }
        if ![.get, .head, .options].contains(request.method), let origin = request.headers[.origin] {
            let own = host.flatMap(Self.normalizedAuthority)
            let sameSite = own != nil && Self.authority(ofOrigin: origin) == own
            guard sameSite || origin == corsOrigin else {
                throw APIError(.forbidden, "a write from another site (Origin \(origin)) is refused: only pages of this server"
                               + (corsOrigin.map { " or \($0)" } ?? "") + " may write (feedctl serve --cors ORIGIN allows one)")
            }
        }
        return try await next(request, context)
    }

    /// `localhost` of `localhost:8000`, `::1` of `[::1]:8000`, lowercased; nil when malformed.
    static func name(ofAuthority authority: String) -> String? {
        let text = authority.lowercased()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts.count == 1 || parts[1].allSatisfy(\.isNumber) else { return nil }
        return String(parts[0])
    }

    /// `host:port` lowercased, without a port of 80 or 443 (what an origin leaves out).
    static func normalizedAuthority(_ authority: String) -> String? {
        var text = authority.lowercased()
        for port in [":80", ":443"] where text.hasSuffix(port) { text.removeLast(port.count) }
        return name(ofAuthority: text) == nil ? nil : text
    }

    /// The `host:port` of an `Origin` (`https://app.example:8443`); nil for `null` or anything else.
    static func authority(ofOrigin origin: String) -> String? {
        let lower = origin.lowercased()
        guard let range = lower.range(of: "://"), ["http", "https"].contains(lower[..<range.lowerBound]) else { return nil }
        let rest = lower[range.upperBound...]
        guard !rest.contains("/") else { return nil }
        return normalizedAuthority(String(rest))
    }
}
