import Discovery
import FeedModel
import Foundation
import HTTPFetch
import LibrarySQLite
import LibraryStore

/// bench/discover. Two parts:
/// - the federation: providers on loopback (the test server's `/delay/S/…`, an iTunes-shaped
///   answer) answering after 50, 150, 300 and 500 ms, asked at once, 20 rounds: the search's
///   total against its slowest provider's own time (target: within the slowest + 50 ms);
/// - the library's part alone: `LibraryProvider` on bench/modes' 1,000,000-item library (the
///   same file bench/search uses), bench/search's queries, 100 runs each (target p99 < 20 ms).
struct DiscoverBench {
    let out: String
    let serverScript: String

    static let delays = [0.05, 0.15, 0.3, 0.5]

    func run() async throws {
        try await federation()
        try await libraryPart()
    }

    private func federation() async throws {
        let root = (out as NSString).appendingPathComponent("discover-root")
        try FileManager.default.createDirectory(atPath: root + "/itunes", withIntermediateDirectories: true)
        let results = (0..<10).map { i in
            #"{"wrapperType": "track", "kind": "podcast", "collectionId": \#(i), "collectionName": "Podcast \#(i)", "feedUrl": "https://feeds.example.com/\#(i).xml"}"#
        }
        try #"{"resultCount": 10, "results": [\#(results.joined(separator: ","))]}"#.write(toFile: root + "/itunes/search", atomically: true, encoding: .utf8)
        let (server, port) = try startServer(root: root)
        defer { server.terminate() }
        let fetcher = Fetcher()
        let providers: [any DiscoveryProvider] = Self.delays.map {
            ITunesProvider(baseURL: "http://127.0.0.1:\(port)/delay/\($0)/itunes", fetcher: fetcher)
        }
        let federation = FederatedSearch(providers: providers, channels: nil)
        print("federation: \(providers.count) loopback providers answering after \(Self.delays.map { "\(Int($0 * 1000))" }.joined(separator: ", ")) ms, 20 rounds after 2 warm-up rounds; target: total ≤ slowest provider + 50 ms")
        var overheads: [Double] = []
        var totals: [Double] = []
        for round in 0..<22 {
            let start = monotonicSeconds()
            let answer = await federation.search(DiscoveryRequest(query: "bench", kind: .channels))
            let total = (monotonicSeconds() - start) * 1000
            guard answer.failed.isEmpty else { throw BenchError("a provider failed: \(answer.failed.map { "\($0.provider): \($0.failure?.message ?? "")" })") }
            let slowest = Double(answer.outcomes.map(\.milliseconds).max() ?? 0)
            if round >= 2 { overheads.append(total - slowest); totals.append(total) }
        }
        overheads.sort(); totals.sort()
        let worst = overheads.last ?? .nan
        print(String(format: "total p50 %.1f ms, max %.1f ms; over the slowest provider's own time: p50 %.2f ms, max %.2f ms (target ≤ 50 ms: %@)",
                     percentile(totals, 50), totals.last ?? .nan, percentile(overheads, 50), worst, worst <= 50 ? "met" : "MISSED"))
    }

    private func libraryPart() async throws {
        let path = try await ModesBench(out: out).preparedLibrary()
        let library = try SQLiteLibrary(path: path)
        let provider = LibraryProvider(store: library)
        print("the library's part alone (LibraryProvider, first 10 results), bench/search's queries, 100 runs each after 5 warm-up runs; target p99 < 20 ms")
        var all: [Double] = []
        for text in SearchBench.queries {
            var times: [Double] = []
            for run in 0..<105 {
                let start = monotonicSeconds()
                _ = try await provider.search(DiscoveryRequest(query: text, kind: .videos, limit: 10))
                if run >= 5 { times.append((monotonicSeconds() - start) * 1000) }
            }
            times.sort()
            all += times
            print(("\"" + text + "\"").padding(toLength: 24, withPad: " ", startingAt: 0)
                  + String(format: " p50 %7.3f ms  p99 %7.3f ms", percentile(times, 50), percentile(times, 99)))
        }
        all.sort()
        let p99 = percentile(all, 99)
        print(String(format: "library part: p50 %.3f ms, p99 %.3f ms (target p99 < 20 ms: %@)", percentile(all, 50), p99, p99 < 20 ? "met" : "MISSED"))
    }

    /// Tests/Support/http_server.py on a free port (its first line).
    private func startServer(root: String) throws -> (Process, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", serverScript, "--root", root]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = Pipe()
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([10]) { line += byte }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)) else {
            throw BenchError("the loopback server did not start")
        }
        return (process, port)
    }
}
