import XCTest
@testable import PlayerCore

final class PositionClockTests: XCTestCase {
    func testPositionIsWrittenEndMinusLatencyWithinBounds() {
        var clock = PositionClock()
        XCTAssertEqual(clock.position(latency: nil), 0)
        clock.advance(by: 0.5)
        XCTAssertEqual(clock.position(latency: 0.2), 0.3, accuracy: 1e-9)
        XCTAssertEqual(clock.position(latency: nil), 0, "unknown latency: nothing heard yet")
        XCTAssertEqual(clock.position(latency: 2), 0, "never negative")
        XCTAssertEqual(clock.position(latency: 0), 0.5)
    }

    func testSeekResetsAndNothingBeforeTheTargetIsHeard() {
        var clock = PositionClock()
        clock.advance(by: 10)
        clock.reset(at: 40)
        XCTAssertEqual(clock.position(latency: 0.15), 40, "stale latency right after a flush")
        clock.advance(by: 0.15)
        XCTAssertEqual(clock.position(latency: 0.05), 40.1, accuracy: 1e-9)
        clock.reset(at: -5)
        XCTAssertEqual(clock.position(latency: 0), 0)
    }

    func testFrozenWhilePausedAndSeekWhilePaused() {
        var clock = PositionClock()
        clock.advance(by: 5)
        clock.freeze(latency: 0.1)
        XCTAssertEqual(clock.position(latency: 0.0), 4.9, accuracy: 1e-9)
        clock.advance(by: 1)
        XCTAssertEqual(clock.position(latency: 0.3), 4.9, accuracy: 1e-9)
        clock.reset(at: 20)
        XCTAssertEqual(clock.position(latency: 0.3), 20)
        clock.unfreeze()
        clock.advance(by: 0.5)
        XCTAssertEqual(clock.position(latency: 0.2), 20.3, accuracy: 1e-9)
    }

    func testLatencyIsScaledByTheRate() {
        var clock = PositionClock()
        clock.rate = 2
        clock.advance(by: 10)
        XCTAssertEqual(clock.position(latency: 0.15), 9.7, accuracy: 1e-9)
    }
}

final class PositionClockSpeedTests: XCTestCase {
    /// Audio still buffered from before a speed change counts at the speed it was written at:
    /// changing the speed does not make the position jump.
    func testBufferedAudioKeepsTheSpeedItWasWrittenAt() {
        var clock = PositionClock()
        clock.advance(by: 10)               // 10 s of output at 1×
        let before = clock.position(latency: 0.3)
        XCTAssertEqual(before, 9.7, accuracy: 1e-9)
        clock.rate = 2
        XCTAssertEqual(clock.position(latency: 0.3), before, accuracy: 1e-9, "no jump at the change")
        clock.advance(by: 0.2)              // 0.1 s of output at 2×
        // 0.3 s of latency: 0.1 s at 2× (0.2 media) + 0.2 s at 1× (0.2 media).
        XCTAssertEqual(clock.position(latency: 0.3), 10.2 - 0.4, accuracy: 1e-9)
        clock.advance(by: 2)
        XCTAssertEqual(clock.position(latency: 0.3), 12.2 - 0.6, accuracy: 1e-9)
    }

    func testHistoryIsBounded() {
        var clock = PositionClock()
        for i in 0..<1000 {
            clock.rate = i % 2 == 0 ? 1 : 1.5
            clock.advance(by: 0.1)
        }
        XCTAssertLessThan(clock.recent.count, 100)
        XCTAssertEqual(clock.position(latency: 0), 100, accuracy: 1e-6)
    }

    /// A latency estimate that grows by a few milliseconds (PulseAudio's does, under load) would
    /// step the clock's position back: the position reported holds until the clock passes it, and
    /// only a new epoch (a new item, a seek, a stop) may go back (SpeedTests and NoRangeRewindTests
    /// saw 7 and 19 ms back under load).
    func testTheReportedPositionNeverGoesBackWithinAnEpoch() {
        var clock = PositionClock()
        var heard = HeardPosition()
        clock.advance(by: 10)
        XCTAssertEqual(clock.position(latency: 0.100), 9.900, accuracy: 1e-9)
        XCTAssertEqual(heard.report(clock.position(latency: 0.100), epoch: 1), 9.900, accuracy: 1e-9)
        XCTAssertEqual(clock.position(latency: 0.119), 9.881, accuracy: 1e-9, "the clock alone steps back")
        XCTAssertEqual(heard.report(clock.position(latency: 0.119), epoch: 1), 9.900, accuracy: 1e-9, "what was heard stays")
        clock.advance(by: 0.05)
        XCTAssertEqual(heard.report(clock.position(latency: 0.119), epoch: 1), 9.931, accuracy: 1e-9, "and moves on")
        // A pause freezes where the listener got to, not a few milliseconds behind it.
        clock.freeze(latency: 0.119, atLeast: heard.position)
        XCTAssertEqual(clock.position(latency: 0.5), 9.931, accuracy: 1e-9)
        clock.unfreeze()
        clock.reset(at: 3)
        XCTAssertEqual(heard.report(clock.position(latency: 0.1), epoch: 2), 3, "a seek back is a new epoch")
    }
}
