import Foundation
import GRDB
import LibraryStore

/// A library in one SQLite file (WAL, so readers never wait for a sync's writes): channels and
/// their items (shared by every user), and each user's subscriptions, watch state, saved items,
/// collections, play history, queue and player state; chapters files.
/// Implements every `LibraryStore` protocol, and `UserStore`; the methods live in one extension per use.
///
/// A value acts for one user (`user`): every per-user query is scoped to them, and another
/// user's items, channels, collections and queue entries are "not found" to it. `acting(as:)`
/// makes a value for another user on the same database pool (the server picks one per request).
///
/// Thread-safe: every method may be called from any task. Writes are serialized by the pool;
/// reads run concurrently on their own connections.
public final class SQLiteLibrary: LibraryStore, UserStore {
    /// The database file.
    public let path: String
    /// Whom this value acts for.
    public let user: UserID
    let pool: DatabasePool
    /// `readNow`'s connections, shared by every value acting on this pool.
    let inPlaceReaders: InPlaceReaders

    /// Opens (creating if needed, with its directory) and migrates the library at `path`, acting
    /// for `user` (the owner unless said otherwise; the CLI and the daemon act for the owner).
    public convenience init(path: String, user: UserID = .owner) throws(LibraryError) {
        try self.init(path: path, migrateUpTo: nil, user: user)
    }

    /// The same library acting for `user`, on the same database pool (no new connections). The
    /// user is not checked here: a user that does not exist (or was removed) follows nothing and
    /// owns nothing, so every per-user lookup finds nothing, and writes fail.
    public func acting(as user: UserID) -> SQLiteLibrary {
        SQLiteLibrary(pool: pool, inPlaceReaders: inPlaceReaders, path: path, user: user)
    }

    private init(pool: DatabasePool, inPlaceReaders: InPlaceReaders, path: String, user: UserID) {
        self.pool = pool; self.inPlaceReaders = inPlaceReaders; self.path = path; self.user = user
    }

    /// `migrateUpTo` stops after the named migration (tests build old schemas with it);
    /// `busyTimeout` is how long a write waits for another connection's lock (tests shorten it).
    package init(path: String, migrateUpTo lastMigration: String?, user: UserID = .owner,
                 busyTimeout: Double = 60) throws(LibraryError) {
        self.path = path
        self.user = user
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .database(DatabaseFailure(kind: .cannotOpen, message: "can't create its directory: \(error.localizedDescription)", path: path))
            }
        }
        let config = Self.configuration(busyTimeout: busyTimeout)
        do {
            pool = try DatabasePool(path: path, configuration: config)
            inPlaceReaders = InPlaceReaders(path: path, configuration: config)
            if let lastMigration {
                try Schema.migrator.migrate(pool, upTo: lastMigration)
            } else {
                try Schema.migrator.migrate(pool)
            }
        } catch {
            throw LibraryError.wrap(error, path: path)
        }
    }

    /// How every connection to a library file is set up (the pool's, `db copy`'s).
    static func configuration(busyTimeout: Double) -> Configuration {
        SQLiteSetup.once
        var config = Configuration()
        config.foreignKeysEnabled = true
        // Another process holding the write lock (a sync's batch, a big ingest) is waited for, up
        // to a minute: the largest transaction (a batch of feeds at the size cap) stays well under
        // it, and syncs commit in small batches with gaps between them. At 10 s a `progress`
        // during a 2 GB ingest once failed with "database is locked".
        config.busyMode = .timeout(busyTimeout)
        config.prepareDatabase { db in
            // 16 KiB pages for a new file (an existing one keeps its size): items are ~1 KiB
            // rows, and bigger pages mean fewer page splits and WAL frames per ingested item.
            // WAL makes NORMAL durable across crashes of the process (not of the OS); a cache
            // that holds a big feed's pages keeps ingest from re-reading and re-writing them.
            // Temporary tables and statement journals (ingest's staging table) stay in memory.
            try db.execute(sql: "PRAGMA page_size = 16384; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768; PRAGMA temp_store = MEMORY")
            // The search index's terms, one row per occurrence, read only by seeks (`term >= ?
            // LIMIT 1`) to spell a prefix as the words it stands for (`SearchPlan`). A per-connection
            // temp table: no schema change, and reading it never writes the file. Created before the
            // index exists (a new file) it is only a name until a search reads it.
            try db.execute(sql: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.\(SearchPlan.termsTable) USING fts5vocab(main, items_search, 'instance')")
        }
        return config
    }

    /// Names of all migrations, oldest first (the bench times them one by one).
    package static var migrationNames: [String] { Schema.migrationNames }

    /// Copies the WAL into the database file and empties it (the bench copies the file).
    package func checkpoint() async throws(LibraryError) {
        do {
            try await pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw LibraryError.wrap(error, path: path)
        }
    }

    /// Names of the migrations applied to this database, oldest first.
    public func appliedMigrations() async throws(LibraryError) -> [String] {
        try await read { db in try Schema.migrator.appliedMigrations(db) }
    }

    // Typed-throws doors into GRDB: everything goes through these two. GRDB's async variants run
    // the closure on the pool's own queues, so a caller's task never blocks on SQLite.

    package func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(LibraryError) -> T {
        do { return try await pool.read(body) } catch { throw LibraryError.wrap(error, path: path) }
    }

    /// A short read on the caller's thread, on a connection of its own (`InPlaceReaders`; GRDB's
    /// pool past their limit). For the server's per-request reads that take well under a
    /// millisecond (a session, a feed page with its summed total), where the async `read`'s two
    /// thread switches cost more than the query (bench/serve). A WAL reader never waits for a
    /// writer, so the caller is held only for the query itself. Never for a read whose cost
    /// grows with the library.
    ///
    /// One snapshot for the whole body, as `read` gives, but begun and committed with cached
    /// statements: GRDB's own read prepares its BEGIN and COMMIT anew every time, which cost a
    /// fifth of such a read. With `oneStatement` (a body that runs a single SELECT, which is its
    /// own snapshot, or reads more only when that one found nothing) there is no transaction.
    package func readNow<T>(oneStatement: Bool = false, _ body: (Database) throws -> T) throws(LibraryError) -> T {
        func snapshot(_ db: Database) throws -> T {
            if oneStatement { return try body(db) }
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            defer {
                // A reader's COMMIT does not fail in practice; if it did, the connection must
                // not be used again inside a transaction.
                do { try db.cachedStatement(sql: "COMMIT").execute() } catch { try? db.execute(sql: "ROLLBACK") }
            }
            return try body(db)
        }
        do {
            if let reader = try inPlaceReaders.reader() { return try reader.unsafeRead(snapshot) }
            return try pool.unsafeRead(snapshot)
        } catch {
            throw LibraryError.wrap(error, path: path)
        }
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(LibraryError) -> T {
        do { return try await pool.write(body) } catch { throw LibraryError.wrap(error, path: path) }
    }
}

extension SQLiteLibrary: LibraryDatabase {
    public var location: String { path }
    public func store(for user: UserID) -> any UserLibrary { acting(as: user) }
    public var changes: any ChangeFeed { self }
}
