import Foundation

/// `Tests/Support/http_server.py` on 127.0.0.1 at a free port, serving `root` (with byte ranges,
/// which FFmpeg uses to seek). Closing its stdin ends it.
final class HTTPFixtureServer {
    let port: Int
    let root: URL
    private let process = Process()
    private let input = Pipe()

    var base: String { "http://127.0.0.1:\(port)" }

    init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path, "--root", root.path]
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
            throw ProcessRunner.Failure(description: "http_server.py did not print a port (got \(text.debugDescription))")
        }
        self.port = port
    }

    deinit { stop() }

    func url(_ path: String) -> String { base + path }

    /// Writes a file under the served root.
    func write(_ relativePath: String, _ contents: Data) throws {
        let file = root.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: file)
    }

    func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    /// `<package root>/Tests/Support/http_server.py`, found from this file's path.
    static let script: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // feedctlTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Support/http_server.py")
}
