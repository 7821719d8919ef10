import Foundation
import NowPlaying
import TestSupport
import XCTest
@testable import PlayerCore

final class ErrorTests: PulseTestCase {
    func testBadFilesGiveOneLineErrorsAndThePlayerKeepsWorking() throws {
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        let missing = media.directory.appendingPathComponent("missing.mp3")
        let cases: [(URL, String)] = [
            (media.truncated, "Invalid data found when processing input"),
            (media.garbage, "Invalid argument"), // what FFmpeg's MP3 probe says about these bytes
            (missing, "No such file or directory"),
        ]
        for (url, reason) in cases {
            player.send(.play(request(url, key: url.lastPathComponent)))
            let expected = "can't open \"\(url.path)\": \(reason)"
            XCTAssertTrue(eventually { player.snapshot.error?.description.contains(url.path) == true },
                          "\(url.lastPathComponent): \(player.snapshot)")
            XCTAssertEqual(player.snapshot.error?.description, expected)
            XCTAssertEqual(player.snapshot.status, .stopped)
            // The now-playing state follows the snapshot on its own queue: wait for it (under
            // load it lagged behind the snapshot by a moment), then check it exactly.
            _ = eventually { player.nowPlaying.state.error == expected && player.nowPlaying.state.metadata == nil }
            XCTAssertEqual(player.nowPlaying.state.error, expected)
            XCTAssertNil(player.nowPlaying.state.metadata)
        }
        player.send(.play(request(media.shortMP3, key: "good")))
        waitUntilAudible(player)
        assertTone(try record(0.6), 440, "after errors")
        XCTAssertNil(player.snapshot.error)
        XCTAssertNil(player.nowPlaying.state.error)
        // An item that fails to start has not "ended": nothing played, so no queue moves on (a
        // failed `play` left the queue's first entry playing and gone from the queue); whoever
        // asked for it is told by the play's outcome.
        player.shutdown()
        XCTAssertEqual(sink.ended.map(\.0), [])
    }

    func testAFileEndingEarlyIsAnErrorNotTheEnd() throws {
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        player.send(.play(request(media.cutShort, key: "cut")))
        waitUntilAudible(player)
        XCTAssertEqual(player.snapshot.duration ?? 0, 6, accuracy: 0.1)
        XCTAssertTrue(eventually(timeout: 8) { player.snapshot.error != nil }, "\(player.snapshot)")
        let message = player.snapshot.error?.description ?? ""
        XCTAssertTrue(message.hasPrefix("can't decode \"\(media.cutShort.path)\": ends at "), message)
        XCTAssertTrue(message.hasSuffix(" of 6.0 s (truncated?)"), message)
        player.shutdown()
        XCTAssertEqual(sink.finished, [])
        XCTAssertEqual(sink.ended.map(\.0), [.file("cut")])
        XCTAssertNotNil(sink.ended.first?.1)
        XCTAssertGreaterThan(sink.saves.last?.position ?? 0, 1)
    }

    func testNoPulseServerIsAnError() {
        let player = Player(configuration: PlayerConfiguration(output: .pulse(server: "unix:/nonexistent/feedctl/native")))
        players.append(player)
        player.send(.play(request(media.shortMP3)))
        XCTAssertTrue(eventually { player.snapshot.error != nil })
        let message = player.snapshot.error?.description ?? ""
        XCTAssertTrue(message.hasPrefix("cannot reach PulseAudio (PULSE_SERVER / $XDG_RUNTIME_DIR/pulse/native)"), message)
        XCTAssertEqual(player.snapshot.status, .stopped)
    }
}

final class MediaSourceTests: XCTestCase {
    func testOnlyHTTPAndNamedFilesAreAllowed() throws {
        XCTAssertEqual(try MediaSource.parse(" https://example.com/a.mp3 ", allowLocalFiles: false),
                       .remote("https://example.com/a.mp3"))
        XCTAssertEqual(try MediaSource.parse("HTTP://example.com/a.mp3", allowLocalFiles: false),
                       .remote("HTTP://example.com/a.mp3"))
        XCTAssertEqual(try MediaSource.parse("/tmp/a.mp3", allowLocalFiles: true), .localFile("/tmp/a.mp3"))
        XCTAssertEqual(try MediaSource.parse("file:///tmp/a.mp3", allowLocalFiles: true), .localFile("/tmp/a.mp3"))
        for refused in ["file:///etc/passwd", "/tmp/a.mp3", "concat:/a.mp3|/b.mp3", "data:audio/mp3;base64,AAAA",
                        "ftp://example.com/a.mp3", "subfile,,start,0,end,0,,:/etc/passwd", "rtmp://x/y", ""] {
            XCTAssertThrowsError(try MediaSource.parse(refused, allowLocalFiles: false), refused) { error in
                guard case .refused = error as? PlayerError else { return XCTFail("\(refused): \(error)") }
            }
        }
        // Named by the user, a path is still never a protocol.
        XCTAssertThrowsError(try MediaSource.parse("concat:/a.mp3|/b.mp3", allowLocalFiles: true))
        XCTAssertEqual(PlayerError.refused(source: "ftp://x", reason: "only http and https URLs are allowed").description,
                       "refusing \"ftp://x\": only http and https URLs are allowed")
    }
}

/// Messages that said "Invalid argument" (issue 14 item 9): an empty file, and an empty body.
final class OpenMessageTests: PulseTestCase {
    func testEmptyMediaSaysItIsEmpty() throws {
        let player = makePlayer(sink: RecordingSink())
        let empty = media.directory.appendingPathComponent("empty-\(UUID().uuidString.prefix(6)).mp3")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        defer { try? FileManager.default.removeItem(at: empty) }
        player.send(.play(request(empty, key: "empty")))
        XCTAssertTrue(eventually { player.snapshot.error != nil }, "\(player.snapshot)")
        XCTAssertEqual(player.snapshot.error?.description, "can't open \"\(empty.path)\": the file is empty (0 bytes)")

        let server = try TestHTTPServer()
        defer { server.stop() }
        try server.write("empty.mp3", Data())
        let url = server.url("/norange/empty.mp3")   // a plain 200 with an empty body
        player.send(.play(PlayRequest(key: .url(url), source: .remote(url))))
        XCTAssertTrue(eventually(timeout: 10) { player.snapshot.error?.description.contains(url) == true }, "\(player.snapshot)")
        XCTAssertEqual(player.snapshot.error?.description, "can't open \"\(url)\": the server sent no data (0 bytes)")
        player.shutdown()
    }
}
