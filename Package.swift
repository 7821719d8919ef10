// swift-tools-version:6.1
import PackageDescription

/// The installed programs link the Swift runtime and Foundation statically in release builds (an
/// installed feedctl needs no Swift toolchain beside it). For the programs that play, the
/// loader then maps and relocates ~20 fewer shared libraries, and only the code that is used is in
/// the binary. Peak memory while playing (bench/playback): the daemon 63.6 → 58.7 MB, the engine
/// 39.0 → 37.0 MB. Debug builds (and so the tests) stay dynamic: faster to link.
/// (The executable's own module is compiled with the flag too, so that its imports autolink the
/// static Foundation's own dependencies: CoreFoundation, ICU.)
let staticSwiftFlag: [String] = ["-static-stdlib"]
let staticSwiftInRelease: [LinkerSetting] = [.unsafeFlags(staticSwiftFlag, .when(configuration: .release))]
let staticSwiftModuleInRelease: [SwiftSetting] = [.unsafeFlags(staticSwiftFlag, .when(configuration: .release))]

/// The release link of the long-running programs (lld, which the toolchain ships) packs the
/// functions they run next to each other (`hot-functions.order` beside their sources, made by
/// scripts/link-order.sh for the daemon and scripts/link-order-serve.sh for the server): the
/// kernel maps code in 64 KB runs, so scattered hot code made most of it resident. Relative
/// relocations are packed (RELR: 16 KB instead of 2 MB for the loader to read; glibc ≥ 2.36),
/// and their symbols are not exported (no plugin looks them up; every library's symbol lookups
/// would search them first). The daemon's peak memory while playing: 56.7 → 47.5 MB
/// (bench/playback); the server's idle RSS: see bench/serve.
func packedLinkInRelease(_ target: String) -> [LinkerSetting] {
    [.unsafeFlags([
        "-use-ld=lld",
        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/\(target)/hot-functions.order",
        "-Xlinker", "--no-warn-symbol-ordering",
        "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xlinker", "--no-export-dynamic",
    ], .when(configuration: .release))]
}

let package = Package(
    name: "feedctl",
    // hummingbird-auth (HummingbirdBcrypt) declares macOS 14; feedctl is built for Linux.
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "feedctl", targets: ["feedctl"]),
        .executable(name: "feedctl-daemon", targets: ["feedctl-daemon"]),
        .executable(name: "feedctl-serve", targets: ["feedctl-serve"]),
        .library(name: "FeedIngest", targets: ["FeedIngest"]),
        .library(name: "PlayerCore", targets: ["PlayerCore"]),
        .library(name: "NowPlaying", targets: ["NowPlaying"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // Only its HummingbirdBcrypt product (bcrypt's C code, no Hummingbird) is used, by Accounts
        // (its HummingbirdOTP needs swift-crypto, which is resolved for it but never built).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // The HTTP server (`feedctl serve`). Its default traits are off: ConfigurationSupport
        // would build swift-configuration, which nothing here reads (options come from the
        // command line), and FullFoundation only changes how its form decoder formats dates.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        // Hummingbird's logger type (already one of its dependencies): the server's own log
        // level is set, so that its informational lines do not interleave with ours.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The error SwiftNIO throws for a request body past the cap (so it is a 413, not a 500).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `feedctl serve --tls-cert --tls-key`: HummingbirdTLS's certificate and key types (already
        // one of Hummingbird's dependencies; it builds its own BoringSSL).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.2"),
        // The tests stop the server gracefully through its service group (cancelling it logged
        // shutdown errors).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Thin C shims: one per C library, macros and variadics made callable.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // No pkgConfig: its `-lcurl` would link libcurl, which the shim loads with dlopen instead.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // The web app's assets, gzipped once at start (APIServer's WebApp).
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // OpenSSL's libcrypto, loaded with dlopen too; its three functions are declared in the shim.
        .systemLibrary(name: "CLibCrypto", providers: [.apt(["libssl3"])]),
        // glibc's mallopt (the server's trim threshold).
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev"])]),
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CSDBus", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libpq: the PostgreSQL store's client (LibraryPostgres).
        .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),

        // The feed side, bottom up (data flows network → parser → model → store → modes → CLI).
        .target(name: "FeedText"),
        .target(name: "FeedModel", dependencies: ["FeedText"]),
        .target(name: "HTTPFetch", dependencies: ["CCurl", "FeedModel", "FeedText"]),
        .target(name: "FeedParsing", dependencies: ["CLibXML2", "FeedModel", "FeedText"]),
        .target(name: "LibraryStore", dependencies: ["FeedModel"]),
        .target(name: "LibrarySQLite", dependencies: [
            "LibraryStore", "FeedModel", "CSQLite", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // The same protocols on PostgreSQL, through libpq (no GRDB, no LibrarySQLite).
        .target(name: "LibraryPostgres", dependencies: ["LibraryStore", "FeedModel", "CLibPQ"]),
        // The executables' one door to a library: `--db`/`FEEDCTL_DB` read as a SQLite path or a
        // PostgreSQL URL, the store that opens it, where its downloads go. The only module
        // (with the benchmarks and the tests) that names a concrete store.
        .target(name: "LibraryOpen", dependencies: ["LibraryStore", "LibrarySQLite", "LibraryPostgres", "Digests"]),
        .target(name: "FeedIngest", dependencies: ["FeedModel", "FeedText", "HTTPFetch", "FeedParsing", "LibraryStore"]),
        .target(name: "Downloads", dependencies: ["FeedModel", "HTTPFetch", "LibraryStore"]),
        // A user's data export (the API's and `user export`'s): one JSON document, written page by page.
        .target(name: "AccountExport", dependencies: ["FeedModel", "LibraryStore"]),
        // Discovery: providers (iTunes, Podcast Index, yt-dlp, Rumble's search pages, the
        // library) asked at once, merged, marked `subscribed`. Podcast Index signs with SHA-1.
        .target(name: "Discovery", dependencies: ["FeedModel", "FeedText", "HTTPFetch", "FeedParsing", "LibraryStore", "Digests"]),
        // SHA-256 and SHA-1 by the system's libcrypto (swift-crypto built a second BoringSSL,
        // beside swift-nio-ssl's, in every build: minutes of CI for two digests).
        .target(name: "Digests", dependencies: ["CLibCrypto"]),
        // Single sign-on's relying party: the provider's discovery document and keys fetched
        // (HTTPFetch), ID tokens verified by the system's libcrypto (RS256, ES256), PKCE.
        .target(name: "OpenIDConnect", dependencies: ["CLibCrypto", "Digests", "HTTPFetch", "FeedModel"]),
        // Passwords (bcrypt) and session tokens (random, stored as their SHA-256): what the
        // library never sees in the clear.
        .target(name: "Accounts", dependencies: [
            "FeedModel", "Digests", .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
        ]),
        .target(name: "NowPlaying"),
        // FFmpeg's log, kept per thread instead of printed (why an open failed).
        .target(name: "CFFmpegLog", dependencies: ["CFFmpeg"]),
        // Compiled and linked against Debian's FFmpeg (libavformat-dev); at run time the minimal
        // build of the same version comes first (scripts/build-ffmpeg.sh: ~21 MB less resident per
        // player), else Debian's: where scripts/install.sh puts it beside an installed binary
        // (found relative to the binary), then the build tree's .build/ffmpeg.
        .target(name: "PlayerCore", dependencies: ["CFFmpeg", "CFFmpegLog", "CPulse", "NowPlaying"],
                linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/feedctl/ffmpeg",
                                               "-Xlinker", "-rpath", "-Xlinker", "\(Context.packageDirectory)/.build/ffmpeg/lib"])]),
        // Benchmarks' entry point (bench/decode, bench/playback); not installed.
        .executableTarget(name: "playercore-bench", dependencies: ["PlayerCore", "NowPlaying"],
                          swiftSettings: staticSwiftModuleInRelease, linkerSettings: staticSwiftInRelease),
        // The player's control protocol: typed commands, replies and events, and their JSON lines.
        .target(name: "ControlProtocol", dependencies: ["FeedModel"]),
        // The private Unix socket: connections, the listener, the client, starting the daemon.
        .target(name: "ControlSocket", dependencies: ["ControlProtocol"]),
        // The config file ($XDG_CONFIG_HOME/feedctl/config.toml): typed settings, checked ranges.
        .target(name: "UserConfig", dependencies: ["FeedModel", .product(name: "TOMLKit", package: "TOMLKit")]),
        // What the executables share: option groups, output, one set of formatters and parsers.
        .target(name: "CLISupport", dependencies: [
            "ControlProtocol", "LibraryOpen", "LibraryStore", "FeedModel", "FeedText",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The player as a service: typed commands carried out, queue, sleep timer, speed memory,
        // progress written to the library.
        .target(name: "PlayerService", dependencies: [
            "PlayerCore", "NowPlaying", "ControlProtocol", "LibraryStore", "FeedModel", "FeedParsing", "FeedIngest", "HTTPFetch", "Downloads",
        ]),
        // MPRIS2 on the session bus (sd-bus).
        .target(name: "MPRIS", dependencies: ["CSDBus", "NowPlaying", "ControlProtocol", "FeedModel"]),
        // The CLI links no FFmpeg, PulseAudio or sd-bus: every `feedctl status` or `pause` would
        // otherwise pay ~70 ms for the dynamic loader to resolve FFmpeg's ~160 libraries.
        .executableTarget(name: "feedctl", dependencies: [
            "FeedModel", "FeedText", "HTTPFetch", "FeedParsing", "LibraryStore", "FeedIngest", "Downloads",
            "ControlProtocol", "ControlSocket", "CLISupport", "UserConfig", "Accounts", "Discovery", "LibraryOpen", "AccountExport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: staticSwiftModuleInRelease, linkerSettings: staticSwiftInRelease),
        // The player daemon (`feedctl daemon` runs it): PlayerCore, the control server, MPRIS.
        .executableTarget(name: "feedctl-daemon", dependencies: [
            "PlayerService", "PlayerCore", "MPRIS", "ControlSocket", "CLISupport", "FeedIngest", "Downloads", "FeedModel", "LibraryStore",
            "UserConfig", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], exclude: ["hot-functions.order"],
        swiftSettings: staticSwiftModuleInRelease, linkerSettings: staticSwiftInRelease + packedLinkInRelease("feedctl-daemon")),
        // The HTTP API (`feedctl serve`): routes, wire shapes, the mapping from the library's
        // types, the request context (whose store a request acts on), logins and the token check
        // (Accounts: bcrypt and session tokens).
        .target(name: "APIServer", dependencies: [
            "FeedModel", "FeedText", "FeedParsing", "LibraryStore", "FeedIngest", "HTTPFetch", "ControlProtocol", "ControlSocket", "Accounts", "Digests", "Discovery",
            "Downloads", "AccountExport", "OpenIDConnect",
            "CZlib",
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The server `feedctl serve` runs: its own process, so the daemon's memory is unaffected.
        .executableTarget(name: "feedctl-serve", dependencies: [
            "APIServer", "FeedIngest", "HTTPFetch", "LibraryStore", "CLISupport", "FeedModel", "UserConfig", "CMalloc",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], exclude: ["hot-functions.order"],
        swiftSettings: staticSwiftModuleInRelease, linkerSettings: staticSwiftInRelease + packedLinkInRelease("feedctl-serve")),

        // The parsers' fuzz target: a replay tool here; scripts/fuzz.sh builds it with libFuzzer
        // and ASan (-D FUZZING) and runs it for a bounded time over fuzz/corpus.
        .executableTarget(name: "feedctl-fuzz", dependencies: ["FeedParsing", "FeedModel"]),

        // Library benchmarks (bench/ingest, bench/modes); never run by `swift test`.
        .executableTarget(name: "feedctl-bench", dependencies: [
            "FeedModel", "FeedParsing", "LibraryStore", "LibrarySQLite", "Discovery", "HTTPFetch", .product(name: "GRDB", package: "GRDB.swift"),
        ]),

        // What the test targets share: headless PulseAudio, the test HTTP server, tool runner,
        // the corpus generator, a library in a temp dir.
        .target(name: "TestSupport", dependencies: [
            "FeedModel", "LibraryStore", "LibrarySQLite", "LibraryPostgres", .product(name: "GRDB", package: "GRDB.swift"),
        ], path: "Tests/TestSupport"),
        .testTarget(name: "LibraryPostgresTests", dependencies: ["LibraryPostgres", "LibraryStore", "FeedModel", "TestSupport"]),
        .testTarget(name: "FeedModelTests", dependencies: ["FeedModel", "FeedText"]),
        .testTarget(name: "FeedTextTests", dependencies: ["FeedText"]),
        .testTarget(name: "AccountsTests", dependencies: ["Accounts", "FeedModel"]),
        .testTarget(name: "UserConfigTests", dependencies: ["UserConfig"]),
        .testTarget(name: "CLISupportTests", dependencies: ["CLISupport"]),
        .testTarget(name: "LibraryOpenTests", dependencies: ["LibraryOpen", "LibraryStore", "LibrarySQLite", "LibraryPostgres", "FeedModel", "TestSupport"]),
        .testTarget(name: "FeedParsingTests", dependencies: ["FeedParsing", "FeedModel", "FeedText", "HTTPFetch", "TestSupport"]),
        .testTarget(name: "HTTPFetchTests", dependencies: ["HTTPFetch", "FeedText", "TestSupport"]),
        .testTarget(name: "LibrarySQLiteTests", dependencies: [
            "LibrarySQLite", "LibraryStore", "FeedModel", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // The store's conformance suite: written against the LibraryStore protocols only (no
        // engine's module), each test run on every engine `TestDatabase` can make.
        .testTarget(name: "StoreContractTests", dependencies: ["LibraryStore", "FeedModel", "TestSupport"]),
        .testTarget(name: "FeedIngestTests", dependencies: [
            "FeedIngest", "FeedParsing", "HTTPFetch", "LibrarySQLite", "LibraryStore", "FeedModel", "FeedText", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "DiscoveryTests", dependencies: [
            "Discovery", "HTTPFetch", "LibrarySQLite", "LibraryStore", "FeedModel", "FeedParsing", "TestSupport",
        ]),
        .testTarget(name: "DownloadsTests", dependencies: [
            "Downloads", "HTTPFetch", "LibrarySQLite", "LibraryStore", "FeedModel", "TestSupport",
        ]),
        .testTarget(name: "NowPlayingTests", dependencies: ["NowPlaying"]),
        .testTarget(name: "PlayerServiceTests", dependencies: [
            "PlayerService", "PlayerCore", "NowPlaying", "ControlProtocol", "FeedModel", "Downloads", "LibrarySQLite", "TestSupport",
        ]),
        .testTarget(name: "ControlProtocolTests", dependencies: ["ControlProtocol", "CLISupport"]),
        .testTarget(name: "PlayerCoreTests", dependencies: ["PlayerCore", "NowPlaying", "TestSupport"]),
        // ID tokens verified against a real OpenID provider and the test's own issuer on 127.0.0.1.
        .testTarget(name: "OpenIDConnectTests", dependencies: ["OpenIDConnect", "HTTPFetch", "TestSupport"]),
        .testTarget(name: "APIServerTests", dependencies: [
            "APIServer", "Accounts", "OpenIDConnect", "FeedIngest", "HTTPFetch", "LibrarySQLite", "LibraryStore", "FeedModel", "ControlProtocol", "TestSupport",
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .testTarget(name: "feedctlTests", dependencies: [
            "FeedModel", "LibraryStore", "LibrarySQLite", "LibraryOpen", "Downloads", "TestSupport", "Accounts",
        ]),
    ],
    swiftLanguageModes: [.v6]
)
