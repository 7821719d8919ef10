import Foundation
import TestSupport
import XCTest
@testable import PlayerCore

/// The fixture changes tone every 15 s, so a recording tells which part of the file was heard.
final class SeekTests: PulseTestCase {
    func testSeekForwardAndBackLandOnTheRightSegment() throws {
        let player = makePlayer()
        player.send(.play(request(media.segments, startAt: 20)))
        waitUntilAudible(player, from: 20)
        assertTone(try record(0.8), 660, "start at 20 s")

        let start = player.position
        player.seekForward()
        XCTAssertTrue(eventually { player.position >= start + 14.9 }, "after +15: \(player.snapshot)")
        XCTAssertEqual(player.position, start + 15, accuracy: 0.5)
        waitUntilAudible(player, from: start + 15)
        assertTone(try record(0.8), 880, "after +15 s")

        let before = player.position
        player.seekBackward()
        XCTAssertTrue(eventually { player.position < before - 10 }, "after -15: \(player.snapshot)")
        XCTAssertEqual(player.position, before - 15, accuracy: 0.5)
        waitUntilAudible(player, from: before - 15)
        assertTone(try record(0.8), 660, "after -15 s")

        player.send(.seek(.absolute(50)))
        XCTAssertTrue(eventually { (50...51).contains(player.position) }, "after seek to 50: \(player.snapshot)")
        waitUntilAudible(player, from: 50)
        assertTone(try record(0.8), 1100, "after seek to 50 s")
    }

    func testSeekClampsAtZeroAndPastTheEndEndsTheItem() throws {
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        let seeks = player.nowPlaying.events()
        player.send(.play(request(media.segments, key: "seg", startAt: 4)))
        waitUntilAudible(player, from: 4)
        player.send(.seek(.relative(-15)))
        XCTAssertTrue(eventually { player.position < 3 }, "\(player.snapshot)")
        waitUntilAudible(player, from: 0, heard: 0.3)
        assertTone(try record(0.8), 440, "clamped at 0")

        player.send(.seek(.absolute(120)))
        XCTAssertTrue(eventually { player.snapshot.status == .stopped }, "\(player.snapshot)")
        player.shutdown()
        XCTAssertEqual(sink.finished, [.file("seg")])
        XCTAssertEqual(sink.ended.map(\.0), [.file("seg")])
        XCTAssertNil(player.snapshot.error)
        // The NowPlaying stream saw the start position and the clamped seek.
        let expectation = expectation(description: "seeked events")
        let box = SeekBox()
        Task {
            for await event in seeks {
                if case .seeked(let p) = event { box.append(p) }
                if box.values.count == 2 { expectation.fulfill(); break }
            }
        }
        wait(for: [expectation], timeout: 2)
        XCTAssertEqual(box.values, [4, 0])
    }
}

final class SeekBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [Double] = []
    var values: [Double] { lock.withLock { _values } }
    func append(_ v: Double) { lock.withLock { _values.append(v) } }
}
