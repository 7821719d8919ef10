import FeedModel

/// Polling the library's channels, which acts for no user: a channel is polled while anyone's
/// subscription to it is active, whoever polls it. However many pollers share one library
/// (`feedctl worker` processes on several machines, the daemon's scheduler, a cron `sync`, the
/// server's sync routes), a feed is fetched by one of them at a time:
///
/// 1. claim: `claimDueChannels` takes at most `limit` due channels nobody holds, or
///    `claimChannels` the channels asked for, each for `claimant` until its `PollLease` expires,
///    in the same transaction that found them free;
/// 2. fetch them (nothing held in the library meanwhile);
/// 3. `apply` the polls, which releases the claimant's claims on the channels it stored;
///    `releaseClaims` lets go of the others (a poll that was never stored).
///
/// A claim not finished within its lease expires, and another poller may take the channel:
/// a poller killed mid-poll loses nothing but its lease's time.
public protocol PollStore: Sendable {
    /// Channels whose next poll time has come (never-polled ones included), oldest poll first:
    /// those with at least one active subscription, whoever follows them, claimed or not.
    func dueChannels(now: Int64) async throws(LibraryError) -> [Channel]
    /// When a channel is next due that no live claim holds (a claim's expiry counts as when its
    /// channel is free again): a time already past when one is due now; nil when no channel has
    /// an active subscription.
    func nextDue() async throws(LibraryError) -> Int64?
    /// At most `limit` of the due channels that no live claim holds (a limit below 1 claims
    /// nothing), oldest poll first, claimed for `claimant` until `lease` expires in the same
    /// transaction that selected them: two pollers never get the same channel.
    func claimDueChannels(now: Int64, claimant: String, limit: Int, lease: PollLease) async throws(LibraryError) -> [Channel]
    /// Claims the channels asked for (a `sync ID…` or `--all`), due or not, until `lease`
    /// expires; returns the ids claimed, in the order given: a channel another claimant holds is
    /// left to it, one `claimant` holds already is claimed again (its lease starts anew), one
    /// the library lacks is skipped.
    func claimChannels(_ ids: [Int64], now: Int64, claimant: String, lease: PollLease) async throws(LibraryError) -> [Int64]
    /// Releases what `claimant` still holds of `ids` (polls that were never stored: an
    /// interrupted round). Another claimant's claims stay.
    func releaseClaims(_ ids: [Int64], claimant: String) async throws(LibraryError)
    /// What the channel polled at `feedURL` may reach, whoever follows it; nil when the library
    /// has none. A feed fetched to subscribe to it is stored in that channel, so it is fetched
    /// within its reach too.
    func addressReach(feedURL: String) async throws(LibraryError) -> AddressReach?
    /// Applies polls of channels: each one's items and its channel's bookkeeping (validators,
    /// error and backoff, next poll, name, a moved feed URL) together, and, with a `claimant`,
    /// the release of that claimant's claim on the channel (another's claim stays: a poll stored
    /// after its lease expired does not free a channel someone else polls now). The whole batch
    /// is one transaction; if that fails, each poll gets its own, so one bad feed cannot sink
    /// the others, and a poll that still fails is recorded as its channel's error (releasing
    /// the claim as well). Results are in `polls`' order.
    func apply(_ polls: [ChannelPoll], claimant: String?, now: Int64) async -> [Result<PollApplied, LibraryError>]
}

extension PollStore {
    /// Every due channel no live claim holds, claimed for `claimant` with the standard lease (a
    /// scheduler round, a cron `sync`).
    public func claimDueChannels(now: Int64, claimant: String) async throws(LibraryError) -> [Channel] {
        try await claimDueChannels(now: now, claimant: claimant, limit: Int.max, lease: .standard)
    }

    /// The channels asked for, claimed with the standard lease.
    public func claimChannels(_ ids: [Int64], now: Int64, claimant: String) async throws(LibraryError) -> [Int64] {
        try await claimChannels(ids, now: now, claimant: claimant, lease: .standard)
    }
}
