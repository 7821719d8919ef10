import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// `AddressReach` in the library (issue 26): each subscription keeps what its user was allowed
/// when they subscribed, and a channel may reach what all of its subscriptions may, whoever
/// reads it (the daemon's due channels, a user's own list, a download).
@Suite struct StoreAddressReachTests {
    @Test func aChannelReachesWhatEveryFollowerMay() async throws {
        let t = try TestLibrary()
        let bobUser = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let bob = t.library.acting(as: bobUser.id)
        let feed = "http://nas.localhost:8080/feed.xml"

        // The owner's own subscription may reach private addresses.
        let owned = try await t.library.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "NAS", now: 10)
        #expect(owned.reach == .anyAddress)
        #expect(try await t.library.polling.addressReach(feedURL: feed) == .anyAddress)

        // Bob follows the same feed from a server that allows only public addresses: the shared
        // channel is public only for every poller, the owner's daemon included.
        _ = try await bob.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "NAS", reach: .publicOnly, now: 20)
        #expect(try await t.library.channel(id: owned.id).reach == .publicOnly)
        #expect(try await bob.channel(id: owned.id).reach == .publicOnly)
        #expect(try await t.library.polling.dueChannels(now: 30).map(\.reach) == [.publicOnly])
        #expect(try await t.library.polling.claimDueChannels(now: 30, claimant: "test").map(\.reach) == [.publicOnly])
        #expect(try await t.library.polling.addressReach(feedURL: feed) == .publicOnly)

        // His item's download is public only too.
        try await t.library.ingest(items: [Item(id: "e1", title: "Episode", enclosure: Enclosure(url: "http://nas.localhost:8080/e1.mp3"))],
                                   channelID: owned.id, now: 40)
        let itemID = try #require(try await t.library.itemIDs(channelID: owned.id).first)
        #expect(try await t.library.downloadItems(ids: [itemID]).map(\.reach) == [.publicOnly])

        // Once Bob unsubscribes, the owner's reach is the channel's again.
        try await bob.removeChannel(id: owned.id)
        #expect(try await t.library.channel(id: owned.id).reach == .anyAddress)
        #expect(try await t.library.downloadItems(ids: [itemID]).map(\.reach) == [.anyAddress])
        #expect(try await t.library.polling.addressReach(feedURL: "http://unknown.example/feed") == nil)
    }

    /// A v17 library migrates with the owner's subscriptions keeping private addresses and every
    /// other user's losing them (nobody recorded whether their server allowed them).
    @Test func aV17LibraryMigratesWithOnlyTheOwnersSubscriptionsReachingPrivateAddresses() async throws {
        let dir = TempDir()
        let path = dir.file("v17.sqlite")
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v17-feed-counts-per-feed")
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO users (id, name, is_admin, created_at) VALUES (2, 'bob', 0, 1);
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at)
                        VALUES (1, 'podcast', 'http://a', 'http://a/feed', 'Owner only', 1),
                               (2, 'podcast', 'http://b', 'http://b/feed', 'Shared', 1),
                               (3, 'podcast', 'http://c', 'http://c/feed', 'Bob only', 1);
                    INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 1, 1), (1, 2, 1), (2, 2, 1), (2, 3, 1);
                    """)
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations() == Schema.migrationNames)
        let reaches = try await library.read { db in
            try Row.fetchAll(db, sql: "SELECT id, private_addresses FROM channels ORDER BY id").map { [$0["id"] as Int64, $0["private_addresses"] as Int64] }
        }
        #expect(reaches == [[1, 1], [2, 0], [3, 0]])
        #expect(try await library.channel(id: 1).reach == .anyAddress)
        #expect(try await library.channel(id: 2).reach == .publicOnly)
    }
}
