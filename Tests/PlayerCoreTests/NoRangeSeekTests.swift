import Foundation
import TestSupport
import XCTest
@testable import PlayerCore

/// Seeking in media served without byte ranges (`/norange/`: what `python3 -m http.server`
/// does), where FFmpeg's HTTP protocol cannot seek. The segments fixture changes tone every
/// 15 s, so each recording tells which part of the file is heard after a forward and a
/// backward seek; the player must keep playing through both, as mpv does on the same URLs.
final class NoRangeSeekTests: PulseTestCase {
    var http: TestHTTPServer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        http = try TestHTTPServer(root: media.directory)
    }

    override func tearDown() {
        http?.stop()
        super.tearDown()
    }

    /// The 60 s segments in each container: MP3 (the fixture), Opus in Ogg, AAC in M4A.
    private func segments(_ format: String) throws -> String {
        let name = "segments-norange.\(format)"
        let file = media.directory.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: file.path) {
            switch format {
            case "mp3":
                try FileManager.default.copyItem(at: media.segments, to: file)
            case "opus":
                try ToneMedia.encode([440, 660, 880, 1100].flatMap { ToneMedia.sine($0, rate: 48000, seconds: 15) },
                                     ["-filter_complex", "concat=n=4:v=0:a=1", "-c:a", "libopus", "-b:a", "64k"], to: file)
            default:
                try ToneMedia.encode([440, 660, 880, 1100].flatMap { ToneMedia.sine($0, seconds: 15) },
                                     ["-filter_complex", "concat=n=4:v=0:a=1", "-c:a", "aac", "-b:a", "96k",
                                      "-movflags", "+faststart"], to: file)
            }
        }
        return http.base + "/norange/" + name
    }

    private func assertSeeksKeepPlaying(_ format: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = try segments(format)
        let player = makePlayer()
        player.send(.play(PlayRequest(key: .url(url), source: .remote(url))))
        waitUntilAudible(player, from: 0, heard: 0.5)
        assertTone(try record(0.6), 440, "\(format): start", file: file, line: line)

        player.send(.seek(.absolute(35)))
        XCTAssertTrue(eventually { (35...40).contains(player.position) }, "\(format) after seek to 35: \(player.snapshot)",
                      file: file, line: line)
        waitUntilAudible(player, from: 35)
        XCTAssertNil(player.snapshot.error, "\(format)", file: file, line: line)
        assertTone(try record(0.6), 880, "\(format): forward to 35 s", file: file, line: line)

        player.send(.seek(.relative(-15)))
        XCTAssertTrue(eventually { (20...25).contains(player.position) }, "\(format) after -15: \(player.snapshot)",
                      file: file, line: line)
        waitUntilAudible(player, from: player.position)
        XCTAssertNil(player.snapshot.error, "\(format)", file: file, line: line)
        assertTone(try record(0.6), 660, "\(format): back 15 s", file: file, line: line)

        player.send(.seek(.absolute(2)))
        XCTAssertTrue(eventually { (2...7).contains(player.position) }, "\(format) after seek to 2: \(player.snapshot)",
                      file: file, line: line)
        waitUntilAudible(player, from: 2)
        XCTAssertEqual(player.snapshot.status, .playing, "\(format)", file: file, line: line)
        assertTone(try record(0.6), 440, "\(format): back to 2 s", file: file, line: line)
    }

    func testMP3SeeksForwardAndBackWithoutRanges() throws { try assertSeeksKeepPlaying("mp3") }
    func testOpusSeeksForwardAndBackWithoutRanges() throws { try assertSeeksKeepPlaying("opus") }
    func testM4ASeeksForwardAndBackWithoutRanges() throws { try assertSeeksKeepPlaying("m4a") }
}
