import FeedModel
import LibraryStore
import TestSupport
import Testing

/// `PollStore`'s claims, written against `LibraryDatabase` and `PollStore` only (an engine-neutral
/// contract: the conformance suite runs it for every engine once it moves there). A claim takes
/// at most `limit` due channels, holds them until its lease expires or its holder releases them
/// or stores their polls, and nobody else gets them meanwhile.
@Suite struct PollStoreTests {
    let t: TestLibrary
    let database: any LibraryDatabase
    var polling: any PollStore { database.polling }

    init() throws {
        t = try TestLibrary()
        database = t.library
    }

    /// `count` channels the owner follows, never polled (so due), ids ascending.
    private func subscribe(_ count: Int, prefix: String = "feed", now: Int64 = 1000) async throws -> [Int64] {
        let polls = (0..<count).map { n in
            let url = "https://example.com/\(prefix)\(n).xml"
            return Poll(subject: .subscription(NewChannel(platform: .podcast, sourceURL: url, feedURL: url, name: "\(prefix) \(n)",
                                                          reach: .anyAddress)),
                        outcome: .notFetched)
        }
        return try await database.owner.apply(polls, now: now).map { try $0.get().channelID }
    }

    /// A poll that found the feed unchanged: the channel is next due `interval` seconds after `now`.
    private func unchanged(_ id: Int64, interval: Int64 = 3600) -> ChannelPoll {
        ChannelPoll(channelID: id, outcome: .unchanged(Validators()), pollInterval: interval)
    }

    @Test func aClaimTakesAtMostItsLimitOldestPollFirstAndNobodyElseGetsThem() async throws {
        let ids = try await subscribe(5)
        // Channel 4 was polled long ago, channel 3 more recently: never-polled ones come first.
        _ = await polling.apply([unchanged(ids[3], interval: 100)], claimant: nil, now: 1000)
        _ = await polling.apply([unchanged(ids[4], interval: 50)], claimant: nil, now: 1000)
        let lease = PollLease.standard
        let first = try await polling.claimDueChannels(now: 2000, claimant: "a", limit: 2, lease: lease)
        #expect(first.map(\.id) == [ids[0], ids[1]])
        let second = try await polling.claimDueChannels(now: 2000, claimant: "b", limit: 10, lease: lease)
        #expect(second.map(\.id) == [ids[2], ids[4], ids[3]], "the rest, never polled first, then the oldest next poll")
        #expect(try await polling.claimDueChannels(now: 2000, claimant: "c", limit: 10, lease: lease).isEmpty)
        // Claimed or not, they are due.
        #expect(Set(try await polling.dueChannels(now: 2000).map(\.id)) == Set(ids))
    }

    @Test func aLimitBelowOneClaimsNothing() async throws {
        _ = try await subscribe(2)
        #expect(try await polling.claimDueChannels(now: 2000, claimant: "a", limit: 0, lease: .standard).isEmpty)
        #expect(try await polling.claimDueChannels(now: 2000, claimant: "a", limit: -1, lease: .standard).isEmpty)
        #expect(try await polling.claimDueChannels(now: 2000, claimant: "a", limit: 5, lease: .standard).count == 2)
    }

    @Test func aClaimWhoseLeaseExpiredIsTakenByAnother() async throws {
        let ids = try await subscribe(2)
        let lease = PollLease(uncheckedSeconds: 30)
        #expect(try await polling.claimDueChannels(now: 1000, claimant: "died", limit: 10, lease: lease).map(\.id) == ids)
        #expect(try await polling.nextDue() == 1030, "free again when the lease expires")
        #expect(try await polling.claimDueChannels(now: 1029, claimant: "other", limit: 10, lease: lease).isEmpty)
        #expect(try await polling.claimChannels(ids, now: 1029, claimant: "other", lease: lease).isEmpty)
        #expect(try await polling.claimDueChannels(now: 1030, claimant: "other", limit: 1, lease: lease).map(\.id) == [ids[0]])
        #expect(try await polling.claimChannels(ids, now: 1030, claimant: "third", lease: lease) == [ids[1]])
    }

    @Test func onlyTheHolderReleasesAClaim() async throws {
        let ids = try await subscribe(2)
        _ = try await polling.claimDueChannels(now: 1000, claimant: "holder", limit: 10, lease: .standard)
        try await polling.releaseClaims(ids, claimant: "someone else")
        #expect(try await polling.claimDueChannels(now: 1000, claimant: "someone else", limit: 10, lease: .standard).isEmpty)
        try await polling.releaseClaims([ids[1]], claimant: "holder")
        #expect(try await polling.claimDueChannels(now: 1000, claimant: "someone else", limit: 10, lease: .standard).map(\.id) == [ids[1]])
        try await polling.releaseClaims([], claimant: "holder")
    }

    @Test func claimingByIDRenewsOwnClaimsKeepsOrderAndSkipsOthersAndUnknownIDs() async throws {
        let ids = try await subscribe(3)
        let lease = PollLease(uncheckedSeconds: 60)
        #expect(try await polling.claimChannels([ids[1]], now: 1000, claimant: "other", lease: lease) == [ids[1]])
        #expect(try await polling.claimChannels([ids[2], 999_999, ids[1], ids[0]], now: 1000, claimant: "me", lease: lease) == [ids[2], ids[0]])
        // Claimed again by its holder at 1050: its lease now runs to 1110, not 1060.
        #expect(try await polling.claimChannels([ids[0]], now: 1050, claimant: "me", lease: lease) == [ids[0]])
        #expect(try await polling.claimChannels([ids[0]], now: 1070, claimant: "other", lease: lease).isEmpty)
        #expect(try await polling.claimChannels([ids[0]], now: 1110, claimant: "other", lease: lease) == [ids[0]])
    }

    @Test func storingAPollReleasesItsClaimantsClaimAndNoOneElses() async throws {
        let ids = try await subscribe(2)
        let lease = PollLease(uncheckedSeconds: 30)
        _ = try await polling.claimDueChannels(now: 1000, claimant: "slow", limit: 10, lease: lease)
        // "slow" outlived its lease on ids[0]; "fast" took it over and polls it now.
        #expect(try await polling.claimChannels([ids[0]], now: 1030, claimant: "fast", lease: lease) == [ids[0]])
        let stored = await polling.apply([unchanged(ids[0], interval: 10), unchanged(ids[1], interval: 10)], claimant: "slow", now: 1031)
        #expect(stored.allSatisfy { (try? $0.get()) != nil })
        // Both polls are stored (next due at 1041), but only the claim "slow" still held went.
        #expect(try await polling.claimChannels(ids, now: 1041, claimant: "third", lease: lease) == [ids[1]])
        _ = await polling.apply([unchanged(ids[0], interval: 10)], claimant: "fast", now: 1042)
        #expect(try await polling.claimChannels([ids[0]], now: 1042, claimant: "fourth", lease: lease) == [ids[0]])
    }

    @Test func aFailedPollIsStoredAndReleasesTheClaimToo() async throws {
        let ids = try await subscribe(1)
        _ = try await polling.claimDueChannels(now: 1000, claimant: "a", limit: 1, lease: .standard)
        let failed = ChannelPoll(channelID: ids[0], outcome: .failed(message: "https://example.com/feed0.xml: 500", retryAfter: nil),
                                 pollInterval: 100)
        #expect((try? await polling.apply([failed], claimant: "a", now: 1001)[0].get()) != nil)
        #expect(try await polling.claimChannels(ids, now: 1001, claimant: "b", lease: .standard) == ids)
        #expect(try await database.owner.channel(id: ids[0]).lastError == "https://example.com/feed0.xml: 500")
    }

    @Test func aUsersSubscribingPollLeavesClaimsAlone() async throws {
        let ids = try await subscribe(1)
        _ = try await polling.claimDueChannels(now: 1000, claimant: "poller", limit: 1, lease: .standard)
        _ = await database.owner.apply([Poll(unchanged(ids[0]))], now: 1001)
        #expect(try await polling.claimChannels(ids, now: 1001, claimant: "other", lease: .standard).isEmpty)
    }

    @Test func nextDueIsTheEarliestNextPollOfAFollowedChannel() async throws {
        #expect(try await polling.nextDue() == nil, "nothing followed")
        let ids = try await subscribe(2)
        #expect(try await polling.nextDue()! <= 1000, "never polled: due now")
        _ = await polling.apply([unchanged(ids[0], interval: 300), unchanged(ids[1], interval: 200)], claimant: nil, now: 1000)
        #expect(try await polling.nextDue() == 1200)
        try await database.owner.setActive(channelID: ids[1], false)
        #expect(try await polling.nextDue() == 1300, "a paused channel is polled for nobody")
        try await database.owner.setActive(channelID: ids[0], false)
        #expect(try await polling.nextDue() == nil)
        #expect(try await polling.claimDueChannels(now: 9000, claimant: "a", limit: 10, lease: .standard).isEmpty)
    }

    @Test func aChannelFollowedByAnyoneIsPolledWhoeverPolls() async throws {
        let bob = database.store(for: try await database.owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1000).id)
        let url = "https://example.com/bobs.xml"
        let id = try await bob.apply([Poll(subject: .subscription(NewChannel(platform: .podcast, sourceURL: url, feedURL: url, name: "Bob's",
                                                                             reach: .publicOnly)),
                                           outcome: .notFetched)], now: 1000)[0].get().channelID
        let claimed = try await polling.claimDueChannels(now: 1000, claimant: "worker", limit: 10, lease: .standard)
        #expect(claimed.map(\.id) == [id])
        #expect(claimed.map(\.reach) == [.publicOnly], "its own reach goes with it")
        #expect(try await polling.addressReach(feedURL: url) == .publicOnly)
        #expect(try await polling.addressReach(feedURL: "https://example.com/unknown.xml") == nil)
    }
}
