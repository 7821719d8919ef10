import FeedModel
import LibraryStore

/// A library in a PostgreSQL database: the same protocols as the SQLite library, for a server
/// that outgrows one machine (several `feedctl serve` replicas and `feedctl worker`s on one
/// database). Channels and items are shared by every user; everything a person does with them is
/// theirs alone, as in the SQLite library (see `LibraryStore`'s Stores.swift).
///
/// A value acts for one user (`user`); `store(for:)` makes a value for another user on the same
/// connection pool. Thread-safe: every method may be called from any task; statements run on the
/// pool's connections, each on its own queue.
public final class PostgresLibrary: Sendable {
    /// Whom this value acts for.
    public let user: UserID
    let pool: PGPool
    /// The change log's notifications, shared by every value on this pool.
    let listener: PGChangeListener

    /// Connects to `url` (libpq's form: `postgresql://user@host/db`, `?host=/socket/dir`) and
    /// migrates the database (one process at a time: `PostgresMigrator`). `location` is the URL
    /// as messages show it (without a password); `connections` bounds the pool.
    public init(url: String, location: String, connections: Int = 4, user: UserID = .owner) async throws(LibraryError) {
        pool = PGPool(url: url, location: location, size: connections)
        listener = PGChangeListener(url: url, location: location)
        self.user = user
        try await pool.withConnection { connection throws(LibraryError) in
            try PostgresMigrator.migrate(connection, PostgresSchema.migrations)
        }
    }

    private init(pool: PGPool, listener: PGChangeListener, user: UserID) {
        self.pool = pool
        self.listener = listener
        self.user = user
    }

    /// The same library acting for `user`, on the same pool.
    public func acting(as user: UserID) -> PostgresLibrary { PostgresLibrary(pool: pool, listener: listener, user: user) }

    public func waitForChange(after seq: Int64, poll: Duration, timeout: Duration) async {
        await listener.wait(after: seq, poll: poll, timeout: timeout)
    }

    public var location: String { pool.location }

    public func appliedMigrations() async throws(LibraryError) -> [String] {
        try await read { connection throws(LibraryError) in try PostgresMigrator.applied(connection) }
    }

    // The doors to the pool: every method goes through these.

    /// Runs `body` on a connection; each statement is its own snapshot (a body that needs one
    /// snapshot for several statements uses `snapshot`).
    func read<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws(LibraryError) -> T) async throws(LibraryError) -> T {
        try await pool.withConnection(body)
    }

    /// Runs `body` in one read-only REPEATABLE READ transaction: every statement sees the same snapshot.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws(LibraryError) -> T) async throws(LibraryError) -> T {
        try await pool.withConnection { connection throws(LibraryError) in
            try connection.transaction("REPEATABLE READ READ ONLY", body)
        }
    }

    /// Runs `body` in a READ COMMITTED transaction, run again (up to `writeAttempts` in all)
    /// when PostgreSQL gave it up for a concurrent one (a deadlock, a serialization failure).
    /// The body must be safe to run again: it re-reads what it decides on.
    func write<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws(LibraryError) -> T) async throws(LibraryError) -> T {
        var attempt = 1
        while true {
            do throws(LibraryError) {
                return try await pool.withConnection { connection throws(LibraryError) in try connection.transaction("READ COMMITTED", body) }
            } catch {
                guard attempt < Self.writeAttempts, error.databaseFailure?.kind == .serializationFailure else { throw error }
                attempt += 1
            }
        }
    }

    static let writeAttempts = 3

    /// Names the schema the migrations make (their names and text, hashed): the tests keep one
    /// migrated template database per schema.
    package static var schemaFingerprint: String {
        // FNV-1a, 64 bits: stable across processes (Swift's Hasher is seeded per process).
        var hash: UInt64 = 0xcbf29ce484222325
        for migration in PostgresSchema.migrations {
            for byte in (migration.name + "\u{0}" + migration.sql + "\u{0}").utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100000001b3
            }
        }
        return String(hash, radix: 16)
    }
}

extension PostgresLibrary: LibraryStore, UserStore, SyncDeviceStore, EpisodeActionStore, ChangeFeed, LibraryDatabase {
    public func store(for user: UserID) -> any UserLibrary { acting(as: user) }
    public var changes: any ChangeFeed { self }
}
