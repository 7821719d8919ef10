import FeedModel
import FeedParsing
import HTTPFetch
import LibraryStore

/// The ingest pipeline as a user has it: `sync`, `channel add` (`Subscriber`), OPML import and
/// a phone's subscriptions. Polling goes through the `Poller` (the library's `PollStore`, for no
/// user); what is particular to a user is here: subscribing them (`SyncStore.apply`), and
/// telling a channel someone else polls now from one they no longer follow.
///
/// Every fetch stays within `reach` and, for a channel, within the channel's own reach
/// (`AddressReach`), through `fetcher.reaching(_:)`.
public final class Syncer: Sendable {
    public let store: any SyncStore
    public let poller: Poller

    /// What the user it acts for may make it fetch: the owner's CLI and the daemon any address
    /// (each channel's own reach still bounds its polls), a server's users what the server allows.
    public var reach: AddressReach { poller.reach }
    public var fetcher: Fetcher { poller.fetcher }
    /// Seconds between polls of a healthy channel.
    public var pollInterval: Int64 { poller.pollInterval }
    /// Timeouts and size cap of every poll (the parser gets the same cap).
    public var limits: SyncLimits { poller.limits }

    public convenience init(store: any SyncStore, reach: AddressReach, fetcher: Fetcher = .shared,
                            pollInterval: Int64 = SyncPolicy.defaultPollInterval, limits: SyncLimits = SyncLimits()) {
        self.init(store: store, reach: reach, fetcher: fetcher, pollInterval: pollInterval, limits: limits,
                  batchDelay: Poller.defaultBatchDelay)
    }

    init(store: any SyncStore, reach: AddressReach, fetcher: Fetcher = .shared, pollInterval: Int64 = SyncPolicy.defaultPollInterval,
         limits: SyncLimits = SyncLimits(), batchDelay: Duration) {
        self.store = store
        poller = Poller(polling: store.polling, reach: reach, fetcher: fetcher, pollInterval: pollInterval, limits: limits,
                        batchDelay: batchDelay)
    }

    /// Syncs `channels` concurrently through the `Poller` (see `Poller.pollClaimed`): each is
    /// claimed for `claimant` first, and one that another sync holds, in this process or
    /// another, is not fetched and is reported `busy` (one the user no longer follows, an error).
    /// A caller that claimed the channels already (a `sync` of the due ones) passes its claimant.
    /// Results come back in the order of `channels`.
    public func sync(_ channels: [Channel], claimant: String = SyncClaimant.next(), now: Int64 = Clock.now(),
                     progress: @escaping @Sendable (_ result: ChannelSyncResult, _ done: Int, _ total: Int) -> Void = { _, _, _ in }) async -> SyncReport {
        let feedURLs = Dictionary(channels.map { ($0.id, $0.feedURL) }, uniquingKeysWith: { a, _ in a })
        return await explainingBusy(await poller.poll(channels, claimant: claimant, now: now, progress: progress), feedURLs: feedURLs)
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
            let targets = subscribed.map { entry in
                stored[entry.id].map(Poller.Target.init(channel:))
                    ?? Poller.Target(channelID: entry.id, name: entry.feed.name, feedURL: entry.feed.feedURL, reach: .publicOnly)
            }
            let feedURLs = Dictionary(targets.map { ($0.channelID, $0.feedURL) }, uniquingKeysWith: { a, _ in a })
            report = await explainingBusy(await poller.runClaimed(targets, claimant: SyncClaimant.next(), now: now, progress: progress),
                                          feedURLs: feedURLs)
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

    /// How many new subscriptions one transaction records. Each writes the same few rows again
    /// (the user's counters, the sync clock), and PostgreSQL keeps every version a transaction
    /// writes of a row until it ends, walking them on the next write of that row (quadratic): an
    /// OPML file of 20,000 feeds took 30 s there in one transaction, 8–10 s in batches of 100 to
    /// 2,000 (SQLite 3 s either way). An import cut short keeps the batches it stored; the next
    /// one skips the feeds it finds subscribed.
    public static let recordBatch = 500

    /// Records new subscriptions with what is known of their feeds yet (nothing, or a failure), in
    /// the order given, each with the reach it names within this syncer's; what the store refused
    /// keeps its index, for the report. They are stored `recordBatch` at a time, a transaction each.
    private func record(_ feeds: [NewChannel], _ outcome: Poll.Outcome, now: Int64)
        async -> (subscribed: [(id: Int64, feed: NewChannel)], refused: [(index: Int, result: ChannelSyncResult, error: LibraryError)]) {
        let polls = feeds.map { feed in
            var feed = feed
            feed.reach = feed.reach.narrowed(to: reach)
            return Poll(subject: .subscription(feed), outcome: outcome, pollInterval: pollInterval)
        }
        var recorded: [Result<PollApplied, LibraryError>] = []
        recorded.reserveCapacity(polls.count)
        for start in stride(from: 0, to: polls.count, by: Self.recordBatch) {
            recorded += await store.apply(Array(polls[start..<min(start + Self.recordBatch, polls.count)]), now: now)
        }
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

    /// The poller reports every channel it could not claim `busy`; one the user no longer follows
    /// (unsubscribed meanwhile) is their error instead.
    private func explainingBusy(_ report: SyncReport, feedURLs: [Int64: String]) async -> SyncReport {
        var report = report
        for (index, result) in report.channels.enumerated() where result.status == .busy {
            do throws(LibraryError) {
                _ = try await store.channel(id: result.id)
            } catch {
                report.channels[index] = ChannelSyncResult(id: result.id, name: result.name, status: .error, newItems: 0,
                                                           error: "\(feedURLs[result.id] ?? "channel \(result.id)"): \(error.description)",
                                                           seconds: 0)
            }
        }
        return report
    }

    /// Parses a fetched body as a feed, with the response's URL and charset and the sync's size cap.
    func parse(_ response: FetchResponse) throws(SyncError) -> Feed { try poller.parse(response) }

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
        do throws(LibraryError) { existing = try await store.polling.addressReach(feedURL: url) } catch {
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
