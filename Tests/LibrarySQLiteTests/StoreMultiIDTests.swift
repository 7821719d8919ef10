import FeedModel
import Foundation
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// Issue 13, bug 5: one rule for multi-id calls: every id is checked first, then all or nothing.
@Suite struct StoreMultiIDTests {
    let t: TestLibrary
    let ids: [Int64]
    let channel: Int64
    init() async throws {
        t = try TestLibrary()
        channel = try await t.library.addTestChannel("show")
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "show", items: [item("a", published: 100), item("b", published: 200),
                                                                                  item("c", published: 300)]),
                                       channelID: channel, now: 1000)
        ids = [try await t.library.id(of: "a"), try await t.library.id(of: "b"), try await t.library.id(of: "c")]
    }

    @Test func saveWithABadIDSavesNothingAndNamesIt() async throws {
        await #expect(throws: LibraryError.noItem(9999)) { try await t.library.save([ids[0], 9999, ids[1]], now: 1) }
        #expect(try await t.library.saved().isEmpty)
        await #expect(throws: LibraryError.noItems([9998, 9999])) { try await t.library.save([9998, ids[0], 9999], now: 1) }
        #expect(try await t.library.save([ids[0], ids[1], ids[0]], now: 2) == [ids[0], ids[1]])
        #expect(try await t.library.save([ids[1], ids[2]], now: 3) == [ids[2]], "already saved is not new")
        await #expect(throws: LibraryError.noItem(9999)) { try await t.library.unsave([ids[0], 9999]) }
        #expect(Set(try await t.library.saved().map(\.id)) == Set(ids))
        #expect(try await t.library.unsave([ids[0], ids[0]]) == [ids[0]])
    }

    @Test func collectionAddAndRemoveAreAllOrNothing() async throws {
        try await t.library.createCollection("Later", now: 1)
        await #expect(throws: LibraryError.noItem(9999)) {
            try await t.library.addToCollection(items: [ids[0], 9999], collection: "Later", now: 2)
        }
        #expect(try await t.library.collection("Later").isEmpty)
        try await t.library.addToCollection(items: [ids[1], ids[0]], collection: "Later", now: 3)
        await #expect(throws: LibraryError.alreadyInCollection(item: ids[0], collection: "Later")) {
            try await t.library.addToCollection(items: [ids[2], ids[0]], collection: "Later", now: 4)
        }
        #expect(try await t.library.collection("Later").map(\.id) == [ids[1], ids[0]])
        await #expect(throws: LibraryError.notInCollection(item: ids[2], collection: "Later")) {
            try await t.library.removeFromCollection(items: [ids[0], ids[2]], collection: "Later")
        }
        #expect(try await t.library.collection("Later").map(\.id) == [ids[1], ids[0]], "the first removal was rolled back")
        try await t.library.removeFromCollection(items: [ids[0], ids[1]], collection: "Later")
        #expect(try await t.library.collection("Later").isEmpty)
    }

    @Test func aChannelsBacklogIsMarkedWatched() async throws {
        let other = try await t.library.addTestChannel("other")
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "other", items: [item("x", published: 50)]), channelID: other, now: 1000)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "show", items: [item("undated")]), channelID: channel, now: 1000)
        try await t.library.setWatched([ids[0]], now: 5)
        #expect(try await t.library.setWatched(channelID: channel, publishedBefore: 250, now: 10) == 1, "b; a was watched already")
        let b = try await t.library.item(id: ids[1]), c = try await t.library.item(id: ids[2])
        #expect(b.watched && !c.watched)
        let undated = try await t.library.item(id: t.library.id(of: "undated"))
        #expect(!undated.watched, "undated items are not before a date")
        let x = try await t.library.item(id: t.library.id(of: "x"))
        #expect(!x.watched, "another channel's items are untouched")
        #expect(try await t.library.setWatched(channelID: channel, publishedBefore: nil, now: 11) == 2, "c and the undated one")
        await #expect(throws: LibraryError.noChannel(99)) { try await t.library.setWatched(channelID: 99, publishedBefore: nil, now: 1) }
    }
}
