import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The store's errors keep SQLite's result code and say what a caller can do about them
/// (`DatabaseFailure.Kind`): a broken rule, a busy database and a full one, each made for real
/// on a library file (a second connection holding the write lock; `PRAGMA max_page_count`
/// standing in for a full disk).
@Suite struct StoreFailureKindTests {
    let t: TestLibrary
    init() throws { t = try TestLibrary() }

    func failure(_ body: () async throws -> Void) async -> LibraryError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? LibraryError
        }
    }

    @Test func aBrokenRuleIsAConstraintAndRetryingCannotHelp() async throws {
        let error = await failure {
            try await t.library.write { db in try db.execute(sql: "INSERT INTO watch_state (item, updated_at) VALUES (99, 1)") }
        }
        let failure = try #require(error?.databaseFailure, "\(String(describing: error))")
        #expect(failure.kind == .constraint)
        #expect(failure.code == 19 && failure.extendedCode == 787)  // SQLITE_CONSTRAINT, SQLITE_CONSTRAINT_FOREIGNKEY
        #expect(error?.isRetryable == false && error?.isDiskFull == false)
        #expect(error?.description == "library \(t.library.path): FOREIGN KEY constraint failed")
        #expect(error?.descriptionWithoutPaths == "library: FOREIGN KEY constraint failed")
    }

    /// Another connection (another process, as `feedctl sync` would be) holds the write lock
    /// past this library's busy timeout.
    @Test func aWriteLockHeldElsewhereIsBusyAndRetryingCanHelp() async throws {
        let channel = try await t.library.addTestChannel("Show")
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true  // the transaction stays open between the two calls
        let holder = try DatabaseQueue(path: t.library.path, configuration: configuration)
        try await holder.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE; UPDATE channels SET name = name") }
        let impatient = try SQLiteLibrary(path: t.library.path, migrateUpTo: nil, busyTimeout: 0.05)
        let error = await failure { try await impatient.setWatched(channelID: channel, publishedBefore: nil, now: 10) }
        try await holder.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }

        let failure = try #require(error?.databaseFailure, "\(String(describing: error))")
        #expect(failure.kind == .busy)
        #expect(failure.code == 5)  // SQLITE_BUSY
        #expect(error?.isRetryable == true && error?.isDiskFull == false)
        #expect(error?.descriptionWithoutPaths == "library: database is locked")
        // Once the lock is released, the same write goes through.
        #expect(try await impatient.setWatched(channelID: channel, publishedBefore: nil, now: 11) == 0)
    }

    /// SQLite's size limit stands in for a full disk: the same SQLITE_FULL, without filling one.
    @Test func aFullDatabaseIsDiskFullAndReadsStillWork() async throws {
        let channel = try await t.library.addTestChannel("Show")
        try await t.library.write { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(pages)")
        }
        let page = SavedPage(platform: "youtube", videoID: "big", videoURL: "https://www.youtube.com/watch?v=big", title: "Big",
                             description: String(repeating: "many words ", count: 50_000))
        let error = await failure { _ = try await t.library.saveVideo(page: page, notes: nil, now: 10) }

        let failure = try #require(error?.databaseFailure, "\(String(describing: error))")
        #expect(failure.kind == .diskFull)
        #expect(failure.code == 13 && failure.extendedCode == 13)  // SQLITE_FULL
        #expect(error?.isDiskFull == true && error?.isRetryable == false)
        #expect(error?.descriptionWithoutPaths == "library: database or disk is full")
        #expect(try await t.library.channel(id: channel).name == "Show")
    }

    /// The codes no test can easily make for real (a stale snapshot, a damaged file) sort as SQLite documents them.
    @Test func extendedCodesSortByWhatACallerCanDo() {
        let kinds: [(ResultCode, DatabaseFailure.Kind)] = [
            (.SQLITE_BUSY, .busy), (.SQLITE_BUSY_RECOVERY, .busy), (.SQLITE_BUSY_SNAPSHOT, .serializationFailure),
            (.SQLITE_LOCKED, .busy), (.SQLITE_LOCKED_SHAREDCACHE, .busy), (.SQLITE_FULL, .diskFull),
            (.SQLITE_CONSTRAINT_UNIQUE, .constraint), (.SQLITE_CORRUPT, .corrupt), (.SQLITE_NOTADB, .corrupt),
            (.SQLITE_CANTOPEN, .cannotOpen), (.SQLITE_READONLY, .cannotOpen), (.SQLITE_PERM, .cannotOpen),
            (.SQLITE_IOERR_WRITE, .other), (.SQLITE_NOMEM, .other),
        ]
        for (code, kind) in kinds {
            #expect(DatabaseFailure.Kind(sqlite: code) == kind, "\(code)")
        }
        let stale = LibraryError.wrap(DatabaseError(resultCode: .SQLITE_BUSY_SNAPSHOT, message: "database is locked"), path: "/x/library.sqlite")
        #expect(stale.isRetryable && stale.databaseFailure?.code == 5 && stale.databaseFailure?.extendedCode == 517)
        let multiLine = DatabaseFailure(kind: .other, message: "first\nsecond", path: "/x/library.sqlite")
        #expect(multiLine.description == "library /x/library.sqlite: first second")
    }

    /// A feed whose items the store refuses keeps the refusal as its sync error, which its
    /// followers see over HTTP too: without the library's path.
    @Test func aStoredSyncErrorNamesNoPath() async throws {
        let channel = try await t.library.addTestChannel("Show")
        try await t.library.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON items WHEN NEW.item_id = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        let error = await failure { _ = try await t.library.ingest(Feed(kind: .podcast, title: "Show", items: [item("bad")]), channelID: channel, now: 10) }
        #expect(error?.databaseFailure?.kind == .constraint)
        let stored = try await t.library.channel(id: channel).lastError
        #expect(stored == "https://example.com/Show.xml: library: refused")
    }
}
