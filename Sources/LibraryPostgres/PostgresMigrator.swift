import FeedModel
import Glibc
import LibraryStore

/// Numbered, forward-only migrations, applied by one process at a time: an advisory lock held
/// for the whole run, so replicas and workers starting together wait for the first one and then
/// find nothing to do. Each migration runs in its own transaction with the row that records it.
enum PostgresMigrator {
    /// The advisory lock's key ("feedctl" in ASCII, as a number): any process migrating this
    /// database takes the same one.
    static let lockKey: Int64 = 0x66_65_65_64_63_74_6c

    /// `ownerName` names the owner a new library makes (user 1), as SQLite's names them after `$USER`.
    static func migrate(_ connection: PGConnection, _ migrations: [(name: String, sql: String)],
                        ownerName: String = environmentOwnerName()) throws(LibraryError) {
        try connection.query("SELECT set_config('feedctl.owner_name', $1, false)", [ownerName])
        try connection.query("SELECT pg_advisory_lock($1)", [lockKey])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [lockKey]) }
        try connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        let done = Set(try applied(connection))
        for migration in migrations where !done.contains(migration.name) {
            try connection.transaction { connection throws(LibraryError) in
                try connection.execute(migration.sql)
                try connection.query("INSERT INTO schema_migrations (name) VALUES ($1)", [migration.name])
            }
        }
    }

    /// The migrations applied, oldest first.
    static func applied(_ connection: PGConnection) throws(LibraryError) -> [String] {
        try connection.query("SELECT name FROM schema_migrations ORDER BY applied_at, name").rows.map { row throws(LibraryError) in try row.get(0) }
    }

    /// `$USER` when it is a usable user name, else `LibraryUsers.fallbackOwnerName` (SQLite's rule).
    static func environmentOwnerName() -> String {
        getenv("USER").map { String(cString: $0) }.flatMap(LibraryUsers.validName) ?? LibraryUsers.fallbackOwnerName
    }
}
