import Foundation
import NowPlaying
import TestSupport
import XCTest
@testable import PlayerCore

final class ProgressTests: PulseTestCase {
    func testTicksOncePerSecondSavesAndResumes() async throws {
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        let ticks = SeekBox()
        let stream = player.nowPlaying.events(bufferingNewest: 1000)
        let collector = Task {
            for await event in stream {
                if case .tick(let position, let duration) = event {
                    ticks.append(position)
                    XCTAssertEqual(duration ?? 0, 60.03, accuracy: 0.05)
                }
            }
        }
        defer { collector.cancel() }
        player.play(request(media.segments, key: "ep"))
        XCTAssertTrue(eventually { player.snapshot.status == .playing })
        try await Task.sleep(for: .seconds(5))
        let count = ticks.values.count
        XCTAssertTrue((4...6).contains(count), "\(count) ticks in 5 s: \(ticks.values)")
        XCTAssertEqual(ticks.values, ticks.values.sorted(), "ticks went backwards")

        // A periodic save arrives while playing (every 5 ticks).
        XCTAssertTrue(eventually(timeout: 3) { !sink.saves.isEmpty }, "no periodic save")
        XCTAssertEqual(player.snapshot.status, .playing)
        XCTAssertEqual(sink.saves.first?.key, .file("ep"))
        XCTAssertEqual(sink.saves.first?.duration ?? 0, 60.03, accuracy: 0.05)

        let heard = player.position
        player.stop()
        XCTAssertTrue(eventually { player.snapshot.status == .stopped })
        player.shutdown()
        let saved = try XCTUnwrap(sink.saves.last)
        XCTAssertEqual(saved.position, heard, accuracy: 0.5)
        XCTAssertEqual(sink.finished, [])

        // Resume: a new player starts where the saved progress says.
        let again = makePlayer(sink: sink)
        again.play(request(media.segments, key: "ep", startAt: saved.position))
        XCTAssertTrue(eventually { again.snapshot.status == .playing })
        XCTAssertGreaterThanOrEqual(again.position, saved.position)
        XCTAssertLessThan(again.position, saved.position + 1)
        waitUntilAudible(again, from: saved.position)
        assertTone(try record(0.6), ToneMedia.segmentFrequency(at: again.position), "resumed")
    }

    func testCompletionRule() {
        XCTAssertTrue(CompletionRule.isFinished(position: 59.6, duration: 60))
        XCTAssertTrue(CompletionRule.isFinished(position: 57, duration: 60))   // 95 %, 3 s left
        XCTAssertFalse(CompletionRule.isFinished(position: 56.9, duration: 60))
        XCTAssertFalse(CompletionRule.isFinished(position: 3420, duration: 3600)) // 95 % but 3 min left
        XCTAssertTrue(CompletionRule.isFinished(position: 3481, duration: 3600))
        XCTAssertFalse(CompletionRule.isFinished(position: 100, duration: nil))
    }
}
