import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// Opening a library file, its errors, and what SQLite's locking allows (subscribing, polling and
/// removing channels are StoreContractTests').
@Suite struct StoreChannelTests {
    let t: TestLibrary
    init() async throws { t = try TestLibrary() }

    @Test func openCreatesTheDirectory() async throws {
        let dir = TempDir()
        let library = try SQLiteLibrary(path: dir.file("feedctl/library.sqlite"))
        #expect(FileManager.default.fileExists(atPath: library.path))
    }

    @Test func openFailureNamesTheFile() async {
        #expect(throws: LibraryError.self) { try SQLiteLibrary(path: "/proc/feedctl-nope/library.sqlite") }
        do {
            _ = try SQLiteLibrary(path: "/proc/feedctl-nope/library.sqlite")
        } catch {
            #expect(String(describing: error).contains("/proc/feedctl-nope"))
        }
    }

    @Test func aFileThatIsNotADatabaseIsATypedError() async throws {
        let dir = TempDir()
        let path = dir.file("garbage.sqlite")
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteLibrary(path: path)
            Issue.record("garbage opened as a library")
        } catch {
            #expect(String(describing: error) == "library \(path): file is not a database")
            #expect(error.databaseFailure?.kind == .corrupt)
            #expect(error.databaseFailure?.code == ResultCode.SQLITE_NOTADB.rawValue)
        }
    }

    /// Removing a channel's last follower leaves no watch state behind for its items (which the
    /// store cannot show: the items are gone; StoreContractTests has what it shows).
    @Test func removingAChannelLeavesNoWatchStateRows() async throws {
        let b = try await t.library.addTestChannel("beta")
        _ = try await t.library.ingest(items: [item("1"), item("2")], channelID: b, now: 1)
        try await t.library.setWatched([try await t.library.id(of: "1")], now: 5)
        try await t.library.setProgress(try await t.library.id(of: "2"), seconds: 5, now: 5)
        try await t.library.removeChannel(id: b)
        let orphans = try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM watch_state") }
        #expect(orphans == 0)
    }

    @Test func readersAreNotBlockedByAWriter() async throws {
        let id = try await t.library.addTestChannel("r")
        _ = try await t.library.ingest(items: [item("one")], channelID: id, now: 1)
        let library = t.library
        // Hold the write lock (a changed row, not committed) until a concurrent read has finished.
        // A reader waiting on the writer would make the writer give up after 30 s and commit, and
        // the read would then see the new title.
        let writing = DispatchSemaphore(value: 0), readDone = DispatchSemaphore(value: 0)
        let writer = Task.detached {
            try await library.write { db in
                try db.execute(sql: "UPDATE items SET title = 'changing'")
                writing.signal()
                _ = readDone.wait(timeout: .now() + 30)
            }
        }
        // The read starts only once the writer holds its uncommitted change.
        let holding = await withCheckedContinuation { (started: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async { started.resume(returning: writing.wait(timeout: .now() + 30) == .success) }
        }
        #expect(holding, "the writer never started")
        let seen = try await library.item(id: 1).title
        readDone.signal()
        try await writer.value
        #expect(seen == "Title one")
        #expect(try await library.item(id: 1).title == "changing")
    }
}
