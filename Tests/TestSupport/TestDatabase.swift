import Foundation
import LibraryPostgres
import LibrarySQLite
import LibraryStore
import XCTest

/// The store engines the conformance suite (Tests/StoreContractTests) runs each of its tests on.
/// An engine joins the suite with a case here and its branch in `TestDatabase.make`.
public enum StoreEngine: String, CaseIterable, Sendable {
    case sqlite
    /// A database of its own in the test run's PostgreSQL server (`TestPostgres`).
    case postgresql

    /// The engines a contract test runs on: all of them, or those `FEEDCTL_STORE_ENGINES` names
    /// (`sqlite,postgresql`; for working on one engine: CI sets nothing and runs all).
    public static var tested: [StoreEngine] {
        guard let names = ProcessInfo.processInfo.environment["FEEDCTL_STORE_ENGINES"], !names.isEmpty else { return allCases }
        return names.split(separator: ",").compactMap { StoreEngine(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The one engine the API tests (Tests/APIServerTests: the in-process server and the
    /// `feedctl serve` processes) run on in this test process: `FEEDCTL_TEST_ENGINE`, `sqlite`
    /// (the default) or `postgresql`. CI runs those classes once with each (scripts/test.sh).
    /// Any other value is an error, never a quiet run on SQLite.
    public static func underTest() throws -> StoreEngine {
        guard let name = ProcessInfo.processInfo.environment["FEEDCTL_TEST_ENGINE"], !name.isEmpty else { return .sqlite }
        guard let engine = StoreEngine(rawValue: name) else {
            throw ProcessRunner.Failure(description: "FEEDCTL_TEST_ENGINE=\(name) names no engine: give sqlite or postgresql")
        }
        return engine
    }
}

/// A fresh, empty library on one engine for one test (its migrations applied, its owner in it):
/// the `LibraryDatabase` the contract tests reach it through, and what keeps it alive.
public final class TestDatabase: Sendable {
    public let engine: StoreEngine
    public let database: any LibraryDatabase
    /// What `--db` (or `FEEDCTL_DB`) takes to open this library in a process of its own: the
    /// file's path, or the PostgreSQL URL.
    public let dbSetting: String
    /// The PostgreSQL database's name (nil on SQLite).
    let postgresName: String?
    /// Opens the same library again (a new connection, as another process has).
    private let open: @Sendable () async throws -> any LibraryDatabase
    /// What the library lives in as long as the test holds this (a temp dir).
    private let kept: any Sendable

    private init(engine: StoreEngine, dbSetting: String, postgresName: String? = nil, keeping kept: any Sendable,
                 open: @escaping @Sendable () async throws -> any LibraryDatabase) async throws {
        self.engine = engine
        self.dbSetting = dbSetting
        self.postgresName = postgresName
        self.kept = kept
        self.open = open
        database = try await open()
    }

    public static func make(_ engine: StoreEngine) async throws -> TestDatabase {
        switch engine {
        case .sqlite:
            let dir = TempDir()
            return try await sqlite(path: dir.file("library.sqlite"), keeping: dir)
        case .postgresql:
            let created = try TestPostgres.createDatabase()
            return try await TestDatabase(engine: engine, dbSetting: created.url, postgresName: created.name,
                                          keeping: DroppedAtEnd(name: created.name)) {
                try await PostgresLibrary(url: created.url, location: "postgresql:///\(created.name)")
            }
        }
    }

    /// A fresh library on the engine this process's API tests run on (`StoreEngine.underTest()`).
    public static func make() async throws -> TestDatabase {
        try await make(StoreEngine.underTest())
    }

    /// A SQLite library at `path` (on a file system the test made), kept as long as `kept` is.
    public static func sqlite(path: String, keeping kept: any Sendable = ()) async throws -> TestDatabase {
        try await TestDatabase(engine: .sqlite, dbSetting: path, keeping: kept) { try SQLiteLibrary(path: path) }
    }

    /// The same library opened again, as a restarted process (or another one) opens it.
    public func reopen() async throws -> any LibraryDatabase { try await open() }

    /// The same library on a connection of its own, as another replica of a server has it
    /// (`APIHarness(database:)` serves it); it keeps this one alive.
    public func replica() async throws -> TestDatabase {
        try await TestDatabase(engine: engine, dbSetting: dbSetting, postgresName: postgresName, keeping: self, open: open)
    }

    /// The owner's store.
    public var owner: any UserLibrary { database.owner }

    public func store(for user: UserID) -> any UserLibrary { database.store(for: user) }
}

/// Drops its test database when the test lets go of it (whoever is still connected).
private final class DroppedAtEnd: Sendable {
    let name: String
    init(name: String) { self.name = name }
    deinit { TestPostgres.drop(name) }
}

extension XCTestCase {
    /// Runs `body` once for each engine (`StoreEngine.tested`), each time with a fresh
    /// database. The assertions' messages do not say which engine they ran on, so a run that
    /// recorded failures adds one more naming its engine; an error `body` throws is a failure
    /// of that engine's run, and the next engine still runs. (Each contract test calls this
    /// itself: Linux's XCTest does not find test methods a class inherits.)
    public nonisolated(nonsending) func forEachEngine(file: StaticString = #filePath, line: UInt = #line,
                                                      _ body: (TestDatabase) async throws -> Void) async throws {
        for engine in StoreEngine.tested {
            let failuresBefore = testRun?.totalFailureCount ?? 0
            let database = try await TestDatabase.make(engine)
            do {
                try await body(database)
            } catch {
                XCTFail("threw \(error)", file: file, line: line)
            }
            if (testRun?.totalFailureCount ?? 0) > failuresBefore {
                XCTFail("the failures above were on \(engine.rawValue)", file: file, line: line)
            }
        }
    }
}

extension XCTestCase {
    /// Skips a test that is SQLite's own (its file, its disk, its checkpoint: `why`) when this
    /// process's API tests run on another engine (`StoreEngine.underTest()`); on SQLite it runs.
    /// docs/testing.md lists the tests that call this.
    public func skipUnlessSQLite(_ why: String) throws {
        let engine = try StoreEngine.underTest()
        if engine != .sqlite { throw XCTSkip("SQLite's own (\(why)): not run on \(engine.rawValue)") }
    }
}
