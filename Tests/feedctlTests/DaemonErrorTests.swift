import Foundation
import TestSupport
import XCTest

/// Bad media and a missing PulseAudio give one-line errors and a non-zero exit; the daemon keeps
/// answering and still plays the next good file.
final class DaemonErrorTests: DaemonTestCase {
    /// Asserts `feedctl play TARGET` fails with one line on stderr containing `expected`.
    func assertPlayFails(_ target: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try feedctl("play", target)
        XCTAssertNotEqual(result.status, 0, "play \(target) succeeded", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("feedctl: ") && result.stderr.hasSuffix("\n"), result.stderr, file: file, line: line)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "not one line: \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.contains(expected), "\(result.stderr) lacks \(expected)", file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
    }

    /// The daemon answers and plays a good file after the failure.
    func assertDaemonStillPlays(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(daemon?.isRunning ?? false, "the daemon died", file: file, line: line)
        let s = try status(file: file, line: line)
        XCTAssertEqual(s.string("status"), "stopped", file: file, line: line)
        let played = try feedctl("play", media.short.path)
        XCTAssertEqual(played.status, 0, "a good file after an error: \(played.stderr)", file: file, line: line)
        XCTAssertEqual(try status(file: file, line: line).string("status"), "playing", file: file, line: line)
        try feedctl("stop")
    }

    func testGarbageFile() throws {
        try startDaemon()
        try assertPlayFails(media.garbage.path, "can't open \"\(media.garbage.path)\"")
        XCTAssertNotNil(try status().string("error"), "the status shows the error")
        try assertDaemonStillPlays()
        // The same bad file twice in a row fails twice, quickly, with the same message.
        try assertPlayFails(media.garbage.path, "garbage.mp3")
        try assertPlayFails(media.garbage.path, "garbage.mp3")
        try assertDaemonStillPlays()
    }

    func testTruncatedFile() throws {
        try startDaemon()
        try assertPlayFails(media.truncated.path, "truncated.m4a")
        try assertDaemonStillPlays()
    }

    func testMissingFile() throws {
        try startDaemon()
        let missing = world.directory.appendingPathComponent("nothing-here.mp3").path
        try assertPlayFails(missing, "no such file: \(missing)")
        try assertDaemonStillPlays()
    }

    /// A media URL that redirects to file: is refused by FFmpeg's whitelist, which says only
    /// "Invalid argument"; the message says what happened (issue 14 item 9).
    func testARedirectToAFileIsNamed() throws {
        try startDaemon()
        let server = try TestHTTPServer()
        defer { server.stop() }
        let url = server.url("/redirect/302?to=file:///etc/passwd")
        try assertPlayFails(url, "can't open \"\(url)\": redirected to a file: URL, which media may not open (only http and https)")
        try assertDaemonStillPlays()
    }

    func testOtherURLSchemesAreRefused() throws {
        try startDaemon()
        try assertPlayFails("ftp://x", "only http and https URLs are allowed")
        try assertPlayFails("rtmp://127.0.0.1/live", "only http and https URLs are allowed")
        try assertDaemonStillPlays()
    }

    func testNoPulseAudio() throws {
        let dead = "unix:" + world.directory.appendingPathComponent("no-pulse-here").path
        try startDaemon(environment: ["PULSE_SERVER": dead])
        try assertPlayFails(media.short.path, "cannot reach PulseAudio")
        let s = try status()
        XCTAssertEqual(s.string("status"), "stopped")
        XCTAssertTrue(s.string("error")?.contains("PulseAudio") ?? false, "\(s)")
        XCTAssertTrue(daemon?.isRunning ?? false, "the daemon died")
        try assertPlayFails(media.short.path, "cannot reach PulseAudio")
        XCTAssertEqual(try status().string("status"), "stopped", "the daemon still answers")
        XCTAssertTrue(daemon?.isRunning ?? false, "the daemon died")
    }
}
