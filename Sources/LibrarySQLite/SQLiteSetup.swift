import CSQLite

/// Configures SQLite for this process once, before the first library opens: GRDB already runs
/// each connection on one thread at a time, so SQLite's own per-call mutexes and its global
/// allocation statistics only cost time (a tenth of a big ingest).
enum SQLiteSetup {
    /// Too late (SQLite already initialized by someone else) only means the defaults stay.
    static let once: Void = { _ = feedctl_sqlite3_configure() }()
}
