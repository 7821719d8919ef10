import APIServer
import FeedModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import LibrarySQLite
import Logging
import ServiceLifecycle
import TestSupport
import XCTest

/// The real server on 127.0.0.1 (a free port) over a real library file in a temp dir, the
/// fixtures served by the test HTTP server on 127.0.0.1, and URLSession as the client.
final class APIHarness: @unchecked Sendable {
    /// 2026-11-20T00:00:00Z: the demo podcast's episodes are 6, 13 and 20 days old.
    static let now: Int64 = 1_795_132_800
    let library: TestLibrary
    let feeds: TestHTTPServer
    let base: String
    let log = LogLines()
    private let group: ServiceGroup

    /// `authenticator` (made from the library) replaces `--open`'s owner: tests of two users
    /// name the user per request.
    init(configuration: ServerConfiguration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true,
                                                                   allowPrivateFeeds: true, version: "test"),
         authenticator: (@Sendable (SQLiteLibrary) async throws -> any Authenticator)? = nil) async throws {
        library = try TestLibrary()
        feeds = try TestHTTPServer()
        for name in ["podcast.xml", "youtube.xml", "atom.xml"] {
            try feeds.write(name, Data(contentsOf: PackagePaths.fixture("demo/\(name)")))
        }
        let ports = AsyncStream<Int>.makeStream()
        let log = self.log
        let chosen = try await authenticator?(library.library) ?? OpenOwner(library: library.library)
        let app = try APIServer.application(configuration: configuration, authenticator: chosen,
                                            clock: { APIHarness.now }, log: { log.append($0) },
                                            onListening: { ports.continuation.yield($0) })
        var logger = Logger(label: "APIHarness")
        logger.logLevel = .warning
        let group = ServiceGroup(services: [app], logger: logger)
        self.group = group
        Task { try await group.run() }
        var iterator = ports.stream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ProcessRunner.Failure(description: "the server did not start") }
        base = "http://127.0.0.1:\(port)"
    }

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

    /// One request; `body` is sent as given (a JSON text, or anything malformed).
    func call(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: try XCTUnwrap(URL(string: base + path)))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Reply(status: http.statusCode, body: data, headers: fields)
    }

    /// A JSON object from a call that must answer `status`.
    func object(_ method: String, _ path: String, body: String? = nil, status: Int = 200,
                file: StaticString = #filePath, line: UInt = #line) async throws -> [String: Any] {
        let reply = try await call(method, path, body: body)
        XCTAssertEqual(reply.status, status, "\(method) \(path): \(reply.text)", file: file, line: line)
        return try reply.object(file: file, line: line)
    }
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
