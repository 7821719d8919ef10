import Digests
import Downloads
import Discovery
import FeedModel
import HTTPFetch
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import LibraryStore
import Logging
import NIOCore

/// The HTTP API over the library (`feedctl serve`): public routes (`/health`,
/// `/api/auth/mode`), and the private ones behind the authenticator, each reading and writing
/// the store of the user the request acts for (`APIRequestContext.library()`).
public enum APIServer {
    /// The application, ready to run (`runService()`), or why it must not start.
    /// `onListening` is told the port once the server listens (the tests ask for port 0).
    /// `loops` are the event loops it serves on (NIO's shared ones unless given: the tasks'
    /// `EventLoopsExecutor` must be on the same); `afterStorm` gives memory back to the system
    /// after a storm of connections (`ConnectionLimits.stormConnections`); `changes` is the
    /// library's change log, which `/api/events` streams (without it that route answers 503);
    /// `shared` its published collections, which their links show anyone (without it, 503).
    public static func application(
        configuration: ServerConfiguration, authenticator: (any Authenticator)?, gpodder: GPodderAccounts? = nil,
        changes: (any ChangeFeed)? = nil, shared: (any SharedCollectionStore)? = nil,
        clock: @escaping @Sendable () -> Int64 = { Clock.now() },
        log: @escaping @Sendable (String) -> Void = { _ in },
        loops: (any EventLoopGroup)? = nil,
        afterStorm: @escaping @Sendable () -> Void = {},
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws(ServerStartError) -> some ApplicationProtocol {
        // Tokens are looked up by their SHA-256: without libcrypto nobody could sign in, so say so now.
        do { _ = try Digest.sha256.of([]) } catch { throw ServerStartError("cannot serve: \(error)") }
        let connections = ClientConnections(policy: configuration.connections, afterStorm: afterStorm)
        let router = try router(configuration: configuration, authenticator: authenticator, gpodder: gpodder, changes: changes,
                                shared: shared, clock: clock, log: log, connections: connections)
        addMethodNotAllowed(to: router)
        var logger = Logger(label: "feedctl-serve")
        logger.logLevel = .warning
        let policy = configuration.connections
        var server = HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, policy: policy, connections: connections) }
        if let tls = configuration.tls {
            let settings = try tls.configuration()
            do {
                server = try .tls(server, tlsConfiguration: settings)
            } catch {
                throw ServerStartError("TLS: \(error)")
            }
        }
        return Application(
            router: router,
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: "feedctl"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
            eventLoopGroupProvider: loops.map { .shared($0) } ?? .singleton,
            logger: logger)
    }

    /// The routes anyone may call, without a token; every other route answers 401 without one.
    public static let publicRoutes: Set<String> = [
        "GET /", "GET /health", "GET /api/health", "GET /api/auth/mode", "GET /api/openapi.json",
        "POST /api/auth/login", "POST /api/auth/logout", "GET /api/auth/me", "POST /api/auth/session/validate",
        "GET /api/auth/oidc/login", "GET /api/auth/oidc/mobile/login", "GET /api/auth/oidc/callback",
        // A published collection's link: anyone who has it.
        "GET /shared/{token}", "GET /shared/{token}/feed.xml", "GET /api/shared/{token}",
    ]

    /// The routes the application serves, as `METHOD /path` with `{name}` for parameters.
    public static func routes(configuration: ServerConfiguration, authenticator: any Authenticator) throws(ServerStartError) -> [String] {
        try router(configuration: configuration, authenticator: authenticator, gpodder: nil, changes: nil, shared: nil, clock: { 0 }, log: { _ in },
                   connections: nil).routes.map { "\($0.method.rawValue) " + routeName($0.path.description) }
    }

    static func router(configuration: ServerConfiguration, authenticator: (any Authenticator)?, gpodder: GPodderAccounts?,
                       changes: (any ChangeFeed)?, shared: (any SharedCollectionStore)?, clock: @escaping @Sendable () -> Int64,
                       log: @escaping @Sendable (String) -> Void,
                       connections: ClientConnections?)
        throws(ServerStartError) -> Router<APIRequestContext> {
        if let refusal = configuration.check(hasAuthenticator: authenticator != nil) { throw refusal }
        guard let authenticator else { throw ServerStartError("no authenticator") }
        // HEAD answers what GET would, without the body (RFC 9110 §9.3.2: monitors and balancers
        // check /health with it); a stream's body is never started.
        let router = Router(context: APIRequestContext.self, options: .autoGenerateHeadEndpoints)
        // Outermost first: every answer is logged (without its query or headers, where tokens
        // travel), carries the headers every answer has (and a request without one Host gets
        // none other), then CORS, then errors become `{"detail"}` answers.
        router.add(middleware: RequestLogMiddleware(log: log))
        router.add(middleware: HTTPRulesMiddleware())
        if let origin = configuration.corsOrigin {
            router.add(middleware: CORSMiddleware(allowOrigin: .custom(origin),
                                                  allowHeaders: [.contentType, .authorization, .accept],
                                                  allowMethods: [.get, .post, .put, .patch, .delete, .options],
                                                  allowCredentials: true))
        }
        router.add(middleware: ErrorMiddleware(log: log))
        router.add(middleware: CrossSiteMiddleware(open: configuration.open, allowedHosts: configuration.allowedHosts,
                                                   corsOrigin: configuration.corsOrigin))
        // The web app: its files, and its shell for a browser's page no route serves.
        let web = try WebApp.load(candidates: configuration.webRoots)
        router.add(middleware: WebAppMiddleware(app: web))
        // Long work (parsing, whole lists) off the event loops, stopped when its client leaves.
        router.add(middleware: OffLoopMiddleware(connections: connections))

        // The web app's shell, or (its files missing) a page saying what this is and where they were looked for.
        router.get("/") { request, _ in
            web?.shellResponse(request) ?? HomePage.response(configuration: configuration, request: request)
        }
        let health = Health(status: "healthy", version: configuration.version)
        router.get("health") { _, _ in health }
        router.get("api/health") { _, _ in health }
        // Single sign-on only where there are logins (`--open` has none).
        let signOn = configuration.singleSignOn.flatMap { settings in
            authenticator.logins.map { _ in SingleSignOn(settings: settings, fetcher: .shared) }
        }
        let signOnButton = signOn.map { SingleSignOnButton(provider: $0.settings.providerName, loginURL: "/api/auth/oidc/login") }
        router.get("api/auth/mode") { _, _ in AuthMode(mode: authenticator.mode, allowGuest: false, singleSignOn: signOnButton) }
        router.get("api/openapi.json") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        AuthRoutes(authenticator: authenticator, secure: configuration.tls != nil, passwordSignIn: configuration.passwordSignIn, log: log).add(to: router)
        let signOnRoutes = SingleSignOnRoutes(signOn: signOn, logins: authenticator.logins, secure: configuration.tls != nil, clock: clock, log: log)
        signOnRoutes.add(to: router)
        SharedCollectionRoutes(store: shared, configuration: configuration).add(to: router)

        let api = router.group("api").add(middleware: AuthMiddleware(authenticator: authenticator))
        let fetcher = fetcher(configuration)
        FeedRoutes(clock: clock, fetcher: fetcher, reach: FeedURLPolicy(allowPrivate: configuration.allowPrivateFeeds).reach,
                   downloads: configuration.mediaDirectory.map { DownloadStore(directory: $0) }).add(to: api)
        SubscriptionRoutes(clock: clock, fetcher: fetcher, policy: FeedURLPolicy(allowPrivate: configuration.allowPrivateFeeds),
                           youTubeOrigin: configuration.youTubeOrigin).add(to: api)
        OPMLRoutes(clock: clock, fetcher: fetcher, policy: FeedURLPolicy(allowPrivate: configuration.allowPrivateFeeds)).add(to: api)
        let discoveryEnvironment = configuration.discoveryEnvironment ?? ProcessInfo.processInfo.environment
        DiscoverRoutes(clock: clock, fetcher: fetcher, policy: FeedURLPolicy(allowPrivate: configuration.allowPrivateFeeds),
                       youTubeOrigin: configuration.youTubeOrigin,
                       settings: Result { () throws(DiscoveryError) in try DiscoverySettings(environment: discoveryEnvironment) }).add(to: api)
        SavedVideoRoutes(clock: clock, fetcher: fetcher, policy: FeedURLPolicy(allowPrivate: configuration.allowPrivateFeeds)).add(to: api)
        CollectionRoutes(clock: clock).add(to: api)
        SharingRoutes(clock: clock, publicURL: configuration.publicURL, fetcher: fetcher,
                      policy: FeedURLPolicy(allowPrivate: configuration.allowPrivateFeeds)).add(to: api)
        QueueRoutes(clock: clock).add(to: api)
        AudioRoutes(fetcher: fetcher, reach: FeedURLPolicy(allowPrivate: configuration.allowPrivateFeeds).reach,
                    downloads: configuration.mediaDirectory.map { DownloadStore(directory: $0) },
                    streams: AudioStreamGate(configuration.audioStreams), resolved: ResolvedAudioURLs(),
                    connections: connections, clock: clock).add(to: api)
        // One hub for the server's event streams: removing an account ends its user's.
        let hub = changes.map { ChangeHub(feed: $0, users: authenticator.users, settings: configuration.changeStreams, now: clock, log: log) }
        let removal = AccountRemoval(authenticator: authenticator, hub: hub, downloads: configuration.mediaDirectory.map { DownloadStore(directory: $0) },
                                     secure: configuration.tls != nil, log: log)
        UserRoutes(authenticator: authenticator, removal: removal, clock: clock).add(to: api)
        AccountRoutes(authenticator: authenticator, removal: removal, provider: signOn?.settings.providerName, clock: clock, log: log).add(to: api)
        signOnRoutes.addPrivate(to: api)
        EventRoutes(hub: hub, connections: connections).add(to: api)
        let player = router.group("api").add(middleware: AuthMiddleware(authenticator: authenticator)).add(middleware: OwnerOnlyMiddleware())
        PlayerRoutes(remote: PlayerRemote(socketPath: configuration.socketPath, database: configuration.database,
                                          mediaDirectory: configuration.mediaDirectory,
                                          streams: configuration.playerStreams),
                     policy: FeedURLPolicy(allowPrivate: configuration.allowPrivateFeeds)).add(to: player)
        // gpodder.net sync: its own credentials (Basic or its session cookie) in every mode.
        GPodderRoutes(auth: GPodderAuth(accounts: gpodder, clock: clock, attempts: authenticator.logins?.attempts ?? LoginAttempts(),
                                         secure: configuration.tls != nil, passwordSignIn: configuration.passwordSignIn),
                      clock: clock, fetcher: fetcher,
                      policy: FeedURLPolicy(allowPrivate: configuration.allowPrivateFeeds),
                      youTubeOrigin: configuration.youTubeOrigin).add(to: router)

        return router
    }

    /// Everything the server fetches for its clients (feeds, pages, syncs) goes through one
    /// fetcher that connects only to public addresses (`AddressPolicy`), unless
    /// `--allow-private-feeds`: `FeedURLPolicy` refuses a local URL up front with a clear
    /// message, and this catches what it cannot see (a redirect, a page's feed link, a name
    /// that resolves differently at fetch time).
    static func fetcher(_ configuration: ServerConfiguration) -> Fetcher {
        configuration.allowPrivateFeeds ? .shared : .publicOnly
    }
}

/// `/health`, as the backend answers it.
struct Health: ResponseEncodable, Sendable {
    var status: String
    var version: String
}

/// `/api/auth/mode`: the backend's `AuthModeResponse`, and the sign-in button of single sign-on
/// (null when it is off), which the web app's login page shows.
struct AuthMode: ResponseEncodable, Sendable {
    var mode: String
    var allowGuest: Bool
    @Nullable var singleSignOn: SingleSignOnButton?
    enum CodingKeys: String, CodingKey { case mode, allowGuest = "allow_guest", singleSignOn = "single_sign_on" }
}

/// "Sign in with PROVIDER", and where it goes.
struct SingleSignOnButton: Encodable, Sendable {
    var provider: String
    var loginURL: String
    enum CodingKeys: String, CodingKey { case provider, loginURL = "login_url" }
}


extension FeedItemResponse: ResponseEncodable {}
extension FeedItemDetailResponse: ResponseEncodable {}
extension UpNextResponse: ResponseEncodable {}
extension FeedItemWithNotesResponse: ResponseEncodable {}
extension ChannelGroupedFeedResponse: ResponseEncodable {}
extension ChannelResponse: ResponseEncodable {}
extension ChannelListResponse: ResponseEncodable {}
extension SyncResultResponse: ResponseEncodable {}
