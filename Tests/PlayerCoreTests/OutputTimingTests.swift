import XCTest
@testable import PlayerCore

/// What `PulseOutput.latency()` computes from a server timing snapshot.
final class OutputTimingTests: XCTestCase {
    /// A real snapshot from a null sink woken from idle: 0.17 s written, nothing read yet, the sink
    /// reporting 1.85 s of its own. Nothing has been heard, however long ago the snapshot was
    /// (pa_stream_get_latency's smoother said 0 s latency here: all 0.17 s heard).
    func testNothingIsHeardBeforeTheServerReads() {
        for age in [0.0, 0.5, 1.4] {
            let t = OutputTiming(written: 0.17, read: 0, sinkLatency: 1.85, playing: false, age: age)
            XCTAssertEqual(t.heard, 0)
            XCTAssertEqual(t.latency, 0.17, accuracy: 1e-9)
        }
    }

    func testPlayingCarriesTheSnapshotForward() {
        let t = OutputTiming(written: 10.3, read: 10.1, sinkLatency: 0.05, playing: true, age: 0.1)
        XCTAssertEqual(t.heard, 10.15, accuracy: 1e-9)
        XCTAssertEqual(t.latency, 0.15, accuracy: 1e-9)
        var stopped = t
        stopped.playing = false
        XCTAssertEqual(stopped.heard, 10.05, accuracy: 1e-9, "a corked or not yet started stream does not advance")
    }

    func testNeverMoreThanWasWrittenNorBelowZero() {
        let underrun = OutputTiming(written: 3, read: 2.9, sinkLatency: 0.02, playing: true, age: 1.5)
        XCTAssertEqual(underrun.heard, 3)
        XCTAssertEqual(underrun.latency, 0)
        let early = OutputTiming(written: 0.3, read: 0.1, sinkLatency: 0.25, playing: true, age: 0.05)
        XCTAssertEqual(early.heard, 0)
        XCTAssertEqual(early.latency, 0.3, accuracy: 1e-9)
    }
}
