import FeedModel
import GRDB
import LibraryStore

/// The library's polling (`PollStore`), which acts for no user: one scheduler however many
/// processes poll one file (workers, the daemon, the server, a cron `sync`). Claims are taken in
/// IMMEDIATE transactions (the write lock first), so two processes never both see a channel
/// unclaimed; `claimed_until` is when the claim's lease expires, `claimed_by` who holds it.
public struct SQLitePolling: PollStore {
    let library: SQLiteLibrary

    /// Every channel at least one user actively follows (a feed is polled once however many
    /// follow it), as `Channel` reads it: `active` true, `speed` nil.
    private static let followed = """
        SELECT c.*, 1 AS active, NULL AS speed, 0 AS speed_set FROM channels c
        WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.active = 1)
        """
    /// Oldest poll first, never-polled ones before all.
    private static let dueOrder = "ORDER BY c.next_poll IS NOT NULL, c.next_poll, c.id"

    public func dueChannels(now: Int64) async throws(LibraryError) -> [Channel] {
        try await library.read { db in
            try Channel.fetchAll(db, sql: "\(Self.followed) AND (c.next_poll IS NULL OR c.next_poll <= ?) \(Self.dueOrder)",
                                 arguments: [now])
        }
    }

    public func nextDue() async throws(LibraryError) -> Int64? {
        try await library.read { db in
            // A channel is free at its next poll, or when its claim expires if that is later.
            try Int64.fetchOne(db, sql: """
                SELECT min(max(coalesce(c.next_poll, 0), coalesce(c.claimed_until, 0))) FROM channels c
                WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.active = 1)
                """)
        }
    }

    public func claimDueChannels(now: Int64, claimant: String, limit: Int, lease: PollLease) async throws(LibraryError) -> [Channel] {
        try await library.writeImmediate { db in
            // Due as `dueChannels` says, and not held by a claim whose lease runs still.
            let due = try Channel.fetchAll(db, sql: """
                \(Self.followed) AND (c.next_poll IS NULL OR c.next_poll <= ?1) AND (c.claimed_until IS NULL OR c.claimed_until <= ?1)
                \(Self.dueOrder) LIMIT ?2
                """, arguments: [now, max(0, limit)])
            let claim = try db.cachedStatement(sql: "UPDATE channels SET claimed_until = ?, claimed_by = ? WHERE id = ?")
            for channel in due { try claim.execute(arguments: [lease.expiry(from: now), claimant, channel.id]) }
            return due
        }
    }

    public func claimChannels(_ ids: [Int64], now: Int64, claimant: String, lease: PollLease) async throws(LibraryError) -> [Int64] {
        try await library.writeImmediate { db in
            let claim = try db.cachedStatement(sql: """
                UPDATE channels SET claimed_until = ?1, claimed_by = ?2
                WHERE id = ?3 AND (claimed_until IS NULL OR claimed_until <= ?4 OR claimed_by = ?2)
                """)
            return try ids.filter { id in
                try claim.execute(arguments: [lease.expiry(from: now), claimant, id, now])
                return db.changesCount > 0
            }
        }
    }

    public func releaseClaims(_ ids: [Int64], claimant: String) async throws(LibraryError) {
        guard !ids.isEmpty else { return }
        try await library.write { db in
            let release = try db.cachedStatement(sql: "UPDATE channels SET claimed_until = NULL, claimed_by = NULL WHERE id = ? AND claimed_by = ?")
            for id in ids { try release.execute(arguments: [id, claimant]) }
        }
    }

    public func addressReach(feedURL: String) async throws(LibraryError) -> AddressReach? {
        try await library.read { db in
            try Int64.fetchOne(db, sql: "SELECT private_addresses FROM channels WHERE feed_url = ?", arguments: [feedURL])
                .map(AddressReach.init(storedPrivateAddresses:))
        }
    }

    public func apply(_ polls: [ChannelPoll], claimant: String?, now: Int64) async -> [Result<PollApplied, LibraryError>] {
        // No subject here is a subscription, so the user the library value acts for is never read.
        await library.apply(polls.map(Poll.init), claimant: claimant, now: now)
    }
}

extension SQLiteLibrary {
    /// The library's polling, for no user (the same database pool).
    public var polling: any PollStore { SQLitePolling(library: self) }

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
