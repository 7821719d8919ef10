import FeedModel
import FeedParsing
import HTTPFetch
import LibraryStore

/// The ingest pipeline: fetch (conditional GET, an unchanged body detected by its hash, a
/// permanent redirect remembered) → parse → one store transaction with each channel's
/// bookkeeping. `sync`, `channel add` (`Subscriber`), OPML import and the daemon's poller all go
/// through it. Every failure stays with its own channel (recorded with its backoff; its items are
/// never touched).
///
/// Every fetch stays within `reach` and, for a channel, within the channel's own reach
/// (`AddressReach`), through `fetcher.reaching(_:)`.
public final class Syncer: Sendable {
    public let store: any SyncStore
    public let fetcher: Fetcher
    /// What the user it acts for may make it fetch: the owner's CLI and the daemon any address
    /// (each channel's own reach still bounds its polls), a server's users what the server allows.
    public let reach: AddressReach
    /// Seconds between polls of a healthy channel.
    public let pollInterval: Int64
    /// Timeouts and size cap of every poll (the parser gets the same cap).
    public let limits: SyncLimits

    /// How long a finished poll waits for others before it is stored.
    let batchDelay: Duration

    public convenience init(store: any SyncStore, reach: AddressReach, fetcher: Fetcher = .shared,
                            pollInterval: Int64 = SyncPolicy.defaultPollInterval, limits: SyncLimits = SyncLimits()) {
        self.init(store: store, reach: reach, fetcher: fetcher, pollInterval: pollInterval, limits: limits,
                  batchDelay: Self.defaultBatchDelay)
    }

    init(store: any SyncStore, reach: AddressReach, fetcher: Fetcher = .shared, pollInterval: Int64 = SyncPolicy.defaultPollInterval,
         limits: SyncLimits = SyncLimits(), batchDelay: Duration) {
        self.store = store
        self.reach = reach
        self.fetcher = fetcher
        self.pollInterval = pollInterval
        self.limits = limits
        self.batchDelay = batchDelay
    }

    /// Polls stored per transaction at most: one commit per feed rewrote the same index pages
    /// again and again.
    static let batchSize = 16
    /// How long a finished poll may wait for others to share its transaction: a batch waiting
    /// only for its count stalled behind one slow feed (the progress bar at 16/29 with 28 done).
    static let defaultBatchDelay: Duration = .milliseconds(250)

    /// Syncs `channels` concurrently: the fetcher bounds the transfers, bodies are parsed as they
    /// arrive, and this task alone writes, in batches (of up to `batchSize` polls, or what
    /// finished within `batchDelay`), so parsing never waits for the database and nothing
    /// finished waits long for a slow feed. `progress` is called as each channel is stored.
    /// Results come back in the order of `channels`.
    ///
    /// Cancelling the calling task (the CLI does on SIGINT/SIGTERM, the daemon when it stops)
    /// aborts the fetches still running and stores every poll that finished; the channels not
    /// polled are left as they were (no error, no backoff) and are missing from the report.
    ///
    /// Each channel is claimed for `claimant` first (`SyncClaim`): one that another sync holds,
    /// in this process or another, is not fetched and is reported `busy`. A caller that claimed
    /// the channels already (a scheduler round's `claimDueChannels`) passes its claimant.
    public func sync(_ channels: [Channel], claimant: String = SyncClaimant.next(), now: Int64 = Clock.now(),
                     progress: @escaping @Sendable (_ result: ChannelSyncResult, _ done: Int, _ total: Int) -> Void = { _, _, _ in }) async -> SyncReport {
        await runClaimed(channels.map(Target.init(channel:)), claimant: claimant, now: now, progress: progress)
    }

    /// Subscribes to feeds (an OPML import): each is recorded first, in the order given (so
    /// channel ids follow it), with the reach it names within this syncer's, then, with `fetch`,
    /// synced as any channel is. A feed that cannot be fetched stays subscribed, with its error
    /// recorded, to be retried by later syncs.
    public func subscribe(_ feeds: [NewChannel], fetch: Bool = true, now: Int64 = Clock.now(),
                          progress: @escaping @Sendable (_ result: ChannelSyncResult, _ done: Int, _ total: Int) -> Void = { _, _, _ in }) async -> SyncReport {
        let (subscribed, refused) = await record(feeds, .notFetched, now: now)
        var report: SyncReport
        if fetch {
            // Claimed like any sync: the recorded channels are due, and a scheduler may be polling
            // now. Read back for what each may reach: a feed another user follows already keeps
            // the channel it has.
            let stored: [Int64: Channel]
            do throws(LibraryError) {
                stored = Dictionary(try await store.allChannels().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            } catch {
                stored = [:]
            }
            report = await runClaimed(subscribed.map { entry in
                stored[entry.id].map(Target.init(channel:))
                    ?? Target(channelID: entry.id, name: entry.feed.name, feedURL: entry.feed.feedURL, reach: .publicOnly)
            }, claimant: SyncClaimant.next(), now: now, progress: progress)
        } else {
            report = SyncReport(channels: subscribed.map {
                ChannelSyncResult(id: $0.id, name: $0.feed.name, status: .unchanged, newItems: 0, error: nil, seconds: 0)
            })
        }
        for (index, result, _) in refused { report.channels.insert(result, at: index) }
        return report
    }

    /// Subscribes to a feed whose first fetch failed elsewhere (a podcast app's upload, which goes
    /// through `Subscriber` as `channel add` does): it is recorded with that error and backs off,
    /// as `subscribe` records a feed it could not fetch (which would fetch it a second time), and
    /// later syncs retry it. Throws what the store refused.
    public func subscribe(_ feed: NewChannel, failedWith error: SyncError, now: Int64 = Clock.now()) async throws(LibraryError) -> Int64 {
        let (subscribed, refused) = await record([feed], .failed(message: error.description, retryAfter: error.retryAfter), now: now)
        if let id = subscribed.first?.id { return id }
        throw refused.first?.error ?? .invalid("\(feed.feedURL) was not recorded")
    }

    /// Records new subscriptions with what is known of their feeds yet (nothing, or a failure), in
    /// the order given, each with the reach it names within this syncer's; what the store refused
    /// keeps its index, for the report.
    private func record(_ feeds: [NewChannel], _ outcome: Poll.Outcome, now: Int64)
        async -> (subscribed: [(id: Int64, feed: NewChannel)], refused: [(index: Int, result: ChannelSyncResult, error: LibraryError)]) {
        let recorded = await store.apply(feeds.map { feed in
            var feed = feed
            feed.reach = feed.reach.narrowed(to: reach)
            return Poll(subject: .subscription(feed), outcome: outcome, pollInterval: pollInterval)
        }, now: now)
        var subscribed: [(id: Int64, feed: NewChannel)] = [], refused: [(index: Int, result: ChannelSyncResult, error: LibraryError)] = []
        for (index, (feed, result)) in zip(feeds, recorded).enumerated() {
            switch result {
            case .success(let applied): subscribed.append((applied.channelID, feed))
            case .failure(let error):
                refused.append((index, ChannelSyncResult(id: 0, name: feed.name, status: .error, newItems: 0,
                                                         error: "\(feed.feedURL): \(error.description)", seconds: 0), error))
            }
        }
        return (subscribed, refused)
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

    /// Claims the targets' channels for `claimant` (a claim it holds already is kept), polls the
    /// ones it got, and reports the others `busy`. Storing a poll releases its claim; what was
    /// not stored (a cancelled sync) is released at the end. Results are in `targets`' order.
    private func runClaimed(_ targets: [Target], claimant: String, now: Int64,
                            progress: @escaping @Sendable (ChannelSyncResult, Int, Int) -> Void) async -> SyncReport {
        guard !targets.isEmpty else { return SyncReport(channels: []) }
        let claimed: Set<Int64>
        do throws(LibraryError) {
            claimed = Set(try await store.claimChannels(targets.map(\.channelID), now: now, claimant: claimant))
        } catch {
            return SyncReport(channels: targets.map {
                ChannelSyncResult(id: $0.channelID, name: $0.name, status: .error, newItems: 0,
                                  error: "\($0.feedURL): could not claim it for polling: \(error.description)", seconds: 0)
            })
        }
        let polled = targets.filter { claimed.contains($0.channelID) }
        let report = await run(polled, now: now, progress: progress)
        // A failure here is not the feeds': the claims lapse by themselves (`SyncClaim.claimSeconds`).
        _ = await store.releaseClaimsUninterrupted(polled.map(\.channelID), claimant: claimant)
        if polled.count == targets.count { return report }
        var stored = Dictionary(report.channels.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var results: [ChannelSyncResult] = []
        for target in targets {
            if claimed.contains(target.channelID) {
                if let result = stored.removeValue(forKey: target.channelID) { results.append(result) }
            } else {
                results.append(await unclaimed(target))
            }
        }
        return SyncReport(channels: results)
    }

    /// A channel that could not be claimed: held by another sync, or gone (unsubscribed meanwhile).
    private func unclaimed(_ target: Target) async -> ChannelSyncResult {
        do throws(LibraryError) {
            _ = try await store.channel(id: target.channelID)
            return ChannelSyncResult(id: target.channelID, name: target.name, status: .busy, newItems: 0,
                                     error: "another sync is polling it now", seconds: 0)
        } catch {
            return ChannelSyncResult(id: target.channelID, name: target.name, status: .error, newItems: 0,
                                     error: "\(target.feedURL): \(error.description)", seconds: 0)
        }
    }

    private func run(_ targets: [Target], now: Int64,
                     progress: @escaping @Sendable (ChannelSyncResult, Int, Int) -> Void) async -> SyncReport {
        var results = [ChannelSyncResult?](repeating: nil, count: targets.count)
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
                    let polls = pending.map { Poll(subject: .channel(id: targets[$0.index].channelID), outcome: $0.outcome,
                                                   pollInterval: pollInterval) }
                    let applied = await store.applyUninterrupted(polls, now: now)
                    for (entry, outcome) in zip(pending, applied) {
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
        return SyncReport(channels: results.compactMap { $0 })
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

    /// Fetches and parses one target, writing nothing; nil when the sync was cancelled before it
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

    /// Parses a fetched body as a feed, with the response's URL and charset and the sync's size cap.
    func parse(_ response: FetchResponse) throws(SyncError) -> Feed {
        do {
            return try FeedParser.parse(response.body, options: ParseOptions(documentURL: response.finalURL, httpCharset: response.charset,
                                                                              maxBytes: limits.maxBytes))
        } catch {
            throw SyncError(url: response.finalURL, reason: error.description)
        }
    }

    /// Reads a fetched document once for `channel add`: a feed, a YouTube page's channel, or a
    /// page's feed link.
    func read(_ response: FetchResponse) throws(SyncError) -> DocumentContent {
        do {
            return try FeedParser.read(response.body, options: ParseOptions(documentURL: response.finalURL, httpCharset: response.charset,
                                                                            maxBytes: limits.maxBytes))
        } catch {
            throw SyncError(url: response.finalURL, reason: error.description)
        }
    }

    /// Fetches `url` within the sync's limits and `reach` (narrowed to this syncer's),
    /// conditionally when validators are given.
    func fetch(_ url: String, reach: AddressReach, etag: String? = nil, lastModified: String? = nil) async throws(SyncError) -> FetchResponse {
        do {
            return try await fetcher.reaching(reach.narrowed(to: self.reach)).fetch(limits.request(url, etag: etag, lastModified: lastModified))
        } catch {
            throw SyncError(error)
        }
    }

    /// Fetches `url` to subscribe to it: within this syncer's reach, and within that of the
    /// channel the library polls at `url` already, if any (another user's: what is fetched here
    /// is stored in it).
    func fetchToSubscribe(_ url: String) async throws(SyncError) -> FetchResponse {
        let client = try await fetcherToSubscribe(url)
        do {
            return try await client.fetch(limits.request(url))
        } catch {
            throw SyncError(error)
        }
    }

    /// The client `fetchToSubscribe` fetches `url` with.
    func fetcherToSubscribe(_ url: String) async throws(SyncError) -> Fetcher {
        let existing: AddressReach?
        do throws(LibraryError) { existing = try await store.addressReach(feedURL: url) } catch {
            throw SyncError(url: url, reason: error.description)
        }
        return fetcher.reaching((existing ?? reach).narrowed(to: reach))
    }
}

/// A feed that could not be fetched or used, e.g. an HTML page where a feed was expected.
/// `description` is one line: the URL, then why.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    public var url: String
    public var reason: String
    /// From the server's Retry-After, as seconds from now.
    public var retryAfter: Int64?
    /// The library's own failure, when storing (not the feed) failed: a caller answers it as
    /// the library's error (a full disk is not the feed's fault).
    public var library: LibraryError?
    public var description: String { "\(url): \(reason)" }

    init(url: String, reason: String, retryAfter: Int64? = nil) {
        self.url = url
        self.reason = reason
        self.retryAfter = retryAfter
    }

    init(url: String, _ error: LibraryError) {
        self.init(url: url, reason: error.description)
        library = error
    }

    init(_ error: FetchError) {
        self.init(url: error.url, reason: error.reason, retryAfter: error.retryAfter.map(Int64.init))
    }

}

extension SyncStore {
    /// `apply` in a task of its own, so a cancelled sync still stores what it fetched (GRDB
    /// refuses to start, or rolls back, a write in a cancelled task).
    func applyUninterrupted(_ polls: [Poll], now: Int64) async -> [Result<PollApplied, LibraryError>] {
        await Task { await self.apply(polls, now: now) }.value
    }
}

/// Hash of a response body, to skip parsing an unchanged 200 (servers without validators).
enum BodyHash {
    static func of(_ bytes: [UInt8]) -> String {
        // Two independent 64-bit FNV-1a-style lanes over 8-byte words (a byte at a time was a
        // visible share of a cold sync): a collision would need to hit both, at the same length.
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                a = (a ^ word) &* 0x100_0000_01b3
                b = (b ^ word.byteSwapped) &* 0x0000_0100_0000_0233
                offset += 8
            }
            for byte in raw[offset...] {
                a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
                b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_0233
            }
        }
        return String(a, radix: 16) + "-" + String(b, radix: 16) + "-" + String(bytes.count)
    }
}
