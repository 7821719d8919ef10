import Foundation
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

@Suite struct ModesActionTests {
    let t: TestLibrary
    let one: Int64, two: Int64, three: Int64

    init() async throws {
        t = try TestLibrary()
        let ch = try await t.library.addTestChannel("Show")
        _ = try await t.library.ingest(items: [item("1", published: 10), item("2", published: 20), item("3", published: 30)],
                                 channelID: ch, now: 100)
        one = try await t.library.id(of: "1"); two = try await t.library.id(of: "2"); three = try await t.library.id(of: "3")
    }

    @Test func showAndMissingItem() async throws {
        #expect(try await t.library.item(id: two).itemID == "2")
        await #expect(throws: LibraryError.noItem(999)) { try await t.library.item(id: 999) }
        #expect(LibraryError.noItem(42).description == "no item 42")
    }

    @Test func watchedManyIsAllOrNothingAndUndoable() async throws {
        await #expect(throws: LibraryError.noItem(999)) { try await t.library.setWatched([one, 999], now: 5) }
        #expect(try await t.library.item(id: one).watched == false)

        try await t.library.setProgress(one, seconds: 70, now: 4)
        try await t.library.setWatched([one, two], now: 5)
        #expect(try await [one, two, three].asyncMap { try await t.library.item(id: $0).watched } == [true, true, false])
        #expect(try await t.library.item(id: one).progress == 0)
        #expect(try await t.library.channelSummary(id: 1).unwatched == 1)

        try await t.library.setWatched([two], watched: false, now: 6)
        #expect(try await t.library.item(id: two).watched == false)
        let watchedAt = try await t.library.read { db in try Int64?.fetchOne(db, sql: "SELECT watched_at FROM watch_state WHERE item = ?", arguments: [two]) }
        #expect(watchedAt == .some(nil))
    }

    @Test func progress() async throws {
        try await t.library.setProgress(three, seconds: 125, now: 9)
        #expect(try await t.library.item(id: three).progress == 125)
        try await t.library.setProgress(three, seconds: 130, now: 10)
        #expect(try await t.library.item(id: three).progress == 130)
        await #expect(throws: LibraryError.invalid("progress must be 0 or more seconds (got -1)")) {
            try await t.library.setProgress(three, seconds: -1, now: 10)
        }
        await #expect(throws: LibraryError.noItem(77)) { try await t.library.setProgress(77, seconds: 1, now: 10) }
    }

    @Test func saveAndUnsave() async throws {
        try await t.library.save(two, now: 1)
        try await t.library.save(one, now: 2)
        try await t.library.save(two, now: 3)  // already saved: keeps its first time
        #expect(try await t.library.saved().map(\.id) == [one, two])
        try await t.library.unsave(one)
        #expect(try await t.library.saved().map(\.id) == [two])
        await #expect(throws: LibraryError.noItem(55)) { try await t.library.save(55, now: 1) }
    }

    @Test func collections() async throws {
        try await t.library.createCollection("Later", now: 1)
        try await t.library.createCollection("Best", now: 2)
        await #expect(throws: LibraryError.collectionExists("Later")) { try await t.library.createCollection("Later", now: 3) }
        try await t.library.addToCollection(item: three, collection: "Later", now: 4)
        try await t.library.addToCollection(item: one, collection: "Later", now: 5)
        try await t.library.addToCollection(item: two, collection: "Later", now: 6)
        #expect(try await t.library.collection("Later").map(\.id) == [three, one, two])

        do {
            try await t.library.addToCollection(item: one, collection: "Later", now: 7)
            Issue.record("a duplicate was accepted")
        } catch {
            #expect(error.description == "item \(one) is already in collection \"Later\"")
        }

        try await t.library.moveToCollection(item: one, from: "Later", to: "Best", now: 8)
        #expect(try await t.library.collection("Later").map(\.id) == [three, two])
        #expect(try await t.library.collection("Best").map(\.id) == [one])
        await #expect(throws: LibraryError.notInCollection(item: one, collection: "Later")) {
            try await t.library.moveToCollection(item: one, from: "Later", to: "Best", now: 9)
        }
        try await t.library.addToCollection(item: three, collection: "Best", now: 9)
        await #expect(throws: LibraryError.alreadyInCollection(item: three, collection: "Best")) {
            try await t.library.moveToCollection(item: three, from: "Later", to: "Best", now: 9)
        }
        // The failed move changed nothing.
        #expect(try await t.library.collection("Later").map(\.id) == [three, two])

        try await t.library.removeFromCollection(item: three, collection: "Later")
        try await t.library.addToCollection(item: three, collection: "Later", now: 10)
        #expect(try await t.library.collection("Later").map(\.id) == [two, three])
        #expect(try await t.library.collections().map { "\($0.name):\($0.items)" } == ["Best:2", "Later:2"])

        try await t.library.deleteCollection("Best")
        await #expect(throws: LibraryError.noCollection("Best")) { try await t.library.collection("Best") }
        #expect(LibraryError.noCollection("Best").description == "no collection \"Best\"")
        #expect(try await t.library.item(id: one).id == one)
    }

    @Test func history() async throws {
        try await t.library.appendHistory(item: one, now: 50)
        try await t.library.appendHistory(item: two, position: 30, now: 60)
        try await t.library.appendHistory(item: one, position: 5, now: 70)
        let h = try await t.library.history()
        #expect(h.map(\.item) == [one, two, one] && h.map(\.playedAt) == [70, 60, 50] && h.map(\.position) == [5, 30, nil])
        #expect(try await t.library.history(limit: 1).map(\.playedAt) == [70])
        await #expect(throws: LibraryError.noItem(9)) { try await t.library.appendHistory(item: 9, now: 1) }
    }
}
