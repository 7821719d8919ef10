/// A library's tables read and written as rows of plain values, whatever the engine: what
/// `feedctl db copy` moves a whole library with. Not through the store protocols, which show no
/// token hashes, sync stamps or counters as they are stored: every table the library's state is
/// in is carried row by row with its ids, so the copy answers every question as the original
/// does. Both engines' schemas use the same table and column names.
///
/// A derived table is not carried: the target makes it again (the search index; SQLite's
/// `search_state` and `sqlite_sequence`, PostgreSQL's `changes_pending`), and each table's
/// largest id handed out travels as `LibraryTable.lastID`.
public protocol LibraryTables: Sendable {
    /// A reader of the whole library as one snapshot (what others write meanwhile is not seen),
    /// held until the reader is let go.
    func readTables() async throws(LibraryError) -> any LibraryTableReader
    /// A writer in one transaction over the whole library: others' writes wait until it ends,
    /// and the triggers that derive counters, sync stamps and the change log from new rows do
    /// not fire for its rows (the rows carry those values as they were). Nothing is kept unless
    /// `commit()` is called: a writer let go without it is rolled back.
    func writeTables() async throws(LibraryError) -> any LibraryTableWriter
}

/// Reads a library's tables (`LibraryTables.readTables`). Calls are one at a time.
public protocol LibraryTableReader: Sendable {
    /// The tables `LibraryTable.carried` names, in that order, as this library has them.
    var tables: [LibraryTable] { get }
    /// Up to `limit` rows of `table` (its `columns`, in that order), those whose key comes after
    /// `key` (the key columns' values of the last row read; nil: from the first), in key order.
    /// Each engine orders by its own rules (PostgreSQL's text collation is not SQLite's bytes):
    /// a reader pages only through itself.
    func rows(of table: LibraryTable, after key: [TableValue]?, limit: Int) async throws(LibraryError) -> [[TableValue]]
}

/// Writes a library's tables (`LibraryTables.writeTables`); reads see its own writes.
public protocol LibraryTableWriter: LibraryTableReader {
    /// Deletes every row of the table named `table`.
    func deleteRows(of table: String) async throws(LibraryError)
    /// Inserts `rows` (values of `table.columns`, in that order) into the table of that name,
    /// with their ids.
    func insert(_ rows: [[TableValue]], into table: LibraryTable) async throws(LibraryError)
    /// After the last insert: each table's ids go on after its largest (the source's `lastID`s
    /// of `tables`, or the largest id now in it), and derived data is made again (the search
    /// index).
    func finish(_ tables: [LibraryTable]) async throws(LibraryError)
    /// Keeps everything written.
    func commit() async throws(LibraryError)
}

/// One value as both engines store it.
public enum TableValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A table as one library has it.
public struct LibraryTable: Sendable, Equatable {
    public struct Column: Sendable, Equatable {
        public let name: String
        public let kind: Kind
        public init(name: String, kind: Kind) { self.name = name; self.kind = kind }
    }

    /// What a column holds, in both engines' terms (SQLite INTEGER is PostgreSQL BIGINT; REAL,
    /// DOUBLE PRECISION; TEXT, TEXT; BLOB, BYTEA).
    public enum Kind: String, Sendable, Equatable {
        case integer, real, text, blob
    }

    public let name: String
    public let columns: [Column]
    /// The primary key's columns, in order.
    public let key: [String]
    /// The largest id the table has ever handed out, when a sequence hands its ids out (SQLite's
    /// AUTOINCREMENT, PostgreSQL's identity): an id is never handed out twice, not even after a
    /// copy. nil: none is kept (ids follow the largest in the table).
    public let lastID: Int64?

    public init(name: String, columns: [Column], key: [String], lastID: Int64?) {
        self.name = name; self.columns = columns; self.key = key; self.lastID = lastID
    }

    /// Every table a library's state is in, parents before the tables that refer to them (the
    /// order rows go in; the reverse, the order they go). A table either engine has that is
    /// neither here nor one of its derived tables is an error of the copy, not a table left behind.
    public static let carried = [
        "users", "sessions", "session_reauthentications", "sign_ins", "user_identities", "channels", "items", "subscriptions", "watch_state", "saved_items",
        "collections", "collection_items", "published_collections", "followed_collections", "play_history", "up_next", "player_state", "chapters_cache",
        "sync_clock", "sync_devices", "sync_subscription_changes", "sync_episode_changes", "episode_actions",
        "changes",
    ]
}
