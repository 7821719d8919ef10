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

    /// A play that fails (its media host does not resolve) says so and changes nothing: what
    /// played plays on, heard, from where it was; a paused item stays paused there; a stopped
    /// player stays stopped; the queue keeps every entry. (Before, the old item was closed, and
    /// the failure counted as the end of an item: the queue's first entry started on its own and
    /// left the queue.)
    func testAFailedPlayLeavesThePlayerAndTheQueueAsTheyWere() throws {
        try startDaemon()
        try succeed("queue", "clear")
        let (a, b) = (media.short.path, media.shortOgg.path)
        try succeed("queue", "add", a, b)
        let unreachable = "http://no-such-host.invalid/episode.mp3"
        func failPlay() throws {
            let failed = try feedctl("play", unreachable)
            XCTAssertEqual(failed.status, 1, failed.stderr)
            XCTAssertTrue(failed.stderr.hasPrefix("feedctl: ") && failed.stderr.contains("no-such-host.invalid"), failed.stderr)
            XCTAssertEqual(failed.stderr.split(separator: "\n").count, 1, failed.stderr)
        }
        /// Watches for a few seconds that nothing starts by itself and the queue stays whole.
        func assertUnchanged(_ state: String, _ url: String?) throws {
            let end = Date().addingTimeInterval(4)
            repeat {
                let s = try status()
                XCTAssertEqual(s.string("status"), state, "\(s)")
                XCTAssertEqual(s.string("url"), url, "\(s)")
                XCTAssertEqual(try queue(), [a, b])
                Thread.sleep(forTimeInterval: 0.5)
            } while Date() < end
        }

        // Playing: it plays on, and is heard (440 Hz is the segments' first quarter).
        try succeed("play", media.segments.path)
        try succeed("seek", "3")
        let before = try XCTUnwrap(try status().double("position"))
        try failPlay()
        let after = try status()
        XCTAssertEqual(after.string("status"), "playing")
        XCTAssertEqual(after.string("url"), "file://" + media.segments.path)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(after.double("position")), before - 0.5, "on from where it was")
        XCTAssertLessThan(try XCTUnwrap(after.double("position")), 12)
        XCTAssertTrue(after.string("error")?.contains("no-such-host.invalid") ?? false, "the status tells: \(after)")
        assertTone(try record(1), 440, "the item before, after the failed play")
        try assertUnchanged("playing", "file://" + media.segments.path)

        // Paused: stays paused where it was.
        try succeed("pause")
        let pausedAt = try XCTUnwrap(try status().double("position"))
        try failPlay()
        XCTAssertEqual(try XCTUnwrap(try status().double("position")), pausedAt, accuracy: 0.01)
        try assertUnchanged("paused", "file://" + media.segments.path)

        // Stopped: stays stopped, and the queue does not start.
        try succeed("stop")
        try failPlay()
        try assertUnchanged("stopped", nil)
        try succeed("queue", "clear")
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
        // Where to go from here: a sound server for this user, or the headless one.
        try assertPlayFails(media.short.path, "cannot reach PulseAudio")
        try assertPlayFails(media.short.path, "PulseAudio or pipewire-pulse must run for this user (on a machine without sound, "
                            + "`scripts/headless-pulse.sh start DIR` starts one with a null sink)")
        let s = try status()
        XCTAssertEqual(s.string("status"), "stopped")
        XCTAssertTrue(s.string("error")?.contains("PulseAudio") ?? false, "\(s)")
        XCTAssertTrue(daemon?.isRunning ?? false, "the daemon died")
        try assertPlayFails(media.short.path, "cannot reach PulseAudio")
        XCTAssertEqual(try status().string("status"), "stopped", "the daemon still answers")
        XCTAssertTrue(daemon?.isRunning ?? false, "the daemon died")
    }
}
