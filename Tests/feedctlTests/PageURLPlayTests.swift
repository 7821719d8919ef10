import Foundation
import TestSupport
import XCTest

/// `play https://www.youtube.com/watch?v=…` (or a Rumble video page) goes through yt-dlp, as the
/// library's YouTube and Rumble items do, instead of being opened as media.
///
/// yt-dlp stands in for YouTube itself, which cannot be reached from the test machine (and must
/// not be: tests use no outside service). The `yt-dlp` on the daemon's PATH here is a fake: a
/// shell script that records its arguments and prints the URL of a file on a local test server,
/// which is what the real one prints for a real page (a direct media URL).
final class PageURLPlayTests: DaemonTestCase {
    func testAYouTubeOrRumblePageIsResolvedByYtdlp() throws {
        let http = try TestHTTPServer(root: media.directory)
        defer { http.stop() }
        let bin = world.directory.appendingPathComponent("fake-bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let calls = world.directory.appendingPathComponent("yt-dlp-calls.txt")
        let script = """
            #!/bin/sh
            # A stand-in for yt-dlp (YouTube and Rumble cannot be reached from tests).
            echo "$@" >> '\(calls.path)'
            echo '\(http.url("/segments.mp3"))'
            """
        let fake = bin.appendingPathComponent("yt-dlp")
        try script.write(to: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        try startDaemon(environment: ["PATH": path])

        let page = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
        try succeed("play", page)
        try waitForStatus("playing the resolved audio") { $0.string("status") == "playing" && ($0.double("position") ?? 0) > 0.3 }
        assertTone(try record(0.6), 440, "the file yt-dlp pointed at")
        let status = try status()
        XCTAssertEqual(status.string("url"), page, "the page is what plays, as the user named it")
        var logged = try String(contentsOf: calls, encoding: .utf8)
        XCTAssertTrue(logged.hasSuffix("-- \(page)\n"), logged)

        let rumble = "https://rumble.com/v4abcd-a-talk.html"
        try succeed("play", rumble)
        try waitForStatus("playing the Rumble page") { $0.string("url") == rumble && $0.string("status") == "playing" }
        logged = try String(contentsOf: calls, encoding: .utf8)
        XCTAssertTrue(logged.hasSuffix("-- \(rumble)\n"), logged)
        XCTAssertEqual(logged.split(separator: "\n").count, 2)
    }
}
