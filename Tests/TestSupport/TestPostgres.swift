import Foundation
import Glibc
import Synchronization
import LibraryPostgres
import LibraryStore

/// A real PostgreSQL server for the tests (scripts/pg-test-server.sh): the one scripts/test.sh
/// started for the whole run (`FEEDCTL_TEST_PG` names its directory), else one this test
/// process starts on first use and stops when it exits. Each test gets a database of its own,
/// made from a template migrated once per schema.
public enum TestPostgres {
    /// The server's directory (its Unix socket is there).
    public static func serverDirectory() throws -> String {
        try server.get()
    }

    /// A new, empty, migrated database; its URL. `drop` it when done.
    public static func createDatabase() throws -> (name: String, url: String) {
        let dir = try serverDirectory()
        let template = "feedctl_template_" + PostgresLibrary.schemaFingerprint
        try withLock(dir + "/template.lock") {
            let exists = try psql(dir, "postgres", "SELECT 1 FROM pg_database WHERE datname = '\(template)'")
            if exists.trimmingCharacters(in: .whitespacesAndNewlines) != "1" {
                try psql(dir, "postgres", "CREATE DATABASE \(template)")
                // Migrated by the store itself; its connections close before the template is copied.
                try migrate(url(dir, template))
            }
        }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        // Copying a template needs nobody connected to it: the same lock as its migration.
        try withLock(dir + "/template.lock") { try psql(dir, "postgres", "CREATE DATABASE \(name) TEMPLATE \(template)") }
        return (name, url(dir, name))
    }

    /// A new database with nothing in it (not migrated); its URL. `drop` it when done.
    public static func createEmptyDatabase() throws -> (name: String, url: String) {
        let dir = try serverDirectory()
        let name = "e_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try psql(dir, "postgres", "CREATE DATABASE \(name)")
        return (name, url(dir, name))
    }

    /// Drops a database `createDatabase` made, whoever is still connected.
    public static func drop(_ name: String) {
        guard let dir = try? serverDirectory() else { return }
        _ = try? psql(dir, "postgres", "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// `postgresql://feedctl@/NAME?host=DIR`: libpq's URL with a socket directory.
    public static func url(_ dir: String, _ database: String) -> String {
        "postgresql://feedctl@/\(database)?host=\(dir)"
    }

    /// Runs `sql` with psql (as the server's superuser) and returns its unaligned output.
    @discardableResult
    public static func psql(_ dir: String, _ database: String, _ sql: String) throws -> String {
        try ProcessRunner.run("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", dir, "-U", "feedctl", "-d", database, "-tA", "-c", sql])
    }

    private static func migrate(_ url: String) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<Error?>(nil)
        Task {
            do { _ = try await PostgresLibrary(url: url, location: url, connections: 1) } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private static let server: Result<String, Error> = {
        if let dir = ProcessInfo.processInfo.environment["FEEDCTL_TEST_PG"], !dir.isEmpty { return .success(dir) }
        let dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("feedctl-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        let script = PackagePaths.root.appendingPathComponent("scripts/pg-test-server.sh").path
        // system(3), not Process: Foundation never saw this script exit (the server it leaves
        // running keeps something of the child's that its monitor waits for).
        let log = dir + ".log"
        let status = system("'\(script)' start '\(dir)' >'\(log)' 2>&1")
        defer { try? FileManager.default.removeItem(atPath: log) }
        guard status == 0 else {
            let why = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return .failure(ProcessRunner.Failure(description: "can't start the test PostgreSQL (\(script) start \(dir), status \(status)): \(why.suffix(600))"))
        }
        startedDirectory = strdup(dir)
        atexit {
            guard let dir = startedDirectory else { return }
            let path = String(cString: dir)
            let script = PackagePaths.root.appendingPathComponent("scripts/pg-test-server.sh").path
            _ = system("'\(script)' stop '\(path)' >/dev/null 2>&1")
            try? FileManager.default.removeItem(atPath: path)
        }
        return .success(dir)
    }()

    /// The directory of the server this process started (read by its exit handler).
    nonisolated(unsafe) private static var startedDirectory: UnsafeMutablePointer<CChar>?

    /// Runs `body` holding an exclusive lock on `path` (across the test processes sharing a server).
    private static func withLock(_ path: String, _ body: () throws -> Void) throws {
        let fd = open(path, O_CREAT | O_RDWR, 0o666)
        guard fd >= 0 else { throw ProcessRunner.Failure(description: "can't open the lock file \(path)") }
        defer { close(fd) }
        flock(fd, LOCK_EX)
        defer { flock(fd, LOCK_UN) }
        try body()
    }
}
