import Foundation
import FeedIngest

/// Items/s inserting the corpus into a fresh library, in one transaction (a batched sync) and in
/// one transaction per feed, then the time of a re-ingest where nothing changed.
struct IngestBench {
    let corpus: String
    let out: String

    func run() throws {
        let feeds = try CorpusItems.load(corpus)
        let total = feeds.reduce(0) { $0 + $1.items.count }
        print("corpus: \(feeds.count) feeds, \(total) items (\(corpus))")
        let oneTransaction = try median(of: 3) { try measure(feeds, batched: true) }
        // FEEDCTL_BENCH_ONLY=batched skips the per-feed runs (for profiling).
        if ProcessInfo.processInfo.environment["FEEDCTL_BENCH_ONLY"] == "batched" {
            return print(String(format: "median: insert %.0f items/s in one transaction", oneTransaction.rate))
        }
        let perFeed = try median(of: 3) { try measure(feeds, batched: false) }
        print(String(format: "median: insert %.0f items/s in one transaction (target >= 100000: %@), %.0f items/s with one transaction per feed",
                     oneTransaction.rate, oneTransaction.rate >= 100_000 ? "met" : "MISSED", perFeed.rate))
        print(String(format: "median: no-change re-ingest %.3f s in one transaction, %.3f s with one per feed",
                     oneTransaction.reingest, perFeed.reingest))
    }

    private func median(of runs: Int, _ body: () throws -> (rate: Double, reingest: Double)) rethrows -> (rate: Double, reingest: Double) {
        var results: [(rate: Double, reingest: Double)] = []
        for _ in 0..<runs { results.append(try body()) }
        return (results.map(\.rate).sorted()[runs / 2], results.map(\.reingest).sorted()[runs / 2])
    }

    /// Inserts every feed into a fresh library, then ingests them all again unchanged.
    private func measure(_ feeds: [CorpusFeed], batched: Bool) throws -> (rate: Double, reingest: Double) {
        let path = (out as NSString).appendingPathComponent("ingest.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let library = try Library(path: path)
        var batch: [(channelID: Int64, feed: Feed)] = []
        for feed in feeds {
            let id = try library.addChannel(platform: feed.platform, sourceURL: feed.sourceURL, feedURL: feed.feedURL,
                                            name: feed.name, now: 1).id
            batch.append((id, Feed(kind: .rss, title: feed.name, items: feed.items)))
        }
        func ingestAll(now: Int64) throws -> [IngestResult] {
            if batched { return try library.ingest(batch, now: now) }
            return try batch.map { try library.ingest($0.feed, channelID: $0.channelID, now: now) }
        }
        let start = monotonicSeconds(), startCPU = cpuSeconds()
        let inserted = try ingestAll(now: 2).reduce(0) { $0 + $1.new }
        let seconds = monotonicSeconds() - start, cpu = cpuSeconds() - startCPU
        let again = monotonicSeconds()
        let changed = try ingestAll(now: 3).reduce(0) { $0 + $1.new + $1.updated }
        let reingest = monotonicSeconds() - again
        guard changed == 0 else { throw BenchError("re-ingest changed \(changed) items; expected none") }
        print(String(format: "%@: inserted %d items in %.3f s (%.3f s CPU) = %.0f items/s; no-change re-ingest %.3f s",
                     batched ? "one transaction " : "transaction/feed", inserted, seconds, cpu, Double(inserted) / seconds, reingest))
        return (Double(inserted) / seconds, reingest)
    }
}
