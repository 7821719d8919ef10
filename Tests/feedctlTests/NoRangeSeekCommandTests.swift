import Foundation
import TestSupport
import XCTest

/// `feedctl seek` on a URL whose server cannot seek (no byte ranges, as `python3 -m http.server`):
/// it works both ways, and a seek that truly cannot be made leaves playback where it was and
/// exits 1 with one line (it used to stop playback and exit 0).
final class NoRangeSeekCommandTests: DaemonTestCase {
    func testSeeksWorkAndAFailedOneKeepsPlayingAndExits1() throws {
        let http = try TestHTTPServer()
        defer { http.stop() }
        // 130 s at 320 kbps (~5 MB): 440 Hz for a minute, then 880 Hz. Larger than the daemon's
        // 4 MiB rewind cache, so a seek from 2:00 back to the start must open the URL again.
        let file = http.root.appendingPathComponent("long.mp3")
        try ToneMedia.encode(ToneMedia.sine(440, seconds: 60) + ToneMedia.sine(880, seconds: 70),
                             ["-filter_complex", "concat=n=2:v=0:a=1", "-c:a", "libmp3lame", "-b:a", "320k"], to: file)
        let url = http.url("/norange/long.mp3")
        try startDaemon()
        try succeed("play", url)
        try waitForStatus("playing") { $0.string("status") == "playing" && ($0.double("position") ?? 0) > 0.3 }

        try succeed("seek", "2:00")
        try waitForStatus("at 2:00") { ($0.double("position") ?? 0) >= 120.3 }
        assertTone(try record(0.5), 880, "forward to 2:00")
        try succeed("seek", "-15")
        try waitForStatus("at 1:45") { (105.2...110).contains($0.double("position") ?? 0) }
        assertTone(try record(0.5), 880, "back to 1:45 (from the cache)")
        try succeed("seek", "0:10")
        try waitForStatus("at 0:10") { (10.2...15).contains($0.double("position") ?? 0) }
        assertTone(try record(0.5), 440, "back to 0:10 (the URL opened again)")
        try succeed("seek", "2:00")
        try waitForStatus("at 2:00 again") { ($0.double("position") ?? 0) >= 120.3 }

        // The server loses the file: going back past the cache cannot be done.
        try FileManager.default.removeItem(at: file)
        let failed = try feedctl("seek", "0:05")
        XCTAssertEqual(failed.status, 1, failed.stdout)
        XCTAssertEqual(failed.stderr, "feedctl: can't seek in \"\(url)\": Server returned 404 Not Found\n")
        let after = try status()
        XCTAssertEqual(after.string("status"), "playing")
        XCTAssertGreaterThanOrEqual(after.double("position") ?? 0, 120)
        XCTAssertTrue(after.isNull("error"), "the item plays on: \(after)")
        assertTone(try record(0.5), 880, "still where it was")
    }
}
