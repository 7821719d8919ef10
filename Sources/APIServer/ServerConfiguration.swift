/// How `feedctl serve` was started, checked before anything listens.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0: any free port (the tests'), reported once the server listens.
    public var port: Int
    /// `--open`: one owner, no login (loopback only).
    public var open: Bool
    /// `--cors ORIGIN`: the one origin browsers may call from; nil is no CORS headers at all.
    public var corsOrigin: String?
    /// `--allow-private-feeds`: feeds on loopback or private addresses may be subscribed.
    public var allowPrivateFeeds: Bool
    /// `--allowed-host NAME`: in `--open` mode, `Host` names answered besides the loopback ones
    /// (`CrossSiteMiddleware`), lowercased.
    public var allowedHosts: Set<String> = []
    /// What `/health` reports.
    public var version: String
    /// Where YouTube's pages and feeds live; tests point it at their own server.
    public var youTubeOrigin: String
    /// The player daemon's control socket (`--socket`), for `/api/player`.
    public var socketPath: String
    /// The library a daemon that `/api/player/play` starts opens (`--db`; nil: its default).
    public var database: String?
    /// `--tls-cert`/`--tls-key`: serve HTTPS with these PEM files; nil is plain HTTP (behind a
    /// reverse proxy that terminates TLS, or on loopback).
    public var tls: TLSFiles?
    /// The variables discovery's providers are configured from (`DiscoverySettings`): the config
    /// file's `[discover]` under the process's environment (`feedctl serve`); nil: the
    /// environment alone.
    public var discoveryEnvironment: [String: String]?
    /// How many `/api/player/events` streams are served, per user and in all.
    public var playerStreams = PlayerStreamLimits()
    /// How `/api/events` streams are served: how many, how often the change log is read.
    public var changeStreams = ChangeStreamSettings()
    /// The media directory (`--media-dir`; `DownloadStore`): `/api/items/{id}/audio` serves
    /// downloaded episodes from it, and a daemon `/api/player/play` starts plays them from it;
    /// nil: the server proxies every item (and a daemon it starts finds its own).
    public var mediaDirectory: String?
    /// How many `/api/items/{id}/audio` streams are proxied, per user and in all.
    public var audioStreams = AudioStreamLimits()
    /// Where the web app's files (`web/`) are looked for, in order (`--web-root`, else beside the
    /// program, else the package checkout): the first holding `index.html` is served. None found:
    /// `/` says so and names these.
    public var webRoots: [String] = []
    /// The bounds on connections (`ConnectionLimits`; tests shorten them).
    public var connections = ConnectionPolicy()
    /// `[oidc]`: single sign-on through an OpenID provider, beside passwords; nil: none.
    public var singleSignOn: SingleSignOnSettings?
    /// `oidc.forbid_password_login`: whether users with a single sign-on identity may sign in
    /// with a password (the API's login, gpodder's Basic sign-in).
    public var passwordSignIn = PasswordSignIn.everyone
    /// The address others reach this server at (the config file's `server.public_url`:
    /// `https://feeds.example.org`, a path prefix allowed; `ShareLinks` drops a trailing `/`): published
    /// collections' links are whole URLs with it. Nil: their links are paths, and the RSS and
    /// page make theirs whole from the request's `Host`.
    public var publicURL: String?

    public init(host: String = "127.0.0.1", port: Int = 8000, open: Bool = false, corsOrigin: String? = nil,
                allowPrivateFeeds: Bool = false, version: String = "", youTubeOrigin: String = "https://www.youtube.com",
                socketPath: String = "/nonexistent/player.sock", database: String? = nil, tls: TLSFiles? = nil,
                discoveryEnvironment: [String: String]? = nil) {
        self.host = host; self.port = port; self.open = open; self.corsOrigin = corsOrigin
        self.allowPrivateFeeds = allowPrivateFeeds; self.version = version; self.youTubeOrigin = youTubeOrigin
        self.socketPath = socketPath; self.database = database; self.tls = tls; self.discoveryEnvironment = discoveryEnvironment
    }

    /// `http` or `https`, as the start line and the cookie's `Secure` need it.
    public var scheme: String { tls == nil ? "http" : "https" }

    /// `HOST:PORT`, `[V6]:PORT` or `:PORT` (loopback); nil with what is wrong.
    public static func listenAddress(_ text: String) -> Result<(host: String, port: Int), ServerStartError> {
        let bad = ServerStartError("--listen takes HOST:PORT (e.g. 127.0.0.1:8000), not \"\(text)\"")
        guard let colon = text.lastIndex(of: ":") else { return .failure(bad) }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "127.0.0.1" }
        guard let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { return .failure(bad) }
        return .success((host, port))
    }

    /// 127.0.0.0/8, ::1 and localhost.
    public static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "::1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Refuses what must not start: no authenticator without `--open`, and `--open` anywhere
    /// but loopback (it would hand the library to anyone who can reach the port).
    public func check(hasAuthenticator: Bool) -> ServerStartError? {
        if open && !Self.isLoopback(host) {
            return ServerStartError("--open serves the library without login, so only on loopback (127.0.0.1, ::1, localhost), not \(host)")
        }
        if !open && !hasAuthenticator {
            return ServerStartError("no login is available yet: start with --open (one owner, no login, loopback only)")
        }
        return nil
    }
}

/// Why the server did not start: one line.
public struct ServerStartError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
