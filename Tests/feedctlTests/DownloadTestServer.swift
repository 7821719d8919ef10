import Foundation

/// `Tests/Support/http_server.py` on 127.0.0.1 for the download CLI tests, serving a fresh
/// temp directory; `/stats` tells what it saw. Closing its stdin stops it.
final class DownloadTestServer {
    struct Failure: Error, CustomStringConvertible { let description: String }
    struct Stats: Decodable {
        struct Entry: Decodable { let path: String; let status: Int; let sent: Int }
        let log: [Entry]
    }

    let port: Int
    let root: URL
    private let process = Process()
    private let input = Pipe()

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-dlcli-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let output = Pipe()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/http_server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--root", root.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw Failure(description: "http_server.py did not print a port")
        }
        self.port = port
    }

    deinit { stop() }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Read with the curl CLI, not the code under test.
    func stats() throws -> Stats {
        let curl = Process()
        let out = Pipe()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sS", "--max-time", "10", url("/stats")]
        curl.standardOutput = out
        try curl.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return try JSONDecoder().decode(Stats.self, from: data)
    }

    func stop() {
        if process.isRunning {
            try? input.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: root)
    }
}
