import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Polling, which acts for no user (`PollStore`): a claim takes at most `limit` due channels,
/// oldest poll first, and holds them until its lease (`PollLease`) expires, its holder releases
/// them, or its holder stores their polls; nobody else gets them meanwhile, so two pollers never
/// fetch one feed at once, and one that died blocks nothing past its lease.
final class StoreClaimTests: XCTestCase {
    /// A poll that found the feed unchanged: the channel is next due `interval` seconds after it.
    private func unchanged(_ id: Int64, interval: Int64 = 3600) -> ChannelPoll {
        ChannelPoll(channelID: id, outcome: .unchanged(Validators()), pollInterval: interval)
    }

    func testAClaimBlocksOthersUntilStoredReleasedOrExpired() async throws {
        try await forEachEngine { db in
            let polling = db.database.polling, library = db.owner
            let a = try await library.addTestChannel("a"), b = try await library.addTestChannel("b")
            let lease = PollLease.standard
            await assertEqual(try await polling.claimDueChannels(now: 2000, claimant: "crashed").map(\.id), [a, b])
            await assertEqual(try await polling.claimDueChannels(now: 2000, claimant: "other").map(\.id), [])
            await assertEqual(try await polling.claimChannels([a, b], now: 2000, claimant: "other"), [], "held by another")
            await assertEqual(try await polling.claimChannels([a], now: 2000, claimant: "crashed"), [a], "its own claim")
            // Only the holder releases.
            try await polling.releaseClaims([a], claimant: "other")
            await assertEqual(try await polling.claimChannels([a], now: 2000, claimant: "other"), [])
            try await polling.releaseClaims([a], claimant: "crashed")
            await assertEqual(try await polling.claimChannels([a], now: 2000, claimant: "other"), [a])
            // A claim whose holder died expires with its lease: b (and a, claimed by "other" at the
            // same time) are free then.
            let expiry = lease.expiry(from: 2000)
            await assertEqual(try await polling.claimDueChannels(now: expiry - 1, claimant: "third").map(\.id), [])
            await assertEqual(try await polling.claimDueChannels(now: expiry, claimant: "third").map(\.id), [a, b], "both leases expired")
            // Storing a poll releases its claimant's claim (whatever the outcome), and schedules the next poll.
            let polls = [ChannelPoll(channelID: a, outcome: .unchanged(Validators()), pollInterval: 600),
                         ChannelPoll(channelID: b, outcome: .failed(message: "HTTP 500", retryAfter: nil), pollInterval: 600)]
            for result in await polling.apply(polls, claimant: "third", now: expiry) { _ = try result.get() }
            await assertEqual(try await polling.claimChannels([a, b], now: expiry, claimant: "fourth"), [a, b], "no claim left behind")
            try await polling.releaseClaims([a, b], claimant: "fourth")
            await assertEqual(try await polling.claimDueChannels(now: expiry + 599, claimant: "fifth").map(\.id), [], "not due yet")
            await assertEqual(try await polling.claimDueChannels(now: expiry + 600, claimant: "fifth").map(\.id), [a, b])
            await assertEqual(try await library.channel(id: b).lastError, "HTTP 500")
        }
    }

    /// Claims are the library's, not a user's: what one poller holds, another does not take; a
    /// paused subscription is not due, whoever asks; a user's store reaches the same polling.
    func testClaimsHoldAcrossUsersAndOnlyActiveChannelsAreDue() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let bob = db.store(for: try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1).id)
            let a = try await library.addTestChannel("a"), paused = try await library.addTestChannel("paused")
            try await library.setActive(channelID: paused, false)
            await assertEqual(try await bob.polling.claimDueChannels(now: 2000, claimant: "bob's server").map(\.id), [a])
            await assertEqual(try await db.database.polling.claimDueChannels(now: 2000, claimant: "owner's daemon").map(\.id), [])
            await assertEqual(try await library.polling.claimChannels([a, paused], now: 2000, claimant: "owner's daemon"), [paused],
                              "asked for, a paused channel is claimed; a held one is not")
        }
    }

    func testAClaimTakesAtMostItsLimitOldestPollFirst() async throws {
        try await forEachEngine { db in
            let polling = db.database.polling
            var ids: [Int64] = []
            for n in 0..<5 { ids.append(try await db.owner.addTestChannel("feed\(n)")) }
            // Channel 4 was polled long ago, channel 3 more recently: never-polled ones come first.
            _ = await polling.apply([unchanged(ids[3], interval: 100)], claimant: nil, now: 1000)
            _ = await polling.apply([unchanged(ids[4], interval: 50)], claimant: nil, now: 1000)
            await assertEqual(try await polling.claimDueChannels(now: 2000, claimant: "a", limit: 2, lease: .standard).map(\.id),
                              [ids[0], ids[1]])
            await assertEqual(try await polling.claimDueChannels(now: 2000, claimant: "b", limit: 10, lease: .standard).map(\.id),
                              [ids[2], ids[4], ids[3]], "the rest: never polled first, then the oldest next poll")
            await assertEqual(try await polling.claimDueChannels(now: 2000, claimant: "c", limit: 10, lease: .standard).map(\.id), [])
            await assertEqual(Set(try await polling.dueChannels(now: 2000).map(\.id)), Set(ids), "claimed or not, they are due")
            // A limit below 1 claims nothing.
            try await polling.releaseClaims(ids, claimant: "b")
            await assertEqual(try await polling.claimDueChannels(now: 2000, claimant: "d", limit: 0, lease: .standard).count, 0)
            await assertEqual(try await polling.claimDueChannels(now: 2000, claimant: "d", limit: -1, lease: .standard).count, 0)
            await assertEqual(try await polling.claimDueChannels(now: 2000, claimant: "d", limit: 9, lease: .standard).count, 3)
        }
    }

    func testAClaimWhoseLeaseExpiredIsTakenByAnother() async throws {
        try await forEachEngine { db in
            let polling = db.database.polling
            let ids = [try await db.owner.addTestChannel("a"), try await db.owner.addTestChannel("b")]
            let lease = PollLease(uncheckedSeconds: 30)
            await assertEqual(try await polling.claimDueChannels(now: 1000, claimant: "died", limit: 10, lease: lease).map(\.id), ids)
            await assertEqual(try await polling.nextDue(), 1030, "free again when the lease expires")
            await assertEqual(try await polling.claimDueChannels(now: 1029, claimant: "other", limit: 10, lease: lease).map(\.id), [])
            await assertEqual(try await polling.claimChannels(ids, now: 1029, claimant: "other", lease: lease), [])
            await assertEqual(try await polling.claimDueChannels(now: 1030, claimant: "other", limit: 1, lease: lease).map(\.id), [ids[0]])
            await assertEqual(try await polling.claimChannels(ids, now: 1030, claimant: "third", lease: lease), [ids[1]])
        }
    }

    func testClaimingByIDRenewsOwnClaimsKeepsOrderAndSkipsOthersAndUnknownIDs() async throws {
        try await forEachEngine { db in
            let polling = db.database.polling
            let ids = [try await db.owner.addTestChannel("a"), try await db.owner.addTestChannel("b"), try await db.owner.addTestChannel("c")]
            let lease = PollLease(uncheckedSeconds: 60)
            await assertEqual(try await polling.claimChannels([ids[1]], now: 1000, claimant: "other", lease: lease), [ids[1]])
            await assertEqual(try await polling.claimChannels([ids[2], 999_999, ids[1], ids[0]], now: 1000, claimant: "me", lease: lease),
                              [ids[2], ids[0]])
            // Claimed again by its holder at 1050: its lease now runs to 1110, not 1060.
            await assertEqual(try await polling.claimChannels([ids[0]], now: 1050, claimant: "me", lease: lease), [ids[0]])
            await assertEqual(try await polling.claimChannels([ids[0]], now: 1070, claimant: "other", lease: lease), [])
            await assertEqual(try await polling.claimChannels([ids[0]], now: 1110, claimant: "other", lease: lease), [ids[0]])
        }
    }

    /// A poll stored after its lease expired (a slow poller) does not free a channel another
    /// poller took over; a user's subscribing poll (`SyncStore.apply`) releases no claim.
    func testStoringAPollReleasesOnlyItsClaimantsClaim() async throws {
        try await forEachEngine { db in
            let polling = db.database.polling
            let ids = [try await db.owner.addTestChannel("a"), try await db.owner.addTestChannel("b")]
            let lease = PollLease(uncheckedSeconds: 30)
            _ = try await polling.claimDueChannels(now: 1000, claimant: "slow", limit: 10, lease: lease)
            await assertEqual(try await polling.claimChannels([ids[0]], now: 1030, claimant: "fast", lease: lease), [ids[0]])
            let stored = await polling.apply([unchanged(ids[0], interval: 10), unchanged(ids[1], interval: 10)], claimant: "slow", now: 1031)
            XCTAssertEqual(stored.filter { (try? $0.get()) != nil }.count, 2, "both polls are stored")
            await assertEqual(try await polling.claimChannels(ids, now: 1041, claimant: "third", lease: lease), [ids[1]],
                              "only the claim \"slow\" still held went")
            _ = await polling.apply([unchanged(ids[0], interval: 10)], claimant: "fast", now: 1042)
            await assertEqual(try await polling.claimChannels([ids[0]], now: 1042, claimant: "fourth", lease: lease), [ids[0]])
            _ = await db.owner.apply([Poll(unchanged(ids[0]))], now: 1043)
            await assertEqual(try await polling.claimChannels([ids[0]], now: 1043, claimant: "fifth", lease: lease), [],
                              "a user's poll left the claim")
        }
    }

    func testNextDueIsTheEarliestNextPollOfAFollowedChannel() async throws {
        try await forEachEngine { db in
            let polling = db.database.polling
            await assertNil(try await polling.nextDue(), "nothing followed")
            let ids = [try await db.owner.addTestChannel("a"), try await db.owner.addTestChannel("b")]
            await assertTrue(try await (polling.nextDue() ?? .max) <= 1000, "never polled: due now")
            _ = await polling.apply([unchanged(ids[0], interval: 300), unchanged(ids[1], interval: 200)], claimant: nil, now: 1000)
            await assertEqual(try await polling.nextDue(), 1200)
            try await db.owner.setActive(channelID: ids[1], false)
            await assertEqual(try await polling.nextDue(), 1300, "a paused channel is polled for nobody")
            try await db.owner.setActive(channelID: ids[0], false)
            await assertNil(try await polling.nextDue())
        }
    }
}
