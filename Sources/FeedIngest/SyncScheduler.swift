import FeedModel
import LibraryStore

/// Keeps subscriptions fresh in a long-running process (the daemon): polls the due channels
/// now and then every `interval` seconds; each channel's own next-poll time and backoff decide
/// whether it is due. The poller (and with it libcurl, whose global init loads OpenSSL: ~2 MB
/// resident) is made when a channel is first due, not at start. It acts for no user (the
/// library's `PollStore`), so it may reach any address, but every channel's poll stays within
/// the channel's own reach (`AddressReach`): what a server user subscribed to is fetched from
/// public addresses only.
public enum SyncScheduler {
    /// Runs until the returned task is cancelled; cancelling it stops the fetches in flight, and
    /// its value comes once what they finished is stored. `report` gets one line per sync, per
    /// failed channel, and per round the library could not be read (the next round tries again).
    /// `afterEachRound` runs after every round, whether anything was due or not (the daemon keeps
    /// its automatic downloads there).
    /// `follows`: followed collections of other servers, refreshed in each round when due
    /// (`FollowRefresher`).
    public static func start(polling: any PollStore, follows: (any SharedCollectionStore)? = nil, every interval: Double,
                             report: @escaping @Sendable (String) -> Void,
                             afterEachRound: (@Sendable () async -> Void)? = nil) -> Task<Void, Never> {
        Task.detached(priority: .background) {
            var poller: Poller?
            while !Task.isCancelled {
                // Claimed, so that another process polling the same library (a worker, the
                // server, a cron `sync`) does not fetch them too; the poll releases them.
                let claimant = SyncClaimant.next()
                do throws(LibraryError) {
                    let now = Clock.now()
                    let due = try await polling.claimDueChannels(now: now, claimant: claimant)
                    if !due.isEmpty {
                        let active = poller ?? Poller(polling: polling, reach: .anyAddress)
                        poller = active
                        let result = await active.pollClaimed(due, claimant: claimant, now: now)
                        // What was stored is reported even when the round was cancelled on its way.
                        if Task.isCancelled && result.channels.count < due.count {
                            report("sync: interrupted; \(result.channels.count) of \(due.count) channels stored")
                        } else {
                            report("sync: \(due.count) channels, \(result.newItems) new items, \(result.errors) errors")
                        }
                        for r in result.channels where r.status == .error { report("sync: \(r.error ?? "")") }
                        if Task.isCancelled { break }
                    }
                } catch {
                    report("sync: cannot read the due channels: \(error.description) (trying again in \(Int(interval.rounded(.up))) s)")
                }
                if let follows, !Task.isCancelled {
                    let refreshed = await FollowRefresher(store: follows, reach: .anyAddress).refreshDue(now: Clock.now())
                    if !refreshed.isEmpty { report("sync: " + refreshed.summary) }
                    for error in refreshed.errors { report("sync: \(error)") }
                }
                if let afterEachRound, !Task.isCancelled { await afterEachRound() }
                // Sleep throws only when cancelled, which ends the loop.
                try? await Task.sleep(for: .seconds(interval))
            }
        }
    }
}
