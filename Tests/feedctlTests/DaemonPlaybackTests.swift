import Foundation
import TestSupport
import XCTest

/// The CLI round trip against a real daemon and a real (headless) PulseAudio: what `status --json`
/// says is checked against what the null sink's monitor actually heard.
final class DaemonPlaybackTests: DaemonTestCase {
    /// `status --json`'s contract, decoded strictly: a wrong type fails the decode.
    struct Status: Decodable {
        let status: String
        let position: Double
        let duration: Double?
        let title: String?
        let artist: String?
        let item_id: Int64?
        let url: String?
        let volume: Double
        let rate: Double
        let chapter: String?
        let error: String?
    }

    static let contractKeys: Set<String> = ["status", "position", "duration", "title", "artist", "item_id", "url",
                                            "volume", "rate", "chapter", "error", "sleep_at"]

    func testPlayFileAndStatusContract() throws {
        try startDaemon()
        let played = try feedctl("play", media.segments.path)
        XCTAssertEqual(played.status, 0, played.stderr)

        let result = try feedctl("status", "--json")
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), Self.contractKeys)
        let status = try JSONDecoder().decode(Status.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(status.status, "playing")
        XCTAssertGreaterThanOrEqual(status.position, 0)
        XCTAssertLessThan(status.position, 15)
        XCTAssertEqual(try XCTUnwrap(status.duration), 60, accuracy: 0.2)
        XCTAssertEqual(status.title, "segments.mp3")
        XCTAssertEqual(status.url, "file://" + media.segments.path)
        XCTAssertTrue(object.isNull("artist") && object.isNull("item_id") && object.isNull("chapter") && object.isNull("error")
                      && object.isNull("sleep_at"))
        XCTAssertEqual(status.volume, 1)
        XCTAssertEqual(status.rate, 1)

        assertTone(try record(0.8), 440, "first segment")

        // The human form names the file and the state.
        let text = try succeed("status")
        XCTAssertTrue(text.hasPrefix("[playing] segments.mp3\n"), text)
    }

    func testSeekRelativeAndAbsolute() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        try waitForStatus("audible") { ($0.double("position") ?? 0) >= 0.3 }

        let before = try XCTUnwrap(try status().double("position"))
        try succeed("seek", "+15")
        let forward = try XCTUnwrap(try status().double("position"))
        XCTAssertGreaterThanOrEqual(forward, before + 15 - 0.05)
        XCTAssertLessThan(forward, before + 15 + 3)
        assertTone(try record(0.8), ToneMedia.segmentFrequency(at: forward), "after seek +15 (at \(forward) s)")

        let here = try XCTUnwrap(try status().double("position"))
        try succeed("seek", "-15")
        let back = try XCTUnwrap(try status().double("position"))
        XCTAssertGreaterThanOrEqual(back, here - 15 - 0.05)
        XCTAssertLessThan(back, here - 15 + 3)
        assertTone(try record(0.8), ToneMedia.segmentFrequency(at: back), "after seek -15 (at \(back) s)")

        // The command's own answer already shows where it landed.
        let answer = try feedctl("seek", "0:30", "--json")
        XCTAssertEqual(answer.status, 0, answer.stderr)
        let landed = try JSONDecoder().decode(Status.self, from: Data(answer.stdout.utf8))
        XCTAssertEqual(landed.position, 30, accuracy: 0.5, answer.stdout)
        let absolute = try XCTUnwrap(try status().double("position"))
        XCTAssertGreaterThanOrEqual(absolute, 30 - 0.05)
        XCTAssertLessThan(absolute, 33)
        assertTone(try record(0.8), 880, "after seek 0:30")

        // Seconds work too, and a seek before the start clamps to 0.
        try succeed("seek", "50")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(try status().double("position")), 50 - 0.05)
        try succeed("seek", "-90")
        XCTAssertLessThan(try XCTUnwrap(try status().double("position")), 3)
        assertTone(try record(0.8), 440, "after seek -90 (clamped to 0)")

        let bad = try feedctl("seek", "soon")
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.hasPrefix("feedctl: seek takes one position"), bad.stderr)
    }

    func testPauseFreezesPositionAndResumeContinues() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        try waitForStatus("audible") { ($0.double("position") ?? 0) >= 0.5 }

        try succeed("pause")
        let paused = try status()
        XCTAssertEqual(paused.string("status"), "paused")
        let frozen = try XCTUnwrap(paused.double("position"))
        let silence = try record(1.0)
        let later = try status()
        XCTAssertEqual(later.string("status"), "paused")
        XCTAssertEqual(later.double("position"), frozen, "position moved while paused")
        assertSilence(silence, "while paused")

        try succeed("resume")
        XCTAssertEqual(try status().string("status"), "playing")
        try waitForStatus("moving again") { ($0.double("position") ?? 0) > frozen + 0.3 }
        assertTone(try record(0.8), 440, "after resume")

        // toggle pauses and resumes too.
        try succeed("toggle")
        XCTAssertEqual(try status().string("status"), "paused")
        try succeed("toggle")
        XCTAssertEqual(try status().string("status"), "playing")
    }

    func testVolume() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        try waitForStatus("audible") { ($0.double("position") ?? 0) >= 0.3 }
        let full = try record(0.8)
        assertTone(full, 440, "at full volume")

        try succeed("volume", "50")
        XCTAssertEqual(try status().double("volume"), 0.5)
        // The gain applies to newly decoded audio: skip what PulseAudio still buffers.
        let position = try XCTUnwrap(try status().double("position"))
        try waitForStatus("past the buffered audio") { ($0.double("position") ?? 0) > position + 1 }
        let half = try record(0.8)
        XCTAssertEqual(half.frequency, 440, accuracy: 22, "at half volume: \(half)")
        XCTAssertEqual(half.rms / full.rms, 0.5, accuracy: 0.05, "half volume: \(half) vs \(full)")

        let bad = try feedctl("volume", "150")
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("0–100"), bad.stderr)
        XCTAssertEqual(try status().double("volume"), 0.5)
    }

    func testStop() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        try waitForStatus("audible") { ($0.double("position") ?? 0) >= 0.3 }
        try succeed("stop")
        let stopped = try status()
        XCTAssertEqual(stopped.string("status"), "stopped")
        XCTAssertEqual(stopped.double("position"), 0)
        XCTAssertTrue(stopped.isNull("title") && stopped.isNull("url") && stopped.isNull("error"), "\(stopped)")
        assertSilence(try record(0.6), "after stop")
        XCTAssertEqual(try succeed("status"), "[stopped]\n")

        let seek = try feedctl("seek", "+15")
        XCTAssertNotEqual(seek.status, 0)
        XCTAssertEqual(seek.stderr, "feedctl: nothing is playing\n")
    }

    func testStatusFollowPrintsAboutOneLinePerSecond() throws {
        try startDaemon()
        try succeed("play", media.segments.path)

        let follow = try ProcessRunner.start(try Self.feedctlBinary().path, ["status", "--follow", "--json"],
                                             environment: world.environment)
        Thread.sleep(forTimeInterval: 3)
        XCTAssertTrue(follow.process.isRunning, "status --follow ended on its own")
        follow.signal(SIGINT)
        let followed = try follow.wait(timeout: 10)

        let lines = followed.stdout.split(separator: "\n")
        XCTAssertTrue((2...5).contains(lines.count), "\(lines.count) lines in ~3 s: \(lines)")
        var positions: [Double] = []
        for line in lines {
            let object = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            XCTAssertEqual(Set(object.keys), Self.contractKeys)
            let status = try JSONDecoder().decode(Status.self, from: Data(line.utf8))
            XCTAssertEqual(status.status, "playing")
            positions.append(status.position)
        }
        XCTAssertEqual(positions, positions.sorted(), "positions went backwards: \(positions)")
    }

    func testQueueAdvancesAtTheEndAndNext() throws {
        try startDaemon()
        try succeed("play", media.short.path)
        let queued = try succeed("queue", "add", media.shortOgg.path)
        XCTAssertEqual(queued, "queued: short.ogg\n")
        XCTAssertEqual(try succeed("queue", "list"), "1. short.ogg\n")

        // short.mp3 (3 s) ends; the queue moves on to short.ogg by itself.
        try waitForStatus("the queued item playing") { $0.string("title") == "short.ogg" && $0.string("status") == "playing" }
        assertTone(try record(0.5), 990, "the queued item")
        XCTAssertEqual(try succeed("queue", "list"), "the queue is empty\n")

        try succeed("queue", "add", media.segments.path, media.short.path)
        let list = try feedctl("queue", "list", "--json")
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["title"] as? String }, ["segments.mp3", "short.mp3"])
        XCTAssertEqual(entries.map { $0["target"] as? String }, [media.segments.path, media.short.path])

        try succeed("next")
        let now = try status()
        XCTAssertEqual(now.string("title"), "segments.mp3")
        XCTAssertEqual(now.string("status"), "playing")
        assertTone(try record(0.5), 440, "after next")
        XCTAssertEqual(try succeed("queue", "list"), "1. short.mp3\n")

        XCTAssertEqual(try succeed("queue", "clear"), "queue cleared\n")
        let empty = try feedctl("next")
        XCTAssertNotEqual(empty.status, 0)
        XCTAssertEqual(empty.stderr, "feedctl: the queue is empty\n")
        XCTAssertEqual(try status().string("title"), "segments.mp3", "a refused next must not stop playback")
    }
}
