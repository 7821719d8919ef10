import FeedModel
import Foundation
import TestSupport
import XCTest

/// The player verbs' values: the daemon's `--seek-step`, negative numbers and `--`, relative
/// volumes, and durations refused at the CLI and on the wire without harming the daemon.
final class PlayerVerbTests: DaemonTestCase {
    private func position() throws -> Double { try XCTUnwrap(try status().double("position")) }

    func testSeekForwardAndBackUseTheDaemonsSeekStep() throws {
        try startDaemon(arguments: ["--seek-step", "7"])
        try succeed("play", media.segments.path)
        try waitForStatus("audible") { ($0.double("position") ?? 0) >= 0.3 }
        try succeed("seek", "20")
        try succeed("pause")  // paused, the position only moves by seeks: exact values
        let start = try position()
        try succeed("seek", "forward")
        XCTAssertEqual(try position(), start + 7, accuracy: 0.01, "seek forward: one --seek-step")
        try succeed("seek", "+")
        XCTAssertEqual(try position(), start + 14, accuracy: 0.01, "seek +")
        try succeed("seek", "back")
        XCTAssertEqual(try position(), start + 7, accuracy: 0.01, "seek back")
        try succeed("seek", "--", "-")
        XCTAssertEqual(try position(), start, accuracy: 0.01, "seek -- -")
        XCTAssertEqual(try status().string("status"), "paused")
        try succeed("resume")
        assertTone(try record(0.6), 660, "still at about 20 s")
    }

    func testNegativeNumbersAndDoubleDash() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        try waitForStatus("audible") { ($0.double("position") ?? 0) >= 0.3 }
        try succeed("seek", "30")
        try succeed("pause")
        let at = try position()
        try succeed("seek", "--", "-15")
        XCTAssertEqual(try position(), at - 15, accuracy: 0.01, "seek -- -15")
        try succeed("seek", "-5")
        XCTAssertEqual(try position(), at - 20, accuracy: 0.01, "seek -5")

        // Each refusal is one line naming what was wrong, never the parser's "Missing expected
        // argument" or "Unknown option".
        for words in [["chapter", "-1"], ["speed", "-1"], ["sleep", "-5"], ["volume", "abc"], ["seek", "-x"],
                      ["volume", "1", "2"]] {
            let result = try feedctl(words)
            XCTAssertNotEqual(result.status, 0, words.joined(separator: " "))
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(words): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Missing expected argument") || result.stderr.contains("Unknown option"),
                           "\(words): \(result.stderr)")
        }
        XCTAssertEqual(try feedctl("speed", "-1").stderr, "feedctl: not a speed: -1 (use 0.5–3.0, e.g. 1.5 or 1.5x)\n")
    }

    func testVolumeSetsChangesAndPrints() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        XCTAssertEqual(try succeed("volume"), "volume 100%\n", "no level: prints it")
        XCTAssertEqual(try succeed("volume", "50%"), "volume 50%\n")
        XCTAssertEqual(try status().double("volume"), 0.5)
        XCTAssertEqual(try succeed("volume", "+5"), "volume 55%\n")
        XCTAssertEqual(try succeed("volume", "-10"), "volume 45%\n")
        XCTAssertEqual(try succeed("volume", "--", "-50"), "volume 0%\n", "clamped at 0")
        XCTAssertEqual(try succeed("volume", "+80"), "volume 80%\n")
        XCTAssertEqual(try succeed("volume", "+30"), "volume 100%\n", "clamped at 100")
        XCTAssertEqual(try succeed("volume", "40"), "volume 40%\n")
        XCTAssertEqual(try status().double("volume"), 0.4)
        let bad = try feedctl("volume", "150")
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertEqual(bad.stderr, "feedctl: volume is 0–100 (percent): 150\n")
        XCTAssertEqual(try succeed("volume"), "volume 40%\n")
    }

    /// The bounds at the command line are `SeekTarget`'s and `PlayerVolume`'s, each included
    /// (the CLI refused `seek 1000000000`, which the wire takes), and a value past one says the
    /// bound in one line.
    func testSeekAndVolumeBoundsAtTheCommandLine() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        try waitForStatus("audible") { ($0.double("position") ?? 0) >= 0.3 }
        try succeed("pause")
        func refused(_ words: String..., says expected: String) throws {
            let result = try feedctl(words)
            XCTAssertNotEqual(result.status, 0, words.joined(separator: " "))
            XCTAssertEqual(result.stderr, "feedctl: \(expected)\n", words.joined(separator: " "))
        }
        try succeed("seek", "0")
        XCTAssertEqual(try position(), 0)
        try refused("seek", "1000000001", says: "seek position must be between 0 and 1000000000 seconds")
        try refused("seek", "+1000000001", says: "seek offset must be at most 1000000000 seconds either way")
        try refused("seek", "--", "-1000000001", says: "seek offset must be at most 1000000000 seconds either way")
        try succeed("seek", "--", "-1000000000")
        XCTAssertEqual(try position(), 0, "clamped at the start")

        try succeed("volume", "0")
        XCTAssertEqual(try status().double("volume"), 0)
        try succeed("volume", "100")
        XCTAssertEqual(try status().double("volume"), 1)
        try refused("volume", "100.01", says: "volume is 0–100 (percent): 100.01")
        try refused("volume", "+100.5", says: "volume is 0–100 (percent): +100.5")
        try succeed("volume", "--", "-100")
        XCTAssertEqual(try status().double("volume"), 0)
        try succeed("volume", "+100")
        XCTAssertEqual(try status().double("volume"), 1)

        // The last position in is taken: past the item's end, it ends there.
        try succeed("seek", "1000000000")
        XCTAssertEqual(try status().string("status"), "stopped")
    }

    /// `sleep 5124096h` or `{"cmd":"sleep","seconds":1e300}` crashed the daemon converting the
    /// wait to nanoseconds. The wire refuses what is past `PlayerLimits`, the daemon lives on.
    func testDurationsPastTheLimitsAreRefusedAndTheDaemonSurvives() throws {
        let daemon = try startDaemon()
        try succeed("play", media.segments.path)
        let socket = try ControlSocket(path: world.socket)
        let refusals = [
            #"{"id": 1, "cmd": "sleep", "seconds": 1e300}"#: "sleep is at most 7 days ahead",
            #"{"id": 2, "cmd": "sleep", "seconds": 604801}"#: "sleep is at most 7 days ahead",
            #"{"id": 3, "cmd": "seek", "offset": 1e300}"#: "seek offset must be at most 1000000000 seconds either way",
            #"{"id": 4, "cmd": "seek", "position": -1}"#: "seek position must be between 0 and 1000000000 seconds",
            #"{"id": 5, "cmd": "seek", "steps": 1000000}"#: "seek steps must be 1 to 1000 either way",
            #"{"id": 6, "cmd": "volume", "value": 1e300}"#: "volume must be between 0 and 1 (0–100 %)",
            #"{"id": 7, "cmd": "volume", "change": -1e300}"#: "volume change must be between -1 and 1 (±100 %)",
        ]
        for (line, error) in refusals {
            let reply = socket.request(line)
            XCTAssertEqual(reply?["ok"] as? Bool, false, line)
            XCTAssertEqual(reply?["error"] as? String, error, line)
        }
        XCTAssertEqual(socket.request(#"{"id": 8, "cmd": "status"}"#)?["ok"] as? Bool, true, "the daemon still answers")
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try status().string("status"), "playing", "and still plays")

        for words in [["sleep", "5124096h"], ["sleep", "200h"]] {
            let result = try feedctl(words)
            XCTAssertNotEqual(result.status, 0, "\(words)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(words): \(result.stderr)")
        }
        XCTAssertEqual(try feedctl("sleep", "200h").stderr, "feedctl: sleep is at most 7 days ahead: 200h\n")
        XCTAssertTrue(try status().isNull("sleep_at"))
        XCTAssertEqual(PlayerLimits.maxSleep, 7 * 86400)
    }
}
