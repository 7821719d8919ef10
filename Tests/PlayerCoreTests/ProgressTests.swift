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
        player.send(.play(request(media.segments, key: "ep")))
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
        // The sink heard the same ticks: four, then the fifth as a checkpoint, all one playback.
        let reported = sink.reports
        XCTAssertEqual(reported.prefix(5).map(\.kind), [.tick, .tick, .tick, .tick, .checkpoint])
        XCTAssertEqual(reported.map(\.position), reported.map(\.position).sorted(), "reports went backwards")
        XCTAssertEqual(Set(reported.map(\.playback)).count, 1)

        let heard = player.position
        player.send(.stop)
        XCTAssertTrue(eventually { player.snapshot.status == .stopped })
        player.shutdown()
        let saved = try XCTUnwrap(sink.saves.last)
        XCTAssertEqual(saved.position, heard, accuracy: 0.5)
        XCTAssertEqual(sink.finished, [])

        // Resume: a new player starts where the saved progress says.
        let again = makePlayer(sink: sink)
        again.send(.play(request(media.segments, key: "ep", startAt: saved.position)))
        XCTAssertTrue(eventually { again.snapshot.status == .playing })
        XCTAssertGreaterThanOrEqual(again.position, saved.position)
        XCTAssertLessThan(again.position, saved.position + 1)
        waitUntilAudible(again, from: saved.position)
        assertTone(try record(0.6), ToneMedia.segmentFrequency(at: again.position), "resumed")
    }

    /// Whether an item counts as heard is the receiver's rule (the daemon's CompletionRuleTests);
    /// the player tells playbacks apart so that it can be decided once per playback.
    func testAReplayOfTheSameItemIsANewPlayback() throws {
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        player.send(.play(request(media.segments, key: "again")))
        waitUntilAudible(player)
        player.send(.stop)
        XCTAssertTrue(eventually { sink.saves.count == 1 }, "no checkpoint at stop: \(sink.reports)")
        let stopped = try XCTUnwrap(sink.reports.last)
        XCTAssertEqual(stopped.kind, .checkpoint)
        XCTAssertEqual(stopped.key, .file("again"))
        let before = sink.reports.count
        player.send(.play(request(media.segments, key: "again")))
        XCTAssertTrue(eventually(timeout: 4) { sink.reports.count > before }, "no tick after the replay")
        player.shutdown()
        let tick = try XCTUnwrap(sink.reports.dropFirst(before).first)
        XCTAssertEqual(tick.kind, .tick)
        XCTAssertEqual(tick.key, .file("again"))
        XCTAssertNotEqual(tick.playback, stopped.playback)
        XCTAssertEqual(sink.finished, [])
    }
}
