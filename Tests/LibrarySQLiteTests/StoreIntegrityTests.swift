import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The schema itself refuses bad rows, whatever code writes them.
@Suite struct StoreIntegrityTests {
    let t: TestLibrary
    init() async throws {
        t = try TestLibrary()
        _ = try await t.library.addTestChannel("a")
        _ = try await t.library.ingest(items: [item("x", published: 10)], channelID: 1, now: 20)
    }

    private func rejects(_ sql: String, _ code: ResultCode) {
        #expect {
            try t.library.pool.write { db in try db.execute(sql: sql) }
        } throws: { error in
            (error as? DatabaseError)?.extendedResultCode == code
        }
    }

    @Test func foreignKeys() async {
        rejects("INSERT INTO items (channel_id, item_id, title, discovered_at) VALUES (99, 'y', 't', 1)",
                .SQLITE_CONSTRAINT_FOREIGNKEY)
        rejects("INSERT INTO watch_state (item, updated_at) VALUES (99, 1)", .SQLITE_CONSTRAINT_FOREIGNKEY)
        rejects("INSERT INTO collection_items (collection, item, position, added_at) VALUES (5, 1, 1, 1)",
                .SQLITE_CONSTRAINT_FOREIGNKEY)
    }

    @Test func uniqueness() async {
        rejects("INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES ('podcast', 's', 'https://example.com/a.xml', 'n', 1)",
                .SQLITE_CONSTRAINT_UNIQUE)
        rejects("INSERT INTO items (channel_id, item_id, title, discovered_at) VALUES (1, 'x', 't', 1)",
                .SQLITE_CONSTRAINT_UNIQUE)
    }

    @Test func checksAndNotNull() async {
        rejects("INSERT INTO channels (platform, source_url, feed_url, name, added_at) VALUES ('vimeo', 's', 'f', 'n', 1)",
                .SQLITE_CONSTRAINT_CHECK)
        rejects("INSERT INTO watch_state (item, watched, updated_at) VALUES (1, 2, 1)", .SQLITE_CONSTRAINT_CHECK)
        rejects("INSERT INTO watch_state (item, progress_seconds, updated_at) VALUES (1, -5, 1)", .SQLITE_CONSTRAINT_CHECK)
        rejects("UPDATE subscriptions SET speed = 9", .SQLITE_CONSTRAINT_CHECK)  // per user since v11-users
        rejects("INSERT INTO items (channel_id, item_id, title, discovered_at) VALUES (1, 'z', NULL, 1)",
                .SQLITE_CONSTRAINT_NOTNULL)
        // STRICT tables refuse a value of the wrong type instead of storing it.
        rejects("UPDATE items SET published = 'yesterday'", .SQLITE_CONSTRAINT_DATATYPE)
    }

    @Test func typedErrorNamesTheFileAndKeepsSQLitesCode() async {
        await #expect {
            try await t.library.write { db in try db.execute(sql: "INSERT INTO watch_state (item, updated_at) VALUES (99, 1)") }
        } throws: { error in
            let failure = (error as? LibraryError)?.databaseFailure
            return failure?.kind == .constraint && failure?.extendedCode == ResultCode.SQLITE_CONSTRAINT_FOREIGNKEY.rawValue
                && String(describing: error) == "library \(t.library.path): FOREIGN KEY constraint failed"
        }
    }

    /// items.state mirrors watch_state whichever way the watch state is written.
    @Test func itemStateFollowsWatchState() async throws {
        let state = { try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT state FROM items WHERE id = 1") } }
        #expect(try await state() == 0)
        try await t.library.setProgress(1, seconds: 10, now: 1)
        #expect(try await state() == 1)
        try await t.library.setWatched([1], now: 2)
        #expect(try await state() == 2)
        try await t.library.setWatched([1], watched: false, now: 3)
        #expect(try await state() == 0)
        try await t.library.setProgress(1, seconds: 5, now: 4)
        try await t.library.write { db in try db.execute(sql: "DELETE FROM watch_state") }
        #expect(try await state() == 0)
        // A re-ingest rewrites the row's fields but not its state.
        try await t.library.setWatched([1], now: 5)
        _ = try await t.library.ingest(items: [item("x", published: 11, title: "new title")], channelID: 1, now: 30)
        #expect(try await state() == 2)
        rejects("UPDATE items SET state = 3", .SQLITE_CONSTRAINT_CHECK)
    }
}
