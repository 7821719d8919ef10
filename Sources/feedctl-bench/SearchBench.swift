import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore

/// `search`'s latency on the 1,000,000-item library bench/modes builds (titles "Channel C item
/// I" in 2,000 channels "Channel C"; the same library, reused), first page of 20, next to the
/// same ranked FTS5 query run from Python's sqlite3 module on the same file (SQLite plus a thin
/// binding: what the store adds is the rest), and, as the peer without an index, a LIKE scan of titles and notes.
struct SearchBench {
    let out: String

    /// Typed queries over titles "Channel C item I" (C < 2,000, I < ~900) and channel names
    /// "Channel C": one item, a channel's items, a prefix being typed, accents, syntax, and words
    /// in every item ("channel", "item"), which are too common to rank (`SearchRule`).
    static let queries = [
        "channel 1717 item 5", "item 42 channel 9", "1717", "channel 1717", "channél 42 item 3", "item 804 chan",
        "\"channel 500\" AND (item", "channel 12 item 1", "channel", "item",
    ]

    func run() async throws {
        let path = try await ModesBench(out: out).preparedLibrary()
        let library = try SQLiteLibrary(path: path)
        print("search, first page (20 items), 100 runs per query after 5 warm-up runs; target p99 < 20 ms")
        var all: [Double] = []
        var shellAll: [Double] = []
        for text in Self.queries {
            var times: [Double] = []
            var count = 0
            for run in 0..<105 {
                let start = monotonicSeconds()
                count = try await library.search(SearchQuery(text: text, page: .first(20))).count
                if run >= 5 { times.append((monotonicSeconds() - start) * 1000) }
            }
            times.sort()
            all += times
            let shell = try shellTimes(path: path, text: text, runs: 100, library: library)
            shellAll += shell
            // A split search (`SearchPlan.Split`) is two statements; the peer runs the one AND
            // it would be without the split.
            let split = try library.searchPlan(text)?.split == true
            let shellText = shell.isEmpty ? "python sqlite3: n/a"
                : String(format: "python sqlite3 p50 %7.3f ms p99 %7.3f ms%@", percentile(shell, 50), percentile(shell, 99),
                         split ? " (one AND; feedctl split it)" : "")
            print(("\"" + text + "\"").padding(toLength: 24, withPad: " ", startingAt: 0)
                  + String(format: " %2d items  p50 %7.3f ms  p99 %7.3f ms   ", count, percentile(times, 50), percentile(times, 99))
                  + shellText)
        }
        all.sort()
        shellAll.sort()
        let p99 = percentile(all, 99)
        print(String(format: "all queries: p50 %.3f ms, p99 %.3f ms (target p99 < 20 ms: %@)", percentile(all, 50), p99,
                     p99 < 20 ? "met" : "MISSED"))
        if !shellAll.isEmpty {
            print(String(format: "python sqlite3, same SQL: p50 %.3f ms, p99 %.3f ms; feedctl/python p50 %.2fx, p99 %.2fx",
                         percentile(shellAll, 50), percentile(shellAll, 99),
                         percentile(all, 50) / percentile(shellAll, 50), p99 / percentile(shellAll, 99)))
        }
        if let like = likeScan(path: path, word: "item 4242") {
            print(String(format: "peer without an index: LIKE '%%item 4242%%' over titles and notes, first 20: %.1f ms (median of 3)", like))
        }
    }

    /// The store's own SQL for `text` (no filters), as the shell runs it.
    private func shellSQL(match: String, ranked: Bool) -> String {
        let quoted = match.replacingOccurrences(of: "'", with: "''")
        return """
            SELECT \(LibraryItem.selection) FROM items_search CROSS JOIN items i ON i.id = items_search.rowid
                CROSS JOIN channels c ON c.id = i.channel_id CROSS JOIN subscriptions s ON s.user_id = 1 AND s.channel_id = i.channel_id
                LEFT JOIN watch_state w ON w.user_id = s.user_id AND w.item = i.id
            WHERE items_search MATCH '\(quoted)' ORDER BY \(ranked ? "items_search.rank" : "items_search.rowid DESC") LIMIT 20
            """
    }

    /// Milliseconds per run of the same SQL through Python's sqlite3 module (the system
    /// SQLite, as ours; `time.perf_counter`, rows fetched), warm-up runs dropped. The sqlite3
    /// shell's `.timer` only resolves milliseconds, too coarse for these queries.
    private func shellTimes(path: String, text: String, runs: Int, library: SQLiteLibrary) throws -> [Double] {
        // The query and order the store chose: the peer runs what the store ran.
        guard let plan = try library.searchPlan(text) else { return [] }
        let sql = shellSQL(match: plan.match, ranked: plan.ranked)
        // bench/search runs from the package's root.
        guard let output = Shell.run(["python3", "bench/search_peer.py", path, String(runs)], input: sql) else { return [] }
        return output.split(separator: "\n").compactMap { Double($0) }.sorted()
    }

    /// A LIKE scan (no index can help): the first 20 items whose title or notes contain `word`.
    private func likeScan(path: String, word: String) -> Double? {
        let sql = "SELECT id FROM items WHERE title LIKE '%\(word)%' OR description LIKE '%\(word)%' LIMIT 20;"
        let script = ".timer on\n.output /dev/null\n" + String(repeating: sql + "\n", count: 3)
        guard let output = Shell.run(["sqlite3", "-readonly", path], input: script) else { return nil }
        let times = output.split(separator: "\n").compactMap { line -> Double? in
            guard line.hasPrefix("Run Time: real ") else { return nil }
            return line.split(separator: " ").dropFirst(3).first.flatMap { Double($0) }.map { $0 * 1000 }
        }.sorted()
        return times.isEmpty ? nil : times[times.count / 2]
    }
}

/// Runs a command with `input` on stdin; its stdout, or nil if it failed.
enum Shell {
    static func run(_ command: [String], input: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}
