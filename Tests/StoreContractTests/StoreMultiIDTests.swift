import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Issue 13, bug 5: one rule for multi-id calls: every id is checked first, then all or nothing.
final class StoreMultiIDTests: XCTestCase {
    private struct Show {
        let library: any UserLibrary
        let channel: Int64
        let ids: [Int64]
        init(_ db: TestDatabase) async throws {
            library = db.owner
            channel = try await library.addTestChannel("show")
            _ = try await library.ingest(Feed(kind: .podcast, title: "show", items: [item("a", published: 100), item("b", published: 200),
                                                                                    item("c", published: 300)]),
                                         channelID: channel, now: 1000)
            ids = [try await library.id(of: "a"), try await library.id(of: "b"), try await library.id(of: "c")]
        }
    }

    func testSaveWithABadIDSavesNothingAndNamesIt() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let (library, ids) = (s.library, s.ids)
            await assertThrows(LibraryError.noItem(9999)) { try await library.save([ids[0], 9999, ids[1]], now: 1) }
            await assertTrue(try await library.saved().isEmpty)
            await assertThrows(LibraryError.noItems([9998, 9999])) { try await library.save([9998, ids[0], 9999], now: 1) }
            await assertEqual(try await library.save([ids[0], ids[1], ids[0]], now: 2), [ids[0], ids[1]])
            await assertEqual(try await library.save([ids[1], ids[2]], now: 3), [ids[2]], "already saved is not new")
            await assertThrows(LibraryError.noItem(9999)) { try await library.unsave([ids[0], 9999]) }
            await assertEqual(Set(try await library.saved().map(\.id)), Set(ids))
            await assertEqual(try await library.unsave([ids[0], ids[0]]), [ids[0]])
        }
    }

    func testCollectionAddAndRemoveAreAllOrNothing() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let (library, ids) = (s.library, s.ids)
            try await library.createCollection("Later", now: 1)
            await assertThrows(LibraryError.noItem(9999)) {
                try await library.addToCollection(items: [ids[0], 9999], collection: "Later", now: 2)
            }
            await assertTrue(try await library.collection("Later").isEmpty)
            try await library.addToCollection(items: [ids[1], ids[0]], collection: "Later", now: 3)
            await assertThrows(LibraryError.alreadyInCollection(item: ids[0], collection: "Later")) {
                try await library.addToCollection(items: [ids[2], ids[0]], collection: "Later", now: 4)
            }
            await assertEqual(try await library.collection("Later").map(\.id), [ids[1], ids[0]])
            await assertThrows(LibraryError.notInCollection(item: ids[2], collection: "Later")) {
                try await library.removeFromCollection(items: [ids[0], ids[2]], collection: "Later")
            }
            await assertEqual(try await library.collection("Later").map(\.id), [ids[1], ids[0]], "the first removal was rolled back")
            try await library.removeFromCollection(items: [ids[0], ids[1]], collection: "Later")
            await assertTrue(try await library.collection("Later").isEmpty)
        }
    }

    func testAChannelsBacklogIsMarkedWatched() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let (library, ids) = (s.library, s.ids)
            let other = try await library.addTestChannel("other")
            _ = try await library.ingest(Feed(kind: .podcast, title: "other", items: [item("x", published: 50)]), channelID: other, now: 1000)
            _ = try await library.ingest(Feed(kind: .podcast, title: "show", items: [item("undated")]), channelID: s.channel, now: 1000)
            try await library.setWatched([ids[0]], now: 5)
            await assertEqual(try await library.setWatched(channelID: s.channel, publishedBefore: 250, now: 10), 1, "b; a was watched already")
            let b = try await library.item(id: ids[1]), c = try await library.item(id: ids[2])
            XCTAssertTrue(b.watched)
            XCTAssertFalse(c.watched)
            let undated = try await library.item(id: library.id(of: "undated"))
            XCTAssertFalse(undated.watched, "undated items are not before a date")
            let x = try await library.item(id: library.id(of: "x"))
            XCTAssertFalse(x.watched, "another channel's items are untouched")
            await assertEqual(try await library.setWatched(channelID: s.channel, publishedBefore: nil, now: 11), 2, "c and the undated one")
            await assertThrows(LibraryError.noChannel(99)) { try await library.setWatched(channelID: 99, publishedBefore: nil, now: 1) }
        }
    }
}
