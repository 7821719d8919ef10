import CLibPQ
import Glibc
import LibraryStore

/// One libpq connection. Not thread-safe: a `PGPool` slot owns it and uses it on its own queue
/// only. Every statement is sent with its parameters apart from its text (`PQexecParams`), so
/// nothing from a request is ever spliced into SQL; values travel as text both ways.
final class PGConnection {
    private let handle: OpaquePointer
    /// Where it is connected, without a password (for messages).
    let location: String

    /// Connects to `url` (libpq's URL or key=value form). `connectTimeout` bounds the connect;
    /// `statementTimeout` every statement after it (a server that stops answering never hangs a
    /// caller for ever).
    init(url: String, location: String, connectTimeout: Int = 10, statementTimeout: Int = 60) throws(LibraryError) {
        self.location = location
        // The URL first, expanded into its parts (`expand_dbname`), then what feedctl sets.
        let keys = ["dbname", "connect_timeout", "fallback_application_name", "client_encoding"]
        let values = [url, String(connectTimeout), "feedctl", "UTF8"]
        let connection = withCStrings(keys) { k in withCStrings(values) { v in PQconnectdbParams(k, v, 1) } }
        guard let connection else {
            throw Self.failure(.cannotOpen, sqlState: nil, message: "can't connect: out of memory", location: location)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw Self.failure(.cannotOpen, sqlState: nil, message: "can't connect: \(Self.oneLine(message))", location: location)
        }
        handle = connection
        // libpq prints the server's notices (`relation … already exists, skipping`) on stderr
        // itself: a command's output is its own lines, so they are dropped.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        // Every connection talks in UTC seconds and bounds its statements; an error here closes it.
        // No JIT: the store's statements run in milliseconds, and compiling one whose estimate
        // passes jit_above_cost (a branch never run counts too) took 370 ms for a 20 ms feed page.
        try execute("SET statement_timeout = \(statementTimeout * 1000); SET jit = off")
    }

    deinit { PQfinish(handle) }

    /// Whether the server is still there as far as libpq knows (a lost connection is dropped by the pool).
    var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Runs `sql` with `parameters` as $1, $2…; the rows it returns, if any.
    @discardableResult
    func query(_ sql: String, _ parameters: [any PGBindable] = []) throws(LibraryError) -> PGResult {
        let texts = parameters.map(\.pgText)
        let result: OpaquePointer? = withOptionalCStrings(texts) { values in
            PQexecParams(handle, sql, Int32(texts.count), nil, values, nil, nil, 0)
        }
        return try take(result)
    }

    /// Runs one or more statements without parameters (migrations, BEGIN/COMMIT).
    func execute(_ sql: String) throws(LibraryError) {
        try take(PQexec(handle, sql))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ isolation: String = "READ COMMITTED", _ body: (PGConnection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        try execute("BEGIN ISOLATION LEVEL \(isolation)")
        do {
            let value = try body(self)
            try execute("COMMIT")
            return value
        } catch {
            if isUsable { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The socket libpq reads from (LISTEN's waiter polls it).
    var socket: Int32 { PQsocket(handle) }

    /// Reads what arrived on the socket and returns the notifications among it.
    func notifications() throws(LibraryError) -> [(channel: String, payload: String)] {
        guard PQconsumeInput(handle) == 1 else {
            throw Self.failure(.connectionLost, sqlState: nil, message: Self.oneLine(String(cString: PQerrorMessage(handle))), location: location)
        }
        var found: [(String, String)] = []
        while let notice = PQnotifies(handle) {
            found.append((String(cString: notice.pointee.relname), String(cString: notice.pointee.extra)))
            PQfreemem(notice)
        }
        return found
    }

    @discardableResult
    private func take(_ result: OpaquePointer?) throws(LibraryError) -> PGResult {
        guard let result else {
            throw Self.failure(isUsable ? .other : .connectionLost, sqlState: nil,
                               message: Self.oneLine(String(cString: PQerrorMessage(handle))), location: location)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PGResult(result)
        default:
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let message = primary ?? String(cString: PQresultErrorMessage(result))
            let kind = isUsable ? Self.kind(sqlState: sqlState) : .connectionLost
            throw Self.failure(kind, sqlState: sqlState, message: Self.oneLine(message), location: location)
        }
    }

    /// What a caller can do about a SQLSTATE (PostgreSQL's appendix A).
    static func kind(sqlState: String?) -> DatabaseFailure.Kind {
        guard let state = sqlState else { return .other }
        switch state {
        case "40001", "40P01": return .serializationFailure    // serialization failure, deadlock
        case "55P03", "57014": return .busy                    // lock not available, statement timeout
        case "53100": return .diskFull
        case "57P01", "57P02", "57P03": return .connectionLost // the server shut down or is starting
        default: break
        }
        switch state.prefix(2) {
        case "08": return .connectionLost
        case "23": return .constraint
        case "28", "3D", "42": return state.hasPrefix("42") ? .other : .cannotOpen  // auth, no such database
        case "XX": return .corrupt
        default: return .other
        }
    }

    static func failure(_ kind: DatabaseFailure.Kind, sqlState: String?, message: String, location: String) -> LibraryError {
        .database(DatabaseFailure(kind: kind, sqlState: sqlState, message: message, path: location))
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.drop(while: \.isWhitespace) }.joined(separator: " ")
    }
}

/// A statement's rows, copied out of libpq's result (which is freed at once).
struct PGResult: Sendable {
    let columns: PGColumns
    let rows: [PGRow]
    /// How many rows an INSERT, UPDATE or DELETE touched.
    let affected: Int

    fileprivate init(_ result: OpaquePointer) {
        let fields = Int(PQnfields(result))
        let columns = PGColumns(names: (0..<fields).map { String(cString: PQfname(result, Int32($0))) })
        self.columns = columns
        rows = (0..<Int(PQntuples(result))).map { row in
            PGRow(columns: columns, values: (0..<fields).map { field in
                PQgetisnull(result, Int32(row), Int32(field)) == 1 ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(field)))
            })
        }
        affected = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// The first row, if any.
    var first: PGRow? { rows.first }
}

/// Column names to their index, shared by a result's rows.
final class PGColumns: Sendable {
    let names: [String]
    private let index: [String: Int]
    init(names: [String]) {
        self.names = names
        index = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
    func position(_ name: String) -> Int? { index[name] }
}

/// One row of a result, read by column name as typed values.
struct PGRow: Sendable {
    let columns: PGColumns
    let values: [String?]

    /// Column `name` as `T` (an Optional reads NULL as nil); a missing column, an unexpected NULL
    /// or text that is not a `T` is a failure of the store, not of the caller.
    func get<T: PGDecodable>(_ name: String) throws(LibraryError) -> T {
        guard let position = columns.position(name) else { throw PGRow.unexpected("no column \(name)") }
        return try get(position, name: name)
    }

    /// Column `position` (0-based) as `T`.
    func get<T: PGDecodable>(_ position: Int, name: String? = nil) throws(LibraryError) -> T {
        guard values.indices.contains(position) else { throw PGRow.unexpected("no column \(position)") }
        guard let value = T(pgText: values[position]) else {
            throw PGRow.unexpected("column \(name ?? String(position)) holds \(values[position].map { "\"\($0.prefix(40))\"" } ?? "NULL"), not a \(T.self)")
        }
        return value
    }

    static func unexpected(_ what: String) -> LibraryError {
        .database(DatabaseFailure(kind: .other, message: "unexpected result from PostgreSQL: \(what)"))
    }
}

/// A value read from PostgreSQL's text form.
protocol PGDecodable {
    /// nil text is SQL NULL; nil result: not a value of this type.
    init?(pgText: String?)
}

extension String: PGDecodable { init?(pgText: String?) { guard let pgText else { return nil }; self = pgText } }
extension Int64: PGDecodable { init?(pgText: String?) { guard let pgText, let v = Int64(pgText) else { return nil }; self = v } }
extension Int: PGDecodable { init?(pgText: String?) { guard let pgText, let v = Int(pgText) else { return nil }; self = v } }
extension Double: PGDecodable { init?(pgText: String?) { guard let pgText, let v = Double(pgText) else { return nil }; self = v } }
extension Bool: PGDecodable {
    init?(pgText: String?) {
        switch pgText {
        case "t", "true", "1": self = true
        case "f", "false", "0": self = false
        default: return nil
        }
    }
}
extension Optional: PGDecodable where Wrapped: PGDecodable {
    init?(pgText: String?) {
        guard let pgText else { self = .none; return }
        guard let value = Wrapped(pgText: pgText) else { return nil }
        self = .some(value)
    }
}

/// A parameter, sent in PostgreSQL's text form (nil: NULL).
protocol PGBindable {
    var pgText: String? { get }
}

/// PostgreSQL's text cannot hold U+0000 (and libpq takes C strings): a NUL, which only hostile
/// feed text has, is dropped rather than cutting the value short or failing its statement.
extension String: PGBindable {
    var pgText: String? { utf8.contains(0) ? String(decoding: utf8.filter { $0 != 0 }, as: UTF8.self) : self }
}
extension Int64: PGBindable { var pgText: String? { String(self) } }
extension Int: PGBindable { var pgText: String? { String(self) } }
extension Int32: PGBindable { var pgText: String? { String(self) } }
extension Double: PGBindable { var pgText: String? { "\(self)" } }
/// 1 or 0: the schema keeps flags as BIGINT 0/1 (as SQLite does), and PostgreSQL reads "1"/"0" as a boolean too.
extension Bool: PGBindable { var pgText: String? { self ? "1" : "0" } }
extension Optional: PGBindable where Wrapped: PGBindable { var pgText: String? { flatMap(\.pgText) } }
/// An array literal (`{1,2,"a \"b\""}`), for `= ANY($1::bigint[])` and `unnest`.
/// Built in one buffer: an ingest sends a feed's items as one array per column (descriptions
/// of kilobytes each), so this runs over every byte of them.
extension Array: PGBindable where Element: PGBindable {
    var pgText: String? {
        var literal: [UInt8] = [UInt8(ascii: "{")]
        for (index, element) in enumerated() {
            if index > 0 { literal.append(UInt8(ascii: ",")) }
            guard let text = element.pgText else {
                literal.append(contentsOf: "NULL".utf8)
                continue
            }
            literal.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { literal.append(UInt8(ascii: "\\")) }
                literal.append(byte)
            }
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }
}

/// Calls `body` with a C array of C strings (NUL-terminated copies, freed after).
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    withOptionalCStrings(strings.map(Optional.some) + [nil], body)
}

private func withOptionalCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { copies.forEach { free($0) } }
    return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { buffer in
        body(buffer.baseAddress)
    }
}
