import FeedIngest
import FeedModel
import Hummingbird
import LibraryStore

/// What a published collection's link shows anyone, without a session (issue 29): its page
/// (`GET /shared/{token}`, HTML rendered here, no script), its podcast feed (`GET
/// /shared/{token}/feed.xml`, RSS 2.0 with enclosures and iTunes tags) and its JSON (`GET
/// /api/shared/{token}`, `SharedCollectionDocument`, what a follower on another server reads).
/// A token never published is 404; a withdrawn one (unpublished, its collection or owner gone)
/// is 410 Gone, for good: the page says it was withdrawn, the JSON says so in its `detail`.
/// Nothing is cached (`no-cache`): a withdrawal is seen at once. Links are whole URLs, under the
/// server's public address, else the request's own (`Host`).
struct SharedCollectionRoutes {
    /// Nil when the server was given no library to read them from (then 503).
    let store: (any SharedCollectionStore)?
    let configuration: ServerConfiguration

    func add(to router: Router<APIRequestContext>) {
        router.get("shared/:token") { request, context in
            let base = origin(request)
            switch try await lookup(context) {
            case .some((let token, .live(let collection))):
                return SharedCollectionPage.response(.ok, SharedCollectionPage.html(collection, links: ShareLinks(token, base: base)))
            case .some((_, .withdrawn)):
                return SharedCollectionPage.response(.gone, SharedCollectionPage.withdrawn)
            case .none:
                return SharedCollectionPage.response(.notFound, SharedCollectionPage.unknown)
            }
        }
        router.get("shared/:token/feed.xml") { request, context in
            switch try await lookup(context) {
            case .some((let token, .live(let collection))):
                var headers = Self.headers
                headers[.contentType] = "application/rss+xml; charset=utf-8"
                let rss = SharedCollectionRSS.document(collection, links: ShareLinks(token, base: origin(request)))
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: rss)))
            case .some((_, .withdrawn)):
                throw gone
            case .none:
                throw unknown
            }
        }
        router.get("api/shared/:token") { request, context in
            switch try await lookup(context) {
            case .some((let token, .live(let collection))):
                let links = ShareLinks(token, base: origin(request))
                let document = SharedCollectionDocument(collection, url: links.url, rssURL: links.rssURL, jsonURL: links.jsonURL)
                var headers = Self.headers
                headers[.contentType] = "application/json; charset=utf-8"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try APIRequestContext.encoder.encode(document))))
            case .some((_, .withdrawn)):
                throw gone
            case .none:
                throw unknown
            }
        }
    }

    private var gone: APIError {
        var error = APIError(.gone, LibraryError.withdrawnCollection.description)
        error.headers = Self.headers
        return error
    }

    private var unknown: APIError { APIError.notFound(LibraryError.noSharedCollection.description) }

    /// Not kept by caches (a withdrawal shows at once), not indexed by search engines.
    static let headers: HTTPFields = {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-cache"
        headers[robotsTag] = "noindex, nofollow"
        return headers
    }()
    static let robotsTag = HTTPFields.Element.Name("X-Robots-Tag")!   // a valid field name, written out

    /// The link's token and what it leads to; nil for a token never published here (or text
    /// that cannot be one).
    private func lookup(_ context: APIRequestContext) async throws(APIError) -> (ShareToken, SharedLookup)? {
        guard let text = context.parameters.get("token"), let token = ShareToken(text) else { return nil }
        guard let store else { throw APIError(.serviceUnavailable, "this server was started without its library's published collections") }
        let found = try await FeedRoutes.library { () async throws(LibraryError) in try await store.sharedCollection(token: token) }
        return found.map { (token, $0) }
    }

    /// Where the links point: the server's public address, else the origin the request came to.
    private func origin(_ request: Request) -> String? {
        if let publicURL = configuration.publicURL { return publicURL }
        guard let authority = request.head.authority, !authority.isEmpty,
              !authority.unicodeScalars.contains(where: { $0.value <= 0x20 || "/\\\"<>'".unicodeScalars.contains($0) }) else { return nil }
        return "\(configuration.scheme)://\(authority)"
    }
}
