import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// What listening changes: watched marks, progress, saved items, collections by name, history.
final class ModesActionTests: XCTestCase {
    /// One channel of three items, published at 10, 20 and 30.
    private struct Show {
        let library: any UserLibrary
        let channel: Int64
        let one: Int64, two: Int64, three: Int64

        init(_ db: TestDatabase) async throws {
            library = db.owner
            channel = try await library.addTestChannel("Show")
            try await library.ingest(items: [item("1", published: 10), item("2", published: 20), item("3", published: 30)],
                                     channelID: channel, now: 100)
            one = try await library.id(of: "1"); two = try await library.id(of: "2"); three = try await library.id(of: "3")
        }
    }

    func testShowAndMissingItem() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            await assertEqual(try await s.library.item(id: s.two).itemID, "2")
            await assertThrows(LibraryError.noItem(999)) { try await s.library.item(id: 999) }
            XCTAssertEqual(LibraryError.noItem(42).description, "no item 42")
        }
    }

    func testWatchedManyIsAllOrNothingAndUndoable() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            await assertThrows(LibraryError.noItem(999)) { try await library.setWatched([s.one, 999], now: 5) }
            await assertEqual(try await library.item(id: s.one).watched, false)

            try await library.setProgress(s.one, seconds: 70, now: 4)
            try await library.setWatched([s.one, s.two], now: 5)
            await assertEqual(try await [s.one, s.two, s.three].asyncMap { try await library.item(id: $0).watched }, [true, true, false])
            await assertEqual(try await library.item(id: s.one).progress, 0)
            await assertEqual(try await library.channelSummary(id: s.channel).unwatched, 1)

            try await library.setWatched([s.two], watched: false, now: 6)
            await assertEqual(try await library.item(id: s.two).watched, false)
            let record = try await unwrap(try await library.itemRecords(ids: [s.two]).first)
            XCTAssertNil(record.watchedAt, "unwatched: no time it was watched")
        }
    }

    func testProgress() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            try await s.library.setProgress(s.three, seconds: 125, now: 9)
            await assertEqual(try await s.library.item(id: s.three).progress, 125)
            try await s.library.setProgress(s.three, seconds: 130, now: 10)
            await assertEqual(try await s.library.item(id: s.three).progress, 130)
            await assertThrows(LibraryError.invalid("progress must be 0 or more seconds (got -1)")) {
                try await s.library.setProgress(s.three, seconds: -1, now: 10)
            }
            await assertThrows(LibraryError.noItem(77)) { try await s.library.setProgress(77, seconds: 1, now: 10) }
        }
    }

    func testSaveAndUnsave() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            try await s.library.save(s.two, now: 1)
            try await s.library.save(s.one, now: 2)
            try await s.library.save(s.two, now: 3)  // already saved: keeps its first time
            await assertEqual(try await s.library.saved().map(\.id), [s.one, s.two])
            try await s.library.unsave(s.one)
            await assertEqual(try await s.library.saved().map(\.id), [s.two])
            await assertThrows(LibraryError.noItem(55)) { try await s.library.save(55, now: 1) }
        }
    }

    func testCollections() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            let (one, two, three) = (s.one, s.two, s.three)
            try await library.createCollection("Later", now: 1)
            try await library.createCollection("Best", now: 2)
            await assertThrows(LibraryError.collectionExists("Later")) { try await library.createCollection("Later", now: 3) }
            try await library.addToCollection(item: three, collection: "Later", now: 4)
            try await library.addToCollection(item: one, collection: "Later", now: 5)
            try await library.addToCollection(item: two, collection: "Later", now: 6)
            await assertEqual(try await library.collection("Later").map(\.id), [three, one, two])

            do {
                try await library.addToCollection(item: one, collection: "Later", now: 7)
                XCTFail("a duplicate was accepted")
            } catch {
                XCTAssertEqual(String(describing: error), "item \(one) is already in collection \"Later\"")
            }

            let id = Dictionary(try await library.collectionDetails().map { ($0.name, $0.id) }, uniquingKeysWith: { a, _ in a })
            let (later, best) = (try await unwrap(id["Later"]), try await unwrap(id["Best"]))
            try await library.transfer(item: one, .move, from: later, to: best, now: 8)
            await assertEqual(try await library.collection("Later").map(\.id), [three, two])
            await assertEqual(try await library.collection("Best").map(\.id), [one])
            await assertThrows(LibraryError.notInCollection(item: one, collection: "Later")) {
                try await library.transfer(item: one, .move, from: later, to: best, now: 9)
            }
            try await library.addToCollection(item: three, collection: "Best", now: 9)
            await assertThrows(LibraryError.alreadyInCollection(item: three, collection: "Best")) {
                try await library.transfer(item: three, .move, from: later, to: best, now: 9)
            }
            // The failed move changed nothing.
            await assertEqual(try await library.collection("Later").map(\.id), [three, two])

            try await library.removeFromCollection(item: three, collection: "Later")
            try await library.addToCollection(item: three, collection: "Later", now: 10)
            await assertEqual(try await library.collection("Later").map(\.id), [two, three])
            await assertEqual(try await library.collections().map { "\($0.name):\($0.items)" }, ["Best:2", "Later:2"])

            try await library.deleteCollection("Best")
            await assertThrows(LibraryError.noCollection("Best")) { try await library.collection("Best") }
            XCTAssertEqual(LibraryError.noCollection("Best").description, "no collection \"Best\"")
            await assertEqual(try await library.item(id: one).id, one)
        }
    }

    func testHistory() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            try await s.library.appendHistory(item: s.one, now: 50)
            try await s.library.appendHistory(item: s.two, position: 30, now: 60)
            try await s.library.appendHistory(item: s.one, position: 5, now: 70)
            let h = try await s.library.history()
            XCTAssertEqual(h.map(\.item), [s.one, s.two, s.one])
            XCTAssertEqual(h.map(\.playedAt), [70, 60, 50])
            XCTAssertEqual(h.map(\.position), [5, 30, nil])
            await assertEqual(try await s.library.history(limit: 1).map(\.playedAt), [70])
            await assertThrows(LibraryError.noItem(9)) { try await s.library.appendHistory(item: 9, now: 1) }
        }
    }
}
