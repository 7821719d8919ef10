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

    /// Syncs `channels` concurrently (the fetcher bounds the transfers); `progress` is called as
    /// each one finishes. Results come back in the order of `channels`.
    public func sync(_ channels: [Channel], now: Int64 = Clock.now(),
                     progress: @escaping @Sendable (_ result: ChannelSyncResult, _ done: Int, _ total: Int) -> Void = { _, _, _ in }) async -> SyncReport {
        var results = [ChannelSyncResult?](repeating: nil, count: channels.count)
        await withTaskGroup(of: (Int, ChannelSyncResult).self) { group in
            for (index, channel) in channels.enumerated() {
                group.addTask { (index, await self.sync(channel, now: now)) }
            }
            var done = 0
            for await (index, result) in group {
                results[index] = result
                done += 1
                progress(result, done, channels.count)
            }
        }
        return SyncReport(channels: results.compactMap { $0 })
    }

    /// One channel's poll. Never throws: the outcome, error included, is in the result and the library.
    public func sync(_ channel: Channel, now: Int64 = Clock.now()) async -> ChannelSyncResult {
        let started = Clock.monotonic()
        var result = ChannelSyncResult(id: channel.id, name: channel.name, status: .unchanged, newItems: 0, error: nil, seconds: 0)
        do {
            let request = limits.request(channel.feedURL, etag: channel.etag, lastModified: channel.lastModified)
            let response = try await fetcher.fetch(request)
            if response.notModified {
                try library.recordSyncSuccess(channelID: channel.id, now: now, etag: response.etag,
                                              lastModified: response.lastModified, pollInterval: pollInterval)
            } else {
                let hash = BodyHash.of(response.body)
                if hash != channel.bodyHash {
                    let feed = try Self.parse(response)
                    let ingest = try library.ingest(feed, channelID: channel.id, now: now)
                    result.newItems = ingest.new
                    result.status = .updated
                }
                if response.permanentRedirect, response.finalURL != channel.feedURL {
                    // Best effort: another channel may already poll the new URL.
                    try? library.updateFeedURL(channelID: channel.id, to: response.finalURL)
                }
                try library.recordSyncSuccess(channelID: channel.id, now: now, etag: response.etag,
                                              lastModified: response.lastModified, bodyHash: hash, pollInterval: pollInterval)
            }
        } catch {
            let message = Self.message(for: error, url: channel.feedURL)
            result.status = .error
            result.error = message
            let retryAfter = (error as? FetchError)?.retryAfter.map(Int64.init)
            _ = try? library.recordSyncFailure(channelID: channel.id, error: message, now: now,
                                               retryAfter: retryAfter, pollInterval: pollInterval)
        }
        result.seconds = Clock.monotonic() - started
        return result
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
