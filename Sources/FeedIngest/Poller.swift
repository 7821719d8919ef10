import FeedModel
import FeedParsing
import HTTPFetch
import LibraryStore

/// Polls channels for no user: fetch (conditional GET, an unchanged body detected by its hash, a
/// permanent redirect remembered) → parse → the library's `PollStore`, in batches, each channel
/// claimed first so no other poller fetches it meanwhile. What a `sync`, the daemon's scheduler,
/// a `feedctl worker` and the `Syncer` (a user's syncs and subscriptions) poll goes through it.
/// Every failure stays with its own channel (recorded with its backoff; its items are never
/// touched).
///
/// Every fetch stays within `reach` and within the channel's own reach (`AddressReach`), through
/// `fetcher.reaching(_:)`.
public final class Poller: Sendable {
    public let polling: any PollStore
    public let fetcher: Fetcher
    /// What the poller may make the library fetch: the owner's CLI, the daemon and workers any
    /// address (each channel's own reach still bounds its polls), a server's users what the
    /// server allows.
    public let reach: AddressReach
    /// Seconds between polls of a healthy channel.
    public let pollInterval: Int64
    /// Timeouts and size cap of every poll (the parser gets the same cap).
    public let limits: SyncLimits
    /// How long the claims it takes last (`PollLease`).
    public let lease: PollLease

    /// How long a finished poll waits for others before it is stored.
    let batchDelay: Duration

    public convenience init(polling: any PollStore, reach: AddressReach, fetcher: Fetcher = .shared,
                            pollInterval: Int64 = SyncPolicy.defaultPollInterval, limits: SyncLimits = SyncLimits(),
                            lease: PollLease = .standard) {
        self.init(polling: polling, reach: reach, fetcher: fetcher, pollInterval: pollInterval, limits: limits, lease: lease,
                  batchDelay: Self.defaultBatchDelay)
    }

    init(polling: any PollStore, reach: AddressReach, fetcher: Fetcher = .shared, pollInterval: Int64 = SyncPolicy.defaultPollInterval,
         limits: SyncLimits = SyncLimits(), lease: PollLease = .standard, batchDelay: Duration) {
        self.polling = polling
        self.reach = reach
        self.fetcher = fetcher
        self.pollInterval = pollInterval
        self.limits = limits
        self.lease = lease
        self.batchDelay = batchDelay
    }

    /// Polls stored per transaction at most: one commit per feed rewrote the same index pages
    /// again and again.
    static let batchSize = 16
    /// How long a finished poll may wait for others to share its transaction: a batch waiting
    /// only for its count stalled behind one slow feed (the progress bar at 16/29 with 28 done).
    static let defaultBatchDelay: Duration = .milliseconds(250)

    /// Claims `channels` for `claimant` (a claim it holds already is renewed), polls the ones it
    /// got and reports the others `busy` (held by another poller, or gone from the library).
    /// Results come back in the order of `channels`; see `pollClaimed` for the rest.
    public func poll(_ channels: [Channel], claimant: String, now: Int64,
                     progress: @escaping @Sendable (_ result: ChannelSyncResult, _ done: Int, _ total: Int) -> Void = { _, _, _ in })
        async -> SyncReport {
        await runClaimed(channels.map(Target.init(channel:)), claimant: claimant, now: now, progress: progress)
    }

    /// Polls channels `claimant` claimed already (a round's `claimDueChannels`) concurrently: the
    /// fetcher bounds the transfers, bodies are parsed as they arrive, and this task alone
    /// writes, in batches (of up to `batchSize` polls, or what finished within `batchDelay`),
    /// so parsing never waits for the database and nothing finished waits long for a slow feed.
    /// Storing a poll releases its claim; what was not stored is released at the end.
    /// `progress` is called as each channel is stored. Results come back in the order of
    /// `channels`.
    ///
    /// Cancelling the calling task (the CLI does on SIGINT/SIGTERM, the daemon when it stops, a
    /// worker on a second signal) aborts the fetches still running and stores every poll that
    /// finished; the channels not polled are left as they were (no error, no backoff), released,
    /// and missing from the report.
    public func pollClaimed(_ channels: [Channel], claimant: String, now: Int64,
                            progress: @escaping @Sendable (_ result: ChannelSyncResult, _ done: Int, _ total: Int) -> Void = { _, _, _ in })
        async -> SyncReport {
        await runHeld(channels.map(Target.init(channel:)), claimant: claimant, now: now, progress: progress)
    }

    /// What is polled: a channel and what the last poll left of it.
    struct Target: Sendable {
        var channelID: Int64
        var name: String
        var feedURL: String
        /// The channel's (`Channel.reach`).
        var reach: AddressReach
        var etag: String?
        var lastModified: String?
        var bodyHash: String?

        init(channelID: Int64, name: String, feedURL: String, reach: AddressReach) {
            self.channelID = channelID; self.name = name; self.feedURL = feedURL; self.reach = reach
        }

        init(channel: Channel) {
            self.init(channelID: channel.id, name: channel.name, feedURL: channel.feedURL, reach: channel.reach)
            (etag, lastModified, bodyHash) = (channel.etag, channel.lastModified, channel.bodyHash)
        }
    }

    /// What the writer hears from the polls: one finished (nil: cancelled, nothing to store), or
    /// the oldest unstored result has waited `batchDelay`.
    private enum Event: Sendable {
        case polled(Polled?)
        case batchDue
    }

    private struct Polled: Sendable {
        var index: Int
        var outcome: Poll.Outcome
        /// How long its fetch and parse took (not the wait for its batch to be stored).
        var seconds: Double
    }

    /// Claims the targets' channels for `claimant` (a claim it holds already is renewed), polls
    /// the ones it got, and reports the others `busy`. Results are in `targets`' order.
    func runClaimed(_ targets: [Target], claimant: String, now: Int64,
                    progress: @escaping @Sendable (ChannelSyncResult, Int, Int) -> Void) async -> SyncReport {
        guard !targets.isEmpty else { return SyncReport(channels: []) }
        let claimed: Set<Int64>
        do throws(LibraryError) {
            claimed = Set(try await polling.claimChannels(targets.map(\.channelID), now: now, claimant: claimant, lease: lease))
        } catch {
            return SyncReport(channels: targets.map {
                ChannelSyncResult(id: $0.channelID, name: $0.name, status: .error, newItems: 0,
                                  error: "\($0.feedURL): could not claim it for polling: \(error.description)", seconds: 0)
            })
        }
        let held = targets.filter { claimed.contains($0.channelID) }
        let report = await runHeld(held, claimant: claimant, now: now, progress: progress)
        if held.count == targets.count { return report }
        var stored = Dictionary(report.channels.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return SyncReport(channels: targets.compactMap { target in
            guard claimed.contains(target.channelID) else {
                return ChannelSyncResult(id: target.channelID, name: target.name, status: .busy, newItems: 0,
                                         error: "another sync is polling it now", seconds: 0)
            }
            return stored.removeValue(forKey: target.channelID)
        })
    }

    /// Polls targets whose channels `claimant` holds, then lets go of those it did not store.
    private func runHeld(_ targets: [Target], claimant: String, now: Int64,
                         progress: @escaping @Sendable (ChannelSyncResult, Int, Int) -> Void) async -> SyncReport {
        guard !targets.isEmpty else { return SyncReport(channels: []) }
        let (report, stored) = await run(targets, claimant: claimant, now: now, progress: progress)
        // Storing a poll released its claim. A failure here is not the feeds': the claims lapse
        // by themselves (`PollLease`).
        _ = await polling.releaseClaimsUninterrupted(targets.map(\.channelID).filter { !stored.contains($0) }, claimant: claimant)
        return report
    }

    /// Polls the targets; returns the report and the channels whose poll was stored.
    private func run(_ targets: [Target], claimant: String, now: Int64,
                     progress: @escaping @Sendable (ChannelSyncResult, Int, Int) -> Void) async -> (SyncReport, stored: Set<Int64>) {
        var results = [ChannelSyncResult?](repeating: nil, count: targets.count)
        var storedIDs = Set<Int64>()
        await withTaskGroup(of: Event.self) { group in
            for (index, target) in targets.enumerated() {
                group.addTask {
                    let started = Clock.monotonic()
                    let outcome = await self.poll(target)
                    let seconds = Clock.monotonic() - started
                    return .polled(outcome.map { Polled(index: index, outcome: $0, seconds: seconds) })
                }
            }
            var pending: [Polled] = []
            var (returned, stored, timerRunning) = (0, 0, false)
            for await event in group {
                var due = false
                switch event {
                case .polled(let polled):
                    returned += 1
                    if let polled { pending.append(polled) }
                case .batchDue:
                    timerRunning = false
                    due = true
                }
                let last = returned == targets.count
                if !pending.isEmpty, due || last || pending.count >= Self.batchSize || Task.isCancelled {
                    let polls = pending.map { ChannelPoll(channelID: targets[$0.index].channelID, outcome: $0.outcome,
                                                          pollInterval: pollInterval) }
                    let applied = await polling.applyUninterrupted(polls, claimant: claimant, now: now)
                    for (entry, outcome) in zip(pending, applied) {
                        if case .success = outcome { storedIDs.insert(targets[entry.index].channelID) }
                        let result = Self.result(targets[entry.index], entry.outcome, outcome, seconds: entry.seconds)
                        results[entry.index] = result
                        stored += 1
                        progress(result, stored, targets.count)
                    }
                    pending.removeAll()
                }
                if last {
                    group.cancelAll()   // only a batch timer can be left
                } else if !pending.isEmpty, !timerRunning {
                    timerRunning = true
                    let delay = batchDelay
                    group.addTask {
                        try? await Task.sleep(for: delay)
                        return .batchDue
                    }
                }
            }
        }
        return (SyncReport(channels: results.compactMap { $0 }), storedIDs)
    }

    /// What one poll came to, for the report.
    private static func result(_ target: Target, _ outcome: Poll.Outcome, _ stored: Result<PollApplied, LibraryError>,
                               seconds: Double) -> ChannelSyncResult {
        var (status, newItems, error) = (ChannelSyncResult.Status.unchanged, 0, String?.none)
        switch (stored, outcome) {
        case (.success, .failed(let message, _)): (status, error) = (.error, message)
        case (.success(let applied), .changed): (status, newItems) = (.updated, applied.ingest.new)
        case (.success, .unchanged), (.success, .notFetched): break
        case (.failure(let failure), _): (status, error) = (.error, "\(target.feedURL): \(failure.description)")
        }
        return ChannelSyncResult(id: target.channelID, name: target.name, status: status, newItems: newItems, error: error,
                                 seconds: seconds)
    }

    /// Fetches and parses one target, writing nothing; nil when the poll was cancelled before it
    /// finished (a cancelled fetch is not the feed's failure).
    private func poll(_ target: Target) async -> Poll.Outcome? {
        do throws(SyncError) {
            let response = try await fetch(target.feedURL, reach: target.reach, etag: target.etag, lastModified: target.lastModified)
            var validators = Validators(etag: response.etag, lastModified: response.lastModified)
            if response.permanentRedirect, response.finalURL != target.feedURL { validators.movedTo = response.finalURL }
            if response.notModified { return .unchanged(validators) }
            validators.bodyHash = BodyHash.of(response.body)
            if validators.bodyHash == target.bodyHash { return .unchanged(validators) }
            return .changed(validators, try parse(response))
        } catch {
            if Task.isCancelled { return nil }
            return .failed(message: error.description, retryAfter: error.retryAfter)
        }
    }

    /// Parses a fetched body as a feed, with the response's URL and charset and the poll's size cap.
    func parse(_ response: FetchResponse) throws(SyncError) -> Feed {
        do {
            return try FeedParser.parse(response.body, options: ParseOptions(documentURL: response.finalURL, httpCharset: response.charset,
                                                                              maxBytes: limits.maxBytes))
        } catch {
            throw SyncError(url: response.finalURL, reason: error.description)
        }
    }

    /// Fetches `url` within the poll's limits and `reach` (narrowed to this poller's),
    /// conditionally when validators are given.
    func fetch(_ url: String, reach: AddressReach, etag: String? = nil, lastModified: String? = nil) async throws(SyncError) -> FetchResponse {
        do {
            return try await fetcher.reaching(reach.narrowed(to: self.reach)).fetch(limits.request(url, etag: etag, lastModified: lastModified))
        } catch {
            throw SyncError(error)
        }
    }
}

extension PollStore {
    /// `apply` in a task of its own, so a cancelled poll still stores what it fetched (GRDB
    /// refuses to start, or rolls back, a write in a cancelled task).
    func applyUninterrupted(_ polls: [ChannelPoll], claimant: String?, now: Int64) async -> [Result<PollApplied, LibraryError>] {
        await Task { await self.apply(polls, claimant: claimant, now: now) }.value
    }

    /// Releases what `claimant` still holds of `ids`, in a task of its own so that an interrupted
    /// (cancelled) poll still lets go of the channels it did not store. A failure is only
    /// logged by the caller's choice: the claims lapse anyway (`PollLease`).
    public func releaseClaimsUninterrupted(_ ids: [Int64], claimant: String) async -> LibraryError? {
        guard !ids.isEmpty else { return nil }
        return await Task { () -> LibraryError? in
            do throws(LibraryError) { try await self.releaseClaims(ids, claimant: claimant); return nil } catch { return error }
        }.value
    }
}
