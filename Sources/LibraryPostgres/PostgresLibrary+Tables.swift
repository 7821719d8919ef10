import LibraryStore

/// `LibraryTables` on PostgreSQL (`feedctl db copy`). Reader and writer each hold a connection
/// of their own (`PGSession`) with one transaction across their calls: the reader a REPEATABLE
/// READ READ ONLY snapshot, the writer READ COMMITTED with every carried table locked EXCLUSIVE
/// (others read on, their writes wait for the copy's end and then take ids past the copied
/// ones) and `feedctl.copying` set for the transaction, which the schema's insert triggers that
/// derive counters, sync rows and change-log rows check (`PostgresSchema`: the rows carry those
/// as they were). The search index is not carried: its trigger indexes the copied items as they
/// go in, as an ingest's.
extension PostgresLibrary: LibraryTables {
    public func readTables() async throws(LibraryError) -> any LibraryTableReader {
        let session = try await PGSession.open(url: pool.url, location: pool.location)
        let tables = try await session.run { connection throws(LibraryError) in
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            return try PostgresTables.tables(connection)
        }
        return PostgresTableReader(session: session, tables: tables)
    }

    public func writeTables() async throws(LibraryError) -> any LibraryTableWriter {
        let session = try await PGSession.open(url: pool.url, location: pool.location)
        let tables = try await session.run { connection throws(LibraryError) in
            try connection.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            try connection.execute("SET LOCAL \(PostgresTables.copyingSetting) = 'on'")
            let tables = try PostgresTables.tables(connection)
            try connection.execute("LOCK TABLE \(tables.map { PostgresTables.quoted($0.name) }.joined(separator: ", ")) IN EXCLUSIVE MODE")
            return tables
        }
        return PostgresTableWriter(session: session, tables: tables)
    }
}

class PostgresTableReader: LibraryTableReader, @unchecked Sendable {
    let tables: [LibraryTable]
    let session: PGSession

    init(session: PGSession, tables: [LibraryTable]) {
        self.session = session; self.tables = tables
    }

    func rows(of table: LibraryTable, after key: [TableValue]?, limit: Int) async throws(LibraryError) -> [[TableValue]] {
        let own = try own(table.name)
        return try await session.run { connection throws(LibraryError) in
            try PostgresTables.rows(connection, table, kinds: own, after: key, limit: limit)
        }
    }

    /// This library's `name` table (its kinds decode the text PostgreSQL sends).
    func own(_ name: String) throws(LibraryError) -> LibraryTable {
        guard let table = tables.first(where: { $0.name == name }) else { throw LibraryError.invalid("the library has no table \(name)") }
        return table
    }
}

final class PostgresTableWriter: PostgresTableReader, LibraryTableWriter, @unchecked Sendable {
    func deleteRows(of table: String) async throws(LibraryError) {
        try await session.run { connection throws(LibraryError) -> Void in
            try connection.query("DELETE FROM \(PostgresTables.quoted(table))")
        }
    }

    func insert(_ rows: [[TableValue]], into table: LibraryTable) async throws(LibraryError) {
        guard !rows.isEmpty else { return }
        let own = try own(table.name)
        var columns: [[String?]] = Array(repeating: [], count: table.columns.count)
        for row in rows {
            for (index, value) in row.enumerated() {
                if case .text(let text) = value, text.utf8.contains(0) {
                    throw LibraryError.invalid("table \(table.name): a text of column \(table.columns[index].name) holds a NUL character, which PostgreSQL cannot store")
                }
                columns[index].append(value.pgText)
            }
        }
        let kinds = try table.columns.map { column throws(LibraryError) in try PostgresTables.kind(of: column.name, in: own) }
        let names = table.columns.map { PostgresTables.quoted($0.name) }.joined(separator: ", ")
        let arrays = kinds.enumerated().map { "$\($0.offset + 1)::\(PostgresTables.type($0.element))[]" }.joined(separator: ", ")
        let sql = "INSERT INTO \(PostgresTables.quoted(table.name)) (\(names)) SELECT * FROM unnest(\(arrays))"
        let parameters = columns
        try await session.run { connection throws(LibraryError) -> Void in
            try connection.query(sql, parameters.map { $0 as any PGBindable })
        }
    }

    func finish(_ source: [LibraryTable]) async throws(LibraryError) {
        let tables = tables
        try await session.run { connection throws(LibraryError) in
            // Each identity goes on past the largest id the source handed out, or holds now.
            for table in tables where table.lastID != nil {
                let last = source.first { $0.name == table.name }?.lastID ?? 0
                let id = PostgresTables.quoted(table.key[0])
                try connection.query("""
                    SELECT setval(pg_get_serial_sequence(quote_ident($1), $2),
                                  greatest($3::bigint, coalesce(max(\(id)), 0), 1), greatest($3::bigint, coalesce(max(\(id)), 0)) > 0)
                    FROM \(PostgresTables.quoted(table.name))
                    """, [table.name, table.key[0], last])
            }
            // What the commit would do is done now (the deferred triggers: sync stamps, the
            // change log's publishing), so that the copy's check reads what a commit keeps.
            try connection.execute("SET CONSTRAINTS ALL IMMEDIATE")
        }
    }

    func commit() async throws(LibraryError) {
        try await session.run { connection throws(LibraryError) in try connection.execute("COMMIT") }
    }
}

/// The catalog and rows, for both the reader and the writer.
enum PostgresTables {
    /// The setting a copy's transaction sets (`SET LOCAL`), read by the schema's
    /// `library_copying()`.
    static let copyingSetting = "feedctl.copying"

    /// What the library keeps that is not carried: the migrations' list, the search index (its
    /// trigger makes it again), and the change log's pending rows (empty outside a transaction).
    static let derived: Set<String> = ["schema_migrations", "items_search", "changes_pending"]

    static func tables(_ connection: PGConnection) throws(LibraryError) -> [LibraryTable] {
        let all: [String] = try connection.query("""
            SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """).rows.map { row throws(LibraryError) in try row.get(0) }
        if let stray = all.first(where: { !derived.contains($0) && !LibraryTable.carried.contains($0) }) {
            throw LibraryError.invalid("\(connection.location): table \(stray) is not one a copy carries (LibraryTable.carried)")
        }
        var tables: [LibraryTable] = []
        for name in LibraryTable.carried {
            let info = try connection.query("""
                SELECT column_name, data_type, is_identity = 'YES' AS identity FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position
                """, [name]).rows
            if info.isEmpty { throw LibraryError.invalid("\(connection.location) has no table \(name)") }
            var columns: [LibraryTable.Column] = []
            var identity: String?
            for row in info {
                let column: String = try row.get("column_name"), type: String = try row.get("data_type")
                guard let kind = kind(type) else {
                    throw LibraryError.invalid("\(connection.location): column \(name).\(column) is a \(type), which a copy cannot carry")
                }
                columns.append(LibraryTable.Column(name: column, kind: kind))
                if try row.get("identity") as Bool { identity = column }
            }
            let key: [String] = try connection.query("""
                SELECT a.attname FROM pg_index i
                CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                WHERE i.indrelid = to_regclass(quote_ident($1)) AND i.indisprimary ORDER BY k.n
                """, [name]).rows.map { row throws(LibraryError) in try row.get(0) }
            var lastID: Int64?
            if let identity, key == [identity] {
                let id = quoted(identity)
                lastID = try connection.query("""
                    SELECT greatest(coalesce((SELECT last_value FROM pg_sequences
                                              WHERE format('%I.%I', schemaname, sequencename)::regclass
                                                    = pg_get_serial_sequence(quote_ident($1), $2)::regclass), 0),
                                    coalesce(max(\(id)), 0)) AS last
                    FROM \(quoted(name))
                    """, [name, identity]).first?.get("last")
            }
            tables.append(LibraryTable(name: name, columns: columns, key: key, lastID: lastID))
        }
        return tables
    }

    static func kind(_ type: String) -> LibraryTable.Kind? {
        switch type {
        case "bigint", "integer", "smallint": .integer
        case "double precision", "real": .real
        case "text", "character varying", "character": .text
        case "bytea": .blob
        default: nil
        }
    }

    /// The type a value of `kind` is sent as.
    static func type(_ kind: LibraryTable.Kind) -> String {
        switch kind {
        case .integer: "bigint"
        case .real: "float8"
        case .text: "text"
        case .blob: "bytea"
        }
    }

    static func kind(of column: String, in table: LibraryTable) throws(LibraryError) -> LibraryTable.Kind {
        guard let kind = table.columns.first(where: { $0.name == column })?.kind else {
            throw LibraryError.invalid("table \(table.name) has no column \(column)")
        }
        return kind
    }

    static func rows(_ connection: PGConnection, _ table: LibraryTable, kinds own: LibraryTable,
                     after key: [TableValue]?, limit: Int) throws(LibraryError) -> [[TableValue]] {
        let kinds = try table.columns.map { column throws(LibraryError) in try kind(of: column.name, in: own) }
        let keyKinds = try table.key.map { column throws(LibraryError) in try kind(of: column, in: own) }
        var sql = "SELECT \(table.columns.map { quoted($0.name) }.joined(separator: ", ")) FROM \(quoted(table.name))"
        var parameters: [any PGBindable] = []
        if let key {
            let marks = keyKinds.enumerated().map { "$\($0.offset + 1)::\(type($0.element))" }.joined(separator: ", ")
            sql += " WHERE (\(table.key.map(quoted).joined(separator: ", "))) > (\(marks))"
            parameters = key.map { $0.pgText as any PGBindable }
        }
        sql += " ORDER BY \(table.key.map(quoted).joined(separator: ", ")) LIMIT \(max(1, limit))"
        return try connection.query(sql, parameters).rows.map { row throws(LibraryError) in
            try kinds.enumerated().map { column throws(LibraryError) in
                guard let text = row.text(column.offset) else { return .null }
                guard let value = TableValue(pgText: text, kind: column.element) else {
                    throw PGRow.unexpected("column \(table.name).\(table.columns[column.offset].name) holds \"\(text.prefix(40))\", not a \(column.element.rawValue)")
                }
                return value
            }
        }
    }

    /// `name` as an SQL identifier.
    static func quoted(_ name: String) -> String {
        "\"" + String(name.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
    }
}

extension TableValue {
    /// The value in PostgreSQL's text form (nil: NULL); bytes as `\x` and hex.
    var pgText: String? {
        switch self {
        case .null: nil
        case .integer(let v): String(v)
        case .real(let v): v.pgText
        case .text(let v): v
        case .blob(let v): "\\x" + String(v.flatMap { byte in [Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]] })
        }
    }

    /// A value of `kind` read from PostgreSQL's text form; nil when the text is not one.
    init?(pgText text: String, kind: LibraryTable.Kind) {
        switch kind {
        case .integer:
            guard let v = Int64(text) else { return nil }
            self = .integer(v)
        case .real:
            guard let v = Double(text) else { return nil }
            self = .real(v)
        case .text:
            self = .text(text)
        case .blob:
            let digits = Array(text.utf8)
            guard digits.count % 2 == 0, digits.starts(with: Array("\\x".utf8)) else { return nil }
            var bytes: [UInt8] = []
            var index = 2
            while index < digits.count {
                guard let high = Self.hexValue(digits[index]), let low = Self.hexValue(digits[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
                index += 2
            }
            self = .blob(bytes)
        }
    }

    private static let hexDigits: [Character] = Array("0123456789abcdef")

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
