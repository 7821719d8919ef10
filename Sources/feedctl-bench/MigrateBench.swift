import Foundation
import LibrarySQLite

/// How long upgrading a big library takes: the 1,000,000-item bench library (bench/modes'
/// generator) built at `v6-speed-range`, the last schema before issue 13, then copied and
/// migrated one step at a time, each step timed (v7 rebuilds items and channels, v8 builds the
/// search index).
struct MigrateBench {
    let out: String
    static let version = "migrate-library/1"
    static let from = "v6-speed-range"

    func run() async throws {
        let base = (out as NSString).appendingPathComponent("migrate-1m-v6.sqlite")
        let marker = base + ".done"
        if (try? String(contentsOfFile: marker, encoding: .utf8)) != Self.version {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: base + suffix) }
            let start = monotonicSeconds()
            let library = try SQLiteLibrary(path: base, migrateUpTo: Self.from)
            var generator = LibraryGenerator(library: library)
            try await generator.generate()
            try await library.checkpoint()
            try Self.version.write(toFile: marker, atomically: true, encoding: .utf8)
            print(String(format: "built %@ at %@ in %.1f s", base, Self.from, monotonicSeconds() - start))
        } else {
            print("using cached \(base)")
        }
        let work = (out as NSString).appendingPathComponent("migrate-1m-work.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: work + suffix) }
        try FileManager.default.copyItem(atPath: base, toPath: work)
        let steps = Array(SQLiteLibrary.migrationNames.drop { $0 != Self.from }.dropFirst())
        var total = 0.0
        for step in steps {
            let start = monotonicSeconds()
            _ = try SQLiteLibrary(path: work, migrateUpTo: step)
            let seconds = monotonicSeconds() - start
            total += seconds
            print(String(format: "%-22@ %6.1f s", step, seconds))
        }
        print(String(format: "upgrade from %@ to the current schema: %.1f s for 1,000,000 items", Self.from, total))
    }
}
