import Foundation
import TestSupport
import XCTest
@testable import PlayerCore

final class RemoteTests: PulseTestCase {
    var http: TestHTTPServer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        http = try TestHTTPServer(root: media.directory)
    }

    override func tearDown() {
        http?.stop()
        super.tearDown()
    }

    func testRemoteURLPlays() throws {
        let player = makePlayer()
        let url = http.base + "/tone.m4a"
        player.send(.play(PlayRequest(key: .url(url), source: try MediaSource.parse(url, allowLocalFiles: false))))
        waitUntilAudible(player)
        assertTone(try record(0.8), 550, "remote m4a")
        XCTAssertEqual(player.nowPlaying.state.metadata?.url, url)
    }

    /// FFmpeg does not check certificates unless asked (`tls_verify`); the player asks, so a
    /// self-signed server is refused as the feed fetcher refuses it.
    func testHTTPSWithAnUntrustedCertificateIsRefused() throws {
        let https = try TestHTTPServer(root: media.directory, tls: true)
        defer { https.stop() }
        let player = makePlayer()
        let url = https.base + "/tone.m4a"
        player.send(.play(PlayRequest(key: .url(url), source: .remote(url))))
        XCTAssertTrue(eventually(timeout: 10) { player.snapshot.error != nil }, "played: \(player.snapshot)")
        XCTAssertEqual(player.snapshot.status, .stopped)
        XCTAssertEqual(player.snapshot.error?.description,
                       "can't open \"\(url)\": Input/output error (Peer certificate failed verification)")
    }

    func testRedirectToAFileAndHLSToFilesAreRefused() throws {
        // A playlist served over http whose segment is a local file.
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:3,\nfile://\(media.shortMP3.path)\n#EXT-X-ENDLIST\n"
        try playlist.write(to: media.directory.appendingPathComponent("local.m3u8"), atomically: true, encoding: .utf8)
        let player = makePlayer()
        for path in ["/redirect/302?to=file://\(media.shortMP3.path)", "/local.m3u8"] {
            let url = http.base + path
            player.send(.play(PlayRequest(key: .url(url), source: .remote(url))))
            XCTAssertTrue(eventually { player.snapshot.error?.description.contains(url) == true },
                          "\(path) was not refused: \(player.snapshot)")
            XCTAssertEqual(player.snapshot.status, .stopped)
        }
    }

    /// Issue 26, item 9: FFmpeg follows no redirect (`max_redirects=0`): the service follows them
    /// itself, each address checked (`MediaRedirects`), and hands FFmpeg the final URL. An http
    /// redirect to an http URL, which FFmpeg used to follow unchecked, is refused before the
    /// target sees a request.
    func testFFmpegFollowsNoRedirect() throws {
        let target = try TestHTTPServer(root: media.directory)
        defer { target.stop() }
        let player = makePlayer()
        let url = http.base + "/redirect/302?to=" + target.url("/tone.m4a")
        player.send(.play(PlayRequest(key: .url(url), source: .remote(url))))
        XCTAssertTrue(eventually(timeout: 10) { player.snapshot.error != nil }, "played: \(player.snapshot)")
        XCTAssertEqual(player.snapshot.status, .stopped)
        XCTAssertEqual(player.snapshot.error?.description, "can't open \"\(url)\": Input/output error")
        XCTAssertEqual(try target.stats().hits["/tone.m4a"] ?? 0, 0, "the redirect's target got no request")
    }

    func testDeadURLsFailWithinTheTimeout() throws {
        let player = Player(configuration: PlayerConfiguration(output: .pulse(server: pulse.server), networkTimeout: 1))
        players.append(player)
        player.send(.play(PlayRequest(key: .url(http.base + "/hang"), source: .remote(http.base + "/hang"))))
        XCTAssertTrue(eventually(timeout: 10) { player.snapshot.error != nil }, "\(player.snapshot)")
        XCTAssertEqual(player.snapshot.error?.description, "can't open \"\(http.base)/hang\": timed out")

        // Nothing listens on port 9 of 127.0.0.1 (discard; not run here).
        player.send(.play(PlayRequest(key: .url("http://127.0.0.1:9/x.mp3"), source: .remote("http://127.0.0.1:9/x.mp3"))))
        XCTAssertTrue(eventually { player.snapshot.error?.description.contains(":9/x.mp3") == true }, "\(player.snapshot)")
        XCTAssertEqual(player.snapshot.error?.description, "can't open \"http://127.0.0.1:9/x.mp3\": Connection refused")
    }
}

/// Its own PulseAudio, killed mid-play.
final class PulseLossTests: PulseTestCase {
    func testServerGoingAwayStopsWithAnErrorAndSavesProgress() throws {
        let sink = RecordingSink()
        let player = makePlayer(sink: sink)
        player.send(.play(request(media.segments, key: "lost", startAt: 10)))
        waitUntilAudible(player, from: 10)
        pulse.kill()
        XCTAssertTrue(eventually { player.snapshot.error != nil }, "\(player.snapshot)")
        XCTAssertEqual(player.snapshot.error?.description,
                       "cannot reach PulseAudio (PULSE_SERVER / $XDG_RUNTIME_DIR/pulse/native): connection lost; PulseAudio or pipewire-pulse "
                       + "must run for this user (on a machine without sound, `scripts/headless-pulse.sh start DIR` starts one with a null sink)")
        XCTAssertEqual(player.snapshot.status, .stopped)
        player.shutdown()
        XCTAssertEqual(sink.saves.last?.key, .file("lost"))
        XCTAssertGreaterThanOrEqual(sink.saves.last?.position ?? 0, 10)
        XCTAssertEqual(sink.ended.map(\.0), [.file("lost")])
        XCTAssertEqual(sink.finished, [])
    }
}
