import Foundation

/// Polls channels and brings their items into the library: conditional GET, an unchanged body
/// detected by its hash, a permanent redirect remembered, and every failure confined to its own
/// channel (recorded with its backoff; the channel's items are never touched).
public final class Syncer: Sendable {
    public let library: Library
    public let fetcher: Fetcher
    /// Seconds between polls of a healthy channel.
    public let pollInterval: Int64
    /// Timeouts and size cap of every poll.
    public let limits: SyncLimits

    public init(library: Library, fetcher: Fetcher = Fetcher(), pollInterval: Int64 = SyncPolicy.defaultPollInterval,
                limits: SyncLimits = SyncLimits()) {
        self.library = library
        self.fetcher = fetcher
        self.pollInterval = pollInterval
        self.limits = limits
    }

    /// Polls written to the library per transaction: one commit per feed rewrote the same
    /// index pages again and again.
    static let batchSize = 16

    /// Syncs `channels` concurrently: the fetcher bounds the transfers, bodies are parsed as they
    /// arrive, and this task alone writes, in batches, so parsing never waits for the database.
    /// `progress` is called as each channel is stored. Results come back in the order of `channels`.
    public func sync(_ channels: [Channel], now: Int64 = Clock.now(),
                     progress: @escaping @Sendable (_ result: ChannelSyncResult, _ done: Int, _ total: Int) -> Void = { _, _, _ in }) async -> SyncReport {
        var results = [ChannelSyncResult?](repeating: nil, count: channels.count)
        await withTaskGroup(of: (index: Int, poll: Poll).self) { group in
            for (index, channel) in channels.enumerated() {
                group.addTask { (index, await self.poll(channel)) }
            }
            var pending: [(index: Int, poll: Poll)] = []
            var done = 0
            for await entry in group {
                pending.append(entry)
                guard pending.count >= Self.batchSize || done + pending.count == channels.count else { continue }
                for (entry, result) in zip(pending, store(pending.map(\.poll), now: now)) {
                    results[entry.index] = result
                    done += 1
                    progress(result, done, channels.count)
                }
                pending.removeAll()
            }
        }
        return SyncReport(channels: results.compactMap { $0 })
    }

    /// One channel's poll. Never throws: the outcome, error included, is in the result and the library.
    public func sync(_ channel: Channel, now: Int64 = Clock.now()) async -> ChannelSyncResult {
        let poll = await poll(channel)
        return store([poll], now: now)[0]
    }

    /// Fetches and parses, writing nothing.
    func poll(_ channel: Channel) async -> Poll {
        let started = Clock.monotonic()
        do {
            let request = limits.request(channel.feedURL, etag: channel.etag, lastModified: channel.lastModified)
            let response = try await fetcher.fetch(request)
            var fetched = Poll.Fetched(etag: response.etag, lastModified: response.lastModified)
            if response.permanentRedirect, response.finalURL != channel.feedURL { fetched.movedTo = response.finalURL }
            if response.notModified { return Poll(channel: channel, started: started, outcome: .unchanged(fetched)) }
            fetched.bodyHash = BodyHash.of(response.body)
            if fetched.bodyHash == channel.bodyHash { return Poll(channel: channel, started: started, outcome: .unchanged(fetched)) }
            return Poll(channel: channel, started: started, outcome: .changed(fetched, try Self.parse(response)))
        } catch {
            let retryAfter = (error as? FetchError)?.retryAfter.map(Int64.init)
            return Poll(channel: channel, started: started,
                        outcome: .failed(message: Self.message(for: error, url: channel.feedURL), retryAfter: retryAfter))
        }
    }

    /// Writes polls to the library: every changed feed in one transaction (each on its own if
    /// that fails, so one bad feed cannot sink the others), then each channel's bookkeeping.
    func store(_ polls: [Poll], now: Int64) -> [ChannelSyncResult] {
        let changed = polls.indices.compactMap { i -> (index: Int, channelID: Int64, feed: Feed)? in
            guard case .changed(_, let feed) = polls[i].outcome else { return nil }
            return (i, polls[i].channel.id, feed)
        }
        var ingests = [Result<IngestResult, LibraryError>?](repeating: nil, count: polls.count)
        do {
            let all = try library.ingest(changed.map { ($0.channelID, $0.feed) }, now: now)
            for (entry, result) in zip(changed, all) { ingests[entry.index] = .success(result) }
        } catch {
            for entry in changed {
                ingests[entry.index] = Result { () throws(LibraryError) in try library.ingest(entry.feed, channelID: entry.channelID, now: now) }
            }
        }
        return polls.indices.map { record(polls[$0], ingest: ingests[$0], now: now) }
    }

    /// One channel's bookkeeping after its poll (and ingest, if it changed).
    private func record(_ poll: Poll, ingest: Result<IngestResult, LibraryError>?, now: Int64) -> ChannelSyncResult {
        let channel = poll.channel
        var result = ChannelSyncResult(id: channel.id, name: channel.name, status: .unchanged, newItems: 0, error: nil, seconds: 0)
        var failure: (message: String, retryAfter: Int64?)?
        do throws(LibraryError) {
            switch poll.outcome {
            case .failed(let message, let retryAfter):
                failure = (message, retryAfter)
            case .unchanged(let fetched):
                try recordSuccess(channel, fetched, now: now)
            case .changed(let fetched, _):
                let stored = try (ingest ?? .failure(.invalid("not ingested"))).get()
                result.status = .updated
                result.newItems = stored.new
                try recordSuccess(channel, fetched, now: now)
            }
        } catch {
            result.newItems = 0
            failure = (Self.message(for: error, url: channel.feedURL), nil)
        }
        if let failure {
            result.status = .error
            result.error = failure.message
            _ = try? library.recordSyncFailure(channelID: channel.id, error: failure.message, now: now,
                                               retryAfter: failure.retryAfter, pollInterval: pollInterval)
        }
        result.seconds = Clock.monotonic() - poll.started
        return result
    }

    private func recordSuccess(_ channel: Channel, _ fetched: Poll.Fetched, now: Int64) throws(LibraryError) {
        if let moved = fetched.movedTo {
            // Best effort: another channel may already poll the new URL.
            try? library.updateFeedURL(channelID: channel.id, to: moved)
        }
        try library.recordSyncSuccess(channelID: channel.id, now: now, etag: fetched.etag, lastModified: fetched.lastModified,
                                      bodyHash: fetched.bodyHash, pollInterval: pollInterval)
    }

    /// Parses a fetched body as a feed, with the response's URL and charset.
    static func parse(_ response: FetchResponse) throws(SyncError) -> Feed {
        do {
            return try FeedParser.parse(response.body, options: ParseOptions(documentURL: response.finalURL, httpCharset: response.charset))
        } catch {
            throw SyncError(url: response.finalURL, reason: error.description)
        }
    }

    static func message(for error: any Error, url: String) -> String {
        switch error {
        case let e as FetchError: return e.description
        case let e as SyncError: return e.description
        case let e as LibraryError: return "\(url): \(e.description)"
        default: return "\(url): \(error)"
        }
    }
}

/// What polling one channel came to, before anything is written.
struct Poll: Sendable {
    /// What the response said about the feed's next poll.
    struct Fetched: Sendable {
        var etag: String?
        var lastModified: String?
        /// Nil for a 304 (the stored hash stays).
        var bodyHash: String?
        /// The new feed URL after permanent redirects only.
        var movedTo: String?
    }

    enum Outcome: Sendable {
        /// A 304, or a 200 with the body of the last poll: nothing to parse or ingest.
        case unchanged(Fetched)
        case changed(Fetched, Feed)
        case failed(message: String, retryAfter: Int64?)
    }

    let channel: Channel
    /// `Clock.monotonic()` when the poll began.
    let started: Double
    let outcome: Outcome
}

/// A feed that was fetched but could not be used, e.g. an HTML page where a feed was expected.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    public var url: String
    public var reason: String
    public var description: String { "\(url): \(reason)" }

    init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }

    init(_ error: FetchError) {
        self.init(url: error.url, reason: error.reason)
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

/// Wall-clock seconds for the library, a monotonic clock for durations.
public enum Clock {
    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
