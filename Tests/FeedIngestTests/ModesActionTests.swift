import Foundation
import Testing
@testable import FeedIngest

@Suite struct ModesActionTests {
    let t: TestLibrary
    let one: Int64, two: Int64, three: Int64

    init() throws {
        t = try TestLibrary()
        let ch = try t.library.addTestChannel("Show")
        _ = try t.library.ingest(items: [item("1", published: 10), item("2", published: 20), item("3", published: 30)],
                                 channelID: ch, now: 100)
        one = try t.library.id(of: "1"); two = try t.library.id(of: "2"); three = try t.library.id(of: "3")
    }

    @Test func showAndMissingItem() throws {
        #expect(try t.library.item(id: two).itemID == "2")
        #expect(throws: LibraryError.noItem(999)) { try t.library.item(id: 999) }
        #expect(LibraryError.noItem(42).description == "no item 42")
    }

    @Test func watchedManyIsAllOrNothingAndUndoable() throws {
        #expect(throws: LibraryError.noItem(999)) { try t.library.setWatched([one, 999], now: 5) }
        #expect(try t.library.item(id: one).watched == false)

        try t.library.setProgress(one, seconds: 70, now: 4)
        try t.library.setWatched([one, two], now: 5)
        #expect(try [one, two, three].map { try t.library.item(id: $0).watched } == [true, true, false])
        #expect(try t.library.item(id: one).progress == 0)
        #expect(try t.library.channelSummary(id: 1).unwatched == 1)

        try t.library.setWatched([two], watched: false, now: 6)
        #expect(try t.library.item(id: two).watched == false)
        let watchedAt = try t.library.read { db in try Int64?.fetchOne(db, sql: "SELECT watched_at FROM watch_state WHERE item = ?", arguments: [two]) }
        #expect(watchedAt == .some(nil))
    }

    @Test func progress() throws {
        try t.library.setProgress(three, seconds: 125, now: 9)
        #expect(try t.library.item(id: three).progress == 125)
        try t.library.setProgress(three, seconds: 130, now: 10)
        #expect(try t.library.item(id: three).progress == 130)
        #expect(throws: LibraryError.invalid("progress must be 0 or more seconds (got -1)")) {
            try t.library.setProgress(three, seconds: -1, now: 10)
        }
        #expect(throws: LibraryError.noItem(77)) { try t.library.setProgress(77, seconds: 1, now: 10) }
    }

    @Test func saveAndUnsave() throws {
        try t.library.save(two, now: 1)
        try t.library.save(one, now: 2)
        try t.library.save(two, now: 3)  // already saved: keeps its first time
        #expect(try t.library.saved().map(\.id) == [one, two])
        try t.library.unsave(one)
        #expect(try t.library.saved().map(\.id) == [two])
        #expect(throws: LibraryError.noItem(55)) { try t.library.save(55, now: 1) }
    }

    @Test func collections() throws {
        try t.library.createCollection("Later", now: 1)
        try t.library.createCollection("Best", now: 2)
        #expect(throws: LibraryError.collectionExists("Later")) { try t.library.createCollection("Later", now: 3) }
        try t.library.addToCollection(item: three, collection: "Later", now: 4)
        try t.library.addToCollection(item: one, collection: "Later", now: 5)
        try t.library.addToCollection(item: two, collection: "Later", now: 6)
        #expect(try t.library.collection("Later").map(\.id) == [three, one, two])

        do {
            try t.library.addToCollection(item: one, collection: "Later", now: 7)
            Issue.record("a duplicate was accepted")
        } catch {
            #expect(error.description == "item \(one) is already in collection \"Later\"")
        }

        try t.library.moveToCollection(item: one, from: "Later", to: "Best", now: 8)
        #expect(try t.library.collection("Later").map(\.id) == [three, two])
        #expect(try t.library.collection("Best").map(\.id) == [one])
        #expect(throws: LibraryError.notInCollection(item: one, collection: "Later")) {
            try t.library.moveToCollection(item: one, from: "Later", to: "Best", now: 9)
        }
        try t.library.addToCollection(item: three, collection: "Best", now: 9)
        #expect(throws: LibraryError.alreadyInCollection(item: three, collection: "Best")) {
            try t.library.moveToCollection(item: three, from: "Later", to: "Best", now: 9)
        }
        // The failed move changed nothing.
        #expect(try t.library.collection("Later").map(\.id) == [three, two])

        try t.library.removeFromCollection(item: three, collection: "Later")
        try t.library.addToCollection(item: three, collection: "Later", now: 10)
        #expect(try t.library.collection("Later").map(\.id) == [two, three])
        #expect(try t.library.collections().map { "\($0.name):\($0.items)" } == ["Best:2", "Later:2"])

        try t.library.deleteCollection("Best")
        #expect(throws: LibraryError.noCollection("Best")) { try t.library.collection("Best") }
        #expect(LibraryError.noCollection("Best").description == "no collection \"Best\"")
        #expect(try t.library.item(id: one).id == one)
    }

    @Test func history() throws {
        try t.library.appendHistory(item: one, now: 50)
        try t.library.appendHistory(item: two, position: 30, now: 60)
        try t.library.appendHistory(item: one, position: 5, now: 70)
        let h = try t.library.history()
        #expect(h.map(\.item) == [one, two, one] && h.map(\.playedAt) == [70, 60, 50] && h.map(\.position) == [5, 30, nil])
        #expect(try t.library.history(limit: 1).map(\.playedAt) == [70])
        #expect(throws: LibraryError.noItem(9)) { try t.library.appendHistory(item: 9, now: 1) }
    }
}
