import GRDB
import LibraryStore

/// `LibraryTables` on a SQLite file (`feedctl db copy`). The reader is a WAL snapshot on a
/// connection of its own (`DatabasePool.makeSnapshot`): the pool's writer goes on meanwhile.
/// The writer is a connection of its own too, holding one `BEGIN IMMEDIATE` transaction across
/// its calls (GRDB's pool ends a transaction with each call). SQLite's triggers cannot ask
/// whether a copy is writing, so the writer drops them all inside its transaction and makes
/// them again from their own text in `finish`: no other connection ever sees the library
/// without them, and a copy that fails rolls their dropping back with its rows.
extension SQLiteLibrary: LibraryTables {
    public func readTables() async throws(LibraryError) -> any LibraryTableReader {
        do {
            let snapshot = try pool.makeSnapshot()
            let tables = try await snapshot.read { db in try SQLiteTables.tables(db, path: self.path) }
            return SQLiteTableReader(snapshot: snapshot, path: path, tables: tables)
        } catch {
            throw LibraryError.wrap(error, path: path)
        }
    }

    public func writeTables() async throws(LibraryError) -> any LibraryTableWriter {
        var config = Self.configuration(busyTimeout: 60)
        config.allowsUnsafeTransactions = true
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            let path = path
            let (tables, triggers) = try await queue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                // In the order they were made: SQLite fires a table's triggers newest first, so
                // making them again in this order keeps their order.
                let triggers = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid")
                    .map { SQLiteTableWriter.Trigger(name: $0["name"], sql: $0["sql"]) }
                for trigger in triggers { try db.execute(sql: "DROP TRIGGER \(trigger.name.quotedDatabaseIdentifier)") }
                return (try SQLiteTables.tables(db, path: path), triggers)
            }
            return SQLiteTableWriter(queue: queue, path: path, tables: tables, triggers: triggers)
        } catch {
            throw LibraryError.wrap(error, path: path)
        }
    }
}

final class SQLiteTableReader: LibraryTableReader {
    let tables: [LibraryTable]
    /// Its transaction ends (and its connection closes) when the reader is let go.
    private let snapshot: DatabaseSnapshot
    private let path: String

    init(snapshot: DatabaseSnapshot, path: String, tables: [LibraryTable]) {
        self.snapshot = snapshot; self.path = path; self.tables = tables
    }

    func rows(of table: LibraryTable, after key: [TableValue]?, limit: Int) async throws(LibraryError) -> [[TableValue]] {
        do {
            return try await snapshot.read { db in try SQLiteTables.rows(db, table, after: key, limit: limit) }
        } catch {
            throw LibraryError.wrap(error, path: path)
        }
    }
}

final class SQLiteTableWriter: LibraryTableWriter {
    struct Trigger: Sendable {
        let name: String
        let sql: String
    }

    let tables: [LibraryTable]
    /// Its one connection; closing it (the writer let go) rolls back what was not committed.
    private let queue: DatabaseQueue
    private let path: String
    /// The library's triggers, dropped for the copy, made again by `finish`.
    private let triggers: [Trigger]

    init(queue: DatabaseQueue, path: String, tables: [LibraryTable], triggers: [Trigger]) {
        self.queue = queue; self.path = path; self.tables = tables; self.triggers = triggers
    }

    func rows(of table: LibraryTable, after key: [TableValue]?, limit: Int) async throws(LibraryError) -> [[TableValue]] {
        try await inTransaction { db in try SQLiteTables.rows(db, table, after: key, limit: limit) }
    }

    func deleteRows(of table: String) async throws(LibraryError) {
        try await inTransaction { db in try db.execute(sql: "DELETE FROM \(table.quotedDatabaseIdentifier)") }
    }

    func insert(_ rows: [[TableValue]], into table: LibraryTable) async throws(LibraryError) {
        try await inTransaction { db in
            let names = table.columns.map(\.name.quotedDatabaseIdentifier).joined(separator: ", ")
            let marks = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
            let statement = try RawStatement(cached: db, sql: "INSERT INTO \(table.name.quotedDatabaseIdentifier) (\(names)) VALUES (\(marks))")
            for row in rows {
                for (index, value) in row.enumerated() { statement.bind(Int32(index + 1), value) }
                _ = try statement.execute()
            }
        }
    }

    func finish(_ source: [LibraryTable]) async throws(LibraryError) {
        let tables = tables, triggers = triggers
        try await inTransaction { db in
            // AUTOINCREMENT's high-water marks: inserting an id moved each to at least that id;
            // the source may have handed out larger ones since deleted.
            for table in tables where table.lastID != nil {
                guard let last = source.first(where: { $0.name == table.name })?.lastID, last > 0 else { continue }
                try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", arguments: [last, table.name])
                if db.changesCount == 0 {
                    try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [table.name, last])
                }
            }
            try SQLiteLibrary.rebuildSearchIndex(db)
            for trigger in triggers { try db.execute(sql: trigger.sql) }
        }
    }

    func commit() async throws(LibraryError) {
        try await inTransaction { db in try db.execute(sql: "COMMIT") }
    }

    private func inTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(LibraryError) -> T {
        do { return try await queue.writeWithoutTransaction(body) } catch { throw LibraryError.wrap(error, path: path) }
    }
}

/// The catalog and rows, for both the reader and the writer.
enum SQLiteTables {
    /// What the library keeps that is not carried: SQLite's own tables (`sqlite_sequence` travels
    /// as `lastID`), GRDB's migration list, and the search index (FTS5's tables, the mark of what
    /// it holds), which the target makes again.
    static func isDerived(_ table: String) -> Bool {
        table.hasPrefix("sqlite_") || table.hasPrefix("items_search") || ["grdb_migrations", "search_state"].contains(table)
    }

    static func tables(_ db: Database, path: String) throws -> [LibraryTable] {
        let all = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        if let stray = all.first(where: { !isDerived($0) && !LibraryTable.carried.contains($0) }) {
            throw LibraryError.invalid("\(path): table \(stray) is not one a copy carries (LibraryTable.carried)")
        }
        return try LibraryTable.carried.map { name in
            let info = try Row.fetchAll(db, sql: "SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid", arguments: [name])
            if info.isEmpty { throw LibraryError.invalid("\(path) has no table \(name)") }
            let columns = try info.map { row in
                let column: String = row["name"], declared: String = row["type"]
                guard let kind = kind(declared) else {
                    throw LibraryError.invalid("\(path): column \(name).\(column) is declared \(declared), which a copy cannot carry")
                }
                return LibraryTable.Column(name: column, kind: kind)
            }
            let key = info.filter { ($0["pk"] as Int) > 0 }.sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { $0["name"] as String }
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [name]) ?? ""
            var lastID: Int64?
            if key.count == 1, sql.uppercased().contains("AUTOINCREMENT") {
                let handedOut = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [name]) ?? 0
                let largest = try Int64.fetchOne(db, sql: "SELECT max(\(key[0].quotedDatabaseIdentifier)) FROM \(name.quotedDatabaseIdentifier)") ?? 0
                lastID = max(handedOut, largest)
            }
            return LibraryTable(name: name, columns: columns, key: key, lastID: lastID)
        }
    }

    /// SQLite's affinity rules (its datatypes page, 3.1), for the declared types a schema uses.
    static func kind(_ declared: String) -> LibraryTable.Kind? {
        let type = declared.uppercased()
        if type.contains("INT") { return .integer }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .text }
        if type.isEmpty || type.contains("BLOB") { return .blob }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return .real }
        return nil
    }

    /// Read through SQLite's C API (`RawStatement`): GRDB reads text up to its first U+0000.
    static func rows(_ db: Database, _ table: LibraryTable, after key: [TableValue]?, limit: Int) throws -> [[TableValue]] {
        let columns = table.columns.map(\.name.quotedDatabaseIdentifier).joined(separator: ", ")
        let keyColumns = table.key.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        var sql = "SELECT \(columns) FROM \(table.name.quotedDatabaseIdentifier)"
        if let key { sql += " WHERE (\(keyColumns)) > (\(Array(repeating: "?", count: key.count).joined(separator: ", ")))" }
        sql += " ORDER BY \(keyColumns) LIMIT ?"
        let statement = try RawStatement(cached: db, sql: sql)
        defer { statement.reset() }
        var index: Int32 = 1
        for value in key ?? [] {
            statement.bind(index, value)
            index += 1
        }
        statement.bind(index, .integer(Int64(max(1, limit))))
        var rows: [[TableValue]] = []
        while try statement.step() {
            rows.append((0..<Int32(table.columns.count)).map(statement.value))
        }
        return rows
    }
}
