import Foundation

/// `Tests/Support/http_server.py` on 127.0.0.1 at a free port, serving `root` (a fresh temp
/// directory unless given) with ETags, byte ranges and the test routes the script lists.
/// Stopped by `stop()` or when released: closing its stdin ends it.
public final class TestHTTPServer {
    public typealias Failure = ProcessRunner.Failure

    /// What the server saw (`GET /stats`).
    public struct Stats: Decodable {
        public struct Entry: Decodable {
            public let path: String
            public let status: Int
            public let encoding: String?
            public let sent: Int
            /// The request's query string (without `?`) and header fields, as received.
            public let query: String?
            public let headers: [String: String]?
            /// When the request came and when it was answered (or its client hung up), Unix seconds.
            public let started: Double?
            public let ended: Double?
        }
        public let hits: [String: Int]
        public let log: [Entry]
        public let connections: Int
        public let max_inflight: Int
        /// Per path, the most requests in flight at once (a feed two pollers fetch together: 2).
        public let max_overlap: [String: Int]
        /// Per path, the requests in flight now.
        public let inflight: [String: Int]

        public func statuses(_ path: String) -> [Int] { log.filter { $0.path == path }.map(\.status) }
    }

    public let port: Int
    public let root: URL
    private let process = Process()
    private let input = Pipe()
    private let ownsRoot: Bool

    private let scheme: String
    public var base: String { "\(scheme)://127.0.0.1:\(port)" }

    /// With `tls`, HTTPS with a self-signed certificate (which a verifying client must refuse).
    public init(root: URL? = nil, tls: Bool = false) throws {
        scheme = tls ? "https" : "http"
        ownsRoot = root == nil
        self.root = root ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("feedctl-http-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)

        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path, "--root", self.root.path] + (tls ? ["--tls"] : [])
        process.standardInput = input
        process.standardOutput = output
        try process.run()

        // The first stdout line is the port; EOF before it means the server died.
        let text = Self.firstLine(of: output.fileHandleForReading, timeout: 20)
        guard let text, let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw Failure(description: "http_server.py did not print a port within 20 s (got \(text.debugDescription))")
        }
        self.port = port
    }

    deinit { stop() }

    public func url(_ path: String) -> String { base + path }

    /// Writes a file under the served root.
    public func write(_ relativePath: String, _ contents: Data) throws {
        let file = root.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: file)
    }

    /// Writes a UTF-8 text file under the served root.
    public func write(_ relativePath: String, _ contents: String) throws {
        try write(relativePath, Data(contents.utf8))
    }

    /// The server's counters, read with the curl CLI so the check doesn't go through the code
    /// under test.
    public func stats() throws -> Stats {
        let result = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--insecure", "--max-time", "10", url("/stats")],
                                               timeout: 15)
        guard result.status == 0 else { throw Failure(description: "curl \(url("/stats")): \(result.stderr)") }
        return try JSONDecoder().decode(Stats.self, from: Data(result.stdout.utf8))
    }

    /// Stats once the server has logged `count` requests to `path` (a handler whose client
    /// hung up logs a moment later). Gives up after ~10 s.
    public func stats(afterLogging count: Int, of path: String) throws -> Stats {
        for _ in 0..<200 {
            let s = try stats()
            if s.log.filter({ $0.path == path }).count >= count { return s }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Failure(description: "the server never logged \(count) requests to \(path)")
    }

    public func stop() {
        guard process.isRunning else { return cleanUp() }
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
        cleanUp()
    }

    private func cleanUp() {
        if ownsRoot { try? FileManager.default.removeItem(at: root) }
    }

    /// The first line a process writes to `handle`, or nil at EOF or after `timeout` seconds (the
    /// reader is left blocked until the caller ends the process, which closes the pipe).
    public static func firstLine(of handle: FileHandle, timeout: Double) -> String? {
        let line = LineBox()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var data = Data()
            while !data.contains(UInt8(ascii: "\n")) {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
            }
            line.set(String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init))
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return line.value
    }

    /// `<package root>/Tests/Support/http_server.py`, found from this file's path.
    static let script: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Support/http_server.py")
}

/// The port line, handed from the reading thread.
private final class LineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?
    func set(_ value: String?) { lock.withLock { stored = value } }
    var value: String? { lock.withLock { stored } }
}
