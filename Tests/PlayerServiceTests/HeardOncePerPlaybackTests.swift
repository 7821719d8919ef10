import FeedModel
import NowPlaying
import PlayerCore
@testable import PlayerService
import XCTest

/// When an item counts as heard: FeedModel's rule, applied by the service to what the player reports.
final class HeardOncePerPlaybackTests: XCTestCase {
    func testWatchRule() {
        XCTAssertTrue(WatchRule.isHeard(position: 59.6, duration: 60))
        XCTAssertTrue(WatchRule.isHeard(position: 57, duration: 60))   // 95 %, 3 s left
        XCTAssertFalse(WatchRule.isHeard(position: 56.9, duration: 60))
        XCTAssertFalse(WatchRule.isHeard(position: 3420, duration: 3600)) // 95 % but 3 min left
        XCTAssertTrue(WatchRule.isHeard(position: 3481, duration: 3600))
        XCTAssertFalse(WatchRule.isHeard(position: 100, duration: nil))
    }

    func testHeardOncePerPlaybackAtTicksCheckpointsAndTheEnd() {
        var rule = OncePerPlayback()
        func report(_ kind: ProgressReport.Kind, _ playback: UInt64, at position: Double,
                    of duration: Double? = 60) -> ProgressReport {
            ProgressReport(kind, key: .item(7), playback: PlaybackID(playback), position: position, duration: duration)
        }
        XCTAssertFalse(rule.isNewlyHeard(report(.tick, 1, at: 10)))
        XCTAssertFalse(rule.isNewlyHeard(report(.checkpoint, 1, at: 56)))
        XCTAssertTrue(rule.isNewlyHeard(report(.tick, 1, at: 57)), "a tick meeting the rule")
        XCTAssertFalse(rule.isNewlyHeard(report(.checkpoint, 1, at: 58)), "once per playback")
        XCTAssertFalse(rule.isNewlyHeard(report(.end, 1, at: 60)), "once per playback")
        // Played again: heard again.
        XCTAssertTrue(rule.isNewlyHeard(report(.checkpoint, 2, at: 59)), "a checkpoint meeting the rule")
        // The end counts whatever the duration says (a live stream has none).
        XCTAssertFalse(rule.isNewlyHeard(report(.checkpoint, 3, at: 30, of: nil)))
        XCTAssertTrue(rule.isNewlyHeard(report(.end, 3, at: 30, of: nil)))
    }
}
