import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// `readNow` reads on a connection of the calling thread's own (`InPlaceReaders`), not GRDB's
/// pool: it must still see every commit at once, and threads past the limit share the pool.
@Suite struct StoreInPlaceReadTests {
    @Test func inPlaceReadsSeeEachCommitAtOnce() async throws {
        let t = try TestLibrary()
        let lib = t.library
        let channel = try await lib.addTestChannel("A")
        _ = try await lib.ingest(items: [item("a1", published: 1_000)], channelID: channel, now: 1_000)
        // The app's first page (the newest, whole-feed total) is read in place.
        var page = try await lib.itemPage(ItemPageQuery())
        #expect(page.items.map(\.item.itemID) == ["a1"] && page.total == 1)
        #expect(lib.inPlaceReaders.count >= 1, "the page was read on an in-place connection")
        for (n, id) in ["a2", "a3", "a4"].enumerated() {
            _ = try await lib.ingest(items: [item(id, published: 2_000 + Int64(n))], channelID: channel, now: 2_000)
            page = try await lib.itemPage(ItemPageQuery())
            #expect(page.items.first?.item.itemID == id && page.total == n + 2, "a commit made after the connection was opened is seen")
            try await lib.setWatched([try await lib.id(of: id)], now: 3_000)
            #expect(try await lib.itemPage(ItemPageQuery()).items.first?.item.watched == true)
        }
    }

    @Test func threadsPastTheLimitReadThroughThePool() async throws {
        let t = try TestLibrary()
        let lib = t.library
        let channel = try await lib.addTestChannel("A")
        _ = try await lib.ingest(items: [item("a1"), item("a2")], channelID: channel, now: 1_000)
        let threads = InPlaceReaders.limit + 4
        let counts = Counts()
        let done = DispatchGroup()
        // All threads alive at once (each waits for the others), so none can reuse another's id.
        let started = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                started.signal(); go.wait()
                let count = try? lib.readNow(oneStatement: true) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") }
                counts.add(count ?? -1)
                done.leave()
            }
        }
        for _ in 0..<threads { started.wait() }
        for _ in 0..<threads { go.signal() }
        done.wait()
        #expect(counts.values == Array(repeating: 2, count: threads))
        #expect(lib.inPlaceReaders.count == InPlaceReaders.limit)
    }
}

private final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [Int] = []
    func add(_ value: Int) { lock.withLock { all.append(value) } }
    var values: [Int] { lock.withLock { all } }
}

/// `StatementColumns` steps statements itself: a failing step is an error with SQLite's message,
/// and the cached statement is reset and usable again after an error or an early stop.
@Suite struct StatementColumnsTests {
    @Test func stepErrorsAreThrownAndTheStatementStaysUsable() throws {
        let t = try TestLibrary()
        try t.library.readNow { db in
            let failing = try db.cachedStatement(sql: "SELECT json_extract(?, '$')")
            #expect(throws: DatabaseError.self) { try StatementColumns.fetchAll(failing, arguments: ["not json"]) { $0.text(0) } }
            #expect(try StatementColumns.fetchAll(failing, arguments: [#"{"a":1}"#]) { $0.text(0) } == [#"{"a":1}"#])
            let numbers = try db.cachedStatement(sql: "SELECT value FROM json_each(?)")
            #expect(try StatementColumns.fetchOne(numbers, arguments: ["[3,4,5]"]) { $0.int64(0) } == 3)
            #expect(try StatementColumns.fetchAll(numbers, arguments: ["[3,4,5]"], expected: 3) { $0.int64(0) } == [3, 4, 5])
            #expect(try StatementColumns.fetchOne(numbers, arguments: ["[]"]) { $0.int64(0) } == nil)
            #expect(throws: DatabaseError.self) { try StatementColumns.fetchOne(numbers, arguments: []) { $0.int64(0) } }
        }
    }
}
