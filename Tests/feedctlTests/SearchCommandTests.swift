import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// `feedctl search` and `feed --search` through the built binary.
final class SearchCommandTests: XCTestCase {
    private var dir: TempDir!
    private var db: String { dir.file("library.sqlite") }

    override func setUp() async throws {
        dir = TempDir()
        let library = try SQLiteLibrary(path: db)
        let show = try await library.addTestChannel("Café Cuisine")
        _ = try await library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
            Item(id: "bread", title: "Sourdough bread", published: 300, description: "Patience."),
            Item(id: "notes", title: "Questions", published: 200, description: "Sourdough starters."),
        ]), channelID: show, now: 1000)
    }

    private func feedctl(_ arguments: String...) throws -> ProcessRunner.Result {
        try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db])
    }

    func testSearchPrintsRankedItemsAndTheItemContract() throws {
        let text = try feedctl("search", "sour")
        XCTAssertEqual(text.status, 0, text.stderr)
        let lines = text.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].hasSuffix("Café Cuisine — Sourdough bread"), String(lines[0]))
        XCTAssertTrue(lines[1].hasSuffix("Café Cuisine — Questions"), String(lines[1]))

        let json = try feedctl("search", "--json", "cafe", "sourdough", "--limit", "1", "--page", "2")
        XCTAssertEqual(json.status, 0, json.stderr)
        let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(items.map { $0["item_id"] as? String }, ["notes"])
        XCTAssertEqual(Set(items[0].keys), LibraryCLITests.itemKeys)

        let feed = try feedctl("feed", "--search", "\"sourdough AND (", "--json")
        XCTAssertEqual(feed.status, 0, feed.stderr)
        XCTAssertEqual(try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(feed.stdout.utf8)) as? [[String: Any]]).count, 0,
                       "'and' is a word here, and neither item has it")
        XCTAssertEqual(try feedctl("search", "zzz").stdout, "nothing found\n")
    }

    func testTextWithoutAWordIsOneLine() throws {
        let run = try feedctl("search", "\"")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "feedctl: nothing to search for in \"\"\": give a word\n")
        let mode = try feedctl("feed", "--search", "x", "--mode", "catch-up")
        XCTAssertNotEqual(mode.status, 0)
        XCTAssertEqual(mode.stderr.split(separator: "\n").count, 1, mode.stderr)
    }
}
