import Foundation
import NowPlaying
import TestSupport
import XCTest
@testable import PlayerCore

final class PlaybackTests: PulseTestCase {
    func testToneReachesTheSink() throws {
        let player = makePlayer()
        player.send(.play(request(media.shortMP3)))
        waitUntilAudible(player)
        let stats = try record(1.0)
        assertTone(stats, 440, "mp3")
        XCTAssertEqual(player.snapshot.duration ?? 0, 3.0, accuracy: 0.1)
    }

    func testEveryFormatPlays() throws {
        let player = makePlayer()
        for (name, url, frequency) in media.formats {
            player.send(.play(request(url, key: name)))
            waitUntilAudible(player)
            let stats = try record(0.8)
            assertTone(stats, frequency, name)
            XCTAssertNil(player.snapshot.error, name)
        }
    }

    func testItemPlaysToItsEndAndIsFinished() async throws {
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        let events = player.nowPlaying.events()
        player.send(.play(request(media.shortMP3, key: "short", startAt: 1.5)))
        XCTAssertTrue(eventually(timeout: 6) { sink.finished == [.file("short")] && player.snapshot.status == .stopped },
                      "\(player.snapshot) \(sink.finished)")
        XCTAssertNil(player.snapshot.error)
        XCTAssertEqual(sink.ended.map(\.0), [.file("short")])
        XCTAssertNil(sink.ended.first?.1)
        XCTAssertEqual(sink.saves.last?.position ?? 0, 3.0, accuracy: 0.1)
        player.shutdown()
        var statuses: [PlaybackStatus] = []
        for await event in events {
            if case .statusChanged(let s) = event { statuses.append(s) }
            if statuses.count == 2 { break }
        }
        XCTAssertEqual(statuses, [.playing, .stopped])
    }

    func testVolumeScalesTheSignal() throws {
        let player = makePlayer()
        player.send(.play(request(media.segments)))
        waitUntilAudible(player, heard: 0.5)
        let full = try record(0.8)
        // lavfi's sine has amplitude 1/8 (RMS 0.0884); mono goes to both channels at full level.
        XCTAssertEqual(full.rms, 0.0884, accuracy: 0.01)
        player.send(.volume(0.25))
        Thread.sleep(forTimeInterval: 0.05) // the server applies it to buffered audio too
        let quiet = try record(0.8)
        XCTAssertEqual(quiet.frequency, 440, accuracy: 22)
        // PulseAudio volumes are cubic: linear 0.25 is pa_sw_volume_from_linear(0.25), amplitude 0.25.
        XCTAssertEqual(quiet.rms / full.rms, 0.25, accuracy: 0.03)
        XCTAssertEqual(player.nowPlaying.state.volume, 0.25)
        XCTAssertEqual(player.snapshot.volume, 0.25)
    }

    func testStopThenVolumeSetsTheVolumeBeforeTheStopIsPublished() async throws {
        let player = makePlayer()
        player.send(.play(request(media.segments)))
        waitUntilAudible(player)
        _ = await player.perform(.volume(0.1))  // the end of a sleep timer's fade
        let events = player.nowPlaying.events()
        player.send(.stopThenVolume(0.8))
        var seen: [String] = []
        for await event in events {
            if case .volumeChanged(let v) = event { seen.append("volume \(v)") }
            if case .statusChanged(let s) = event { seen.append("\(s)"); if s == .stopped { break } }
        }
        XCTAssertEqual(seen, ["volume 0.8", "stopped"])
        XCTAssertEqual(player.snapshot.volume, 0.8)
        assertSilence(try record(0.4), over: 0.4, "after stop(thenVolume:)")
        player.shutdown()
    }

    func testReplacingAndStoppingAreNotErrors() throws {
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        for i in 0..<5 {
            player.send(.play(request(media.segments, key: "k\(i)", startAt: Double(i * 10))))
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertTrue(eventually { player.snapshot.key == .file("k4") }, "\(player.snapshot)")
        waitUntilAudible(player, from: 40)
        assertTone(try record(0.6), 880, "the last play wins")
        player.send(.stop)
        XCTAssertTrue(eventually { player.snapshot.status == .stopped })
        player.shutdown()
        XCTAssertNil(player.snapshot.error)
        XCTAssertTrue(sink.ended.isEmpty, "replaced/stopped items reported as ended: \(sink.ended)")
        XCTAssertEqual(Set(sink.saves.map(\.key)).isSuperset(of: [.file("k4")]), true)
    }
}
