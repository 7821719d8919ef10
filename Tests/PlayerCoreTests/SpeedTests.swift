import Foundation
import NowPlaying
import TestSupport
import XCTest
@testable import PlayerCore

final class SpeedTests: PulseTestCase {
    /// 20 s of 440 Hz, made once per process.
    nonisolated(unsafe) static var tone20: URL?

    private func twentySeconds() throws -> URL {
        if let url = Self.tone20 { return url }
        let url = media.directory.appendingPathComponent("tone20.mp3")
        try ToneMedia.encode(ToneMedia.sine(440, seconds: 20), ["-c:a", "libmp3lame", "-b:a", "96k"], to: url)
        Self.tone20 = url
        return url
    }

    /// Seconds of non-silent audio in a finished recording (silences over 50 ms removed).
    private func audibleSeconds(_ recording: Recording) throws -> Double {
        let out = try ProcessRunner.run("sox", Recording.soxFormat + [recording.file.path, "-n", "remix", "1",
                                                "silence", "-l", "1", "0.01", "1%", "-1", "0.05", "1%", "stat"])
        for line in out.split(separator: "\n") where line.hasPrefix("Length (seconds)") {
            if let v = line.split(separator: ":").last.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) {
                return v
            }
        }
        return 0
    }

    func testTwiceAsFastKeepsThePitchAndHalvesTheDuration() throws {
        let url = try twentySeconds()
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        player.send(.rate(2))
        XCTAssertTrue(eventually { player.snapshot.rate == 2 })
        let firstHalf = try pulse.startRecording()
        player.send(.play(request(url, key: "tone")))
        // Media time: 10 s of the item are heard after ~5 s of audio.
        XCTAssertTrue(eventually(timeout: 15) { player.position >= 10 }, "\(player.snapshot)")
        _ = try firstHalf.stop()
        let heardByTen = try audibleSeconds(firstHalf)
        XCTAssertEqual(heardByTen, 5, accuracy: 1.2, "audio heard when the position reached 10 s of media")

        let secondHalf = try pulse.startRecording()
        XCTAssertTrue(eventually(timeout: 15) { sink.finished == [.file("tone")] && player.snapshot.status == .stopped },
                      "\(player.snapshot)")
        let stats = try secondHalf.stop()
        let total = heardByTen + (try audibleSeconds(secondHalf))
        XCTAssertEqual(total, 10, accuracy: 1.5, "20 s at 2× should be ~10 s of audio")
        assertTone(stats, 440, "pitch kept at 2×")
        XCTAssertEqual(sink.saves.last?.position ?? 0, 20, accuracy: 0.1, "progress is in media time")
        XCTAssertNil(player.snapshot.error)
        XCTAssertEqual(player.nowPlaying.state.rate, 2)
    }

    func testSpeedChangesWhilePlayingWithoutAGapOrAJump() throws {
        let player = makePlayer()
        player.send(.play(request(media.segments)))
        waitUntilAudible(player, heard: 1)
        let recording = try pulse.startRecording()
        for rate in [1.5, 3, 0.5, 1] {
            let before = player.position
            player.send(.rate(rate))
            XCTAssertTrue(eventually { player.snapshot.rate == rate })
            let after = player.position
            XCTAssertGreaterThanOrEqual(after, before, "position went back at \(rate)×")
            XCTAssertLessThan(after - before, 0.5, "position jumped at \(rate)×")
            Thread.sleep(forTimeInterval: 0.5)
        }
        let stats = try recording.stop()
        let audible = try audibleSeconds(recording)
        XCTAssertGreaterThan(audible, stats.seconds - 0.15, "a gap in the audio: \(audible) of \(stats.seconds) s")
        assertTone(stats, 440, "pitch kept across changes")
        XCTAssertNil(player.snapshot.error)
    }

    func testSpeedAppliesToTheNextItemAndAPerItemRateWins() throws {
        let player = makePlayer()
        player.send(.rate(1.5))
        player.send(.play(request(media.shortMP3)))
        XCTAssertTrue(eventually { player.snapshot.status == .playing })
        XCTAssertEqual(player.snapshot.rate, 1.5)
        var req = request(media.segments, key: "other", startAt: 30)
        req.rate = 0.75
        player.send(.play(req))
        waitUntilAudible(player, from: 30)
        XCTAssertEqual(player.snapshot.rate, 0.75)
        assertTone(try record(0.8), 880, "0.75×")
    }

    /// The player only keeps the filter working (the speeds people choose are FeedModel's
    /// `PlaybackSpeed`, tested there): within atempo's range, 1 for a non-number.
    func testTemposAreWhatTheFilterCanDo() {
        XCTAssertEqual(TimeStretch.tempo(1.52), 1.52)
        XCTAssertEqual(TimeStretch.tempo(0.1), 0.5)
        XCTAssertEqual(TimeStretch.tempo(700), 100)
        XCTAssertEqual(TimeStretch.tempo(.nan), 1)
        XCTAssertEqual(TimeStretch.tempo(-.infinity), 1)
    }
}
