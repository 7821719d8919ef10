import FeedModel
import LibraryStore

/// The library's polling, which acts for no user: one scheduler however many processes poll one
/// database (`feedctl worker`s on several machines, the daemon, the server, a cron `sync`). A
/// claim takes due channels with `FOR NO KEY UPDATE SKIP LOCKED`: pollers claiming at once each
/// get channels the others did not lock, never waiting for one another; `claimed_until` is when
/// the claim's lease expires, `claimed_by` who holds it.
///
/// Every statement that locks several channels locks them in id order (as the ingest and the
/// other writers do), so two of them never wait for each other in a cycle.
extension PostgresLibrary {
    /// Every channel at least one user actively follows (a feed is polled once however many
    /// follow it), as `Channel` reads it: `active` true, `speed` nil.
    private static let followed = """
        SELECT c.*, 1 AS active, NULL::double precision AS speed, 0 AS speed_set FROM channels c
        WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.active = 1)
        """
    /// Oldest poll first, never-polled ones before all (SQLite's `ORDER BY next_poll IS NOT NULL, next_poll, id`).
    private static let dueOrder = "ORDER BY c.next_poll ASC NULLS FIRST, c.id"

    /// Channels whose next poll time has come (never-polled ones included), oldest poll first:
    /// those with at least one active subscription, whoever follows them, claimed or not.
    public func dueChannels(now: Int64) async throws(LibraryError) -> [Channel] {
        try await read { db throws(LibraryError) in
            try db.query("\(Self.followed) AND (c.next_poll IS NULL OR c.next_poll <= $1) \(Self.dueOrder)", [now])
                .rows.map { row throws(LibraryError) in try Channel(pgRow: row) }
        }
    }

    /// When a channel is next due that no live claim holds (a claim's expiry counts as when its
    /// channel is free again); nil when no channel has an active subscription.
    public func nextDue() async throws(LibraryError) -> Int64? {
        try await read { db throws(LibraryError) in
            // An aggregate: one row, NULL when no channel is followed.
            guard let row = try db.query("""
                SELECT min(greatest(coalesce(c.next_poll, 0), coalesce(c.claimed_until, 0))) AS due FROM channels c
                WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.active = 1)
                """).first else { return nil }
            let due: Int64? = try row.get("due")
            return due
        }
    }

    /// At most `limit` due channels no live claim holds, oldest poll first, claimed for
    /// `claimant` until `leaseSeconds` from `now`, in the statement that found them: a channel
    /// another transaction has locked (another poller claiming it, a poll being stored) is
    /// skipped, not waited for.
    func claimDueChannels(now: Int64, claimant: String, limit: Int, leaseSeconds: Int64) async throws(LibraryError) -> [Channel] {
        guard limit > 0 else { return [] }
        return try await write { db throws(LibraryError) in
            try db.query("""
                WITH due AS (
                    SELECT c.id FROM channels c
                    WHERE (c.next_poll IS NULL OR c.next_poll <= $1) AND (c.claimed_until IS NULL OR c.claimed_until <= $1)
                        AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.active = 1)
                    \(Self.dueOrder) LIMIT $2
                    FOR NO KEY UPDATE OF c SKIP LOCKED
                ), claimed AS (
                    UPDATE channels c SET claimed_until = $3, claimed_by = $4 FROM due WHERE c.id = due.id
                    RETURNING c.*
                )
                SELECT c.*, 1 AS active, NULL::double precision AS speed, 0 AS speed_set FROM claimed c \(Self.dueOrder)
                """, [now, Int64(limit), now + max(leaseSeconds, 1), claimant]).rows.map { row throws(LibraryError) in try Channel(pgRow: row) }
        }
    }

    /// Claims the channels asked for, due or not, until `leaseSeconds` from `now`; the ids
    /// claimed, in the order given: a channel another claimant holds is left to it, one
    /// `claimant` holds already is claimed again (its lease starts anew), one the library
    /// lacks is skipped. A channel locked meanwhile (its poll being stored) is waited for.
    func claimChannels(_ ids: [Int64], now: Int64, claimant: String, leaseSeconds: Int64) async throws(LibraryError) -> [Int64] {
        guard !ids.isEmpty else { return [] }
        let claimed: Set<Int64> = try await write { db throws(LibraryError) in
            let rows = try db.query("""
                WITH wanted AS (SELECT id FROM channels WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE)
                UPDATE channels c SET claimed_until = $2, claimed_by = $3 FROM wanted
                WHERE c.id = wanted.id AND (c.claimed_until IS NULL OR c.claimed_until <= $4 OR c.claimed_by = $3)
                RETURNING c.id
                """, [ids, now + max(leaseSeconds, 1), claimant, now]).rows
            return Set(try rows.map { row throws(LibraryError) -> Int64 in try row.get("id") })
        }
        return ids.filter(claimed.contains)
    }

    /// Releases what `claimant` still holds of `ids` (polls that were never stored: an
    /// interrupted round). Another claimant's claims stay.
    public func releaseClaims(_ ids: [Int64], claimant: String) async throws(LibraryError) {
        guard !ids.isEmpty else { return }
        try await write { db throws(LibraryError) in
            _ = try db.query("""
                WITH held AS (SELECT id FROM channels WHERE id = ANY($1::bigint[]) AND claimed_by = $2 ORDER BY id FOR NO KEY UPDATE)
                UPDATE channels c SET claimed_until = NULL, claimed_by = NULL FROM held WHERE c.id = held.id AND c.claimed_by = $2
                """, [ids, claimant])
        }
    }

    /// What the channel polled at `feedURL` may reach, whoever follows it; nil when the library has none.
    public func addressReach(feedURL: String) async throws(LibraryError) -> AddressReach? {
        try await read { db throws(LibraryError) in
            try db.query("SELECT private_addresses FROM channels WHERE feed_url = $1", [feedURL]).first
                .map { row throws(LibraryError) in AddressReach(storedPrivateAddresses: try row.get("private_addresses")) }
        }
    }

    // `SyncStore`'s claims until polling is its own protocol (`PollStore`, branch `polling`):
    // every due channel, with the standard lease.

    public func claimDueChannels(now: Int64, claimant: String) async throws(LibraryError) -> [Channel] {
        try await claimDueChannels(now: now, claimant: claimant, limit: Int.max, leaseSeconds: SyncClaim.claimSeconds)
    }

    public func claimChannels(_ ids: [Int64], now: Int64, claimant: String) async throws(LibraryError) -> [Int64] {
        try await claimChannels(ids, now: now, claimant: claimant, leaseSeconds: SyncClaim.claimSeconds)
    }
}
