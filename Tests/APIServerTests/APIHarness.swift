import APIServer
import FeedModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import LibraryStore
import NIOCore
import NIOPosix
import Logging
import ServiceLifecycle
import TestSupport
import XCTest

/// The real server on 127.0.0.1 (a free port) over a real library (a file in a temp dir, or a
/// PostgreSQL database of its own: `FEEDCTL_TEST_ENGINE`, see `StoreEngine.underTest()`), the
/// fixtures served by the test HTTP server on 127.0.0.1, and URLSession as the client.
final class APIHarness: @unchecked Sendable {
    /// 2026-11-20T00:00:00Z: the demo podcast's episodes are 6, 13 and 20 days old.
    static let now: Int64 = 1_795_132_800
    /// The library the server serves, on the engine under test.
    let database: TestDatabase
    /// The test's own files (a media directory, curl's output, a second library's OPML).
    let dir: TempDir
    let feeds: TestHTTPServer
    let base: String
    let log = LogLines()
    /// The server's clock (sessions are created and checked by it): `now` until a test moves it.
    let clock = TestClock(APIHarness.now)
    /// The token `call` sends (`Authorization: Bearer`) unless it is given one.
    var token: String?
    private let group: ServiceGroup

    /// The owner's store (what the CLI acts for).
    var owner: any UserLibrary { database.owner }

    /// With `logins`, the server runs as `feedctl serve` without `--open` (`TokenAuthenticator`
    /// on the harness's clock); otherwise as `--open`. `authenticator` (made from the library)
    /// replaces either: tests of two users name the user per request. `loops`: the event loops
    /// the server and its tasks run on (NIO's shared ones unless given). `database`: a library
    /// made elsewhere (on a small file system); else a fresh one on the engine under test.
    /// `dir`: the test's directory, when its configuration names a place in it. `events`:
    /// `/api/events` streams the library's change log (without it, that route answers 503 at
    /// once, as the OpenAPI tests probe it).
    init(configuration: ServerConfiguration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true,
                                                                   allowPrivateFeeds: true, version: "test"),
         logins: Bool = false,
         events: Bool = false,
         loops: (any EventLoopGroup)? = nil,
         database: TestDatabase? = nil,
         dir: TempDir = TempDir(),
         afterStorm: @escaping @Sendable () -> Void = {},
         authenticator: (@Sendable (any LibraryDatabase) async throws -> any Authenticator)? = nil) async throws {
        if let database { self.database = database } else { self.database = try await TestDatabase.make() }
        self.dir = dir
        feeds = try TestHTTPServer()
        for name in ["podcast.xml", "youtube.xml", "atom.xml"] {
            try feeds.write(name, Data(contentsOf: PackagePaths.fixture("demo/\(name)")))
        }
        let ports = AsyncStream<Int>.makeStream()
        let log = self.log
        let clock = self.clock
        // Composed as `feedctl serve` composes it (Sources/feedctl-serve/ServeCommand.swift).
        let library = self.database.database
        let owner = library.owner
        let chosen: any Authenticator
        if let authenticator {
            chosen = try await authenticator(library)
        } else if logins {
            chosen = TokenAuthenticator(users: owner, library: { library.store(for: $0) }, clock: { clock.now })
        } else {
            chosen = OpenOwner(library: owner, users: owner)
        }
        var configuration = configuration
        if logins { configuration.open = false }
        if configuration.socketPath == ServerConfiguration().socketPath {
            // No player for this server, and none may start: a path under a plain file, where no
            // directory can be made. (The default, /nonexistent, is one root can create: a
            // `/api/player/resume` started a daemon there that outlived the tests.)
            let file = dir.file("no-player")
            _ = FileManager.default.createFile(atPath: file, contents: nil)
            configuration.socketPath = file + "/player.sock"
        }
        // gpodder sync checks its own credentials against the same library's users.
        let gpodder = GPodderAccounts(users: owner, library: { library.store(for: $0) })
        let app = try APIServer.application(configuration: configuration, authenticator: chosen, gpodder: gpodder,
                                            changes: events ? library.changes : nil, shared: owner.sharedCollections, clock: { clock.now }, log: { log.append($0) }, loops: loops, afterStorm: afterStorm,
                                            onListening: { ports.continuation.yield($0) })
        var logger = Logger(label: "APIHarness")
        logger.logLevel = .warning
        let group = ServiceGroup(services: [app], logger: logger)
        self.group = group
        // As `feedctl serve` runs it: its tasks on the event loops.
        let executor = EventLoopsExecutor(loops ?? MultiThreadedEventLoopGroup.singleton)
        Task { try await withTaskExecutorPreference(executor) { try await group.run() } }
        var iterator = ports.stream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ProcessRunner.Failure(description: "the server did not start") }
        base = "http://127.0.0.1:\(port)"
    }

    /// Stops the server as `feedctl serve` does on SIGTERM: gracefully.
    func stop() async { await group.triggerGracefulShutdown() }

    /// The server stops as `feedctl serve` does on SIGTERM: gracefully.
    deinit {
        let group = self.group
        Task { await group.triggerGracefulShutdown() }
    }

    struct Reply {
        var status: Int
        var body: Data
        var headers: [String: String]
        /// The body as JSON (an object or an array), failing the test when it is not.
        func json(file: StaticString = #filePath, line: UInt = #line) throws -> Any {
            try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        }
        func object(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
            try XCTUnwrap(try json() as? [String: Any], "not a JSON object: \(String(decoding: body, as: UTF8.self))", file: file, line: line)
        }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A client that keeps no cookies: a test sends the `session_token` cookie itself when it
    /// means to (URLSession.shared would store the login's and send it on every later call).
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return URLSession(configuration: configuration)
    }()

    /// One request; `body` is sent as given (a JSON text, or anything malformed). `token` (else
    /// the harness's) goes as `Authorization: Bearer`; no cookie is kept between calls.
    func call(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:],
              token: String? = nil) async throws -> Reply {
        var request = URLRequest(url: try XCTUnwrap(URL(string: base + path)))
        request.httpMethod = method
        request.httpShouldHandleCookies = false
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token = token ?? self.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.session.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Reply(status: http.statusCode, body: data, headers: fields)
    }

    /// One request made with curl, for the gpodder routes: their 401 carries `WWW-Authenticate:
    /// Basic`, on which URLSession on Linux waits forever when it has no credential to offer
    /// (swift-corelibs-foundation #5456), where a real client answers or gives up.
    func curl(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        let head = dir.file("curl-head-\(UUID().uuidString)"), out = dir.file("curl-body-\(UUID().uuidString)")
        var arguments = ["-sS", "--max-time", "30", "-X", method, "-D", head, "-o", out, "-w", "%{http_code}"]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        arguments.append(base + path)
        let command = arguments
        let result = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ProcessRunner.capture("/usr/bin/curl", command, timeout: 40) })
            }
        }
        let status = try XCTUnwrap(Int(result.stdout), "curl: \(result.stderr)")
        var fields: [String: String] = [:]
        for line in (try? String(contentsOfFile: head, encoding: .utf8))?.split(separator: "\r\n") ?? [] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, body: (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(), headers: fields)
    }

    /// A JSON object from a call that must answer `status`.
    func object(_ method: String, _ path: String, body: String? = nil, status: Int = 200, token: String? = nil,
                file: StaticString = #filePath, line: UInt = #line) async throws -> [String: Any] {
        let reply = try await call(method, path, body: body, token: token)
        XCTAssertEqual(reply.status, status, "\(method) \(path): \(reply.text)", file: file, line: line)
        return try reply.object(file: file, line: line)
    }
}

/// A clock a test moves (token expiry), or holds: after `hold()`, the next reading blocks the
/// thread it is read on until the test signals the semaphore (a long job, held where the test
/// wants it, on whatever thread the server runs it).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Int64
    private var holding: DispatchSemaphore?
    private let reached = DispatchSemaphore(value: 0)
    init(_ seconds: Int64) { self.seconds = seconds }
    var now: Int64 {
        lock.lock()
        let hold = holding
        holding = nil
        lock.unlock()
        if let hold {
            reached.signal()
            hold.wait()
        }
        lock.lock(); defer { lock.unlock() }; return seconds
    }
    func advance(by delta: Int64) { lock.lock(); seconds += delta; lock.unlock() }
    /// The next reading waits until the semaphore returned is signalled.
    func hold() -> DispatchSemaphore {
        let semaphore = DispatchSemaphore(value: 0)
        lock.lock(); holding = semaphore; lock.unlock()
        return semaphore
    }
    /// Whether a reading reached the hold within `seconds`.
    func held(within seconds: Double) -> Bool { reached.wait(timeout: .now() + seconds) == .success }
}

/// What the server logged.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}

/// Wire dates: ISO 8601, UTC, `Z`, no fraction.
func isWireDate(_ value: Any?) -> Bool {
    guard let text = value as? String else { return false }
    return text.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"#, options: .regularExpression) != nil
}
