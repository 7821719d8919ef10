import Foundation
import TestSupport
import XCTest

/// What the daemon keeps in the library so that a restart loses nothing (issue 13): the up-next
/// queue (add all or none, next, remove, move, a collection), what played last and where (`play`
/// with no target), and the volume.
final class DaemonQueueTests: DaemonTestCase {
    private func restartDaemon() throws {
        try succeed("quit")
        XCTAssertTrue(eventually(timeout: 10) { !(self.daemon?.isRunning ?? false) }, "the daemon did not quit")
        try startDaemon()
    }

    func testTheQueueLivesInTheLibrary() throws {
        try startDaemon()
        try succeed("queue", "clear")   // the library (and so the queue) is the test class's
        let (a, b, c) = (media.short.path, media.segments.path, media.shortOgg.path)
        XCTAssertEqual(try succeed("queue", "add", a, b), "queued 2 items\n")
        XCTAssertEqual(try succeed("queue", "next", c), "queued next: \((c as NSString).lastPathComponent)\n")
        XCTAssertEqual(try queue(), [c, a, b])
        try succeed("queue", "move", "3", "1")
        XCTAssertEqual(try queue(), [b, c, a])
        XCTAssertEqual(try succeed("queue", "remove", "2"), "removed 2: \((c as NSString).lastPathComponent)\n")
        XCTAssertEqual(try queue(), [b, a])

        // One bad target adds none (before, those before it were added silently).
        let missing = world.directory.appendingPathComponent("no-such.mp3").path
        let bad = try feedctl("queue", "add", c, missing)
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.stderr, "feedctl: \(missing): no such file: \(missing) (nothing was queued)\n")
        XCTAssertEqual(try queue(), [b, a])
        let out = try feedctl("queue", "remove", "9")
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.hasPrefix("feedctl: ") && out.stderr.split(separator: "\n").count == 1, out.stderr)

        try restartDaemon()
        XCTAssertEqual(try queue(), [b, a], "the queue survived the restart")
        // `next` takes from the front, and the queue moves on.
        try succeed("next")
        XCTAssertEqual(try status().string("url"), "file://" + b)
        XCTAssertEqual(try queue(), [a])
        try succeed("queue", "clear")
        XCTAssertEqual(try queue(), [])
    }

    /// The queue is kept in the library: with no daemon running, `queue list`, `remove`, `move`
    /// and `clear` read and change it there (they said "the daemon is not running"), start no
    /// daemon, and the next daemon sees what they did.
    func testTheQueueIsReadAndChangedWithoutTheDaemon() throws {
        try startDaemon()
        try succeed("queue", "clear")
        let (a, b, c) = (media.short.path, media.segments.path, media.shortOgg.path)
        try succeed("queue", "add", a, b, c)
        try restartDaemon()
        try succeed("quit")
        XCTAssertTrue(eventually(timeout: 10) { !(self.daemon?.isRunning ?? false) }, "the daemon did not quit")

        XCTAssertEqual(try succeed("queue", "list"), "1. short.mp3\n2. segments.mp3\n3. short.ogg\n")
        XCTAssertEqual(try succeed("queue", "remove", "2"), "removed 2: segments.mp3\n")
        XCTAssertEqual(try queue(), [a, c])
        XCTAssertEqual(try succeed("queue", "move", "2", "1"), "moved short.ogg to 1\n")
        XCTAssertEqual(try queue(), [c, a])
        let missing = try feedctl("queue", "remove", "5")
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "feedctl: no queue entry 5 (the queue has 2)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.socket), "a queue command started the daemon")

        // The daemon finds the queue as it was left, and goes on from it.
        try startDaemon()
        XCTAssertEqual(try queue(), [c, a])
        try succeed("next")
        XCTAssertEqual(try status().string("url"), "file://" + c)
        try succeed("quit")
        XCTAssertTrue(eventually(timeout: 10) { !(self.daemon?.isRunning ?? false) }, "the daemon did not quit")
        XCTAssertEqual(try succeed("queue", "clear"), "queue cleared\n")
        XCTAssertEqual(try succeed("queue", "list"), "the queue is empty\n")
    }

    /// A target is queued once (`UpNextChange`): `queue next` of one already queued moves it to
    /// the front and says so (it was added a second time, and played twice); `queue add` of one
    /// already queued leaves it and says where it is.
    func testQueueNextMovesAnEntryAlreadyQueuedInsteadOfAddingItTwice() throws {
        try startDaemon()
        try succeed("queue", "clear")
        let (a, b, c) = (media.short.path, media.segments.path, media.shortOgg.path)
        try succeed("queue", "add", a, b, c)
        XCTAssertEqual(try succeed("queue", "next", c), "moved to next: short.ogg (it was already queued; it plays once)\n")
        XCTAssertEqual(try queue(), [c, a, b])
        XCTAssertEqual(try succeed("queue", "add", b),
                       "already queued at 3: segments.mp3 (left there; `queue next` moves it up)\n")
        XCTAssertEqual(try queue(), [c, a, b])
        XCTAssertEqual(try succeed("queue", "next", a, b), "queued next 2 items (2 already queued: moved to the front, not added twice)\n")
        XCTAssertEqual(try queue(), [a, b, c])
        // Played from the queue, each once: after `next` takes the front, it is not waiting again.
        try succeed("next")
        XCTAssertEqual(try status().string("url"), "file://" + a)
        XCTAssertEqual(try queue(), [b, c])
        try succeed("queue", "clear")
    }

    func testPlayWithNoTargetContinuesAfterAStopAndARestart() throws {
        try startDaemon()
        let file = media.segments.path
        try succeed("play", file)
        try succeed("seek", "20")
        try succeed("stop")
        XCTAssertEqual(try status().string("status"), "stopped")

        try succeed("play")
        XCTAssertEqual(try status().string("url"), "file://" + file)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(try status().double("position")), 19.5, "continued where it stopped")
        try succeed("seek", "40")
        try restartDaemon()   // quit remembers where it was

        try succeed("play")
        XCTAssertEqual(try status().string("status"), "playing")
        XCTAssertEqual(try status().string("url"), "file://" + file)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(try status().double("position")), 39.5, "continued after the restart")
    }

    /// A sleep timer's stop is a stop like any other: in the morning `play` continues where the
    /// timer stopped it, at the volume from before the fade.
    func testPlayWithNoTargetContinuesAfterTheSleepTimerStopped() throws {
        try startDaemon()
        let file = media.segments.path
        try succeed("play", file)
        try succeed("seek", "20")
        try succeed("sleep", "3s")
        let stopped = try waitForStatus(timeout: 15, "stopped by the sleep timer") { $0.string("status") == "stopped" }
        XCTAssertEqual(stopped.double("volume"), 1, "the volume from before the fade")
        try restartDaemon()

        try succeed("play")
        let again = try waitForStatus("playing again") { $0.string("status") == "playing" }
        XCTAssertEqual(again.string("url"), "file://" + file)
        let position = try XCTUnwrap(again.double("position"))
        XCTAssertGreaterThanOrEqual(position, 22, "continued where the timer stopped it, not from the start")
        XCTAssertLessThan(position, 30)
        XCTAssertEqual(again.double("volume"), 1)
    }

    func testTheVolumeIsRemembered() throws {
        try startDaemon()
        try succeed("volume", "40")
        try restartDaemon()
        XCTAssertEqual(try XCTUnwrap(try status().double("volume")), 0.4, accuracy: 0.001)
    }

    /// `queue add --collection` queues a collection in its order; `play --next` plays the first
    /// item of catch-up order.
    func testACollectionAndTheNextToCatchUpOn() throws {
        let server = try TestHTTPServer(root: world.directory.appendingPathComponent("www-queue"))
        defer { server.stop() }
        try server.write("media/short.mp3", Data(contentsOf: media.short))
        // Within catch-up's window whatever day the test runs: a day and a week ago.
        let rfc822 = DateFormatter()
        rfc822.locale = Locale(identifier: "en_US_POSIX")
        rfc822.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let (dayAgo, weekAgo) = (rfc822.string(from: Date() - 86_400), rfc822.string(from: Date() - 7 * 86_400))
        try server.write("feed.xml", """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Queue Show</title>
            <item><title>One</title><guid>one</guid><pubDate>\(dayAgo)</pubDate>
              <enclosure url="\(server.url("/media/short.mp3"))" type="audio/mpeg" length="0"/></item>
            <item><title>Two</title><guid>two</guid><pubDate>\(weekAgo)</pubDate>
              <enclosure url="\(server.url("/media/short.mp3"))?2" type="audio/mpeg" length="0"/></item>
            </channel></rss>
            """)
        try succeed("channel", "add", server.url("/feed.xml"))
        let feed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try succeed("feed", "--json").utf8)) as? [[String: Any]])
        let ids = Dictionary(uniqueKeysWithValues: feed.map { ($0["title"] as? String ?? "", ($0["id"] as? NSNumber)?.int64Value ?? 0) })
        let (one, two) = (try XCTUnwrap(ids["One"]), try XCTUnwrap(ids["Two"]))
        try succeed("collection", "create", "later")
        try succeed("collection", "add", "later", String(two), String(one))

        try startDaemon()
        XCTAssertEqual(try succeed("queue", "add", "--collection", "later"), "queued 2 items\n")
        XCTAssertEqual(try queue(), [String(two), String(one)])

        let catchUp = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try succeed("feed", "--mode", "catch-up", "--unwatched", "--json").utf8)) as? [[String: Any]])
        let first = try XCTUnwrap((catchUp.first?["id"] as? NSNumber)?.int64Value)
        try succeed("play", "--next")
        XCTAssertEqual((try status()["item_id"] as? NSNumber)?.int64Value, first)
        let nothing = try feedctl("play", "--next", "--channel", "999")
        XCTAssertEqual(nothing.stderr, "feedctl: no channel 999\n")
        try succeed("queue", "clear")
    }
}
