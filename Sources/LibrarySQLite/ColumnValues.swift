import GRDB
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// A result row read by position: a GRDB `Row`, or the statement's current row read straight
/// from SQLite (`StatementColumns`). Decoders are written once against this; on a feed page of
/// 50 items GRDB's generic `row[i]` cost more CPU than the query itself (bench/serve), so the
/// hot queries step with `fetchAll(_:arguments:_:)` instead.
protocol ColumnValues {
    /// nil for NULL.
    func int64(_ index: Int32) -> Int64?
    /// nil for NULL.
    func text(_ index: Int32) -> String?
}

extension ColumnValues {
    func int(_ index: Int32) -> Int? { int64(index).map { Int(truncatingIfNeeded: $0) } }
    /// NULL and 0 are false.
    func bool(_ index: Int32) -> Bool { (int64(index) ?? 0) != 0 }
}

extension Row: ColumnValues {
    func int64(_ index: Int32) -> Int64? { self[Int(index)] }
    func text(_ index: Int32) -> String? { self[Int(index)] }
}

/// The current row of a stepped statement, read with `sqlite3_column_*`.
struct StatementColumns: ColumnValues {
    let handle: OpaquePointer

    func int64(_ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }

    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, index) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index))), as: UTF8.self)
    }

    /// Every row `statement` gives with `arguments`, each made by `make` from its columns; room
    /// for `expected` rows is made first (a page's limit: growing the array copied its records).
    /// Stepped here, not through GRDB's row cursor, which names every column of the statement
    /// (lowercased, in a dictionary) for each query, to serve by-name lookups these rows never make.
    static func fetchAll<T>(_ statement: Statement, arguments: StatementArguments, expected: Int = 0,
                            _ make: (StatementColumns) -> T) throws -> [T] {
        var values: [T] = []
        values.reserveCapacity(expected)
        try step(statement, arguments: arguments) { values.append(make($0)); return true }
        return values
    }

    /// The first row, made by `make`; nil when there is none.
    static func fetchOne<T>(_ statement: Statement, arguments: StatementArguments, _ make: (StatementColumns) -> T) throws -> T? {
        var value: T?
        try step(statement, arguments: arguments) { value = make($0); return false }
        return value
    }

    /// Binds `arguments` (GRDB checks their count and resets the statement) and steps while
    /// `row` says go on; the statement is reset after, whatever happens.
    private static func step(_ statement: Statement, arguments: StatementArguments, _ row: (StatementColumns) -> Bool) throws {
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement, columns = StatementColumns(handle: handle)
        defer { sqlite3_reset(handle) }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: if !row(columns) { return }
            case SQLITE_DONE: return
            case let code:
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))),
                                    sql: statement.sql, arguments: arguments)
            }
        }
    }
}
