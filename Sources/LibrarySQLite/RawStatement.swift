import GRDB
import LibraryStore
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// One prepared `sqlite3_stmt`, bound and stepped directly: the ingest hot loop, where GRDB's
/// per-row `StatementArguments` cost more than SQLite's own work. Lives inside one GRDB write
/// closure (its connection's queue); finalized on deinit.
final class RawStatement {
    private let connection: OpaquePointer
    private let handle: OpaquePointer
    private let sql: String
    /// A statement borrowed from GRDB's per-connection cache, which finalizes it.
    private let cached: Statement?
    /// SQLite copies text bound with it at once (SQLITE_TRANSIENT, a macro Swift cannot import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ db: Database, sql: String) throws {
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "connection closed") }
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.connection = connection
        self.handle = handle
        self.sql = sql
        cached = nil
    }

    /// The connection's cached statement for `sql` (prepared once per connection, not per use),
    /// driven directly. Only this wrapper binds and steps it while it is alive.
    init(cached db: Database, sql: String) throws {
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "connection closed") }
        let statement = try db.cachedStatement(sql: sql)
        self.connection = connection
        handle = statement.sqliteStatement
        self.sql = sql
        cached = statement
    }

    deinit {
        if cached == nil { sqlite3_finalize(handle) } else { sqlite3_reset(handle); sqlite3_clear_bindings(handle) }
    }

    /// Binds bytes without copying them (SQLITE_STATIC): they must stay valid and unchanged until
    /// the statement has been stepped and reset, and every such parameter rebound before the next step.
    func bindStatic(_ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            _ = sqlite3_bind_text(handle, index, "", 0, Self.transient) // a null pointer would bind NULL
            return
        }
        _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
    }

    func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Runs the statement to completion and resets it for the next bindings.
    /// Returns the number of rows it changed.
    func execute() throws -> Int {
        defer { sqlite3_reset(handle) }
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW { code = sqlite3_step(handle) }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        return Int(sqlite3_changes(connection))
    }

    /// Steps once: true when a row is ready (read it with `int64(_:)`), false when done.
    /// Reset the statement with `reset()` before binding again.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// Binds `value` as SQLite stores it; text and bytes by their length, copied (GRDB binds text
    /// up to its first U+0000, and reads it so: `db copy` carries every byte).
    func bind(_ index: Int32, _ value: TableValue) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let v): sqlite3_bind_int64(handle, index, v)
        case .real(let v): sqlite3_bind_double(handle, index, v)
        case .text(let v):
            let utf8 = Array(v.utf8)
            // A null pointer would bind NULL: an empty text is bound as "".
            if utf8.isEmpty { _ = sqlite3_bind_text(handle, index, "", 0, Self.transient) }
            utf8.withUnsafeBufferPointer { bytes in
                guard let start = bytes.baseAddress else { return }
                _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
            }
        case .blob(let v):
            v.withUnsafeBytes { bytes in
                if let start = bytes.baseAddress {
                    _ = sqlite3_bind_blob(handle, index, start, Int32(bytes.count), Self.transient)
                } else {
                    _ = sqlite3_bind_zeroblob(handle, index, 0)
                }
            }
        }
    }

    /// Column `column` of the row `step` made ready, as SQLite stores it (text by its length).
    func value(_ column: Int32) -> TableValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(handle, column)))))
        default: return .null
        }
    }

    func reset() { sqlite3_reset(handle) }
}
