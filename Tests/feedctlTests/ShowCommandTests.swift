import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// `feedctl show ID`: show notes wrapped to the terminal, links, chapters and transcript URLs,
/// and the download state.
final class ShowCommandTests: XCTestCase {
    func testShowPrintsNotesLinksAndDownloadState() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try Data(repeating: 1, count: 4321).write(to: server.root.appendingPathComponent("ep.mp3"))
        let dir = TempDir()
        let db = dir.file("library.sqlite")
        let library = try SQLiteLibrary(path: db)
        let channel = try await library.addTestChannel("Show")
        let notes = "In this episode we talk about sourdough starters, flour and patience. Links: https://example.com/a-very-long-link-that-is-longer-than-the-width"
        _ = try await library.ingest(items: [
            Item(id: "e1", title: "Bread", url: "https://example.com/e1",
                 enclosure: Enclosure(url: server.url("/ep.mp3"), type: "audio/mpeg", length: 9999), description: notes,
                 chaptersURL: "https://example.com/e1/chapters.json", transcriptURL: "https://example.com/e1/t.vtt"),
        ], channelID: channel, now: Clock.now())
        let id = try await library.id(of: "e1")
        func show() throws -> ProcessRunner.Result {
            try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, ["show", String(id), "--db", db],
                                      environment: ProcessInfo.processInfo.environment.merging(["COLUMNS": "40"]) { $1 })
        }

        let before = try show()
        XCTAssertEqual(before.status, 0, before.stderr)
        let lines = before.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines.contains("page:       https://example.com/e1"), before.stdout)
        XCTAssertTrue(lines.contains("media:      \(server.url("/ep.mp3"))"), before.stdout)
        XCTAssertTrue(lines.contains("chapters:   https://example.com/e1/chapters.json"), before.stdout)
        XCTAssertTrue(lines.contains("transcript: https://example.com/e1/t.vtt"), before.stdout)
        XCTAssertTrue(lines.contains("download:   not downloaded"), before.stdout)
        let notesLines = Array(lines.drop { !$0.isEmpty }.dropFirst().filter { !$0.isEmpty })
        XCTAssertEqual(notesLines, [
            "In this episode we talk about sourdough",
            "starters, flour and patience. Links:",
            "https://example.com/a-very-long-link-that-is-longer-than-the-width",
        ])

        let download = try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, ["download", String(id), "--db", db])
        XCTAssertEqual(download.status, 0, download.stderr)
        let after = try show()
        let media = (dir.path as NSString).appendingPathComponent("media")
        XCTAssertTrue(after.stdout.contains("download:   \(media)/\(id)_Bread.mp3 (4 kB)\n"), after.stdout)
    }
}
