import Foundation
import TestSupport
import XCTest

/// `feedctl speed` against a real daemon (the MPRIS tests' environment: PulseAudio, HTTP feed).
extension MPRISTests {
    func testSpeedCommandSetsPrintsAndRemembersPerChannel() throws {
        let daemon = try startDaemon()
        let id = try playLibraryItem(daemon)
        XCTAssertEqual(try daemon.status()["rate"] as? Double, 1)
        // libavfilter (and the ~30 libraries only it needs) is loaded on the first speed ≠ 1, not
        // for 1× playback: `feedctl daemon` execs the daemon, so this is its own memory map.
        // (Read to the end: /proc files report size 0, which String(contentsOfFile:) trusts.)
        let maps = "/proc/\(daemon.process.processIdentifier)/maps"
        func mapsAvfilter() -> Bool {
            let text = FileHandle(forReadingAtPath: maps).map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
            XCTAssertTrue(text.contains("libavformat"), "not the player's memory map")
            return text.contains("libavfilter")
        }
        XCTAssertFalse(mapsAvfilter(), "1× play mapped libavfilter")

        let set = try daemon.cli(["speed", "1.5"])
        XCTAssertEqual(set.status, 0, set.stderr)
        // The decode thread builds the time-stretch filter as it next reads, just after the reply.
        XCTAssertTrue(eventually(timeout: 5) { mapsAvfilter() }, "1.5× play without libavfilter mapped")
        XCTAssertEqual(set.output, "speed 1.5× (remembered for Tone Show)")
        XCTAssertEqual(try daemon.status()["rate"] as? Double, 1.5)
        XCTAssertEqual(try daemon.cli(["speed"]).output, "speed 1.5×")
        XCTAssertEqual(try property("Rate").data as? Double, 1.5)

        let bad = try daemon.cli(["speed", "5"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("not a speed: 5"), bad.stderr)
        XCTAssertEqual(try daemon.status()["rate"] as? Double, 1.5)

        // A URL plays at the daemon's default speed; the library item again at its channel's.
        XCTAssertEqual(try daemon.cli(["play", env.mediaURL("b.mp3")]).status, 0)
        XCTAssertEqual(try daemon.status()["rate"] as? Double, 1)
        XCTAssertEqual(try daemon.cli(["play", String(id)]).status, 0)
        XCTAssertEqual(try daemon.status()["rate"] as? Double, 1.5)
        XCTAssertEqual(try daemon.cli(["speed", "1.23"]).output, "speed 1.25× (remembered for Tone Show)")
        XCTAssertEqual(try daemon.cli(["speed", "1x", "--json"]).status, 0)
    }
}
