import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// v15-feed-item-counts and v26-feed-watched-counts: a feed page's `total` comes from per-user
/// and per-subscription counts of items and of watched items kept by triggers, not from
/// counting: the counts as stored, and a v14 library counted when it migrates. (The totals against the items the pages
/// hold, through every way items arrive and leave, are StoreContractTests'.)
@Suite struct StoreItemCountTests {
    let t: TestLibrary
    var owner: SQLiteLibrary { t.library }
    let bob: SQLiteLibrary
    let shared: Int64, mine: Int64, video: Int64

    init() async throws {
        t = try TestLibrary()
        bob = t.library.acting(as: try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1).id)
        let owner = t.library
        shared = try await owner.addTestChannel("shared")
        mine = try await owner.addTestChannel("mine")
        video = try await owner.addTestChannel("video", platform: .youtube)
        _ = try await owner.ingest(items: (1...7).map { item("s\($0)", published: Int64($0) * 100) }, channelID: shared, now: 10)
        _ = try await owner.ingest(items: (1...4).map { item("m\($0)", published: Int64($0) * 90) }, channelID: mine, now: 10)
        _ = try await owner.ingest(items: (1...5).map { item("v\($0)", published: Int64($0) * 80) }, channelID: video, now: 10)
        #expect(try await bob.addTestChannel("shared") == shared)
        #expect(try await bob.addTestChannel("video", platform: .youtube) == video)
        try await owner.setWatched([try await owner.id(of: "s1"), try await owner.id(of: "m2"), try await owner.id(of: "v3")], now: 20)
        try await owner.setProgress(try await owner.id(of: "s2"), seconds: 30, now: 21)
        try await bob.setWatched([try await owner.id(of: "s1"), try await owner.id(of: "s5")], now: 22)
        // Watched, then not: a watch_state row that is not watched.
        try await bob.setWatched([try await owner.id(of: "v1")], now: 23)
        try await bob.setWatched([try await owner.id(of: "v1")], watched: false, now: 24)
    }

    /// Every filter the fast total answers, and one it counts, each total against the items
    /// its pages hold (walked three at a time, so several pages each).
    private func expectTotalsMatchTheirItems(_ library: SQLiteLibrary, _ label: String) async throws {
        let channels = try await library.allChannels().map(\.id)
        var selections: [[Int64]] = [[]] + channels.map { [$0] }
        selections.append(channels)
        selections.append([9_999] + channels.prefix(1))
        for watch in [WatchFilter.all, .unwatched, .watched] {
            for platform in [nil, Platform.podcast, .youtube] {
                for channelIDs in selections {
                    let query = ItemPageQuery(watch: watch, platform: platform, channelIDs: channelIDs, page: .first(3))
                    var seen: [Int64] = []
                    var pageNumber = 1
                    var total = -1
                    while true {
                        var q = query
                        q.page = try PageRequest(page: pageNumber, perPage: 3)
                        let page = try await library.itemPage(q)
                        if total == -1 { total = page.total } else { #expect(page.total == total) }
                        if page.items.isEmpty { break }
                        seen += page.items.map(\.item.id)
                        pageNumber += 1
                    }
                    #expect(Set(seen).count == seen.count)
                    #expect(total == seen.count, "\(label): \(watch) \(String(describing: platform)) \(channelIDs)")
                }
            }
        }
        // A filter the counts do not answer is counted, and agrees.
        let counted = try await library.itemPage(ItemPageQuery(publishedSince: 0, page: .first(100)))
        let summed = try await library.itemPage(ItemPageQuery(page: .first(100)))
        #expect(counted.total == summed.total)
    }

    /// The counts behind the totals (StoreContractTests checks the totals against the pages):
    /// per subscription and per user, after an update of every item, a new one and removals.
    @Test func theCountsFollowIngestUpdatesNewItemsAndRemovals() async throws {
        _ = try await owner.ingest(items: (1...8).map { item("s\($0)", published: Int64($0) * 100, title: "Changed \($0)") },
                                   channelID: shared, now: 30)
        try await bob.removeChannel(id: shared)
        try await owner.removeChannel(id: mine)
        let counts = try await owner.read { db in
            try Row.fetchAll(db, sql: "SELECT user_id, channel_id, items, watched FROM subscriptions ORDER BY user_id, channel_id")
                .map { [$0[0], $0[1], $0[2], $0[3]] as [Int64] }
        }
        // The owner's watched s1 and v3 (m2 went with `mine`); Bob's v1 is no longer watched.
        #expect(counts == [[1, shared, 8, 1], [1, video, 5, 1], [bob.user.rawValue, video, 5, 0]])
        let totals = try await owner.read { db in try Row.fetchAll(db, sql: "SELECT feed_items, feed_watched FROM users ORDER BY id").map { [$0[0], $0[1]] as [Int] } }
        #expect(totals == [[13, 2], [5, 0]])
    }

    @Test func aV14LibraryIsCountedWhenItMigrates() async throws {
        let dir = TempDir()
        let path = dir.file("v14.sqlite")
        do {
            // Written as v14 had it (today's ingest writes v15's counts).
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v14-saved-and-collections")
            try await old.write { db in
                for (id, name) in [(1, "a"), (2, "b"), (3, "empty")] {
                    try db.execute(sql: """
                        INSERT INTO channels (id, platform, source_url, feed_url, name, added_at) VALUES (?, 'podcast', ?, ?, ?, 5);
                        INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, ?, 5);
                        """, arguments: [id, "https://example.com/\(name)", "https://example.com/\(name).xml", name, id])
                }
                for (channel, count) in [(1, 6), (2, 3)] {
                    for n in 1...count {
                        try db.execute(sql: "INSERT INTO items (channel_id, item_id, title, published, discovered_at) VALUES (?, ?, ?, 100, 10)",
                                       arguments: [channel, "\(channel)-\(n)", "Item \(n)"])
                    }
                }
                try db.execute(sql: "INSERT INTO watch_state (user_id, item, watched, watched_at, updated_at) SELECT 1, id, 1, 20, 20 FROM items WHERE item_id = '1-2'")
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations() == Schema.migrationNames)
        let counts = try await library.read { db in try Int.fetchAll(db, sql: "SELECT items FROM subscriptions ORDER BY channel_id") }
        #expect(counts == [6, 3, 0])
        #expect(try await library.read { db in try Int.fetchAll(db, sql: "SELECT feed_items FROM users") } == [9])
        #expect(try await library.read { db in try Int.fetchAll(db, sql: "SELECT watched FROM subscriptions ORDER BY channel_id") } == [1, 0, 0])
        #expect(try await library.read { db in try Int.fetchAll(db, sql: "SELECT feed_watched FROM users") } == [1])
        #expect(try await library.itemPage(ItemPageQuery()).total == 9)
        #expect(try await library.itemPage(ItemPageQuery(watch: .unwatched)).total == 8)
        try await expectTotalsMatchTheirItems(library, "migrated")
    }
}
