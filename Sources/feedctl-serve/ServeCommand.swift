import APIServer
import ArgumentParser
import CLISupport
import CMalloc
import FeedModel
import Foundation
import Hummingbird
import LibraryStore
import NIOCore
import NIOPosix
import UserConfig

/// `feedctl serve`: the HTTP API over the library, in its own process (the daemon's memory is
/// unaffected). This only wires the parts: the library, the authenticator, the application.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedctl serve",
        abstract: "Serve the library over HTTP (the WebSearch app's API).",
        version: FeedctlVersion.current)
    @OptionGroup var library: LibraryOptions
    @OptionGroup var media: MediaOptions
    @OptionGroup var socket: SocketOptions
    @Option(help: ArgumentHelp("Address to listen on.", valueName: "host:port"))
    var listen = "127.0.0.1:8000"
    @Flag(help: "One owner, no login: every request acts for the library's owner (loopback only). Without it, logins (tokens) on any --listen.")
    var open = false
    @Option(help: ArgumentHelp("Allow browsers on this origin to call the API (default: no CORS).", valueName: "origin"))
    var cors: String?
    @Flag(help: "Allow subscribing to feeds on loopback, private or link-local addresses.")
    var allowPrivateFeeds = false
    @Option(help: ArgumentHelp("With --open, also answer requests sent to this host name (default: only localhost, 127.0.0.1 and [::1]).",
                               valueName: "name"))
    var allowedHost: [String] = []
    @Option(help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).", valueName: "path"))
    var tlsCert: String?
    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "path"))
    var tlsKey: String?
    @Option(help: ArgumentHelp("Serve the web app from this directory (default: ../share/feedctl/web beside the program, else the source checkout's web/).",
                               valueName: "dir"))
    var webRoot: String?

    /// A `--listen` that cannot be read is a usage error (64), found before anything runs.
    func validate() throws {
        if case .failure(let error) = ServerConfiguration.listenAddress(listen) { throw ValidationError(error.description) }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
    }

    /// Each answer allocates and frees a few hundred KB (its rows, its JSON, its buffer) on the
    /// event loop's malloc arena; with glibc's default trim threshold every free at the top of
    /// the arena gave pages back (madvise, ~1.3 per request, and a TLB shootdown on the other
    /// core each time). Free memory up to this much stays in the arena instead.
    static let mallocTrimThreshold: Int32 = 4 << 20

    func run() async throws {
        mallopt(M_TRIM_THRESHOLD, Self.mallocTrimThreshold)
        try await runReporting {
            guard case .success(let address) = ServerConfiguration.listenAddress(listen) else { return }
            var configuration = ServerConfiguration(host: address.host, port: address.port, open: open, corsOrigin: cors,
                                                    allowPrivateFeeds: allowPrivateFeeds, version: FeedctlVersion.current,
                                                    socketPath: socket.path, database: library.db,
                                                    tls: tlsCert.flatMap { cert in tlsKey.map { TLSFiles(certificate: cert, key: $0) } })
            configuration.allowedHosts = Set(allowedHost.map { $0.lowercased() })
            configuration.webRoots = webRoot.map { [$0] } ?? Self.webRoots()
            // Discovery's providers as the config file's [discover] says, the environment over it;
            // single sign-on as its [oidc] says; the address published collections' links are under
            // ([server] public_url).
            let config: Config
            let environment = ProcessInfo.processInfo.environment
            do throws(ConfigError) {
                config = try Config.load(path: Config.defaultPath(environment: environment))
            } catch {
                throw CommandError(error.description)
            }
            configuration.discoveryEnvironment = config.discoveryEnvironment(overlaying: environment)
            configuration.singleSignOn = try Self.singleSignOn(config)
            configuration.passwordSignIn = config.oidcForbidPasswordLogin ? .onlyWithoutIdentity : .everyone
            configuration.publicURL = config.publicURL
            // Checked before the library is opened: a refusal changes nothing.
            if let refusal = configuration.check(hasAuthenticator: true) { throw CommandError(refusal.description) }
            // Downloaded episodes are served from here (`/api/items/{id}/audio`), and a daemon
            // the server starts plays them from here.
            configuration.mediaDirectory = try media.directory(for: library)
            // A new server may start before anything is subscribed: it makes the library.
            let database = try await library.openDatabase(creating: true, announce: log)
            let owner = database.owner
            let settings = configuration
            let authenticator: any Authenticator
            let mode: String
            if open {
                authenticator = OpenOwner(library: owner, users: owner)
                mode = "open mode: no login, every request acts for the library's owner; loopback only"
            } else {
                authenticator = TokenAuthenticator(users: owner, library: { database.store(for: $0) })
                mode = "logins: every request but /health and /api/auth/* needs a token from POST /api/auth/login"
                    + (settings.singleSignOn.map { "; single sign-on through \($0.providerName) (\($0.client.issuer))" } ?? "")
            }
            if open && settings.singleSignOn != nil { log("single sign-on ([oidc]) is off in --open mode, which has no logins") }
            // Said at start, so nobody wonders why every login fails.
            let canLogIn = open || settings.singleSignOn != nil ? true : try await owner.users().contains(where: \.hasPassword)
            let app: any ApplicationProtocol
            do {
                // gpodder.net sync checks its own credentials (a user with a password), whatever the mode.
                let gpodder = GPodderAccounts(users: owner, library: { database.store(for: $0) })
                app = try APIServer.application(configuration: settings, authenticator: authenticator, gpodder: gpodder,
                                                changes: database.changes, shared: owner.sharedCollections, log: log,
                                                afterStorm: { Self.giveMemoryBack(log: log) },
                                                onListening: { port in
                                                    log("listening on \(settings.scheme)://\(Self.hostForURL(address.host)):\(port) (\(mode))")
                                                    if !canLogIn {
                                                        log("no user can log in yet (none has a password): make one with"
                                                            + " `feedctl user add NAME --admin --password-stdin`, or set one with `feedctl user passwd NAME`")
                                                    }
                                                })
            } catch {
                throw CommandError("\(error)")
            }
            do {
                try await withTaskExecutorPreference(EventLoopsExecutor(MultiThreadedEventLoopGroup.singleton)) {
                    try await app.runService()
                }
            } catch let error as IOError {
                if let failure = Self.listenFailure(error, address: "\(Self.hostForURL(address.host)):\(address.port)") { throw failure }
                throw error
            }
        }
    }

    /// What a failed bind means for the person who chose `--listen` (NIO says
    /// `bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`); nil for other errors.
    static func listenFailure(_ error: IOError, address: String) -> CommandError? {
        let why: String
        switch error.errnoCode {
        case EADDRINUSE: why = "the address is in use (another feedctl serve, or another server)"
        case EACCES: why = "permission denied (ports below 1024 need privileges)"
        case EADDRNOTAVAIL: why = "no network interface of this machine has that address"
        default: return nil
        }
        return CommandError("can't listen on \(address): \(why); pick another address with --listen HOST:PORT")
    }

    /// Where the web app's files are looked for without `--web-root`: installed beside the
    /// program (`PREFIX/bin/../share/feedctl/web`), else the checkout this was built from
    /// (`swift run`, the tests).
    static func webRoots(filePath: String = #filePath) -> [String] {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
        let program = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let installed = program.appendingPathComponent("../share/feedctl/web").standardizedFileURL.path
        let checkout = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("../../web").standardizedFileURL.path
        return [installed, checkout]
    }

    /// `[oidc]` as the server runs with it; nil when it is off (neither issuer nor client id
    /// set). Each key was checked when the file was read; here, that they make a whole.
    static func singleSignOn(_ config: Config) throws(CommandError) -> SingleSignOnSettings? {
        switch (config.oidcIssuer, config.oidcClientID) {
        case (nil, nil):
            let others = Config.settings.filter { $0.name.hasPrefix("oidc.") && $0.name != "oidc.forbid_password_login" && $0.isSet(in: config)
                && $0.text(in: config) != $0.text(in: Config()) }
            if let first = others.first { throw CommandError("\(first.name) is set but single sign-on is off: set oidc.issuer and oidc.client_id too") }
            return nil
        case (let issuer?, let clientID?):
            return SingleSignOnSettings(issuer: issuer, clientID: clientID, clientSecret: config.oidcClientSecret,
                                        scopes: config.singleSignOnScopes, providerName: config.oidcProviderName, redirectURI: config.oidcRedirectURI,
                                        allowSignup: config.oidcAllowSignup, linkVerifiedEmail: config.oidcLinkVerifiedEmail,
                                        mobileRedirectURIs: config.oidcMobileRedirectURIs)
        case (nil, _): throw CommandError("oidc.client_id is set without oidc.issuer: set both for single sign-on (feedctl config set oidc.issuer URL)")
        case (_, nil): throw CommandError("oidc.issuer is set without oidc.client_id: set both for single sign-on (feedctl config set oidc.client_id ID)")
        }
    }

    static func hostForURL(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// After a storm of connections (`ConnectionLimits.stormConnections`) the memory they took
    /// is free but stays in malloc's arenas, scattered between what is still in use, so the
    /// trim threshold never returns it (RSS stayed at 280 MB after 20,000 idle connections):
    /// `malloc_trim` gives every free page of every arena back.
    static func giveMemoryBack(log: (String) -> Void) {
        let before = residentKB()
        malloc_trim(0)
        let after = residentKB()
        log("connection storm over: memory given back to the system (resident \(before / 1024) MB -> \(after / 1024) MB)")
    }

    /// This process's resident memory in KB (`/proc/self/statm`'s second field, in pages).
    static func residentKB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}

extension ServeCommand {
    /// Errors as one line on stderr (`feedctl: …`), as the CLI prints them.
    static func main() async {
        await mainWithOneLineErrors()
    }
}
