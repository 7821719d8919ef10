import Foundation

/// `Tests/Support/http_server.py` on 127.0.0.1 at a free port, serving `root` (a fresh temp
/// directory unless given). Stopped by `stop()` or when released: closing its stdin ends it.
final class TestHTTPServer {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// What the server saw (`GET /stats`).
    struct Stats: Decodable {
        struct Entry: Decodable {
            let path: String
            let status: Int
            let encoding: String?
            let sent: Int
        }
        let hits: [String: Int]
        let log: [Entry]
        let connections: Int
        let max_inflight: Int

        func statuses(_ path: String) -> [Int] { log.filter { $0.path == path }.map(\.status) }
    }

    let port: Int
    let root: URL
    private let process = Process()
    private let input = Pipe()
    private let ownsRoot: Bool

    private let scheme: String
    var base: String { "\(scheme)://127.0.0.1:\(port)" }

    /// With `tls`, HTTPS with a self-signed certificate (which a verifying client must refuse).
    init(root: URL? = nil, tls: Bool = false) throws {
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
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text.split(separator: "\n").first ?? "") else {
            process.terminate()
            throw Failure(description: "http_server.py did not print a port (got \(text.debugDescription))")
        }
        self.port = port
    }

    deinit { stop() }

    func url(_ path: String) -> String { base + path }

    /// Writes a file under the served root.
    func write(_ relativePath: String, _ contents: String) throws {
        let file = root.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: file)
    }

    /// The server's counters, read with the curl CLI so the check doesn't go through the code
    /// under test.
    func stats() throws -> Stats {
        let curl = Process()
        let out = Pipe()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sS", "--insecure", "--max-time", "10", url("/stats")]
        curl.standardOutput = out
        try curl.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return try JSONDecoder().decode(Stats.self, from: data)
    }

    /// Stats once the server has logged `count` requests to `path` (a handler whose client
    /// hung up logs a moment later). Gives up after ~10 s.
    func stats(afterLogging count: Int, of path: String) throws -> Stats {
        for _ in 0..<200 {
            let s = try stats()
            if s.log.filter({ $0.path == path }).count >= count { return s }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Failure(description: "the server never logged \(count) requests to \(path)")
    }

    func stop() {
        guard process.isRunning else { return cleanUp() }
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
        cleanUp()
    }

    private func cleanUp() {
        if ownsRoot { try? FileManager.default.removeItem(at: root) }
    }

    /// `<package root>/Tests/Support/http_server.py`, found from this file's path.
    static let script: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // FeedIngestTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Support/http_server.py")
}
