import Foundation

/// Library benchmarks (never run by `swift test`; see bench/ingest and bench/modes).
///
///     feedctl-bench ingest CORPUS_DIR OUT_DIR
///     feedctl-bench modes OUT_DIR
///     feedctl-bench search OUT_DIR     (bench/search)
///     feedctl-bench migrate OUT_DIR    (bench/migrate)
///     feedctl-bench discover OUT_DIR SERVER_SCRIPT   (bench/discover)
@main
struct Bench {
    static func main() async {
        let args = Array(CommandLine.arguments.dropFirst())
        do {
            switch (args.first, args.count) {
            case ("ingest", 3): try await IngestBench(corpus: args[1], out: args[2]).run()
            case ("modes", 2): try await ModesBench(out: args[1]).run()
            case ("search", 2): try await SearchBench(out: args[1]).run()
            case ("migrate", 2): try await MigrateBench(out: args[1]).run()
            case ("discover", 3): try await DiscoverBench(out: args[1], serverScript: args[2]).run()
            default:
                printError("usage: feedctl-bench ingest CORPUS_DIR OUT_DIR | modes OUT_DIR | search OUT_DIR | migrate OUT_DIR | discover OUT_DIR SERVER_SCRIPT")
                exit(2)
            }
        } catch {
            printError("feedctl-bench: \(error)")
            exit(1)
        }
    }
}

/// Monotonic seconds.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds (user + system) this process has used: next to wall time it shows how much a
/// run lost to other processes on a shared machine.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
