import Digests
import Foundation
import LibraryStore

/// `feedctl db copy`: a whole library moved from one place to another, SQLite or PostgreSQL
/// either way, table by table with its ids (`LibraryTables`), then checked: each table's rows
/// are counted and hashed as they are read from the source, and again as the target holds them.
///
/// The source is read in one snapshot (a server may go on writing to it: the copy is the library
/// as it was when the copy began, consistent across tables). The target is written in one
/// transaction for the whole copy: a copy that fails, or whose check finds a difference, leaves
/// the target as it was (empty, so the copy can simply be run again), and nobody ever sees half
/// a library there. Rows go in pages (at most `pageRows`, and about `pageBytes`): memory is
/// bounded by a page, whatever the library's size.
public enum LibraryCopy {
    /// One table's count and checksum in the source and in the target.
    public struct TableCheck: Sendable, Equatable {
        public let table: String
        public let source: TableChecksum
        public let target: TableChecksum
        public var matches: Bool { source == target }
    }

    public static let pageRows = 5_000
    public static let pageBytes = 8 << 20

    /// Copies the library at `source` into `target` (a new SQLite file is made; a PostgreSQL
    /// database must exist, and is migrated if it is empty) and returns each table's check, all
    /// matching. `announce` hears a line when a library is made.
    public static func copy(from source: LibraryLocation, to target: LibraryLocation,
                            pageRows: Int = pageRows, pageBytes: Int = pageBytes,
                            announce: @Sendable (String) -> Void) async throws(LibraryCopyError) -> [TableCheck] {
        if source.sameLibrary(as: target) { throw .sameLibrary(source.description) }
        let from: any LibraryTables, to: any LibraryTables
        do { from = try await LibraryOpener.openTables(source, creating: false, announce: announce) } catch { throw .open("--from", error) }
        do { to = try await LibraryOpener.openTables(target, creating: true, announce: announce) } catch { throw .open("--to", error) }
        return try await copy(from: from, named: source.description, to: to, named: target.description, pageRows: pageRows, pageBytes: pageBytes)
    }

    /// The copy between two opened libraries (`source` and `target` name them in messages).
    static func copy(from: any LibraryTables, named source: String, to: any LibraryTables, named target: String,
                     pageRows: Int, pageBytes: Int) async throws(LibraryCopyError) -> [TableCheck] {
        let reader = try await attempt("reading \(source)") { () throws(LibraryError) in try await from.readTables() }
        let writer = try await attempt("writing \(target)") { () throws(LibraryError) in try await to.writeTables() }
        try sameShapes(reader.tables, writer.tables, source: source, target: target)
        let tables = reader.tables

        // Refused unless new; then what a new library starts with makes way for the source's.
        var startRows: [String] = [], occupied: [String] = []
        for table in tables {
            let first = try await attempt("reading \(target)") { () throws(LibraryError) in try await writer.rows(of: table, after: nil, limit: 2) }
            if first.isEmpty { continue }
            if first.allSatisfy({ isNewLibraryRow($0, of: table) }) { startRows.append(table.name) } else { occupied.append(table.name) }
        }
        if !occupied.isEmpty { throw .notEmpty(target, tables: occupied) }
        for name in startRows.reversed() {
            try await attempt("writing \(target)") { () throws(LibraryError) in try await writer.deleteRows(of: name) }
        }

        var sourceSums: [String: TableChecksum] = [:]
        for table in tables {
            var sum = TableChecksum()
            try await forEachPage(of: table, in: reader, reading: "reading table \(table.name) from \(source)",
                                  pageRows: pageRows, pageBytes: pageBytes) { page throws(LibraryCopyError) in
                for row in page { try sum.add(row) }
                try await attempt("writing table \(table.name) into \(target)") { () throws(LibraryError) in try await writer.insert(page, into: table) }
            }
            sourceSums[table.name] = sum
        }
        try await attempt("finishing \(target)") { () throws(LibraryError) in try await writer.finish(tables) }

        // Read back through the target's own reads, in its own transaction: what a commit keeps.
        var checks: [TableCheck] = []
        for table in tables {
            var sum = TableChecksum()
            try await forEachPage(of: table, in: writer, reading: "checking table \(table.name) in \(target)",
                                  pageRows: pageRows, pageBytes: pageBytes) { page throws(LibraryCopyError) in
                for row in page { try sum.add(row) }
            }
            checks.append(TableCheck(table: table.name, source: sourceSums[table.name] ?? TableChecksum(), target: sum))
        }
        if checks.contains(where: { !$0.matches }) { throw .mismatch(checks) }
        try await attempt("committing \(target)") { () throws(LibraryError) in try await writer.commit() }
        return checks
    }

    /// `body`'s failure as the copy's, saying what it was doing.
    private static func attempt<T>(_ what: String, _ body: () async throws(LibraryError) -> T) async throws(LibraryCopyError) -> T {
        do { return try await body() } catch { throw .failed(what, error) }
    }

    /// Calls `body` with each page of `table`'s rows in key order. Pages hold at most `pageRows`
    /// rows, fewer when rows are big (the next page's size follows the last page's bytes per row).
    static func forEachPage(of table: LibraryTable, in reader: any LibraryTableReader, reading: String, pageRows: Int, pageBytes: Int,
                            _ body: ([[TableValue]]) async throws(LibraryCopyError) -> Void) async throws(LibraryCopyError) {
        let keyPositions = table.key.compactMap { key in table.columns.firstIndex { $0.name == key } }
        var after: [TableValue]?
        var limit = pageRows
        while true {
            let from = after, count = limit
            let page = try await attempt(reading) { () throws(LibraryError) in try await reader.rows(of: table, after: from, limit: count) }
            guard let last = page.last else { return }
            try await body(page)
            if page.count < limit { return }
            after = keyPositions.map { last[$0] }
            let bytes = page.reduce(0) { $0 + $1.reduce(0) { $0 + $1.size } }
            limit = max(1, min(pageRows, pageBytes * page.count / max(1, bytes)))
        }
    }

    /// What every new library holds (both engines' migrations make them): its owner (`UserID.owner`)
    /// without a password yet, and the sync clock's one row.
    static func isNewLibraryRow(_ row: [TableValue], of table: LibraryTable) -> Bool {
        func value(_ column: String) -> TableValue? { table.columns.firstIndex { $0.name == column }.map { row[$0] } }
        switch table.name {
        case "sync_clock": return true
        case "users": return value("id") == .integer(UserID.owner.rawValue) && value("password_hash") == .null
        default: return false
        }
    }

    /// Both libraries have the same tables with the same columns (of the same kinds, in any
    /// order) and keys: else the copy would lose what one has and the other does not.
    static func sameShapes(_ source: [LibraryTable], _ target: [LibraryTable], source from: String, target to: String) throws(LibraryCopyError) {
        for (a, b) in zip(source, target) {
            let columns = { (table: LibraryTable) in Dictionary(table.columns.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first }) }
            guard a.name == b.name, columns(a) == columns(b), a.key == b.key else {
                let shape = { (table: LibraryTable) in table.columns.map { "\($0.name) \($0.kind.rawValue)" }.joined(separator: ", ") }
                throw .schemasDiffer("table \(a.name) is (\(shape(a))) in \(from) but (\(shape(b))) in \(to)")
            }
        }
    }
}

/// A table's rows, counted and hashed so that two libraries can be compared whatever order each
/// reads them in (PostgreSQL sorts text keys by its collation, SQLite by bytes): the SHA-256 of
/// each row's values (typed, length-prefixed), summed as four 64-bit lanes.
public struct TableChecksum: Sendable, Equatable {
    public private(set) var rows = 0
    private var lanes: [UInt64] = [0, 0, 0, 0]

    public init() {}

    mutating func add(_ row: [TableValue]) throws(LibraryCopyError) {
        var bytes: [UInt8] = []
        for value in row { value.encode(into: &bytes) }
        let digest: [UInt8]
        do { digest = try Digest.sha256.of(bytes) } catch { throw .digestUnavailable(error) }
        for lane in 0..<4 {
            let word = digest[lane * 8..<lane * 8 + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            lanes[lane] &+= word
        }
        rows += 1
    }

    /// The sum in hex (64 digits).
    public var hex: String { lanes.map { String($0, radix: 16).leftPadded(to: 16) }.joined() }
}

extension TableValue {
    /// A tag, then the value: integers and reals as their 8 bytes, text and blobs with their length.
    func encode(into bytes: inout [UInt8]) {
        func append(_ word: UInt64) { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) } }
        switch self {
        case .null: bytes.append(0)
        case .integer(let v): bytes.append(1); append(UInt64(bitPattern: v))
        case .real(let v): bytes.append(2); append(v.bitPattern)
        case .text(let v): bytes.append(3); append(UInt64(v.utf8.count)); bytes.append(contentsOf: v.utf8)
        case .blob(let v): bytes.append(4); append(UInt64(v.count)); bytes.append(contentsOf: v)
        }
    }

    /// About how many bytes it takes (a page's size).
    var size: Int {
        switch self {
        case .null, .integer, .real: 8
        case .text(let v): v.utf8.count
        case .blob(let v): v.count
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension LibraryLocation {
    /// Whether both name the same library: one file (by its real path), or the same URL.
    func sameLibrary(as other: LibraryLocation) -> Bool {
        switch (self, other) {
        case (.sqlite(let a), .sqlite(let b)):
            let real = { (path: String) in URL(fileURLWithPath: LibraryOpener.absolute(path)).resolvingSymlinksInPath().path }
            return real(a) == real(b)
        case (.postgresql(let a), .postgresql(let b)): return a.text == b.text
        default: return false
        }
    }
}

/// Why a copy did not happen; nothing was written to the target in any case.
public enum LibraryCopyError: Error, Sendable, CustomStringConvertible {
    /// `--from` or `--to` could not be opened.
    case open(String, LibraryOpenError)
    case sameLibrary(String)
    /// The target holds more than a new library does (these tables).
    case notEmpty(String, tables: [String])
    case schemasDiffer(String)
    /// The engine failed while doing what the text says.
    case failed(String, LibraryError)
    /// The target read back differs from the source (the checks, all of them).
    case mismatch([LibraryCopy.TableCheck])
    case digestUnavailable(DigestUnavailable)

    public var description: String {
        switch self {
        case .open(let setting, let error): "can't open \(setting): \(error)"
        case .sameLibrary(let location): "--from and --to are the same library (\(location)): copy into a new file or an empty PostgreSQL database"
        case .notEmpty(let location, let tables):
            "--to \(location) is not empty (it has \(tables.joined(separator: ", "))): db copy writes only into a new library"
                + " (a new file, or an empty PostgreSQL database); nothing was written"
        case .schemasDiffer(let why): "the libraries' schemas differ: \(why); nothing was written"
        case .failed(let what, let error): "\(what): \(error.descriptionWithoutPaths); nothing was written"
        case .mismatch(let checks):
            "the copy differs from the source in \(checks.filter { !$0.matches }.map(\.table).joined(separator: ", ")); nothing was written"
        case .digestUnavailable(let error): "can't check the copy: \(error)"
        }
    }
}
