import Foundation

/// A tiny stdlib Python HTTP server on 127.0.0.1 (port 0) serving a directory, plus two traps:
/// `/redirect-to-file` (302 to a file:// URL) and `/hang` (accepts, never answers).
final class HTTPFixtureServer {
    private static let script = """
    import http.server, os, sys, time
    root = sys.argv[1]
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k): super().__init__(*a, directory=root, **k)
        def log_message(self, *a): pass
        def do_GET(self):
            if self.path.startswith('/redirect-to-file'):
                self.send_response(302)
                self.send_header('Location', 'file://' + os.path.join(root, 'tone.mp3'))
                self.end_headers()
                return
            if self.path.startswith('/hang'):
                time.sleep(60)
                return
            super().do_GET()
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """

    private let process = Process()
    let baseURL: String

    init(serving directory: URL) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", Self.script, directory.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw ProcessRunner.Failure(description: "the test HTTP server did not start")
        }
        baseURL = "http://127.0.0.1:\(port)"
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
