import FeedModel
import GRDB
import LibraryStore

/// One sync scheduler however many processes run (`SyncClaim`): a channel is claimed in the
/// library before it is polled. Claims are taken in IMMEDIATE transactions (the write lock first),
/// so two processes never both see a channel unclaimed; storing a channel's poll releases its claim
/// (`apply`), and a claim left by a process that died lapses after `SyncClaim.claimSeconds`.
extension SQLiteLibrary {
    public func claimDueChannels(now: Int64, claimant: String) async throws(LibraryError) -> [Channel] {
        try await writeImmediate { db in
            // Due as `dueChannels` says, and not claimed by a poller that is still within its claim.
            let due = try Channel.fetchAll(db, sql: """
                SELECT c.*, 1 AS active, NULL AS speed, 0 AS speed_set FROM channels c
                WHERE (c.next_poll IS NULL OR c.next_poll <= ?1) AND (c.claimed_until IS NULL OR c.claimed_until <= ?1)
                    AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.active = 1)
                ORDER BY c.next_poll IS NOT NULL, c.next_poll, c.id
                """, arguments: [now])
            let claim = try db.cachedStatement(sql: "UPDATE channels SET claimed_until = ?, claimed_by = ? WHERE id = ?")
            for channel in due { try claim.execute(arguments: [now + SyncClaim.claimSeconds, claimant, channel.id]) }
            return due
        }
    }

    public func claimChannels(_ ids: [Int64], now: Int64, claimant: String) async throws(LibraryError) -> [Int64] {
        try await writeImmediate { db in
            let claim = try db.cachedStatement(sql: """
                UPDATE channels SET claimed_until = ?1, claimed_by = ?2
                WHERE id = ?3 AND (claimed_until IS NULL OR claimed_until <= ?4 OR claimed_by = ?2)
                """)
            return try ids.filter { id in
                try claim.execute(arguments: [now + SyncClaim.claimSeconds, claimant, id, now])
                return db.changesCount > 0
            }
        }
    }

    public func addressReach(feedURL: String) async throws(LibraryError) -> AddressReach? {
        try await read { db in
            try Int64.fetchOne(db, sql: "SELECT private_addresses FROM channels WHERE feed_url = ?", arguments: [feedURL])
                .map(AddressReach.init(storedPrivateAddresses:))
        }
    }

    public func releaseClaims(_ ids: [Int64], claimant: String) async throws(LibraryError) {
        guard !ids.isEmpty else { return }
        try await write { db in
            let release = try db.cachedStatement(sql: "UPDATE channels SET claimed_until = NULL, claimed_by = NULL WHERE id = ? AND claimed_by = ?")
            for id in ids { try release.execute(arguments: [id, claimant]) }
        }
    }

    /// A write transaction that takes the write lock when it begins (BEGIN IMMEDIATE): a deferred
    /// one that read first could find, when it came to write, that another process had written
    /// in between (SQLITE_BUSY_SNAPSHOT), which waiting does not cure.
    func writeImmediate<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(LibraryError) -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                guard let result else { throw UnexpectedResult("a claim's transaction returned nothing") }
                return result
            }
        } catch {
            throw LibraryError.wrap(error, path: path)
        }
    }
}
