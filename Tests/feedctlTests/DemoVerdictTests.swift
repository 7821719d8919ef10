import Foundation
import TestSupport
import XCTest

/// The demo's last line (issue 26: it ended with `Rough frequency 532` and no verdict):
/// scripts/tones.py judges the raw recording of the sink's monitor, as scripts/demo.sh and the
/// release smoke test run it, and says `ok: …` (exit 0) only when the expected tones were heard
/// in order; otherwise `wrong: …` with what was heard instead (exit 1). The recordings are made
/// by ffmpeg in parec's format (raw s16le, 48 kHz, two channels).
final class DemoVerdictTests: XCTestCase {
    /// Runs tones.py on a recording of `parts` (a frequency in Hz, or nil for silence, and its
    /// seconds), expecting the demo's 440, 660, 440 Hz.
    private func verdict(_ parts: [(Int?, Double)]) throws -> ProcessRunner.Result {
        let dir = try PackagePaths.temporaryDirectory(self)
        let recording = dir.appendingPathComponent("heard.raw")
        if parts.isEmpty {
            XCTAssertTrue(FileManager.default.createFile(atPath: recording.path, contents: nil))
        } else {
            let inputs = parts.flatMap { frequency, seconds in
                ["-f", "lavfi", "-i", frequency.map { "sine=frequency=\($0):sample_rate=48000:duration=\(seconds)" }
                    ?? "anullsrc=r=48000:cl=mono:d=\(seconds)"]
            }
            try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + inputs
                                  + ["-filter_complex", "concat=n=\(parts.count):v=0:a=1", "-ac", "2", "-ar", "48000", "-f", "s16le", recording.path])
        }
        let script = PackagePaths.root.appendingPathComponent("scripts/tones.py").path
        return try ProcessRunner.capture("python3", [script, recording.path, "--expect", "440,660,440"])
    }

    func testTheRightTonesInOrderAreOK() throws {
        // Silence between them (a null sink waking, a seek's refill) and a blip shorter than
        // half a second (a seek's transition) do not count.
        let run = try verdict([(440, 2), (nil, 0.3), (880, 0.2), (660, 2), (nil, 0.3), (440, 2)])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertEqual(run.stdout, "ok: heard 440, 660, 440 Hz in order (2.0, 2.0, 2.0 s)\n")
    }

    func testWhatWasWrongIsSaidWithAFailingStatus() throws {
        let cases: [([(Int?, Double)], String)] = [
            ([(660, 2), (440, 2), (440, 2)], "wrong: heard 660, 440 Hz (2.0, 4.0 s); expected 440, 660, 440 Hz in that order\n"),
            ([(440, 2), (880, 2), (440, 2)], "wrong: heard 440, ~880, 440 Hz (2.0, 2.0, 2.0 s); expected 440, 660, 440 Hz in that order\n"),
            ([(440, 2), (660, 2)], "wrong: heard 440, 660 Hz (2.0, 2.0 s); expected 440, 660, 440 Hz in that order\n"),
            ([(nil, 3)], "wrong: no tone reached the sink (3.0 s recorded, all of it silence or shorter than 0.5 s); expected 440, 660, 440 Hz\n"),
            ([], "wrong: nothing was recorded from the sink's monitor; expected 440, 660, 440 Hz\n"),
        ]
        for (parts, line) in cases {
            let run = try verdict(parts)
            XCTAssertEqual(run.status, 1, "\(parts): \(run.stdout)\(run.stderr)")
            XCTAssertEqual(run.stdout, line, "\(parts)")
        }
    }
}
