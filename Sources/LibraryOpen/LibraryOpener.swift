import Foundation
import LibraryPostgres
import LibrarySQLite
import LibraryStore

/// The executables' one door to a library: where it is (`--db`, else `FEEDCTL_DB`, else the
/// default file), the engine that opens it, and where its downloads go. The only code that names
/// a concrete store; everything else takes `any LibraryDatabase` or one of its protocols.
public struct LibraryOpener: Sendable {
    public let location: LibraryLocation
    private let environment: [String: String]

    /// `db` is `--db` (nil: not given); `environment` gives `FEEDCTL_DB` and the XDG default.
    /// Empty variables count as unset (the XDG rule); an empty `--db` is an error.
    public init(db: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(LibraryOpenError) {
        self.environment = environment
        if let db {
            location = try LibraryLocation(parsing: db, setting: "--db")
        } else if let db = environment["FEEDCTL_DB"], !db.isEmpty {
            location = try LibraryLocation(parsing: db, setting: "FEEDCTL_DB")
        } else {
            location = .sqlite(path: (Self.dataDirectory(environment) as NSString).appendingPathComponent("library.sqlite"))
        }
    }

    /// Opens (and migrates) the library. Only the commands that set a library up pass
    /// `creating: true`, and say through `announce` that they made one: a mistyped path given to
    /// any other command is an error, not a new empty library that makes the real one look empty.
    public func open(creating: Bool = false, announce: @Sendable (String) -> Void) async throws(LibraryOpenError) -> any LibraryDatabase {
        switch location {
        case .sqlite(let path): try Self.openSQLite(path, creating: creating, announce: announce)
        case .postgresql(let url): try await openPostgreSQL(url, creating: creating, announce: announce)
        }
    }

    /// The library at `location` as raw tables, for `db copy` (`LibraryCopy`): a SQLite file is
    /// made when `creating`; a PostgreSQL database must exist, and is migrated if it is not yet.
    static func openTables(_ location: LibraryLocation, creating: Bool, announce: @Sendable (String) -> Void) async throws(LibraryOpenError) -> any LibraryTables {
        switch location {
        case .sqlite(let path):
            return try openSQLite(path, creating: creating, announce: announce)
        case .postgresql(let url):
            // libpq reads `text`; messages show `description` (its password masked). One pooled
            // connection migrates; the copy's reader and writer hold connections of their own.
            do { return try await PostgresLibrary(url: url.text, location: url.description, connections: 1) } catch { throw .library(error) }
        }
    }

    private static func openSQLite(_ path: String, creating: Bool, announce: @Sendable (String) -> Void) throws(LibraryOpenError) -> SQLiteLibrary {
        let existed = FileManager.default.fileExists(atPath: path)
        if !creating, !existed { throw .noLibrary(path: path) }
        let library: SQLiteLibrary
        do { library = try SQLiteLibrary(path: path) } catch { throw .library(error) }
        if !existed { announce("created the library at \(path)") }
        return library
    }

    /// Where downloaded episodes are: `option` (`--media-dir`), else `FEEDCTL_MEDIA`, else
    /// `defaultMediaDirectory`; absolute (a relative one is from the current directory), so that
    /// printed paths say where the files are.
    public func mediaDirectory(option: String?) throws(LibraryOpenError) -> String {
        if let option {
            if option.isEmpty { throw .badSetting("--media-dir is empty: give a directory") }
            return Self.absolute(option)
        }
        if let variable = environment["FEEDCTL_MEDIA"], !variable.isEmpty { return Self.absolute(variable) }
        return Self.defaultMediaDirectory(for: location, environment: environment)
    }

    /// The one rule for where downloads go when nobody says: `media/` beside a SQLite library's
    /// file (so libraries in different directories never see each other's files: a file is
    /// keyed by its library's item id), and `$XDG_DATA_HOME/feedctl/media` for a PostgreSQL
    /// library (the same directory as the default SQLite library's: give one of them
    /// `--media-dir` when using both).
    public static func defaultMediaDirectory(for location: LibraryLocation, environment: [String: String]) -> String {
        switch location {
        case .sqlite(let path):
            absolute(((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("media"))
        case .postgresql:
            (dataDirectory(environment) as NSString).appendingPathComponent("media")
        }
    }

    /// `$XDG_DATA_HOME/feedctl`, else `~/.local/share/feedctl`. An empty or relative
    /// `XDG_DATA_HOME` is ignored (the XDG spec).
    static func dataDirectory(_ environment: [String: String]) -> String {
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = (home as NSString).appendingPathComponent(".local/share")
        }
        return (dataHome as NSString).appendingPathComponent("feedctl")
    }

    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        return (full as NSString).standardizingPath
    }
}

// MARK: PostgreSQL: not in this build yet
extension LibraryOpener {
    /// A PostgreSQL library: libpq reads `text`; messages show `description` (its password
    /// masked). The database must exist (an administrator makes it, `createdb`); an empty one is
    /// migrated on first open, by one process at a time, whether or not the command sets up a
    /// library: a server's database is made on purpose, never by a typo.
    func openPostgreSQL(_ url: PostgresURL, creating: Bool, announce: @Sendable (String) -> Void) async throws(LibraryOpenError) -> any LibraryDatabase {
        do {
            return try await PostgresLibrary(url: url.text, location: url.description)
        } catch {
            throw .library(error)
        }
    }
}

/// Why a library could not be opened or its settings read, as one line a person can act on.
public enum LibraryOpenError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `--db`, `FEEDCTL_DB` or `--media-dir` holds what cannot be used: the line names the
    /// setting, its value (a URL's password masked) and what is wrong.
    case badSetting(String)
    /// No library at this path, and the command does not make one.
    case noLibrary(path: String)
    /// The engine could not open it.
    case library(LibraryError)

    public var description: String {
        switch self {
        case .badSetting(let line): line
        case .noLibrary(let path): "no library at \(path) (`feedctl channel add URL` or `feedctl channel import FILE` creates it)"
        case .library(let error): error.description
        }
    }
}
