import Foundation
import TestSupport
import XCTest
@testable import PlayerCore

final class PauseTests: PulseTestCase {
    func testPauseIsSilentAndFrozenAndResumeContinues() throws {
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        player.send(.play(request(media.segments, key: "p", startAt: 16)))
        waitUntilAudible(player, from: 16, heard: 0.5)

        player.send(.pause)
        XCTAssertTrue(eventually { player.snapshot.status == .paused })
        let frozen = player.position
        let quiet = try record(0.8)
        XCTAssertEqual(player.position, frozen, "position moved while paused")
        assertSilence(quiet, over: 0.8, "while paused")
        XCTAssertTrue(eventually { sink.saves.last?.position == frozen }, "no save on pause: \(sink.saves)")

        player.send(.toggle)
        XCTAssertTrue(eventually { player.snapshot.status == .playing })
        waitUntilAudible(player, from: frozen, heard: 0.3)
        XCTAssertLessThan(player.position, frozen + 2, "resume jumped")
        assertTone(try record(0.8), 660, "after resume")

        player.send(.stop)
        XCTAssertTrue(eventually { player.snapshot.status == .stopped })
        XCTAssertEqual(player.snapshot.position, 0)
        XCTAssertTrue(eventually { (sink.saves.last?.position ?? 0) > frozen }, "no save on stop: \(sink.saves)")
        XCTAssertEqual(sink.finished, [])
        player.shutdown()
    }

    func testSeekWhilePausedStaysPaused() throws {
        let player = makePlayer()
        player.send(.play(request(media.segments, startAt: 2)))
        waitUntilAudible(player, from: 2)
        player.send(.pause)
        XCTAssertTrue(eventually { player.snapshot.status == .paused })
        player.send(.seek(.absolute(31)))
        XCTAssertTrue(eventually { player.position == 31 }, "\(player.snapshot)")
        XCTAssertEqual(player.snapshot.status, .paused)
        player.send(.resume)
        waitUntilAudible(player, from: 31)
        assertTone(try record(0.8), 880, "resumed after a paused seek")
    }
}
