import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Two users on one library (issue 15): channels and items are shared, everything a person does
/// with them is theirs alone, and what is not theirs is "not found".
final class StoreUserIsolationTests: XCTestCase {
    /// Both follow `shared`; only the owner follows `mine`.
    private struct TwoUsers {
        let owner: any UserLibrary, bob: any UserLibrary
        let shared: Int64, mine: Int64
        let a1: Int64, a2: Int64, a3: Int64, m1: Int64

        init(_ db: TestDatabase) async throws {
            let owner = db.owner
            self.owner = owner
            let bobUser = try await owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            bob = db.store(for: bobUser.id)
            let now: Int64 = 100_000
            shared = try await owner.addTestChannel("shared", now: 10)
            mine = try await owner.addTestChannel("mine", now: 10)
            _ = try await owner.ingest(Feed(kind: .podcast, title: "Shared", items: [
                item("a1", published: now - 300), item("a2", published: now - 200), item("a3", published: now - 100),
            ]), channelID: shared, now: 20)
            _ = try await owner.ingest(Feed(kind: .podcast, title: "Mine", items: [item("m1", published: now - 50, title: "Private sourdough")]),
                                       channelID: mine, now: 20)
            // Bob subscribes the same feed: the channel is shared, not copied.
            await assertEqual(try await bob.addTestChannel("shared", now: 30), shared)
            a1 = try await owner.id(of: "a1"); a2 = try await owner.id(of: "a2"); a3 = try await owner.id(of: "a3")
            m1 = try await owner.id(of: "m1")
        }
    }

    func testSubscriptionsAndChannels() async throws {
        try await forEachEngine { db in
            let u = try await TwoUsers(db)
            let (owner, bob, shared, mine) = (u.owner, u.bob, u.shared, u.mine)
            await assertEqual(try await owner.allChannels().map(\.id), [shared, mine])
            await assertEqual(try await bob.allChannels().map(\.id), [shared])
            await assertEqual(try await bob.channelSummaries().map(\.id), [shared])
            await assertNil(try await bob.channel(feedURL: "https://example.com/mine.xml"))
            await assertEqual(try await owner.channel(feedURL: "https://example.com/mine.xml")?.id, mine)
            await assertThrows(LibraryError.noChannel(mine)) { try await bob.channel(id: mine) }
            await assertThrows(LibraryError.noChannel(mine)) { try await bob.channelSummary(id: mine) }
            await assertThrows(LibraryError.noChannel(mine)) { try await bob.itemIDs(channelID: mine) }
            await assertThrows(LibraryError.noChannel(mine)) { try await bob.setWatched(channelID: mine, publishedBefore: nil, now: 1) }
            await assertThrows(LibraryError.noChannel(mine)) { try await bob.setActive(channelID: mine, false) }
            await assertThrows(LibraryError.noChannel(mine)) { try await bob.setSpeed(channelID: mine, 2) }
            await assertThrows(LibraryError.noChannel(mine)) { try await bob.removeChannel(id: mine) }
            // None of it touched the owner's channels.
            await assertEqual(try await owner.allChannels().map(\.id), [shared, mine])
            await assertEqual(try await owner.channel(id: mine).active, true)
        }
    }

    func testItemsOfChannelsNotFollowedAreNotFound() async throws {
        try await forEachEngine { db in
            let u = try await TwoUsers(db)
            let (owner, bob, a1, a2, a3, m1) = (u.owner, u.bob, u.a1, u.a2, u.a3, u.m1)
            await assertThrows(LibraryError.noItem(m1)) { try await bob.item(id: m1) }
            await assertThrows(LibraryError.noItem(m1)) { try await bob.itemDetails(id: m1) }
            await assertThrows(LibraryError.noItem(m1)) { try await bob.setWatched([m1], now: 1) }
            await assertThrows(LibraryError.noItem(m1)) { try await bob.setProgress(m1, seconds: 5, now: 1) }
            await assertThrows(LibraryError.noItems([m1, 9999])) { try await bob.save([a1, m1, 9999], now: 1) }
            await assertThrows(LibraryError.noItem(m1)) { try await bob.appendHistory(item: m1, now: 1) }
            await assertThrows(LibraryError.noItem(m1)) { try await bob.appendToUpNext([(.item(m1), "m1")], now: 1) }
            await assertThrows(LibraryError.noItem(m1)) {
                try await bob.saveLastPlayed(LastPlayed(target: .item(m1), title: "", position: 0), now: 1)
            }
            await assertEqual(try await bob.downloadItems(ids: [a1, m1]).map(\.id), [a1])
            await assertEqual(try await bob.feed(now: 100_000).map(\.id), [a3, a2, a1])
            await assertEqual(try await owner.feed(now: 100_000).map(\.id), [m1, a3, a2, a1])
            await assertTrue(try await bob.search(SearchQuery(text: "sourdough")).isEmpty)
            await assertEqual(try await owner.search(SearchQuery(text: "sourdough")).map(\.id), [m1])
            await assertTrue(try await bob.saved().isEmpty)
            await assertTrue(try await bob.history().isEmpty)
            await assertTrue(try await bob.upNext().isEmpty)
        }
    }

    /// The HTTP API's page query and records: only the acting user's channels, with their own
    /// watch state.
    func testTheAPIsItemPagesAndRecordsArePerUser() async throws {
        try await forEachEngine { db in
            let u = try await TwoUsers(db)
            let (owner, bob, a1, a2, m1) = (u.owner, u.bob, u.a1, u.a2, u.m1)
            try await owner.setWatched([a1], now: 5)
            try await bob.setWatched([a2], now: 6)
            let ownerPage = try await owner.itemPage(ItemPageQuery(order: .newest))
            XCTAssertEqual(ownerPage.items.map(\.item.itemID), ["m1", "a3", "a2", "a1"])
            XCTAssertEqual(ownerPage.total, 4)
            let bobPage = try await bob.itemPage(ItemPageQuery(order: .newest))
            XCTAssertEqual(bobPage.items.map(\.item.itemID), ["a3", "a2", "a1"], "not the owner's private channel")
            await assertEqual(try await bob.itemPage(ItemPageQuery(watch: .watched)).items.map(\.item.itemID), ["a2"])
            await assertEqual(try await owner.itemPage(ItemPageQuery(watch: .watched)).items.map(\.item.itemID), ["a1"])
            await assertEqual(try await bob.itemRecords(ids: [m1, a2]).map(\.item.itemID), ["a2"])
            await assertEqual(try await bob.itemRecords(ids: [a2]).first?.item.watched, true)
            await assertEqual(try await owner.itemRecords(ids: [a2]).first?.item.watched, false)
        }
    }

    func testWatchedProgressAndFeedFilters() async throws {
        try await forEachEngine { db in
            let u = try await TwoUsers(db)
            let (owner, bob, shared, a1, a2, a3, m1) = (u.owner, u.bob, u.shared, u.a1, u.a2, u.a3, u.m1)
            try await owner.setWatched([a1], now: 1)
            try await bob.setWatched([a3], now: 1)
            try await bob.setProgress(a2, seconds: 30, now: 2)
            await assertTrue(try await owner.item(id: a1).watched)
            await assertFalse(try await owner.item(id: a3).watched)
            await assertEqual(try await owner.item(id: a2).progress, 0)
            await assertTrue(try await bob.item(id: a3).watched)
            await assertFalse(try await bob.item(id: a1).watched)
            await assertEqual(try await bob.item(id: a2).progress, 30)
            let unwatched = FeedFilter(unwatchedOnly: true), watched = FeedFilter(watchedOnly: true)
            await assertEqual(try await owner.feed(filter: unwatched, now: 100_000).map(\.id), [m1, a3, a2])
            await assertEqual(try await bob.feed(filter: unwatched, now: 100_000).map(\.id), [a2, a1])
            await assertEqual(try await owner.feed(filter: watched, now: 100_000).map(\.id), [a1])
            await assertEqual(try await bob.feed(filter: watched, now: 100_000).map(\.id), [a3])
            await assertEqual(try await bob.search(SearchQuery(text: "Title", filter: watched)).map(\.id), [a3])
            // Catch-up: bob's in-progress item first, then what he has not touched; the owner's own.
            await assertEqual(try await bob.feed(mode: .catchUp, now: 100_000).map(\.id), [a2, a1])
            await assertEqual(try await bob.feed(mode: .catchUp, filter: FeedFilter(channelID: shared), now: 100_000).map(\.id), [a2, a1])
            await assertEqual(try await owner.feed(mode: .catchUp, now: 100_000).map(\.id), [a2, m1, a3])
            // The channel list counts each user's own unwatched items.
            await assertEqual(try await owner.channelSummary(id: shared).unwatched, 2)
            await assertEqual(try await bob.channelSummary(id: shared).unwatched, 2)
            await assertEqual(try await bob.setWatched(channelID: shared, publishedBefore: nil, now: 3), 2)
            await assertEqual(try await bob.channelSummary(id: shared).unwatched, 0)
            await assertEqual(try await owner.channelSummary(id: shared).unwatched, 2)
            await assertEqual(try await owner.watched(before: 10, among: [a1, a2, a3]), [a1])
            await assertEqual(try await bob.watched(before: 10, among: [a1, a2, a3]), [a1, a2, a3])
        }
    }

    func testSavedCollectionsHistoryQueuePlayerStateAndSpeed() async throws {
        try await forEachEngine { db in
            let u = try await TwoUsers(db)
            let (owner, bob, shared, a1, a2, a3, m1) = (u.owner, u.bob, u.shared, u.a1, u.a2, u.a3, u.m1)
            try await bob.save([a1], now: 1)
            await assertTrue(try await owner.saved().isEmpty)
            await assertEqual(try await bob.saved().map(\.id), [a1])
            await assertTrue(try await owner.unsave([a1]).isEmpty)
            await assertEqual(try await bob.saved().map(\.id), [a1])

            // Collection names are unique per user: both may have "Later".
            try await owner.createCollection("Later", now: 1)
            try await bob.createCollection("Later", now: 1)
            await assertThrows(LibraryError.collectionExists("Later")) { try await bob.createCollection("Later", now: 2) }
            try await bob.createCollection("Bob's", now: 1)
            try await bob.addToCollection(items: [a1, a2], collection: "Later", now: 2)
            await assertTrue(try await owner.collection("Later").isEmpty)
            await assertEqual(try await bob.collection("Later").map(\.id), [a1, a2])
            await assertEqual(try await owner.collections().map(\.name), ["Later"])
            await assertThrows(LibraryError.noCollection("Bob's")) { try await owner.collection("Bob's") }
            await assertThrows(LibraryError.noCollection("Bob's")) { try await owner.deleteCollection("Bob's") }
            await assertThrows(LibraryError.noCollection("Bob's")) { try await owner.addToCollection(item: a1, collection: "Bob's", now: 3) }
            await assertThrows(LibraryError.noItem(m1)) { try await bob.addToCollection(item: m1, collection: "Later", now: 3) }
            try await owner.deleteCollection("Later")
            await assertEqual(try await bob.collection("Later").map(\.id), [a1, a2])

            try await bob.appendHistory(item: a1, position: 12, now: 5)
            await assertTrue(try await owner.history().isEmpty)
            await assertEqual(try await bob.history().map(\.item), [a1])

            try await bob.appendToUpNext([(.item(a2), "a2"), (.url("https://x/e.mp3"), "e")], now: 6)
            try await owner.appendToUpNext([(.item(a3), "a3")], now: 6)
            await assertEqual(try await owner.upNext().map(\.target), [.item(a3)])
            await assertEqual(try await bob.upNext().map { "\($0.position):\($0.target)" }, ["1:item(\(a2))", "2:url(\"https://x/e.mp3\")"])
            await assertEqual(try await owner.clearUpNext(), 1)
            await assertEqual(try await bob.popUpNext()?.target, .item(a2))
            await assertThrows(LibraryError.invalid("the queue is empty")) { try await owner.removeFromUpNext(at: 1) }
            await assertEqual(try await bob.upNext().count, 1)

            try await bob.saveVolume(0.3, now: 7)
            try await bob.saveLastPlayed(LastPlayed(target: .item(a1), title: "a1", position: 4), now: 7)
            await assertNil(try await owner.savedVolume())
            await assertNil(try await owner.lastPlayed())
            await assertEqual(try await bob.savedVolume(), 0.3)
            await assertEqual(try await bob.lastPlayed()?.target, .item(a1))

            try await bob.setSpeed(channelID: shared, 1.5)
            await assertNil(try await owner.channel(id: shared).speed)
            await assertEqual(try await bob.channel(id: shared).speed, 1.5)
        }
    }

    /// Unsubscribing removes the user's subscription and their state for its items; the channel
    /// and its items go only with the last follower. Sync polls it once however many follow it.
    func testSharedChannelsAreRemovedWithTheirLastFollowerAndPolledOnce() async throws {
        try await forEachEngine { db in
            let u = try await TwoUsers(db)
            let (owner, bob, shared, mine, a1, a2, a3) = (u.owner, u.bob, u.shared, u.mine, u.a1, u.a2, u.a3)
            let later: Int64 = 10_000_000  // past every channel's next poll
            await assertEqual(try await owner.polling.dueChannels(now: later).map(\.id), [shared, mine])
            try await owner.setActive(channelID: shared, false)
            await assertEqual(try await bob.polling.dueChannels(now: later).map(\.id), [shared, mine], "bob's subscription is active")
            try await bob.setActive(channelID: shared, false)
            await assertEqual(try await bob.polling.dueChannels(now: later).map(\.id), [mine], "nobody's subscription is active")
            try await owner.setActive(channelID: shared, true)

            try await owner.setWatched([a1], now: 1)
            try await bob.setWatched([a1], now: 1)
            try await bob.setProgress(a2, seconds: 20, now: 1)
            try await bob.save([a2], now: 1)
            try await bob.createCollection("Later", now: 1)
            try await bob.addToCollection(item: a3, collection: "Later", now: 1)
            try await bob.appendToUpNext([(.item(a3), "a3")], now: 1)
            try await bob.appendHistory(item: a1, now: 2)
            try await bob.saveLastPlayed(LastPlayed(target: .item(a2), title: "a2", position: 1), now: 2)

            await assertEqual(try await bob.removeChannel(id: shared), .othersStillFollow)
            await assertThrows(LibraryError.noChannel(shared)) { try await bob.channel(id: shared) }
            await assertTrue(try await owner.item(id: a1).watched, "the owner's state stays")
            await assertTrue(try await bob.saved().isEmpty)
            await assertTrue(try await bob.upNext().isEmpty)
            await assertNil(try await bob.lastPlayed())
            await assertEqual(try await bob.history().map(\.title), ["Title a1"], "history stays")
            await assertEqual(try await bob.collection("Later").map(\.id), [a3], "his collection keeps its items (ChannelRemoval)")

            // Subscribing again finds the channel with its items, and none of his state for them.
            await assertEqual(try await bob.addTestChannel("shared", now: 40), shared)
            let again = try await bob.feed(now: 100_000)
            XCTAssertEqual(again.count, 3)
            XCTAssertEqual(again.map(\.watched), [false, false, false])
            XCTAssertEqual(again.map(\.progress), [0, 0, 0])
            await assertEqual(try await bob.removeChannel(id: shared), .othersStillFollow)
            try await bob.deleteCollection("Later")
            await assertEqual(try await owner.removeChannel(id: shared), .channelRemoved)
            await assertEqual(try await owner.allChannels().map(\.id), [mine])
            // Gone from the library: nobody's channel is polled at its URL, and subscribing to it
            // again makes a new channel, without the old items.
            await assertNil(try await owner.polling.addressReach(feedURL: "https://example.com/shared.xml"))
            let fresh = try await owner.addTestChannel("shared", now: 50)
            XCTAssertNotEqual(fresh, shared)
            await assertEqual(try await owner.itemIDs(channelID: fresh), [])
        }
    }
}
