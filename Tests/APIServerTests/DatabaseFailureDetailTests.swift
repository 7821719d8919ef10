import Foundation
import LibrarySQLite
import TestSupport
import XCTest

/// A database failure answers 500 with SQLite's reason in one line, and never the library's
/// file path (before, `detail` was `library /path/to/library.sqlite: …`).
final class DatabaseFailureDetailTests: XCTestCase {
    func testAFailingWriteAnswersWithoutTheLibrarysPath() async throws {
        let h = try await APIHarness()
        _ = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let item = try await h.library.library.id(of: "tone-show-3")
        try await h.library.library.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON watch_state BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        let reply = try await h.call("PUT", "/api/feed/items/\(item)/progress?progress_seconds=5")
        XCTAssertEqual(reply.status, 500, reply.text)
        XCTAssertEqual(try reply.object()["detail"] as? String, "library: refused")
        XCTAssertFalse(reply.text.contains(h.library.library.path), reply.text)
    }
}
