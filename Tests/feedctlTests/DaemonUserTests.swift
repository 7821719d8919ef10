import FeedModel
import Foundation
import LibraryOpen
import LibraryStore
import TestSupport
import XCTest

/// `feedctl daemon --user NAME`: the player acts for that user (issue 28: one daemon per machine
/// with speakers, against a library many people share). What it plays saves progress in that
/// user's watch state, not the owner's; a name the library does not know is one line.
final class DaemonUserTests: DaemonTestCase {
    /// On the test world's SQLite library.
    func testADaemonStartedForAUserSavesProgressAsThatUser() async throws {
        try await assertPlaysForAnn(db: world.db)
    }

    /// On a PostgreSQL database of its own (`TestPostgres`), as several machines would share it.
    func testADaemonStartedForAUserSavesProgressAsThatUserOnPostgreSQL() async throws {
        let database = try TestPostgres.createDatabase()
        defer { TestPostgres.drop(database.name) }
        try await assertPlaysForAnn(db: database.url)
    }

    func testAnUnknownUserIsAOneLineErrorAndLeavesNoSocket() throws {
        // A library with another user in it, whichever test of the class ran before (alone, the
        // world has no library yet, and making one is a line of its own).
        XCTAssertEqual(try feedctl(["user", "add", "bea"]).status, 0)
        let socket = world.directory.appendingPathComponent("nobody.sock").path
        let result = try feedctl(["daemon", "--socket", socket, "--sync-every", "0", "--user", "nobody"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "feedctl: --user nobody: no such user in the library \(world.db)"
                       + " (`feedctl user list` lists them; `feedctl user add NAME` adds one)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket), "a daemon that did not start left its socket")
    }

    /// The owner subscribes (the CLI acts for the owner); ann is added and follows the channel; a
    /// daemon started for ann plays the 60 s item to 20 s and stops: ann's progress is there, the owner's is untouched.
    private func assertPlaysForAnn(db: String) async throws {
        let environment: [String: String?] = ["FEEDCTL_DB": db]
        let server = try TestHTTPServer()
        defer { server.stop() }
        try server.write("media/segments.mp3", Data(contentsOf: media.segments))
        try server.write("feed.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Tone Show</title><link>\(server.base)/</link>
            <item><title>Segments</title><guid>segments</guid><pubDate>Sat, 14 Nov 2026 09:00:00 +0000</pubDate>
              <enclosure url="\(server.url("/media/segments.mp3"))" type="audio/mpeg" length="0"/></item>
            </channel></rss>
            """)
        @discardableResult
        func run(_ arguments: String...) throws -> ProcessRunner.Result {
            let result = try feedctl(arguments, environment: environment)
            XCTAssertEqual(result.status, 0, "feedctl \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
        try run("channel", "add", server.url("/feed.xml"))
        try run("user", "add", "ann")
        let database = try await LibraryOpener(db: db).open { _ in }
        let ann = database.store(for: try await database.owner.user(named: "ann").id)
        // Ann follows the channel the owner's `channel add` made (the store's subscribing, as a
        // phone's sync or the web app does it: the CLI acts for the owner).
        try await ann.addChannel(platform: .podcast, sourceURL: server.url("/feed.xml"), feedURL: server.url("/feed.xml"),
                                 name: "Tone Show", now: Clock.now())
        let items = try await database.owner.feed(FeedQuery(), now: Clock.now())
        let item = try XCTUnwrap(items.first { $0.title == "Segments" }, "the owner's feed: \(items.map(\.title))")

        try startDaemon(arguments: ["--db", db, "--user", "ann"], environment: environment)
        waitForLog("library \(try LibraryOpener(db: db).location.description) for user ann,")
        try run("play", String(item.id), "--from-start")
        try run("seek", "0:20")
        try waitForStatus("heard past 20 s") { ($0.double("position") ?? 0) >= 20.5 }
        try run("stop")

        let annProgress = try await ann.item(id: item.id).progress
        XCTAssertGreaterThanOrEqual(annProgress, 20, "ann's progress was saved")
        XCTAssertLessThan(annProgress, 25)
        let ownerProgress = try await database.owner.item(id: item.id).progress
        XCTAssertEqual(ownerProgress, 0, "the owner's progress is untouched (ann's: \(annProgress))")
    }
}
