import Foundation
import FeedIngest

/// Items/s inserting the corpus into a fresh library (one transaction per feed, as a sync
/// writes), then the time of a re-ingest where nothing changed.
struct IngestBench {
    let corpus: String
    let out: String

    func run() throws {
        let feeds = try CorpusItems.load(corpus)
        let total = feeds.reduce(0) { $0 + $1.items.count }
        print("corpus: \(feeds.count) feeds, \(total) items (\(corpus))")
        var rates: [Double] = []
        var reingests: [Double] = []
        for run in 1...3 {
            let path = (out as NSString).appendingPathComponent("ingest.sqlite")
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            let library = try Library(path: path)
            var ids: [Int64] = []
            for feed in feeds {
                ids.append(try library.addChannel(platform: feed.platform, sourceURL: feed.sourceURL, feedURL: feed.feedURL,
                                                  name: feed.name, now: 1).id)
            }
            var inserted = 0
            let start = monotonicSeconds(), startCPU = cpuSeconds()
            for (feed, id) in zip(feeds, ids) {
                inserted += try library.ingest(items: feed.items, channelID: id, now: 2).new
            }
            let insertSeconds = monotonicSeconds() - start, insertCPU = cpuSeconds() - startCPU
            var changed = 0
            let again = monotonicSeconds()
            for (feed, id) in zip(feeds, ids) {
                let r = try library.ingest(items: feed.items, channelID: id, now: 3)
                changed += r.new + r.updated
            }
            let reingestSeconds = monotonicSeconds() - again
            guard changed == 0 else { throw BenchError("re-ingest changed \(changed) items; expected none") }
            rates.append(Double(inserted) / insertSeconds)
            reingests.append(reingestSeconds)
            print(String(format: "run %d: inserted %d items in %.3f s (%.3f s CPU) = %.0f items/s; no-change re-ingest %.3f s (%.0f items/s)",
                         run, inserted, insertSeconds, insertCPU, Double(inserted) / insertSeconds, reingestSeconds,
                         Double(total) / reingestSeconds))
        }
        let rate = rates.sorted()[1]
        let reingest = reingests.sorted()[1]
        print(String(format: "median: insert %.0f items/s (target >= 100000: %@), no-change re-ingest %.3f s",
                     rate, rate >= 100_000 ? "met" : "MISSED", reingest))
    }
}
