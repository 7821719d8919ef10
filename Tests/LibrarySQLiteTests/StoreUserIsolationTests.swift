import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// Two users on one library file (issue 15): channels and items are shared, everything a person
/// does with them is theirs alone, and what is not theirs is "not found".
@Suite struct StoreUserIsolationTests {
    let t: TestLibrary
    var owner: SQLiteLibrary { t.library }
    let bob: SQLiteLibrary
    /// Both follow `shared`; only the owner follows `mine`.
    let shared: Int64, mine: Int64
    let a1: Int64, a2: Int64, a3: Int64, m1: Int64

    init() async throws {
        t = try TestLibrary()
        let bobUser = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        bob = t.library.acting(as: bobUser.id)
        let now: Int64 = 100_000
        shared = try await t.library.addTestChannel("shared", now: 10)
        mine = try await t.library.addTestChannel("mine", now: 10)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Shared", items: [
            item("a1", published: now - 300), item("a2", published: now - 200), item("a3", published: now - 100),
        ]), channelID: shared, now: 20)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Mine", items: [item("m1", published: now - 50, title: "Private sourdough")]),
                                       channelID: mine, now: 20)
        // Bob subscribes the same feed: the channel row is reused, not copied.
        let bobShared = try await bob.addTestChannel("shared", now: 30)
        #expect(bobShared == shared)
        a1 = try await t.library.id(of: "a1"); a2 = try await t.library.id(of: "a2"); a3 = try await t.library.id(of: "a3")
        m1 = try await t.library.id(of: "m1")
    }

    @Test func subscriptionsAndChannels() async throws {
        #expect(try await owner.allChannels().map(\.id) == [shared, mine])
        #expect(try await bob.allChannels().map(\.id) == [shared])
        #expect(try await bob.channelSummaries().map(\.id) == [shared])
        #expect(try await bob.channel(feedURL: "https://example.com/mine.xml") == nil)
        #expect(try await owner.channel(feedURL: "https://example.com/mine.xml")?.id == mine)
        await #expect(throws: LibraryError.noChannel(mine)) { try await bob.channel(id: mine) }
        await #expect(throws: LibraryError.noChannel(mine)) { try await bob.channelSummary(id: mine) }
        await #expect(throws: LibraryError.noChannel(mine)) { try await bob.itemIDs(channelID: mine) }
        await #expect(throws: LibraryError.noChannel(mine)) { try await bob.setWatched(channelID: mine, publishedBefore: nil, now: 1) }
        await #expect(throws: LibraryError.noChannel(mine)) { try await bob.setActive(channelID: mine, false) }
        await #expect(throws: LibraryError.noChannel(mine)) { try await bob.setSpeed(channelID: mine, 2) }
        await #expect(throws: LibraryError.noChannel(mine)) { try await bob.removeChannel(id: mine) }
        let channels = try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM channels") }
        #expect(channels == 2)
    }

    @Test func itemsOfChannelsNotFollowedAreNotFound() async throws {
        await #expect(throws: LibraryError.noItem(m1)) { try await bob.item(id: m1) }
        await #expect(throws: LibraryError.noItem(m1)) { try await bob.itemDetails(id: m1) }
        await #expect(throws: LibraryError.noItem(m1)) { try await bob.setWatched([m1], now: 1) }
        await #expect(throws: LibraryError.noItem(m1)) { try await bob.setProgress(m1, seconds: 5, now: 1) }
        await #expect(throws: LibraryError.noItems([m1, 9999])) { try await bob.save([a1, m1, 9999], now: 1) }
        await #expect(throws: LibraryError.noItem(m1)) { try await bob.appendHistory(item: m1, now: 1) }
        await #expect(throws: LibraryError.noItem(m1)) { try await bob.appendToUpNext([(.item(m1), "m1")], now: 1) }
        await #expect(throws: LibraryError.noItem(m1)) { try await bob.saveLastPlayed(LastPlayed(target: .item(m1), title: "", position: 0), now: 1) }
        #expect(try await bob.downloadItems(ids: [a1, m1]).map(\.id) == [a1])
        #expect(try await bob.feed(now: 100_000).map(\.id) == [a3, a2, a1])
        #expect(try await owner.feed(now: 100_000).map(\.id) == [m1, a3, a2, a1])
        #expect(try await bob.search(SearchQuery(text: "sourdough")).isEmpty)
        #expect(try await owner.search(SearchQuery(text: "sourdough")).map(\.id) == [m1])
        #expect(try await bob.saved().isEmpty)
        #expect(try await bob.history().isEmpty)
        #expect(try await bob.upNext().isEmpty)
    }

    /// The HTTP API's page query and records: only the acting user's channels, with their own
    /// watch state (the merge of the API's query with per-user state bound the user by hand).
    @Test func theAPIsItemPagesAndRecordsArePerUser() async throws {
        try await t.library.setWatched([a1], now: 5)
        try await bob.setWatched([a2], now: 6)
        let ownerPage = try await t.library.itemPage(ItemPageQuery(order: .newest))
        #expect(ownerPage.items.map(\.item.itemID) == ["m1", "a3", "a2", "a1"])
        #expect(ownerPage.total == 4)
        let bobPage = try await bob.itemPage(ItemPageQuery(order: .newest))
        #expect(bobPage.items.map(\.item.itemID) == ["a3", "a2", "a1"], "not the owner's private channel")
        #expect(try await bob.itemPage(ItemPageQuery(watch: .watched)).items.map(\.item.itemID) == ["a2"])
        #expect(try await t.library.itemPage(ItemPageQuery(watch: .watched)).items.map(\.item.itemID) == ["a1"])
        #expect(try await bob.itemRecords(ids: [m1, a2]).map(\.item.itemID) == ["a2"])
        #expect(try await bob.itemRecords(ids: [a2]).first?.item.watched == true)
        #expect(try await t.library.itemRecords(ids: [a2]).first?.item.watched == false)
    }

    @Test func watchedProgressAndFeedFilters() async throws {
        try await owner.setWatched([a1], now: 1)
        try await bob.setWatched([a3], now: 1)
        try await bob.setProgress(a2, seconds: 30, now: 2)
        #expect(try await owner.item(id: a1).watched)
        #expect(try await !owner.item(id: a3).watched)
        #expect(try await owner.item(id: a2).progress == 0)
        #expect(try await bob.item(id: a3).watched)
        #expect(try await !bob.item(id: a1).watched)
        #expect(try await bob.item(id: a2).progress == 30)
        let unwatched = FeedFilter(unwatchedOnly: true), watched = FeedFilter(watchedOnly: true)
        #expect(try await owner.feed(filter: unwatched, now: 100_000).map(\.id) == [m1, a3, a2])
        #expect(try await bob.feed(filter: unwatched, now: 100_000).map(\.id) == [a2, a1])
        #expect(try await owner.feed(filter: watched, now: 100_000).map(\.id) == [a1])
        #expect(try await bob.feed(filter: watched, now: 100_000).map(\.id) == [a3])
        #expect(try await bob.search(SearchQuery(text: "Title", filter: watched)).map(\.id) == [a3])
        // Catch-up: bob's in-progress item first, then what he has not touched; the owner's own.
        #expect(try await bob.feed(mode: .catchUp, now: 100_000).map(\.id) == [a2, a1])
        #expect(try await bob.feed(mode: .catchUp, filter: FeedFilter(channelID: shared), now: 100_000).map(\.id) == [a2, a1])
        #expect(try await owner.feed(mode: .catchUp, now: 100_000).map(\.id) == [a2, m1, a3])
        // The channel list counts each user's own unwatched items.
        #expect(try await owner.channelSummary(id: shared).unwatched == 2)
        #expect(try await bob.channelSummary(id: shared).unwatched == 2)
        #expect(try await bob.setWatched(channelID: shared, publishedBefore: nil, now: 3) == 2)
        #expect(try await bob.channelSummary(id: shared).unwatched == 0)
        #expect(try await owner.channelSummary(id: shared).unwatched == 2)
        #expect(try await owner.watched(before: 10, among: [a1, a2, a3]) == [a1])
        #expect(try await bob.watched(before: 10, among: [a1, a2, a3]) == [a1, a2, a3])
    }

    @Test func savedCollectionsHistoryQueuePlayerStateAndSpeed() async throws {
        try await bob.save([a1], now: 1)
        #expect(try await owner.saved().isEmpty)
        #expect(try await bob.saved().map(\.id) == [a1])
        #expect(try await owner.unsave([a1]).isEmpty)
        #expect(try await bob.saved().map(\.id) == [a1])

        // Collection names are unique per user: both may have "Later".
        try await owner.createCollection("Later", now: 1)
        try await bob.createCollection("Later", now: 1)
        await #expect(throws: LibraryError.collectionExists("Later")) { try await bob.createCollection("Later", now: 2) }
        try await bob.createCollection("Bob's", now: 1)
        try await bob.addToCollection(items: [a1, a2], collection: "Later", now: 2)
        #expect(try await owner.collection("Later").isEmpty)
        #expect(try await bob.collection("Later").map(\.id) == [a1, a2])
        #expect(try await owner.collections().map(\.name) == ["Later"])
        await #expect(throws: LibraryError.noCollection("Bob's")) { try await owner.collection("Bob's") }
        await #expect(throws: LibraryError.noCollection("Bob's")) { try await owner.deleteCollection("Bob's") }
        await #expect(throws: LibraryError.noCollection("Bob's")) { try await owner.addToCollection(item: a1, collection: "Bob's", now: 3) }
        await #expect(throws: LibraryError.noItem(m1)) { try await bob.addToCollection(item: m1, collection: "Later", now: 3) }
        try await owner.deleteCollection("Later")
        #expect(try await bob.collection("Later").map(\.id) == [a1, a2])

        try await bob.appendHistory(item: a1, position: 12, now: 5)
        #expect(try await owner.history().isEmpty)
        #expect(try await bob.history().map(\.item) == [a1])

        try await bob.appendToUpNext([(.item(a2), "a2"), (.url("https://x/e.mp3"), "e")], now: 6)
        try await owner.appendToUpNext([(.item(a3), "a3")], now: 6)
        #expect(try await owner.upNext().map(\.target) == [.item(a3)])
        #expect(try await bob.upNext().map { "\($0.position):\($0.target)" } == ["1:item(\(a2))", "2:url(\"https://x/e.mp3\")"])
        #expect(try await owner.clearUpNext() == 1)
        #expect(try await bob.popUpNext()?.target == .item(a2))
        await #expect(throws: LibraryError.invalid("the queue is empty")) { try await owner.removeFromUpNext(at: 1) }
        #expect(try await bob.upNext().count == 1)

        try await bob.saveVolume(0.3, now: 7)
        try await bob.saveLastPlayed(LastPlayed(target: .item(a1), title: "a1", position: 4), now: 7)
        #expect(try await owner.savedVolume() == nil)
        #expect(try await owner.lastPlayed() == nil)
        #expect(try await bob.savedVolume() == 0.3)
        #expect(try await bob.lastPlayed()?.target == .item(a1))

        try await bob.setSpeed(channelID: shared, 1.5)
        #expect(try await owner.channel(id: shared).speed == nil)
        #expect(try await bob.channel(id: shared).speed == 1.5)
    }

    /// Unsubscribing removes the user's subscription and their state for its items; the channel
    /// and its items go only with the last follower. Sync polls it once however many follow it.
    @Test func sharedChannelsAreRemovedWithTheirLastFollowerAndPolledOnce() async throws {
        let later: Int64 = 10_000_000  // past every channel's next poll
        #expect(try await owner.polling.dueChannels(now: later).map(\.id) == [shared, mine])
        try await owner.setActive(channelID: shared, false)
        #expect(try await bob.polling.dueChannels(now: later).map(\.id) == [shared, mine], "bob's subscription is active")
        try await bob.setActive(channelID: shared, false)
        #expect(try await bob.polling.dueChannels(now: later).map(\.id) == [mine], "nobody's subscription is active")
        try await owner.setActive(channelID: shared, true)

        try await owner.setWatched([a1], now: 1)
        try await bob.setWatched([a1], now: 1)
        try await bob.save([a2], now: 1)
        try await bob.createCollection("Later", now: 1)
        try await bob.addToCollection(item: a3, collection: "Later", now: 1)
        try await bob.appendToUpNext([(.item(a3), "a3")], now: 1)
        try await bob.appendHistory(item: a1, now: 2)
        try await bob.saveLastPlayed(LastPlayed(target: .item(a2), title: "a2", position: 1), now: 2)

        #expect(try await bob.removeChannel(id: shared) == .othersStillFollow)
        await #expect(throws: LibraryError.noChannel(shared)) { try await bob.channel(id: shared) }
        #expect(try await owner.item(id: a1).watched, "the owner's state stays")
        let bobsRows = try await t.library.read { db in
            try Int.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM watch_state WHERE user_id = 2) + (SELECT count(*) FROM saved_items WHERE user_id = 2)
                     + (SELECT count(*) FROM collection_items) + (SELECT count(*) FROM up_next WHERE user_id = 2)
                """)
        }
        #expect(bobsRows == 0)
        #expect(try await bob.lastPlayed() == nil)
        #expect(try await bob.history().map(\.title) == ["Title a1"], "history stays")
        #expect(try await bob.collection("Later").isEmpty)

        // Subscribing again finds the channel with its items.
        #expect(try await bob.addTestChannel("shared", now: 40) == shared)
        #expect(try await bob.feed(now: 100_000).count == 3)
        #expect(try await bob.removeChannel(id: shared) == .othersStillFollow)
        #expect(try await owner.removeChannel(id: shared) == .channelRemoved)
        let left = try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE channel_id = ?", arguments: [shared]) }
        #expect(left == 0)
        #expect(try await owner.allChannels().map(\.id) == [mine])
    }
}
