import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// A feed page's `total` (however a store keeps it: the SQLite one keeps per-user and
/// per-subscription counts) against the items the pages actually hold, for two users with
/// different channels and watch state, through every way items arrive and leave: ingest, a
/// re-ingest that changes items (an update must not count twice), a new episode, a channel one
/// user leaves, and one its last follower removes.
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
}
