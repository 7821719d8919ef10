import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// A collection keeps its items when their channel's last follower leaves (`ChannelRemoval`): a
/// published playlist must not lose episodes. The channel's other items go; the channel stays,
/// unpolled, for the kept ones, and goes with the last of them.
final class StoreCollectionItemsStayTests: XCTestCase {
    func testTheLastFollowerLeavingKeepsTheItemsOfCollections() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            let show = try await owner.addTestChannel("show")
            try await owner.ingest(items: (1...3).map { item("s\($0)", published: Int64($0)) }, channelID: show, now: 2)
            let (s1, s2, s3) = (try await owner.id(of: "s1"), try await owner.id(of: "s2"), try await owner.id(of: "s3"))
            let playlist = try await owner.createCollection("Playlist", description: nil, now: 3)
            _ = try await owner.addToCollection(id: playlist.id, item: s3, now: 4)
            _ = try await owner.addToCollection(id: playlist.id, item: s1, now: 5)
            try await owner.createCollection("Later", now: 5)
            try await owner.addToCollection(item: s1, collection: "Later", now: 6)
            try await owner.setWatched([s1], now: 6)

            await assertEqual(try await owner.removeChannel(id: show), .keptInCollections([s1, s3]))
            // Still in the collections, in their places, with their channel's name.
            let entries = try await owner.collectionEntries(id: playlist.id)
            XCTAssertEqual(entries.map(\.item.id), [s3, s1])
            XCTAssertEqual(entries.map(\.item.channel), ["show", "show"])
            XCTAssertEqual(entries.map(\.item.title), ["Title s3", "Title s1"])
            XCTAssertEqual(entries.map(\.position), [1, 2])
            await assertEqual(try await owner.collection("Later").map(\.id), [s1])
            await assertEqual(try await owner.collections().map(\.items), [1, 2])
            // By id they are the user's still (playable, queueable); the channel's other item went.
            await assertEqual(try await owner.item(id: s3).channel, "show")
            await assertFalse(try await owner.item(id: s1).watched, "unsubscribing forgets the watch state")
            try await owner.appendToUpNext([(.item(s3), "s3")], now: 7)
            await assertThrows(LibraryError.noItem(s2)) { try await owner.item(id: s2) }
            XCTAssertEqual(try db.strings("SELECT id FROM items ORDER BY id"), [String(s1), String(s3)])
            // The channel is nobody's: not followed, not listed, not polled.
            await assertThrows(LibraryError.noChannel(show)) { try await owner.channel(id: show) }
            await assertEqual(try await owner.allChannels(), [])
            await assertEqual(try await owner.feed(now: 100), [])
            await assertEqual(try await owner.polling.dueChannels(now: 10_000_000), [])

            // An item leaves its last collection: it goes. The last one: the channel goes too.
            try await owner.removeFromCollection(items: [s1], collection: "Later")
            XCTAssertEqual(try db.strings("SELECT count(*) FROM items WHERE id = \(s1)"), ["1"], "still in the playlist")
            try await owner.removeFromCollection(id: playlist.id, item: s1, now: 8)
            await assertThrows(LibraryError.noItem(s1)) { try await owner.item(id: s1) }
            XCTAssertEqual(try db.strings("SELECT id FROM items ORDER BY id"), [String(s3)])
            try await owner.deleteCollection(id: playlist.id)
            XCTAssertEqual(try db.strings("SELECT count(*) FROM items"), ["0"])
            XCTAssertEqual(try db.strings("SELECT count(*) FROM channels"), ["0"], "the channel went with its last item")
            await assertEqual(try await owner.upNext(), [], "the queue lets go of it")
        }
    }

    /// Subscribing again finds the channel with the kept items: it is the same feed.
    func testSubscribingAgainFindsTheKeptChannel() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            let show = try await owner.addTestChannel("show")
            try await owner.ingest(items: [item("s1"), item("s2")], channelID: show, now: 2)
            let s1 = try await owner.id(of: "s1")
            try await owner.createCollection("Keep", now: 3)
            try await owner.addToCollection(item: s1, collection: "Keep", now: 3)
            await assertEqual(try await owner.removeChannel(id: show), .keptInCollections([s1]))
            await assertEqual(try await owner.addTestChannel("show", now: 20), show)
            await assertEqual(try await owner.itemIDs(channelID: show), [s1])
            await assertEqual(try await owner.polling.dueChannels(now: 10_000_000).map(\.id), [show])
            // Followed again, the channel's items are released by the rule no more.
            try await owner.deleteCollection("Keep")
            await assertEqual(try await owner.itemIDs(channelID: show), [s1])
        }
    }

    /// Another user's collection keeps the items when the last follower leaves, or is removed.
    func testAnotherUsersCollectionKeepsItsItemsWhenTheLastFollowerLeavesOrIsRemoved() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            let bobUser = try await owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let bob = db.store(for: bobUser.id)
            let carolUser = try await owner.addUser(name: "carol", isAdmin: false, passwordHash: nil, now: 1)
            let carol = db.store(for: carolUser.id)
            let show = try await owner.addTestChannel("show")
            await assertEqual(try await bob.addTestChannel("show"), show)
            await assertEqual(try await carol.addTestChannel("show"), show)
            try await owner.ingest(items: (1...4).map { item("s\($0)") }, channelID: show, now: 2)
            let ids = try await owner.itemIDs(channelID: show)
            // Bob keeps s1 and leaves first; the owner keeps s2 and leaves; Carol, the last, is removed.
            let bobs = try await bob.createCollection("Bob's", description: nil, now: 3)
            _ = try await bob.addToCollection(id: bobs.id, item: ids[0], now: 3)
            let owners = try await owner.createCollection("Owner's", description: nil, now: 3)
            _ = try await owner.addToCollection(id: owners.id, item: ids[1], now: 3)
            await assertEqual(try await bob.removeChannel(id: show), .othersStillFollow)
            await assertEqual(try await owner.removeChannel(id: show), .othersStillFollow)
            await assertEqual(try await bob.collectionEntries(id: bobs.id).map(\.item.id), [ids[0]], "his collection keeps it")
            await assertThrows(LibraryError.noItem(ids[1])) { try await bob.item(id: ids[1]) }
            await assertEqual(try await carol.itemIDs(channelID: show), ids)

            let removed = try await owner.removeUser(named: "carol")
            XCTAssertEqual(removed.channels, 1)
            XCTAssertEqual(removed.items, [ids[2], ids[3]], "the items nobody's collection holds")
            await assertEqual(try await bob.collectionEntries(id: bobs.id).map(\.item.channel), ["show"])
            await assertEqual(try await owner.collectionEntries(id: owners.id).map(\.item.id), [ids[1]])
            XCTAssertEqual(try db.strings("SELECT count(*) FROM items"), ["2"])

            // Bob's removal takes his collection, and with it the item only it held.
            let bobRemoved = try await owner.removeUser(named: "bob")
            XCTAssertEqual(bobRemoved.items, [ids[0]])
            await assertEqual(try await owner.collectionEntries(id: owners.id).map(\.item.id), [ids[1]])
            XCTAssertEqual(try db.strings("SELECT count(*) FROM channels"), ["1"])
        }
    }
}
