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
