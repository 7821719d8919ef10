import Foundation
import TestSupport
import XCTest

/// The control socket: private permissions, one daemon per socket, stale sockets cleaned up,
/// autostart, and malformed requests answered without hurting the daemon.
final class DaemonSocketTests: DaemonTestCase {
    func mode(_ path: String) throws -> Int {
        try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    func testSocketAndDirectoryArePrivate() throws {
        try startDaemon()
        XCTAssertEqual(try mode(world.socket), 0o600)
        XCTAssertEqual(try mode((world.socket as NSString).deletingLastPathComponent), 0o700)
    }

    func testAutostartOnPlay() throws {
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.socket))
        let played = try feedctl("play", media.segments.path)
        XCTAssertEqual(played.status, 0, played.stderr)
        XCTAssertEqual(try status().string("status"), "playing")
        XCTAssertEqual(try mode(world.socket), 0o600)
        assertTone(try record(0.6), 440, "played by the autostarted daemon")
        // tearDown's `feedctl quit` ends it.
    }

    func testSecondDaemonRefuses() throws {
        try startDaemon()
        let second = try feedctl("daemon", "--socket", world.socket, "--db", world.db, "--sync-every", "0", timeout: 10)
        XCTAssertNotEqual(second.status, 0)
        XCTAssertEqual(second.stderr, "feedctl: another feedctl daemon is already running on \(world.socket)\n")
        XCTAssertEqual(try status().string("status"), "stopped", "the first daemon still answers")
        XCTAssertTrue(daemon?.isRunning ?? false)
    }

    /// The socket's path appears only once it answers (bound under `PATH~`, linked to PATH once
    /// it listens): a client that sees the path connects at once. Bound at PATH, it named a socket
    /// that refused connections until listen(2) (a test saw "errno 111" under load). A `~` left
    /// by a daemon that died between the two is no obstacle, and none is left behind.
    func testTheSocketPathAppearsOnlyWhenItAnswers() throws {
        let directory = (world.socket as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        XCTAssertTrue(FileManager.default.createFile(atPath: world.socket + "~", contents: Data("left".utf8)))
        let (process, _) = try launchDaemon(socket: world.socket)
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: world.socket), process.isRunning, Date() < deadline { usleep(200) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: world.socket), "the daemon never made its socket")
        XCTAssertNoThrow(try ControlSocket(path: world.socket), "the path appeared before the socket answered")
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.socket + "~"))
        XCTAssertEqual(try mode(world.socket), 0o600)
    }

    /// `feedctl daemon --help` shows the daemon's own options (it used to show a stub whose
    /// help said to run `feedctl daemon --help`), and out-of-range durations are refused in one
    /// line instead of overflowing later.
    func testDaemonHelpAndOptionBounds() throws {
        let help = try feedctl("daemon", "--help", timeout: 10)
        XCTAssertEqual(help.status, 0, help.stderr)
        for option in ["--detach", "--sync-every", "--seek-step", "--speed", "--socket", "--db"] {
            XCTAssertTrue(help.stdout.contains(option), "\(option) missing from \(help.stdout)")
        }
        let huge = try feedctl("daemon", "--socket", world.socket, "--db", world.db, "--sync-every", "1e300", timeout: 10)
        XCTAssertEqual(huge.status, 64)
        XCTAssertEqual(huge.stderr, "feedctl: --sync-every must be a number from 0 to 10080 (minutes), not 1e+300\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.socket))
    }

    func testStaleSocketIsCleanedUp() throws {
        let first = try startDaemon()
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        XCTAssertTrue(FileManager.default.fileExists(atPath: world.socket), "kill -9 should leave the socket file behind")
        XCTAssertThrowsError(try ControlSocket(path: world.socket), "nobody should answer on a stale socket")

        // A control verb reports that no daemon runs (it doesn't hang on the stale socket)…
        let pause = try feedctl("pause", timeout: 10)
        XCTAssertNotEqual(pause.status, 0)
        XCTAssertEqual(pause.stderr, "feedctl: nothing is playing: the player is not running (removed the socket \(world.socket) a stopped one left); `feedctl play` starts it\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.socket), "the stale socket is removed")
        let again = try feedctl("pause", timeout: 10)
        XCTAssertEqual(again.stderr, "feedctl: nothing is playing: the player is not running (no socket at \(world.socket)); `feedctl play` starts it\n")
        // …and the next daemon replaces the stale socket.
        try startDaemon()
        XCTAssertEqual(try status().string("status"), "stopped")
        XCTAssertEqual(try mode(world.socket), 0o600)
    }

    func testMalformedRequestsGetErrorsAndTheDaemonKeepsAnswering() throws {
        try startDaemon()
        let connection = try ControlSocket(path: world.socket)
        for (line, expected) in [("hello", "malformed request"), ("{\"id\": 1}", "malformed request"),
                                 ("[1, 2]", "malformed request"), ("{\"cmd\": 7}", "malformed request"),
                                 ("{\"id\": 2, \"cmd\": \"frobnicate\"}", "unknown command \"frobnicate\""),
                                 ("{\"id\": 3, \"cmd\": \"volume\", \"value\": 9}", "volume must be between 0 and 1"),
                                 ("{\"id\": 4, \"cmd\": \"play\"}", "play needs a target")] {
            let reply = try XCTUnwrap(connection.request(line), "no reply to \(line)")
            XCTAssertEqual(reply["ok"] as? Bool, false, "\(line) → \(reply)")
            XCTAssertTrue((reply["error"] as? String)?.contains(expected) ?? false, "\(line) → \(reply)")
        }
        // Ids are echoed, and the same connection still serves good requests.
        let good = try XCTUnwrap(connection.request("{\"id\": 5, \"cmd\": \"status\"}"))
        XCTAssertEqual(good["ok"] as? Bool, true)
        XCTAssertEqual((good["id"] as? NSNumber)?.intValue, 5)
        XCTAssertEqual((good["status"] as? [String: Any])?["status"] as? String, "stopped")

        // Non-UTF-8 bytes and an empty line.
        connection.send([0xff, 0xfe, 0x00, 10])
        XCTAssertEqual(try XCTUnwrap(connection.readLine().flatMap(parse))["ok"] as? Bool, false)
        let afterBinary = try XCTUnwrap(connection.request("\n{\"cmd\": \"ping\"}"))
        XCTAssertEqual(afterBinary["ok"] as? Bool, true)

        // A 2 MB line: an error response or a closed connection, never a dead daemon.
        let big = try ControlSocket(path: world.socket)
        big.send(Array(repeating: UInt8(ascii: "a"), count: 2 << 20) + [10])
        if let reply = big.readLine().flatMap(parse) {
            XCTAssertEqual(reply["ok"] as? Bool, false)
        }
        XCTAssertNil(big.readLine(timeout: 5), "the connection should be closed after an oversized line")

        // A client that connects and leaves mid-line doesn't matter either.
        try ControlSocket(path: world.socket).send("{\"cmd\": \"sta")

        XCTAssertEqual(try status().string("status"), "stopped")
        XCTAssertTrue(daemon?.isRunning ?? false)
        XCTAssertEqual(try XCTUnwrap(try ControlSocket(path: world.socket).request("{\"cmd\": \"status\"}"))["ok"] as? Bool, true)
    }

    func testQuitRemovesTheSocket() throws {
        let daemon = try startDaemon()
        XCTAssertEqual(try succeed("quit"), "feedctl daemon stopped\n")
        XCTAssertTrue(eventually(timeout: 10) { !daemon.isRunning })
        XCTAssertEqual(daemon.terminationStatus, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.socket))
    }

    private func parse(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
