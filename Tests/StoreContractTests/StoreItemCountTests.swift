import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// A feed page's `total` (however a store keeps it: the SQLite one keeps per-user and
/// per-subscription counts) against the items the pages actually hold, for two users with
/// different channels and watch state, through every way items arrive and leave: ingest, a
/// re-ingest that changes items (an update must not count twice), a new episode, a channel one
/// user leaves, and one its last follower removes; and the watched and unwatched totals through
/// every way an item's watch state comes and goes.
final class StoreItemCountTests: XCTestCase {
    /// The owner follows `shared` (7 items), `mine` (4) and `video` (5); Bob `shared` and `video`.
    private struct TwoUsers {
        let owner: any UserLibrary, bob: any UserLibrary
        let shared: Int64, mine: Int64, video: Int64

        init(_ db: TestDatabase) async throws {
            let owner = db.owner
            self.owner = owner
            bob = db.store(for: try await owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1).id)
            shared = try await owner.addTestChannel("shared")
            mine = try await owner.addTestChannel("mine")
            video = try await owner.addTestChannel("video", platform: .youtube)
            try await owner.ingest(items: (1...7).map { item("s\($0)", published: Int64($0) * 100) }, channelID: shared, now: 10)
            try await owner.ingest(items: (1...4).map { item("m\($0)", published: Int64($0) * 90) }, channelID: mine, now: 10)
            try await owner.ingest(items: (1...5).map { item("v\($0)", published: Int64($0) * 80) }, channelID: video, now: 10)
            await assertEqual(try await bob.addTestChannel("shared"), shared)
            await assertEqual(try await bob.addTestChannel("video", platform: .youtube), video)
            try await owner.setWatched([try await owner.id(of: "s1"), try await owner.id(of: "m2"), try await owner.id(of: "v3")], now: 20)
            try await owner.setProgress(try await owner.id(of: "s2"), seconds: 30, now: 21)
            try await bob.setWatched([try await owner.id(of: "s1"), try await owner.id(of: "s5")], now: 22)
            // Watched, then not.
            try await bob.setWatched([try await owner.id(of: "v1")], now: 23)
            try await bob.setWatched([try await owner.id(of: "v1")], watched: false, now: 24)
        }
    }

    /// Every filter a store may answer from counts, and one it counts, each total against the
    /// items its pages hold (walked three at a time, so several pages each).
    private func assertTotalsMatchTheirItems(_ library: any UserLibrary, _ label: String,
                                             file: StaticString = #filePath, line: UInt = #line) async throws {
        let channels = try await library.allChannels().map(\.id)
        var selections: [[Int64]] = [[]] + channels.map { [$0] }
        selections.append(channels)
        selections.append([9_999] + channels.prefix(1))
        for watch in [WatchFilter.all, .unwatched, .watched] {
            for platform in [nil, Platform.podcast, .youtube] {
                for channelIDs in selections {
                    let query = ItemPageQuery(watch: watch, platform: platform, channelIDs: channelIDs, page: .first(3))
                    let what = "\(label): \(watch) \(String(describing: platform)) \(channelIDs)"
                    var seen: [Int64] = []
                    var pageNumber = 1
                    var total = -1
                    while true {
                        var q = query
                        q.page = try PageRequest(page: pageNumber, perPage: 3)
                        let page = try await library.itemPage(q)
                        if total == -1 { total = page.total } else { XCTAssertEqual(page.total, total, what, file: file, line: line) }
                        if page.items.isEmpty { break }
                        seen += page.items.map(\.item.id)
                        pageNumber += 1
                    }
                    XCTAssertEqual(Set(seen).count, seen.count, what, file: file, line: line)
                    XCTAssertEqual(total, seen.count, what, file: file, line: line)
                }
            }
        }
        // A filter counts cannot answer is counted, and agrees.
        let counted = try await library.itemPage(ItemPageQuery(publishedSince: 0, page: .first(100)))
        let summed = try await library.itemPage(ItemPageQuery(page: .first(100)))
        XCTAssertEqual(counted.total, summed.total, label, file: file, line: line)
    }

    func testTotalsFollowIngestUpdatesNewItemsAndRemovals() async throws {
        try await forEachEngine { db in
            let u = try await TwoUsers(db)
            let (owner, bob) = (u.owner, u.bob)
            try await assertTotalsMatchTheirItems(owner, "owner")
            try await assertTotalsMatchTheirItems(bob, "bob")
            await assertEqual(try await owner.itemPage(ItemPageQuery()).total, 16)
            await assertEqual(try await owner.itemPage(ItemPageQuery(watch: .unwatched)).total, 13)
            await assertEqual(try await bob.itemPage(ItemPageQuery(watch: .watched)).total, 2)

            // The same items again with new titles (an update of each), and one new one.
            try await owner.ingest(items: (1...8).map { item("s\($0)", published: Int64($0) * 100, title: "Changed \($0)") },
                                   channelID: u.shared, now: 30)
            await assertEqual(try await owner.itemPage(ItemPageQuery(channelIDs: [u.shared])).total, 8)
            await assertEqual(try await bob.itemPage(ItemPageQuery()).total, 13)
            try await assertTotalsMatchTheirItems(owner, "owner after re-ingest")
            try await assertTotalsMatchTheirItems(bob, "bob after re-ingest")

            // Bob leaves the shared channel (it stays, with its items, for the owner); the owner
            // removes `mine`, its last follower (its items go).
            try await bob.removeChannel(id: u.shared)
            try await owner.removeChannel(id: u.mine)
            await assertEqual(try await bob.itemPage(ItemPageQuery()).total, 5)
            await assertEqual(try await owner.itemPage(ItemPageQuery()).total, 13)
            try await assertTotalsMatchTheirItems(owner, "owner after removals")
            try await assertTotalsMatchTheirItems(bob, "bob after removals")
            await assertEqual(try await owner.itemPage(ItemPageQuery(channelIDs: [u.shared])).total, 8)
            await assertEqual(try await owner.itemPage(ItemPageQuery(channelIDs: [u.video])).total, 5)
            await assertEqual(try await bob.itemPage(ItemPageQuery(channelIDs: [u.video])).total, 5)

            // A subscription made now counts what its channel already has.
            await assertEqual(try await bob.addTestChannel("shared"), u.shared)
            await assertEqual(try await bob.itemPage(ItemPageQuery()).total, 13)
            try await assertTotalsMatchTheirItems(bob, "bob subscribed again")
        }
    }

    /// The watched and unwatched totals (counts the stores may keep per subscription and user)
    /// through marks and unmarks, a channel left and followed again (its watch rows go), an item
    /// kept by a collection when its channel's last follower leaves, watched while its channel
    /// is not followed and counted when it is again, and the other user's unaffected throughout;
    /// each channel's counts in the channel list too.
    func testWatchedTotalsFollowMarksSubscriptionsAndRemovals() async throws {
        try await forEachEngine { db in
            let u = try await TwoUsers(db)
            let (owner, bob) = (u.owner, u.bob)
            func check(_ label: String, owner ownerTotals: [Int], bob bobTotals: [Int], line: UInt = #line) async throws {
                for (library, name, expected) in [(owner, "owner", ownerTotals), (bob, "bob", bobTotals)] {
                    var totals: [Int] = []
                    for watch in [WatchFilter.all, .unwatched, .watched] { totals.append(try await library.itemPage(ItemPageQuery(watch: watch)).total) }
                    XCTAssertEqual(totals, expected, "\(label): \(name)'s all, unwatched, watched", line: line)
                    try await assertTotalsMatchTheirItems(library, "\(label): \(name)", line: line)
                    // Each channel's counts in the channel list, against the items its pages list.
                    for summary in try await library.channelSummaries() {
                        let listed = try await library.itemPage(ItemPageQuery(channelIDs: [summary.id], page: .first(100))).items
                        XCTAssertEqual([summary.items, summary.unwatched], [listed.count, listed.filter { !$0.item.watched }.count],
                                       "\(label): \(name)'s \(summary.name)", line: line)
                    }
                }
            }
            try await check("at first", owner: [16, 13, 3], bob: [12, 10, 2])
            try await bob.setWatched([try await owner.id(of: "v2"), try await owner.id(of: "v4")], now: 30)
            try await owner.setWatched([try await owner.id(of: "s1")], watched: false, now: 31)
            try await check("marked and unmarked", owner: [16, 14, 2], bob: [12, 8, 4])

            // Bob leaves `video` (his watch state of its items goes with him) and follows it again.
            try await bob.removeChannel(id: u.video)
            try await check("bob left video", owner: [16, 14, 2], bob: [7, 5, 2])
            await assertEqual(try await bob.addTestChannel("video", platform: .youtube), u.video)
            try await check("bob followed video again", owner: [16, 14, 2], bob: [12, 10, 2])

            // m1 is kept in a collection when the owner, `mine`'s last follower, leaves it; the
            // owner's watched m2 goes with the channel's other items.
            let m1 = try await owner.id(of: "m1")
            try await owner.createCollection("Keep", now: 40)
            try await owner.addToCollection(item: m1, collection: "Keep", now: 41)
            try await owner.removeChannel(id: u.mine)
            try await check("mine removed", owner: [12, 11, 1], bob: [12, 10, 2])
            // Watched while its channel is not followed: not in the feed, so in no total; counted
            // once the channel is followed again.
            try await owner.setWatched([m1], now: 42)
            try await check("m1 watched, mine not followed", owner: [12, 11, 1], bob: [12, 10, 2])
            await assertEqual(try await owner.addTestChannel("mine"), u.mine)
            try await check("mine followed again", owner: [13, 11, 2], bob: [12, 10, 2])
        }
    }
}
