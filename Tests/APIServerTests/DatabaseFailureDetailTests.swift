import Foundation
import TestSupport
import XCTest

/// A database failure answers 500 with the engine's reason in one line, and never where the
/// library is: its file path, or its PostgreSQL URL (before, `detail` was `library
/// /path/to/library.sqlite: …`).
final class DatabaseFailureDetailTests: XCTestCase {
    func testAFailingWriteAnswersWithoutTheLibrarysPath() async throws {
        let h = try await APIHarness()
        _ = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let item = try await h.owner.id(of: "tone-show-3")
        switch h.database.engine {
        case .sqlite:
            try h.database.execute("CREATE TRIGGER refuse BEFORE INSERT ON watch_state BEGIN SELECT RAISE(ABORT, 'refused'); END")
        case .postgresql:
            try h.database.execute("""
                CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
                CREATE TRIGGER refuse BEFORE INSERT ON watch_state FOR EACH ROW EXECUTE FUNCTION refuse();
                """)
        }
        let reply = try await h.call("PUT", "/api/feed/items/\(item)/progress?progress_seconds=5")
        XCTAssertEqual(reply.status, 500, reply.text)
        XCTAssertEqual(try reply.object()["detail"] as? String, "library: refused")
        XCTAssertFalse(reply.text.contains(h.database.dbSetting), reply.text)
        XCTAssertFalse(reply.text.contains(h.database.database.location), reply.text)
    }
}
