import Foundation
import XCTest

/// The sleep timer against a real daemon and PulseAudio: the fade is audible in the status's
/// volume, playback stops at the deadline, and end-of-item stops instead of advancing the queue.
final class DaemonSleepTests: DaemonTestCase {
    func testSleepFadesOutThenStopsAndRestoresTheVolume() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        try waitForStatus("playing") { $0.string("status") == "playing" }
        let before = Date().timeIntervalSince1970
        XCTAssertTrue(try succeed("sleep", "12s").hasPrefix("sleep: playback stops at "))
        let armed = try status()
        let sleepAt = try XCTUnwrap(armed.double("sleep_at"), "sleep_at missing: \(armed)")
        XCTAssertEqual(sleepAt, before + 12, accuracy: 2)
        XCTAssertEqual(armed.double("volume"), 1, "no fade before the last 10 s")

        // The last 10 s fade: the volume falls below 1 while still playing…
        let fading = try waitForStatus(timeout: 12, "fading") {
            $0.string("status") == "playing" && ($0.double("volume") ?? 1) < 0.9
        }
        XCTAssertGreaterThan(fading.double("volume") ?? 0, 0)
        // …then playback stops, the timer clears, and the volume is back for the next item.
        let stopped = try waitForStatus(timeout: 15, "stopped by the sleep timer") { $0.string("status") == "stopped" }
        XCTAssertTrue(stopped.isNull("sleep_at"), "\(stopped)")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince1970, sleepAt - 1, "stopped before the deadline")
        XCTAssertEqual(stopped.double("volume"), 1)
        assertSilence(try record(0.6), "after the sleep timer")
    }

    func testEndOfItemStopsInsteadOfAdvancingTheQueue() throws {
        try startDaemon()
        try succeed("play", media.short.path)
        try succeed("queue", "add", media.shortOgg.path)
        try succeed("sleep", "end-of-item")
        let armed = try status()
        XCTAssertFalse(armed.isNull("sleep_at"), "end-of-item shows the item's expected end: \(armed)")
        // The daemon decided, at the item's end, not to advance the queue: it says so in its log.
        waitForLog("sleep timer: stopped at the end of the item")
        let after = try status()
        XCTAssertEqual(after.string("status"), "stopped", "the queue advanced despite the sleep timer: \(after)")
        XCTAssertTrue(after.isNull("sleep_at"))
        XCTAssertEqual(try succeed("queue", "list"), "1. short.ogg\n", "the queued item is still waiting")
    }

    func testSleepOffAndBadDurations() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        try succeed("sleep", "30m")
        XCTAssertFalse(try status().isNull("sleep_at"))
        XCTAssertEqual(try succeed("sleep", "off"), "sleep timer off\n")
        XCTAssertTrue(try status().isNull("sleep_at"))
        for bad in ["soon", "-5m", "0", "1x"] {
            let result = try feedctl("sleep", bad)
            XCTAssertNotEqual(result.status, 0, bad)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line for \(bad): \(result.stderr)")
        }
        try succeed("stop")
        let idle = try feedctl("sleep", "end-of-item")
        XCTAssertNotEqual(idle.status, 0)
        XCTAssertEqual(idle.stderr, "feedctl: nothing is playing\n")
    }
}
