import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore

/// Items/s inserting the corpus into a fresh library, in one transaction (a batched sync) and in
/// one transaction per feed, then the time of a re-ingest where nothing changed.
struct IngestBench {
    let corpus: String
    let out: String

    func run() async throws {
        let feeds = try CorpusItems.load(corpus)
        let total = feeds.reduce(0) { $0 + $1.items.count }
        print("corpus: \(feeds.count) feeds, \(total) items (\(corpus))")
        let oneTransaction = try await median(of: 3) { try await measure(feeds, batched: true) }
        // FEEDCTL_BENCH_ONLY=batched skips the per-feed runs (for profiling).
        if ProcessInfo.processInfo.environment["FEEDCTL_BENCH_ONLY"] == "batched" {
            return print(String(format: "median: insert %.0f items/s in one transaction", oneTransaction.rate))
        }
        let floor = sqliteShellRate(items: total)
        let perFeed = try await median(of: 3) { try await measure(feeds, batched: false) }
        print(String(format: "median: insert %.0f items/s in one transaction (target >= 100000: %@), %.0f items/s with one transaction per feed",
                     oneTransaction.rate, oneTransaction.rate >= 100_000 ? "met" : "MISSED", perFeed.rate))
        print(String(format: "median: no-change re-ingest %.3f s in one transaction, %.3f s with one per feed",
                     oneTransaction.reingest, perFeed.reingest))
        if let floor {
            print(String(format: "reference: the sqlite3 shell copying the same rows into the same schema: %.0f items/s (feedctl at %.2fx of it)",
                         floor, oneTransaction.rate / floor))
        }
    }

    /// SQLite's own speed on this machine for the same rows, schema and settings: the sqlite3
    /// shell copies the items the last run stored into a fresh library with one INSERT … SELECT
    /// (no per-row statements or bindings; a column list, so not SQLite's raw page-copy
    /// shortcut). Median of 3; nil when the shell is missing.
    private func sqliteShellRate(items: Int) -> Double? {
        let source = (out as NSString).appendingPathComponent("ingest.sqlite")
        let target = (out as NSString).appendingPathComponent("ingest-shell.sqlite")
        let columns = "channel_id, item_id, guid, title, url, published, updated, duration, enclosure_url, enclosure_type, "
            + "enclosure_length, thumbnail, author, description, views, is_short, episode, season, chapters_url, "
            + "transcript_url, discovered_at"
        var rates: [Double] = []
        for _ in 0..<3 {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: target + suffix) }
            guard (try? SQLiteLibrary(path: target)) != nil else { return nil } // the same schema and page size
            let script = """
                PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768; PRAGMA foreign_keys = ON;
                ATTACH '\(source)' AS src;
                INSERT INTO channels SELECT * FROM src.channels;
                .timer on
                INSERT INTO items (\(columns)) SELECT \(columns) FROM src.items ORDER BY id;
                """
            guard let output = Shell.run(["sqlite3", target], input: script),
                  let line = output.split(separator: "\n").last(where: { $0.hasPrefix("Run Time: real ") }),
                  let seconds = line.split(separator: " ").dropFirst(3).first.flatMap({ Double($0) }), seconds > 0
            else { return nil }
            rates.append(Double(items) / seconds)
        }
        return rates.sorted()[1]
    }

    private func median(of runs: Int, _ body: () async throws -> (rate: Double, reingest: Double)) async rethrows -> (rate: Double, reingest: Double) {
        var results: [(rate: Double, reingest: Double)] = []
        for _ in 0..<runs { results.append(try await body()) }
        return (results.map(\.rate).sorted()[runs / 2], results.map(\.reingest).sorted()[runs / 2])
    }

    /// Inserts every feed into a fresh library, then ingests them all again unchanged, as a sync
    /// stores them: each feed a changed poll of its channel (`SyncStore.apply`).
    private func measure(_ feeds: [CorpusFeed], batched: Bool) async throws -> (rate: Double, reingest: Double) {
        let path = (out as NSString).appendingPathComponent("ingest.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let library = try SQLiteLibrary(path: path)
        let subscriptions = feeds.map { feed in
            Poll(subject: .subscription(NewChannel(platform: feed.platform, sourceURL: feed.sourceURL, feedURL: feed.feedURL,
                                                   name: feed.name, reach: .anyAddress)), outcome: .notFetched)
        }
        let ids = try await library.apply(subscriptions, now: 1).map { try $0.get().channelID }
        let polls = zip(ids, feeds).map { id, feed in
            Poll(subject: .channel(id: id), outcome: .changed(Validators(), Feed(kind: .rss, title: feed.name, items: feed.items)))
        }
        func ingestAll(now: Int64) async throws -> [IngestResult] {
            var results: [Result<PollApplied, LibraryError>] = []
            if batched {
                results = await library.apply(polls, now: now)
            } else {
                for poll in polls { results += await library.apply([poll], now: now) }
            }
            return try results.map { try $0.get().ingest }
        }
        let start = monotonicSeconds(), startCPU = cpuSeconds()
        let inserted = try await ingestAll(now: 2).reduce(0) { $0 + $1.new }
        let seconds = monotonicSeconds() - start, cpu = cpuSeconds() - startCPU
        let again = monotonicSeconds()
        let changed = try await ingestAll(now: 3).reduce(0) { $0 + $1.new + $1.updated }
        let reingest = monotonicSeconds() - again
        guard changed == 0 else { throw BenchError("re-ingest changed \(changed) items; expected none") }
        print(String(format: "%@: inserted %d items in %.3f s (%.3f s CPU) = %.0f items/s; no-change re-ingest %.3f s",
                     batched ? "one transaction " : "transaction/feed", inserted, seconds, cpu, Double(inserted) / seconds, reingest))
        return (Double(inserted) / seconds, reingest)
    }
}
