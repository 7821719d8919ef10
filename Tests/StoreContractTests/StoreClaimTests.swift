import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// One scheduler however many pollers (`SyncClaim`): a channel is claimed in the library before
/// it is polled, so two pollers never fetch the same feed at once; storing its poll releases the
/// claim, and a claim whose holder died lapses.
final class StoreClaimTests: XCTestCase {
    func testAClaimBlocksOthersUntilStoredReleasedOrLapsed() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let a = try await library.addTestChannel("a"), b = try await library.addTestChannel("b")
            await assertEqual(try await library.claimDueChannels(now: 2000, claimant: "crashed").map(\.id), [a, b])
            await assertEqual(try await library.claimDueChannels(now: 2000, claimant: "other").map(\.id), [])
            await assertEqual(try await library.claimChannels([a, b], now: 2000, claimant: "other"), [], "held by another")
            await assertEqual(try await library.claimChannels([a], now: 2000, claimant: "crashed"), [a], "its own claim")
            // Only the holder releases.
            try await library.releaseClaims([a], claimant: "other")
            await assertEqual(try await library.claimChannels([a], now: 2000, claimant: "other"), [])
            try await library.releaseClaims([a], claimant: "crashed")
            await assertEqual(try await library.claimChannels([a], now: 2000, claimant: "other"), [a])
            // A claim whose holder died lapses after `SyncClaim.claimSeconds`: b (and a, claimed by
            // "other" at the same time) are free then.
            let lapse = 2000 + SyncClaim.claimSeconds
            await assertEqual(try await library.claimDueChannels(now: lapse - 1, claimant: "third").map(\.id), [])
            await assertEqual(try await library.claimDueChannels(now: lapse, claimant: "third").map(\.id), [a, b], "both claims have lapsed")
            // Storing a poll releases its claim (whatever the outcome), and schedules the next poll.
            let polls = [Poll(subject: .channel(id: a), outcome: .unchanged(Validators()), pollInterval: 600),
                         Poll(subject: .channel(id: b), outcome: .failed(message: "HTTP 500", retryAfter: nil), pollInterval: 600)]
            for result in await library.apply(polls, now: lapse) { _ = try result.get() }
            await assertEqual(try await library.claimChannels([a, b], now: lapse, claimant: "fourth"), [a, b], "no claim left behind")
            try await library.releaseClaims([a, b], claimant: "fourth")
            await assertEqual(try await library.claimDueChannels(now: lapse + 599, claimant: "fifth").map(\.id), [], "not due yet")
            await assertEqual(try await library.claimDueChannels(now: lapse + 600, claimant: "fifth").map(\.id), [a, b])
        }
    }

    /// Claims are the library's, not a user's: what one user's poller holds, another's does not
    /// take; a paused subscription is not due, whoever asks.
    func testClaimsHoldAcrossUsersAndOnlyActiveChannelsAreDue() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let bob = db.store(for: try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1).id)
            let a = try await library.addTestChannel("a"), paused = try await library.addTestChannel("paused")
            try await library.setActive(channelID: paused, false)
            await assertEqual(try await bob.claimDueChannels(now: 2000, claimant: "bob's server").map(\.id), [a])
            await assertEqual(try await library.claimDueChannels(now: 2000, claimant: "owner's daemon").map(\.id), [])
            await assertEqual(try await library.claimChannels([a, paused], now: 2000, claimant: "owner's daemon"), [paused],
                              "asked for, a paused channel is claimed; a held one is not")
        }
    }
}
