import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// `AddressReach` in an old SQLite library (issue 26; the behaviour is StoreContractTests').
@Suite struct StoreAddressReachTests {
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
