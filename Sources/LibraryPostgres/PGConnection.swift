import CLibPQ
import Glibc
import LibraryStore

/// One libpq connection. Not thread-safe: a `PGPool` slot owns it and uses it on its own queue
/// only. Every statement is sent with its parameters apart from its text, so nothing from a
/// request is ever spliced into SQL; values travel as text both ways.
///
/// A statement is prepared on the connection the first time it runs there (`PQprepare`, named,
/// kept in `prepared` by its text) and executed by name after (`PQexecPrepared`): PostgreSQL
/// parses and analyses it once per connection instead of on every call, and after five runs
/// plans it once if a generic plan is estimated to cost no more than one made for the values at
/// hand (plan_cache_mode `auto`; otherwise it goes on planning for the values). The
/// store's texts are a bounded set (values are parameters), so the cache needs no eviction;
/// `preparedLimit` only guards against a text that is not. A connection made anew (the pool's,
/// after a lost one) starts with none: prepared statements live and die with their session.
///
/// `auto` keeps planning a page read with `LIMIT $n` for every call (a generic plan cannot know
/// the limit, so its estimate is of a tenth of the table and always looks dearer): planning the
/// API's feed page took 0.6 ms, more than running it (0.25 ms). A statement whose generic plan a
/// test checked asks for it (`PGPlan.generic`): made once per connection, then reused.
final class PGConnection {
    private let handle: OpaquePointer
    /// Where it is connected, without a password (for messages).
    let location: String
    /// The statements prepared on this connection: their names by their text.
    private var prepared: [String: String] = [:]
    /// How many statement names it has given out (names are never reused).
    private var statementsNamed = 0
    /// Past this many prepared statements, a new text runs unprepared.
    static let preparedLimit = 500
    /// The session's plan_cache_mode as `query` last set it.
    private var planMode = PGPlan.serverChoice

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
        // The server's notices ("relation … already exists, skipping") are not the program's to
        // print: libpq's default writes them to stderr, into a command's output and a server's log.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        // Every connection talks in UTC seconds and bounds its statements; an error here closes it.
        // No JIT: the store's statements run in milliseconds, and compiling one whose estimate
        // passes jit_above_cost (a branch never run counts too) took 370 ms for a 20 ms feed page.
        try execute("SET statement_timeout = \(statementTimeout * 1000); SET jit = off")
    }

    deinit { PQfinish(handle) }

    /// Whether the server is still there as far as libpq knows (a lost connection is dropped by the pool).
    var isUsable: Bool { !abandoned && PQstatus(handle) == CONNECTION_OK }
    /// Whether a pipeline left it in a state not to be trusted (`lost`).
    private var abandoned = false

    /// Runs `sql` with `parameters` as $1, $2…, prepared on this connection (see the type's
    /// comment) and planned as `plan` says; the rows it returns, if any.
    @discardableResult
    func query(_ sql: String, _ parameters: [any PGBindable] = [], plan: PGPlan = .serverChoice) throws(LibraryError) -> PGResult {
        let texts = parameters.map { $0.pgText }
        let name = try statementName(sql)
        if name != nil, PQtransactionStatus(handle) == PQTRANS_IDLE { try setPlanMode(plan) }
        let result: OpaquePointer? = withOptionalCStrings(texts) { values in
            if let name {
                PQexecPrepared(handle, name, Int32(texts.count), values, nil, nil, 0)
            } else {
                PQexecParams(handle, sql, Int32(texts.count), nil, values, nil, nil, 0)
            }
        }
        do {
            return try take(result)
        } catch {
            forgetIfStale(sql, named: name, after: error)
            throw error
        }
    }

    /// A prepared statement the server no longer has (26000: a DEALLOCATE, a pooler between), or
    /// whose plan no longer fits a table a migration changed (0A000: "cached plan must not change
    /// result type"), is forgotten: this call fails, and the next one prepares it again.
    private func forgetIfStale(_ sql: String, named name: String?, after error: LibraryError) {
        if name != nil, ["26000", "0A000"].contains(error.databaseFailure?.sqlState) { prepared[sql] = nil }
    }

    /// The name `sql` is prepared under on this connection, preparing it the first time; nil
    /// past `preparedLimit`.
    private func statementName(_ sql: String) throws(LibraryError) -> String? {
        if let name = prepared[sql] { return name }
        guard prepared.count < Self.preparedLimit else { return nil }
        statementsNamed += 1
        let name = "feedctl_\(statementsNamed)"
        // Parameter types as PQexecParams leaves them: inferred from the text.
        try take(PQprepare(handle, name, sql, 0, nil))
        prepared[sql] = name
        return name
    }

    /// The name `sql` is prepared under on this connection, if it is (tests).
    func preparedName(of sql: String) -> String? { prepared[sql] }

    /// Sets the session's planner settings for what runs next, outside a transaction only: a SET
    /// inside one is undone by its rollback, so the settings are always what `planMode` says.
    /// Transactions run with the server's choice (`transaction` resets it before BEGIN): only
    /// the statements a test checked run on a generic plan, and only on their own.
    ///
    /// A generic plan is also made with a small work_mem and no parallel workers. Not knowing
    /// `LIMIT $n`, it is costed for a tenth of the table, and PostgreSQL sizes a Memoize node's
    /// cache from that estimate, up to work_mem × hash_mem_multiplier (8 MB by default), allocated
    /// and zeroed on every call: on 20,000 channels the feed page's two Memoize nodes zeroed about
    /// 1.5 MB per call for the 50 rows it reads (ExecInitMemoize: 0.6 ms, most of PostgreSQL's
    /// time per request). With 64 kB a cache holds a few hundred channels: the planner keeps a
    /// Memoize where they fit and drops it where they do not. The same estimate can start a
    /// parallel worker per call. Plans are made with the settings in force when they are made
    /// (again after an invalidation, which happens in this mode too), so these hold for exactly
    /// the generic plans; their statements read pages and keys, which need no more memory.
    private func setPlanMode(_ plan: PGPlan) throws(LibraryError) {
        guard plan != planMode else { return }
        try execute(plan == .generic
            ? "SET plan_cache_mode = force_generic_plan; SET work_mem = '64kB'; SET max_parallel_workers_per_gather = 0"
            : "RESET plan_cache_mode; RESET work_mem; RESET max_parallel_workers_per_gather")
        planMode = plan
    }

    /// Runs `statements` in libpq's pipeline mode: sent together and answered together, one
    /// round trip for all of them instead of one each (a sync worker stores sixteen feeds in a
    /// transaction, a statement or two per feed; waiting for each answer in turn, waking both
    /// processes every time, took longer than running them). Their results in order; the first
    /// failure throws, and the statements after it did not run (PostgreSQL skips the rest of a
    /// pipeline after an error, as a transaction does). Each is prepared as `query` prepares it,
    /// before the pipeline starts; in a transaction, or on its own as one implicit transaction.
    func pipeline(_ statements: [PGStatement]) throws(LibraryError) -> [PGResult] {
        guard statements.count > 1 else { return try statements.map { statement throws(LibraryError) in try query(statement.sql, statement.parameters) } }
        let names = try statements.map { statement throws(LibraryError) in try statementName(statement.sql) }
        guard PQenterPipelineMode(handle) == 1 else { throw lost() }
        defer { PQexitPipelineMode(handle) }  // fails, harmlessly, only on a connection that is gone
        for (statement, name) in zip(statements, names) {
            let texts = statement.parameters.map { $0.pgText }
            let sent = withOptionalCStrings(texts) { values in
                if let name {
                    PQsendQueryPrepared(handle, name, Int32(texts.count), values, nil, nil, 0)
                } else {
                    PQsendQueryParams(handle, statement.sql, Int32(texts.count), nil, values, nil, nil, 0)
                }
            }
            guard sent == 1 else { throw lost() }
        }
        guard PQpipelineSync(handle) == 1 else { throw lost() }
        var results: [PGResult] = []
        var failure: LibraryError?
        for (statement, name) in zip(statements, names) {
            // Each statement's result, then nil for its end; skipped ones answer PIPELINE_ABORTED.
            guard let result = PQgetResult(handle) else { throw lost() }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else {
                do throws(LibraryError) {
                    results.append(try take(result))
                } catch {
                    forgetIfStale(statement.sql, named: name, after: error)
                    failure = failure ?? error
                }
            }
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        // The sync point ends the pipeline.
        guard let sync = PQgetResult(handle) else { throw lost() }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        if let failure { throw failure }
        guard synced else { throw lost() }
        return results
    }

    /// libpq's own failure in a pipeline, which may leave it half sent or half read: the
    /// connection is given up (the pool makes another).
    private func lost() -> LibraryError {
        abandoned = true
        return Self.failure(.connectionLost, sqlState: nil, message: Self.oneLine(String(cString: PQerrorMessage(handle))), location: location)
    }

    /// Runs one or more statements without parameters (migrations, BEGIN/COMMIT).
    func execute(_ sql: String) throws(LibraryError) {
        try take(PQexec(handle, sql))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ isolation: String = "READ COMMITTED", _ body: (PGConnection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        try setPlanMode(.serverChoice)
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
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PGResult(result)  // which clears it with its last row
        default:
            defer { PQclear(result) }
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

/// How PostgreSQL plans a prepared statement when it runs.
enum PGPlan: Sendable {
    /// As the server is configured (plan_cache_mode; by default `auto`: a plan for the values at
    /// hand, until a generic one is estimated to cost no more).
    case serverChoice
    /// Its generic plan, made once per connection and reused: for a hot statement whose generic
    /// plan a test checked (PostgresFeedPlanTests), so its calls are not planned again. Run on
    /// its own (autocommit); in a transaction it is planned as the server chooses.
    case generic
}

/// A statement's rows, read in place from libpq's result, which lives as long as they do. A
/// PGresult is read-only once made, so libpq lets any thread read it; nothing is copied until a
/// column is read, and numbers are parsed from libpq's bytes without a String between (a feed
/// page of 50 rows has a thousand values).
struct PGResult: Sendable {
    let rows: PGRows
    /// How many rows an INSERT, UPDATE or DELETE touched.
    let affected: Int

    /// Takes ownership of `result` (cleared with its last row).
    fileprivate init(_ result: OpaquePointer) {
        let storage = PGResultStorage(result)
        rows = PGRows(storage: storage)
        affected = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// The first row, if any.
    var first: PGRow? { rows.first }
}

/// The rows of a result, in order.
struct PGRows: RandomAccessCollection, Sendable {
    fileprivate let storage: PGResultStorage
    var startIndex: Int { 0 }
    var endIndex: Int { storage.rowCount }
    subscript(position: Int) -> PGRow { PGRow(storage: storage, row: Int32(position)) }
}

/// libpq's result and its column names; cleared when no row refers to it.
private final class PGResultStorage: @unchecked Sendable {
    let handle: OpaquePointer
    let rowCount: Int
    let names: [String]
    /// Each name's length in bytes.
    private let lengths: [Int]

    init(_ handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        names = (0..<PQnfields(handle)).map { String(cString: PQfname(handle, $0)) }
        lengths = names.map(\.utf8.count)
    }

    deinit { PQclear(handle) }

    /// Where column `name` is. A scan, not a hash: a result has a few dozen columns, most of
    /// other lengths, and hashing each name read cost more than the rest of decoding.
    func position(_ name: String) -> Int? {
        let length = name.utf8.count
        return names.indices.first { lengths[$0] == length && names[$0] == name }
    }
}

/// One row of a result, read by column name as typed values.
struct PGRow: Sendable {
    fileprivate let storage: PGResultStorage
    fileprivate let row: Int32

    /// Column `name` as `T` (an Optional reads NULL as nil); a missing column, an unexpected NULL
    /// or text that is not a `T` is a failure of the store, not of the caller.
    func get<T: PGDecodable>(_ name: String) throws(LibraryError) -> T {
        guard let position = storage.position(name) else { throw PGRow.unexpected("no column \(name)") }
        return try get(position, name: name)
    }

    /// Column `position` (0-based) as `T`.
    func get<T: PGDecodable>(_ position: Int, name: String? = nil) throws(LibraryError) -> T {
        guard storage.names.indices.contains(position) else { throw PGRow.unexpected("no column \(position)") }
        let value: T? = withBytes(position) { T(pgBytes: $0) }
        guard let value else {
            throw PGRow.unexpected("column \(name ?? String(position)) holds \(text(position).map { "\"\($0.prefix(40))\"" } ?? "NULL"), not a \(T.self)")
        }
        return value
    }

    /// Column `position`'s text; nil for NULL.
    func text(_ position: Int) -> String? { withBytes(position) { $0.map { String(decoding: $0, as: UTF8.self) } } }

    /// Calls `body` with column `position`'s bytes in libpq's result (nil for NULL).
    private func withBytes<R>(_ position: Int, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        let column = Int32(position)
        guard PQgetisnull(storage.handle, row, column) == 0, let value = PQgetvalue(storage.handle, row, column) else { return body(nil) }
        return body(UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(storage.handle, row, column))))
    }

    static func unexpected(_ what: String) -> LibraryError {
        .database(DatabaseFailure(kind: .other, message: "unexpected result from PostgreSQL: \(what)"))
    }
}

/// A value read from PostgreSQL's text form.
protocol PGDecodable {
    /// nil bytes are SQL NULL; nil result: not a value of this type.
    init?(pgBytes: UnsafeRawBufferPointer?)
}

extension String: PGDecodable {
    init?(pgBytes: UnsafeRawBufferPointer?) { guard let pgBytes else { return nil }; self = String(decoding: pgBytes, as: UTF8.self) }
}
extension Int64: PGDecodable {
    /// An optional minus and decimal digits, as PostgreSQL writes integers; nothing else.
    init?(pgBytes: UnsafeRawBufferPointer?) {
        guard var digits = pgBytes?[...], let first = digits.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            // Accumulated negatively, so that Int64.min parses too.
            let (next, o2) = times10.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = next
        }
        if negative { self = value } else {
            guard value != .min else { return nil }
            self = -value
        }
    }
}
extension Int: PGDecodable {
    init?(pgBytes: UnsafeRawBufferPointer?) { guard let value = Int64(pgBytes: pgBytes) else { return nil }; self = Int(value) }
}
extension Double: PGDecodable {
    init?(pgBytes: UnsafeRawBufferPointer?) { guard let text = String(pgBytes: pgBytes), let v = Double(text) else { return nil }; self = v }
}
extension Bool: PGDecodable {
    init?(pgBytes: UnsafeRawBufferPointer?) {
        switch pgBytes.map({ String(decoding: $0, as: UTF8.self) }) {
        case "t", "true", "1": self = true
        case "f", "false", "0": self = false
        default: return nil
        }
    }
}
extension Optional: PGDecodable where Wrapped: PGDecodable {
    init?(pgBytes: UnsafeRawBufferPointer?) {
        guard let pgBytes else { self = .none; return }
        guard let value = Wrapped(pgBytes: pgBytes) else { return nil }
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
/// (A closure, not `flatMap(\.pgText)`: a key path in a generic context is made anew by the
/// runtime on every use, which was half of a sync worker's time.)
extension Optional: PGBindable where Wrapped: PGBindable { var pgText: String? { flatMap { $0.pgText } } }
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
