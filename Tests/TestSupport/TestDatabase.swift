import LibrarySQLite
import LibraryStore
import XCTest

/// The store engines the conformance suite (Tests/StoreContractTests) runs each of its tests on.
/// An engine joins the suite with a case here and its branch in `TestDatabase.make`.
public enum StoreEngine: String, CaseIterable, Sendable {
    case sqlite
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
        }
    }

    /// The same library opened again, as a restarted process (or another one) opens it.
    public func reopen() async throws -> any LibraryDatabase { try await open() }

    /// The owner's store.
    public var owner: any UserLibrary { database.owner }

    public func store(for user: UserID) -> any UserLibrary { database.store(for: user) }
}

extension XCTestCase {
    /// Runs `body` once for each engine (`StoreEngine.allCases`), each time with a fresh
    /// database. The assertions' messages do not say which engine they ran on, so a run that
    /// recorded failures adds one more naming its engine; an error `body` throws is a failure
    /// of that engine's run, and the next engine still runs. (Each contract test calls this
    /// itself: Linux's XCTest does not find test methods a class inherits.)
    public nonisolated(nonsending) func forEachEngine(file: StaticString = #filePath, line: UInt = #line,
                                                      _ body: (TestDatabase) async throws -> Void) async throws {
        for engine in StoreEngine.allCases {
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
