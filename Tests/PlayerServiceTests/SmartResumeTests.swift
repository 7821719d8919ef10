import ControlProtocol
import Downloads
import FeedModel
import Foundation
import PlayerCore
@testable import PlayerService
import Synchronization
import TestSupport
import XCTest

/// Smart resume: after a pause longer than a minute, `resume` starts a few seconds earlier. The
/// service measures the pause with the clock it is given, so the test moves that clock instead
/// of waiting a minute; everything else is real (PulseAudio, FFmpeg, a SQLite library).
final class SmartResumeTests: XCTestCase {
    /// Seconds that move only when the test says so.
    final class TestClock: Sendable {
        private let seconds = Mutex(1000.0)
        var now: Double { seconds.withLock { $0 } }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    var pulse: PulseServer!
    var library: TestLibrary!
    var media: URL!
    var services: [PlayerService] = []

    override func setUpWithError() throws {
        pulse = try PulseServer()
        library = try TestLibrary()
        media = URL(fileURLWithPath: library.dir.file("segments.mp3"))
        try ToneMedia.writeSegments(to: media)
    }

    override func tearDown() {
        for service in services { service.player.shutdown() }
        pulse?.stop()
        pulse?.remove()
        super.tearDown()
    }

    private func service(_ rewind: ResumeRewind = ResumeRewind(), clock: TestClock) -> PlayerService {
        let service = PlayerService(library: library.library, downloads: DownloadStore(directory: library.dir.file("media")),
                                    configuration: PlayerConfiguration(output: .pulse(server: pulse.server)),
                                    resumeRewind: rewind, now: { clock.now }, log: { _ in })
        services.append(service)
        return service
    }

    /// Plays the segments file, moves to 30 s and pauses there; returns the paused position.
    private func pausedAt30(_ service: PlayerService) async throws -> Double {
        let play = await service.perform(.play(.local(media.path), fromStart: true))
        XCTAssertTrue(play.ok, play.error ?? "")
        _ = await service.perform(.seek(try SeekTarget(position: 30)))
        let paused = await service.perform(.pause)
        XCTAssertEqual(paused.status?.status, .paused)
        return try XCTUnwrap(paused.status?.position)
    }

    func testAResumeAfterALongPauseGoesBackAFewSeconds() async throws {
        XCTAssertEqual(SmartResume.afterPause, 60)
        XCTAssertEqual(SmartResume.rewind, 5)
        let clock = TestClock()
        let service = service(clock: clock)
        let at = try await pausedAt30(service)

        clock.advance(59)   // not longer than a minute: no rewind
        let short = await service.perform(.resume)
        XCTAssertEqual(short.status?.status, .playing)
        XCTAssertEqual(try XCTUnwrap(short.status?.position), at, accuracy: 0.2)

        let paused = await service.perform(.pause)
        let there = try XCTUnwrap(paused.status?.position)
        clock.advance(61)
        let long = await service.perform(.resume)
        XCTAssertEqual(long.status?.status, .playing)
        XCTAssertEqual(try XCTUnwrap(long.status?.position), there - 5, accuracy: 0.2, "5 s earlier")

        // toggle pauses and resumes the same way.
        let toggled = await service.perform(.toggle)
        XCTAssertEqual(toggled.status?.status, .paused)
        let before = try XCTUnwrap(toggled.status?.position)
        clock.advance(3600)
        let back = await service.perform(.toggle)
        XCTAssertEqual(try XCTUnwrap(back.status?.position), before - 5, accuracy: 0.2)
    }

    func testTheThresholdAndTheStepAreParameters() async throws {
        let clock = TestClock()
        let service = service(ResumeRewind(afterPause: 10, seconds: 12), clock: clock)
        let at = try await pausedAt30(service)
        clock.advance(11)
        let resumed = await service.perform(.resume)
        XCTAssertEqual(try XCTUnwrap(resumed.status?.position), at - 12, accuracy: 0.2)

        let off = self.service(.off, clock: clock)
        let offAt = try await pausedAt30(off)
        clock.advance(100_000)
        let plain = await off.perform(.resume)
        XCTAssertEqual(try XCTUnwrap(plain.status?.position), offAt, accuracy: 0.2)
    }

    func testRewindRule() {
        let rule = ResumeRewind()
        XCTAssertEqual(rule.rewind(afterPausing: 60), 0)
        XCTAssertEqual(rule.rewind(afterPausing: 60.5), 5)
        XCTAssertEqual(rule.rewind(afterPausing: .nan), 0)
        XCTAssertEqual(ResumeRewind.off.rewind(afterPausing: 1e9), 0)
    }
}
