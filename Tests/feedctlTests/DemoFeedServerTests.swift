import Foundation
import TestSupport
import XCTest

/// The demo serves its feeds with `Tests/Support/http_server.py` and shows that server's stderr.
/// The player daemon drops connections it no longer needs (a reset), and socketserver printed a
/// 20-line Python traceback for each, in the middle of the demo's progress lines (seen running the
/// demo for issue 26's audit). A client hanging up is no error: the server says nothing.
final class DemoFeedServerTests: XCTestCase {
    /// Starts the server with its stderr captured, resets two connections (one idle, one after an
    /// answer, as the daemon's are), stops it and prints what it wrote to stderr.
    static let client = #"""
        import socket, struct, subprocess, sys, time
        script, root = sys.argv[1], sys.argv[2]
        server = subprocess.Popen([sys.executable, script, "--root", root], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        port = int(server.stdout.readline())
        for request in (b"", b"GET /feed.xml HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"):
            client = socket.create_connection(("127.0.0.1", port))
            if request:
                client.sendall(request)
                client.recv(65536)
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.close()
        time.sleep(0.5)
        server.stdin.close()
        sys.stdout.write(server.stderr.read().decode())
        """#

    func testAClientThatHangsUpPrintsNothing() throws {
        let root = try PackagePaths.temporaryDirectory(self)
        try "<rss/>".write(to: root.appendingPathComponent("feed.xml"), atomically: true, encoding: .utf8)
        let script = PackagePaths.root.appendingPathComponent("Tests/Support/http_server.py").path
        let run = try ProcessRunner.capture("python3", ["-c", Self.client, script, root.path], timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "", "the server's stderr")
    }
}
