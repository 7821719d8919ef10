import Foundation
import TestSupport
import XCTest

/// Library items served over http from 127.0.0.1: progress goes back to the library, playing again
/// resumes from it, and an item heard to its end is marked watched and lands in the history.
final class DaemonLibraryTests: DaemonTestCase {
    /// The feed's items by title, subscribed once per class.
    nonisolated(unsafe) static var items: [String: Int64] = [:]
    nonisolated(unsafe) static var server: TestHTTPServer?

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Self.items.isEmpty { try subscribe() }
    }

    override class func tearDown() {
        server?.stop()
        server = nil
        items = [:]
        super.tearDown()
    }

    /// Serves a podcast feed with two enclosures (the 60 s segments file and a 3 s tone) and subscribes to it.
    private func subscribe() throws {
        let server = try TestHTTPServer(root: world.directory.appendingPathComponent("www"))
        Self.server = server
        try server.write("media/segments.mp3", Data(contentsOf: media.segments))
        try server.write("media/short.mp3", Data(contentsOf: media.short))
        let feed = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Tone Show</title><link>\(server.base)/</link>
            <item><title>Segments</title><guid>segments</guid><pubDate>Sat, 14 Nov 2026 09:00:00 +0000</pubDate>
              <enclosure url="\(server.url("/media/segments.mp3"))" type="audio/mpeg" length="0"/></item>
            <item><title>Short</title><guid>short</guid><pubDate>Sat, 07 Nov 2026 09:00:00 +0000</pubDate>
              <enclosure url="\(server.url("/media/short.mp3"))" type="audio/mpeg" length="0"/></item>
            </channel></rss>
            """
        try server.write("feed.xml", Data(feed.utf8))
        try succeed("channel", "add", server.url("/feed.xml"))
        let listed = try feedctl("feed", "--json")
        let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        for item in items {
            if let title = item["title"] as? String, let id = (item["id"] as? NSNumber)?.int64Value { Self.items[title] = id }
        }
        XCTAssertEqual(Set(Self.items.keys), ["Segments", "Short"])
    }

    func item(_ title: String) throws -> String { String(try XCTUnwrap(Self.items[title], "no item \(title)")) }

    /// `feedctl show ID --json`, parsed.
    func show(_ id: String) throws -> [String: Any] {
        let result = try feedctl("show", id, "--json")
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    func progress(_ id: String) throws -> Int { try XCTUnwrap((try show(id)["progress"] as? NSNumber)?.intValue) }

    /// `discover … --play N` (issue 16): result N, a library item here, is played by the daemon
    /// as `play ID` plays it, and heard.
    func testDiscoverPlaysAResultThroughTheDaemon() throws {
        let id = try item("Short")
        try startDaemon()
        let found = try feedctl("discover", "short", "--platform", "library", "--play", "1")
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertTrue(found.stdout.hasPrefix("[playing] Short — Tone Show\n"), found.stdout)
        let playing = try status()
        XCTAssertEqual(playing.string("status"), "playing")
        XCTAssertEqual((playing["item_id"] as? NSNumber)?.stringValue, id)
        assertTone(try record(0.6), 550, "discover's result 1, through the daemon")
        try succeed("stop")
    }

    func testProgressIsSavedAndPlaybackResumesFromIt() throws {
        let id = try item("Segments")
        try startDaemon()
        try succeed("play", id, "--from-start")
        let playing = try status()
        XCTAssertEqual(playing.string("status"), "playing")
        XCTAssertEqual((playing["item_id"] as? NSNumber)?.stringValue, id)
        XCTAssertEqual(playing.string("title"), "Segments")
        XCTAssertEqual(playing.string("artist"), "Tone Show")
        XCTAssertEqual(try XCTUnwrap(playing.double("duration")), 60, accuracy: 0.2)
        assertTone(try record(0.6), 440, "the item over http")

        try succeed("seek", "0:20")
        try waitForStatus("heard past 20 s") { ($0.double("position") ?? 0) >= 20.5 }
        try succeed("stop")
        let saved = try progress(id)
        XCTAssertGreaterThanOrEqual(saved, 20)
        XCTAssertLessThan(saved, 25)

        try succeed("play", id)
        let resumed = try XCTUnwrap(try status().double("position"))
        XCTAssertGreaterThanOrEqual(resumed, Double(saved))
        XCTAssertLessThan(resumed, Double(saved) + 3)
        assertTone(try record(0.6), 660, "resumed at \(saved) s")

        try succeed("play", id, "--from-start")
        XCTAssertLessThan(try XCTUnwrap(try status().double("position")), 3)
        assertTone(try record(0.6), 440, "--from-start")
    }

    func testItemPlayedToItsEndIsWatchedAndInHistory() throws {
        let id = try item("Short")
        try startDaemon()
        XCTAssertEqual(try show(id)["watched"] as? Bool, false)
        try succeed("play", id)
        try waitForStatus("the 3 s item ended") { $0.string("status") == "stopped" }
        let watched = eventually(timeout: 5) { (try? show(id)["watched"] as? Bool) == true }
        XCTAssertTrue(watched, "never marked watched: \(String(describing: try? show(id)))")

        let history = try feedctl("history", "--json")
        XCTAssertEqual(history.status, 0, history.stderr)
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.first?["title"] as? String, "Short")
        XCTAssertEqual((entries.first?["item"] as? NSNumber)?.stringValue, id)
    }

    func testQuitStopsTheDaemonAndSavesProgress() throws {
        let id = try item("Segments")
        let daemon = try startDaemon()
        try succeed("play", id, "--from-start")
        try succeed("seek", "0:40")
        try waitForStatus("heard past 40 s") { ($0.double("position") ?? 0) >= 40.3 }

        XCTAssertEqual(try succeed("quit"), "feedctl daemon stopped\n")
        XCTAssertTrue(eventually(timeout: 10) { !daemon.isRunning }, "the daemon still runs after quit")
        XCTAssertEqual(daemon.terminationStatus, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.socket), "quit left the socket behind")
        let saved = try progress(id)
        XCTAssertGreaterThanOrEqual(saved, 40)
        XCTAssertLessThan(saved, 45)

        // Without a daemon, status and the control verbs say it isn't running, and fail (status
        // used to print "[stopped]" and exit 0 here: issue 14 item 9).
        let status = try feedctl("status")
        XCTAssertEqual(status.status, 1)
        // It points at `play`, which starts the daemon (`feedctl daemon` would hold the terminal).
        XCTAssertEqual(status.stderr, "feedctl: nothing is playing: the player is not running (no socket at \(world.socket)); `feedctl play` starts it\n")
        XCTAssertEqual(status.stdout, "")
        let follow = try feedctl("status", "--follow")
        XCTAssertEqual(follow.status, 1, "the same with --follow")
        XCTAssertEqual(follow.stderr, status.stderr)
        let pause = try feedctl("pause")
        XCTAssertNotEqual(pause.status, 0)
        XCTAssertTrue(pause.stderr.contains("the player is not running"), pause.stderr)
    }
}
