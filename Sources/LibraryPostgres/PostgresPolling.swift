import FeedModel
import LibraryStore

/// The library's polling (`PollStore`), which acts for no user: one scheduler however many
/// processes poll one database (`feedctl worker`s on several machines, the daemon, the server,
/// a cron `sync`). A claim takes due channels with `FOR NO KEY UPDATE SKIP LOCKED`: pollers
/// claiming at once each get channels the others did not lock, and never wait for one another;
/// `claimed_until` is when the claim's lease expires, `claimed_by` who holds it.
///
/// A statement that locks several channels locks them in id order, as the ingest and the other
/// writers do, so two transactions never wait for each other in a cycle.
public struct PostgresPolling: PollStore {
    let library: PostgresLibrary

    /// Every channel at least one user actively follows (a feed is polled once however many
    /// follow it), as `Channel` reads it: `active` true, `speed` nil.
    private static let followed = """
        SELECT c.*, 1 AS active, NULL::double precision AS speed, 0 AS speed_set FROM channels c
        WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.active = 1)
        """
    /// Oldest poll first, never-polled ones before all (SQLite's `next_poll IS NOT NULL, next_poll, id`).
    private static let dueOrder = "ORDER BY c.next_poll ASC NULLS FIRST, c.id"
    /// The next poll with never-polled (NULL) first, as the index `channels_due` orders channels:
    /// a claim reads the due ones in order from it and stops at its limit.
    private static let nextPoll = "coalesce(c.next_poll, -9223372036854775808)"

    public func dueChannels(now: Int64) async throws(LibraryError) -> [Channel] {
        try await library.read { db throws(LibraryError) in
            try db.query("\(Self.followed) AND (c.next_poll IS NULL OR c.next_poll <= $1) \(Self.dueOrder)", [now])
                .rows.map { row throws(LibraryError) in try Channel(pgRow: row) }
        }
    }

    public func nextDue() async throws(LibraryError) -> Int64? {
        try await library.read { db throws(LibraryError) in
            // A channel is free at its next poll, or when its claim expires if that is later. An
            // aggregate: one row, NULL when no channel is followed.
            guard let row = try db.query("""
                SELECT min(greatest(coalesce(c.next_poll, 0), coalesce(c.claimed_until, 0))) AS due FROM channels c
                WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.active = 1)
                """).first else { return nil }
            let due: Int64? = try row.get("due")
            return due
        }
    }

    /// Due as `dueChannels` says and not held by a claim whose lease runs still, claimed in the
    /// statement that found them; a channel another transaction has locked (another poller
    /// claiming it, its poll being stored, a user removing it) is skipped, not waited for.
    public func claimDueChannels(now: Int64, claimant: String, limit: Int, lease: PollLease) async throws(LibraryError) -> [Channel] {
        guard limit > 0 else { return [] }
        return try await library.write { db throws(LibraryError) in
            try db.query("""
                WITH due AS (
                    SELECT c.id FROM channels c
                    WHERE \(Self.nextPoll) <= $1 AND (c.claimed_until IS NULL OR c.claimed_until <= $1)
                        AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.active = 1)
                    ORDER BY \(Self.nextPoll), c.id LIMIT $2
                    FOR NO KEY UPDATE OF c SKIP LOCKED
                ), claimed AS (
                    UPDATE channels c SET claimed_until = $3, claimed_by = $4 FROM due WHERE c.id = due.id
                    RETURNING c.*
                )
                SELECT c.*, 1 AS active, NULL::double precision AS speed, 0 AS speed_set FROM claimed c \(Self.dueOrder)
                """, [now, Int64(limit), lease.expiry(from: now), claimant]).rows.map { row throws(LibraryError) in try Channel(pgRow: row) }
        }
    }

    /// A channel locked meanwhile (its poll being stored) is waited for, then judged as it is.
    public func claimChannels(_ ids: [Int64], now: Int64, claimant: String, lease: PollLease) async throws(LibraryError) -> [Int64] {
        guard !ids.isEmpty else { return [] }
        let claimed: Set<Int64> = try await library.write { db throws(LibraryError) in
            let rows = try db.query("""
                WITH wanted AS (SELECT id FROM channels WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE)
                UPDATE channels c SET claimed_until = $2, claimed_by = $3 FROM wanted
                WHERE c.id = wanted.id AND (c.claimed_until IS NULL OR c.claimed_until <= $4 OR c.claimed_by = $3)
                RETURNING c.id
                """, [ids, lease.expiry(from: now), claimant, now]).rows
            return Set(try rows.map { row throws(LibraryError) -> Int64 in try row.get("id") })
        }
        return ids.filter(claimed.contains)
    }

    public func releaseClaims(_ ids: [Int64], claimant: String) async throws(LibraryError) {
        guard !ids.isEmpty else { return }
        try await library.write { db throws(LibraryError) in
            _ = try db.query("""
                WITH held AS (SELECT id FROM channels WHERE id = ANY($1::bigint[]) AND claimed_by = $2 ORDER BY id FOR NO KEY UPDATE)
                UPDATE channels c SET claimed_until = NULL, claimed_by = NULL FROM held WHERE c.id = held.id AND c.claimed_by = $2
                """, [ids, claimant])
        }
    }

    public func addressReach(feedURL: String) async throws(LibraryError) -> AddressReach? {
        try await library.read { db throws(LibraryError) in
            try db.query("SELECT private_addresses FROM channels WHERE feed_url = $1", [feedURL]).first
                .map { row throws(LibraryError) in AddressReach(storedPrivateAddresses: try row.get("private_addresses")) }
        }
    }

    public func apply(_ polls: [ChannelPoll], claimant: String?, now: Int64) async -> [Result<PollApplied, LibraryError>] {
        // No subject here is a subscription, so the user the library value acts for is never read.
        await library.apply(polls.map(Poll.init), claimant: claimant, now: now)
    }
}

extension PostgresLibrary {
    /// The library's polling, for no user (the same pool).
    public var polling: any PollStore { PostgresPolling(library: self) }
}
