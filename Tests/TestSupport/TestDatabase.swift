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
}

/// A fresh, empty library on one engine for one test (its migrations applied, its owner in it):
/// the `LibraryDatabase` the contract tests reach it through, and what keeps it alive.
public final class TestDatabase: Sendable {
    public let engine: StoreEngine
    public let database: any LibraryDatabase
    /// Opens the same library again (a new connection, as another process has).
    private let open: @Sendable () async throws -> any LibraryDatabase
    /// What the library lives in as long as the test holds this (a temp dir).
    private let kept: any Sendable

    private init(engine: StoreEngine, keeping kept: any Sendable,
                 open: @escaping @Sendable () async throws -> any LibraryDatabase) async throws {
        self.engine = engine
        self.kept = kept
        self.open = open
        database = try await open()
    }

    public static func make(_ engine: StoreEngine) async throws -> TestDatabase {
        switch engine {
        case .sqlite:
            let dir = TempDir()
            let path = dir.file("library.sqlite")
            return try await TestDatabase(engine: engine, keeping: dir) { try SQLiteLibrary(path: path) }
        case .postgresql:
            let created = try TestPostgres.createDatabase()
            return try await TestDatabase(engine: engine, keeping: DroppedAtEnd(name: created.name)) {
                try await PostgresLibrary(url: created.url, location: "postgresql:///\(created.name)")
            }
        }
    }

    /// The same library opened again, as a restarted process (or another one) opens it.
    public func reopen() async throws -> any LibraryDatabase { try await open() }

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
