@testable import LibraryPostgres
import LibraryStore
import TestSupport
import Synchronization
import XCTest

/// The PostgreSQL store's plumbing against a real server (TestPostgres): values both ways,
/// errors sorted into what a caller can do, lost connections made again, migrations one at a time.
final class PostgresConnectionTests: XCTestCase {
    private var database: (name: String, url: String)!

    override func setUpWithError() throws {
        database = try TestPostgres.createDatabase()
    }

    override func tearDown() {
        if let database { TestPostgres.drop(database.name) }
    }

    private func library() async throws -> PostgresLibrary {
        try await PostgresLibrary(url: database.url, location: "test", connections: 2)
    }

    func testValuesTravelAsParametersNeverAsSQL() async throws {
        let library = try await library()
        let hostile = "x'); DROP TABLE schema_migrations; --\\ \"quoted\" ünïcødé 🎧"
        let row = try await library.read { connection throws(LibraryError) in
            try connection.query("SELECT $1::text AS s, $2::bigint AS i, $3::float8 AS d, $4::boolean AS b, $5::text AS n, $6::bigint[] AS a, $7::text[] AS t",
                                 [hostile, Int64.max, 0.25, true, String?.none, [Int64(1), -2], [hostile, "b"]]).first
        }
        let first = try XCTUnwrap(row)
        XCTAssertEqual(try first.get("s") as String, hostile)
        XCTAssertEqual(try first.get("i") as Int64, Int64.max)
        XCTAssertEqual(try first.get("d") as Double, 0.25)
        XCTAssertEqual(try first.get("b") as Bool, true)
        XCTAssertNil(try first.get("n") as String?)
        XCTAssertEqual(try first.get("a") as String, "{1,-2}")
        let texts = try await library.read { connection throws(LibraryError) in
            try connection.query("SELECT unnest($1::text[]) AS t", [[hostile, "b"]]).rows.map { row throws(LibraryError) in try row.get("t") as String }
        }
        XCTAssertEqual(texts, [hostile, "b"])
        let migrations = try await library.appliedMigrations()
        XCTAssertFalse(migrations.isEmpty, "the table the hostile text named is still there")
    }

    func testAnUnexpectedNullOrTypeIsAStoreFailureNamingTheColumn() async throws {
        let library = try await library()
        do {
            _ = try await library.read { connection throws(LibraryError) in
                try connection.query("SELECT NULL::bigint AS count").first.map { row throws(LibraryError) in try row.get("count") as Int64 }
            }
            XCTFail("a NULL read as a number must fail")
        } catch {
            XCTAssertEqual(error.databaseFailure?.kind, .other)
            XCTAssertTrue(error.description.contains("column count holds NULL"), error.description)
        }
    }

    func testNumbersAreReadFromLibpqsBytesToTheirLimitsAndNothingElseIsANumber() async throws {
        let library = try await library()
        let found = try await library.read { connection throws(LibraryError) in
            try connection.query("""
                SELECT (-9223372036854775807 - 1)::bigint AS min, 9223372036854775807::bigint AS max, 0::bigint AS zero, -7::int AS minus,
                       '9223372036854775808' AS over, '-9223372036854775809' AS under, '-' AS dash, '' AS empty, '12a' AS letters,
                       '+5' AS plus, ' 5' AS spaced, 't'::boolean AS yes, 'é' AS accent, 2.5::float8 AS half, NULL::bigint AS nothing
                """).first
        }
        let row = try XCTUnwrap(found)
        XCTAssertEqual(try row.get("min") as Int64, .min)
        XCTAssertEqual(try row.get("max") as Int64, .max)
        XCTAssertEqual(try row.get("zero") as Int, 0)
        XCTAssertEqual(try row.get("minus") as Int, -7)
        XCTAssertEqual(try row.get("yes") as Bool, true)
        XCTAssertEqual(try row.get("accent") as String, "é")
        XCTAssertEqual(try row.get("half") as Double, 2.5)
        XCTAssertNil(try row.get("nothing") as Int64?)
        XCTAssertEqual(row.text(0), "-9223372036854775808")
        XCTAssertNil(row.text(14))
        for column in ["over", "under", "dash", "empty", "letters", "plus", "spaced", "accent"] {
            XCTAssertThrowsError(try row.get(column) as Int64, column) { error in
                XCTAssertTrue("\(error)".contains("column \(column) holds"), "\(error)")
            }
        }
        XCTAssertThrowsError(try row.get("missing") as Int64) { XCTAssertTrue("\($0)".contains("no column missing"), "\($0)") }
    }

    func testAPipelineAnswersInOrderAndStopsAtItsFirstFailureAsOneTransaction() async throws {
        let library = try await library()
        let answers = try await library.read { connection throws(LibraryError) in
            try connection.pipeline([PGStatement(sql: "SELECT $1::bigint * 2 AS n", parameters: [21]),
                                     PGStatement(sql: "SELECT $1::text AS s", parameters: [String?.none]),
                                     PGStatement(sql: "SELECT generate_series(1, $1::int) AS n", parameters: [3])])
                .map { result in result.rows.map { $0.text(0) } }
        }
        XCTAssertEqual(answers, [["42"], [nil], ["1", "2", "3"]])

        // On its own a pipeline is one transaction: a failure undoes what ran before it and skips the rest.
        _ = try await library.read { connection throws(LibraryError) in try connection.query("CREATE TABLE piped (n bigint PRIMARY KEY)") }
        do {
            _ = try await library.read { connection throws(LibraryError) in
                try connection.pipeline([PGStatement(sql: "INSERT INTO piped VALUES ($1)", parameters: [1]),
                                         PGStatement(sql: "INSERT INTO piped VALUES ($1)", parameters: [1]),
                                         PGStatement(sql: "INSERT INTO piped VALUES ($1)", parameters: [2])])
            }
            XCTFail("a duplicate key must fail the pipeline")
        } catch {
            XCTAssertEqual(error.databaseFailure?.sqlState, "23505", error.description)
            XCTAssertEqual(error.databaseFailure?.kind, .constraint)
        }
        // Inside a transaction the failure rolls back the whole write; either way the connection goes on.
        do {
            _ = try await library.write { connection throws(LibraryError) in
                _ = try connection.query("INSERT INTO piped VALUES (3)")
                return try connection.pipeline([PGStatement(sql: "INSERT INTO piped VALUES ($1)", parameters: [4]),
                                                PGStatement(sql: "SELECT 1 / $1::int", parameters: [0])])
            }
            XCTFail("a division by zero must fail the write")
        } catch {
            XCTAssertEqual(error.databaseFailure?.sqlState, "22012", error.description)
        }
        let stored = try await library.read { connection throws(LibraryError) in
            try connection.query("SELECT count(*) FROM piped").first?.get(0) as Int?
        }
        XCTAssertEqual(stored, 0)
    }

    func testErrorsKeepTheSQLStateAndSayWhetherARetryCanHelp() async throws {
        let library = try await library()
        do {
            try await library.write { connection throws(LibraryError) in
                try connection.execute("CREATE TABLE once (id BIGINT PRIMARY KEY)")
                try connection.query("INSERT INTO once VALUES (1), (1)")
            }
            XCTFail("a duplicate key must fail")
        } catch {
            XCTAssertEqual(error.databaseFailure?.sqlState, "23505")
            XCTAssertEqual(error.databaseFailure?.kind, .constraint)
            XCTAssertFalse(error.isRetryable)
            XCTAssertFalse(error.description.contains("\n"))
        }
        XCTAssertEqual(PGConnection.kind(sqlState: "40001"), .serializationFailure)
        XCTAssertEqual(PGConnection.kind(sqlState: "40P01"), .serializationFailure)
        XCTAssertEqual(PGConnection.kind(sqlState: "08006"), .connectionLost)
        XCTAssertEqual(PGConnection.kind(sqlState: "53100"), .diskFull)
        XCTAssertTrue(LibraryError.database(DatabaseFailure(kind: PGConnection.kind(sqlState: "40001"), message: "")).isRetryable)
        // The failed transaction was rolled back: the table is not there.
        let tables = try await library.read { connection throws(LibraryError) in
            try connection.query("SELECT count(*) AS n FROM pg_tables WHERE tablename = 'once'").first.map { row throws(LibraryError) in try row.get("n") as Int64 }
        }
        XCTAssertEqual(tables, 0)
    }

    func testAConnectionTheServerDroppedIsMadeAgain() async throws {
        let library = try await library()
        let pid = try await library.read { connection throws(LibraryError) in
            try connection.query("SELECT pg_backend_pid() AS pid").first.map { row throws(LibraryError) in try row.get("pid") as Int64 }
        }
        try TestPostgres.psql(try TestPostgres.serverDirectory(), "postgres", "SELECT pg_terminate_backend(\(try XCTUnwrap(pid)))")
        // The pool's other slot may answer first: ask until the dropped one has been used again.
        var lost = 0
        for _ in 0..<4 {
            do {
                _ = try await library.read { connection throws(LibraryError) in try connection.query("SELECT 1") }
            } catch {
                XCTAssertEqual(error.databaseFailure?.kind, .connectionLost, "\(error)")
                XCTAssertTrue(error.isRetryable)
                lost += 1
            }
        }
        XCTAssertLessThanOrEqual(lost, 1, "only the query on the dropped connection fails")
        let after = try await library.read { connection throws(LibraryError) in try connection.query("SELECT 1 AS one").first.map { row throws(LibraryError) in try row.get("one") as Int }}
        XCTAssertEqual(after, 1)
    }

    /// A statement is prepared once on a connection and run by name after; a connection the
    /// pool makes anew (the server dropped the old one) starts with none and prepares it again.
    func testAStatementIsPreparedOncePerConnectionAndAgainOnANewOne() async throws {
        let library = try await PostgresLibrary(url: database.url, location: "test", connections: 1)
        let sql = "SELECT pg_backend_pid() AS pid, $1::bigint AS n"
        @Sendable func run(_ times: Int) async throws(LibraryError) -> (pid: Int64, runs: Int64) {
            try await library.read { connection throws(LibraryError) in
                var pid: Int64 = 0
                for n in 1...times { pid = try connection.query(sql, [n]).first?.get("pid") ?? 0 }
                let prepared = try connection.query("SELECT generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE statement = $1",
                                                    [sql]).rows
                guard prepared.count == 1 else { throw LibraryError.invalid("test: \(prepared.count) statements prepared as it") }
                return (pid, try prepared[0].get("runs"))
            }
        }
        let first = try await run(4)
        XCTAssertEqual(first.runs, 4, "prepared once, run four times by name")
        try TestPostgres.psql(try TestPostgres.serverDirectory(), "postgres", "SELECT pg_terminate_backend(\(first.pid))")
        do {
            _ = try await run(1)
            XCTFail("the dropped connection's statement must fail")
        } catch {
            XCTAssertEqual(error.databaseFailure?.kind, .connectionLost, "\(error)")
        }
        let second = try await run(2)
        XCTAssertNotEqual(second.pid, first.pid)
        XCTAssertEqual(second.runs, 2, "prepared again on the new connection (none of the old one's kept)")
    }

    /// A statement that asks for its generic plan sets the session's plan_cache_mode (and its
    /// planner's memory and workers) for itself only: the next statement, and every
    /// transaction, runs with the server's choice.
    func testAGenericPlanIsForItsOwnStatementOnly() async throws {
        let library = try await PostgresLibrary(url: database.url, location: "test", connections: 1)
        let sql = "SELECT current_setting('plan_cache_mode') AS mode"
        let modes = try await library.read { connection throws(LibraryError) -> [String] in
            [try connection.query(sql, plan: .generic).first?.get("mode") ?? "", try connection.query(sql).first?.get("mode") ?? ""]
        }
        XCTAssertEqual(modes, ["force_generic_plan", "auto"])
        let planner = "SELECT current_setting('work_mem') || ' ' || current_setting('max_parallel_workers_per_gather') AS planner"
        let settings = try await library.read { connection throws(LibraryError) -> [String] in
            [try connection.query(planner, plan: .generic).first?.get("planner") ?? "", try connection.query(planner).first?.get("planner") ?? ""]
        }
        XCTAssertEqual(settings, ["64kB 0", "4MB 2"], "generic plans with a small work_mem and no parallel workers; the server's settings for others")
        _ = try await library.read { connection throws(LibraryError) in try connection.query("SELECT 1", plan: .generic) }
        let inWrite = try await library.write { connection throws(LibraryError) -> String? in try connection.query(sql).first?.get("mode") }
        XCTAssertEqual(inWrite, "auto")
        let inSnapshot = try await library.snapshot { connection throws(LibraryError) -> String? in try connection.query(sql, plan: .generic).first?.get("mode") }
        XCTAssertEqual(inSnapshot, "auto", "in a transaction the server chooses")
    }

    func testASerializationFailureIsRunAgain() async throws {
        let library = try await library()
        let attempts = Mutex(0)
        try await library.write { connection throws(LibraryError) in
            let attempt = attempts.withLock { $0 += 1; return $0 }
            if attempt == 1 {
                // What PostgreSQL raises when a concurrent transaction won.
                try connection.execute("DO $$ BEGIN RAISE EXCEPTION 'lost a race' USING ERRCODE = '40001'; END $$")
            }
        }
        XCTAssertEqual(attempts.withLock { $0 }, 2)
    }

    func testServersThatCannotBeReachedSayWhereInOneLine() async throws {
        do {
            _ = try await PostgresLibrary(url: "postgresql://feedctl@/nosuchdb?host=/nonexistent-dir", location: "postgresql://feedctl@/nosuchdb", connections: 1)
            XCTFail("no server there")
        } catch {
            XCTAssertEqual(error.databaseFailure?.kind, .cannotOpen)
            XCTAssertTrue(error.description.hasPrefix("library postgresql://feedctl@/nosuchdb: can't connect:"), error.description)
            XCTAssertFalse(error.description.contains("\n"))
        }
    }

    func testProcessesStartingTogetherMigrateOnce() async throws {
        let empty = try TestPostgres.createEmptyDatabase()
        defer { TestPostgres.drop(empty.name) }
        let url = empty.url
        try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask { try await PostgresLibrary(url: url, location: "test", connections: 1).appliedMigrations() }
            }
            for try await applied in group {
                XCTAssertEqual(applied, PostgresSchema.migrations.map(\.name))
            }
        }
    }
}

/// The change log's notifications: a change committed by another process wakes a reader at once;
/// while the listener listens a reader waits for one (no polling), while it does not the reader
/// polls, and it wakes every reader when it starts or stops listening.
final class PostgresChangeNotificationTests: XCTestCase {
    /// A reader on a fresh database whose listener listens (its first wait starts it, and
    /// returns when it listens).
    private func listeningReader(_ database: (name: String, url: String)) async throws -> PostgresLibrary {
        let reader = try await PostgresLibrary(url: database.url, location: "reader", connections: 1)
        await reader.waitForChange(after: try await reader.latestChange(), poll: .seconds(10), timeout: .seconds(10))
        return reader
    }

    private func logAChange(in database: String) throws {
        // Another process (psql) logs a change as the stores' triggers do.
        _ = try TestPostgres.psql(try TestPostgres.serverDirectory(), database,
                                  "INSERT INTO changes_pending (user_id, kind, payload) VALUES (1, 'watch', '{\"item_id\": 1}')")
    }

    func testAChangeMadeByAnotherProcessWakesAWaitingReader() async throws {
        let database = try TestPostgres.createDatabase()
        defer { TestPostgres.drop(database.name) }
        let reader = try await listeningReader(database)
        let before = try await reader.latestChange()
        let timeout = Duration.seconds(60)
        let waiting = Task {
            let clock = ContinuousClock()
            let start = clock.now
            // A short poll changes nothing while the listener listens.
            await reader.waitForChange(after: before, poll: .milliseconds(1), timeout: timeout)
            return clock.now - start
        }
        try await Task.sleep(for: .milliseconds(200))
        try logAChange(in: database.name)
        let waited = await waiting.value
        XCTAssertLessThan(waited, timeout, "woken by the notification, not by the timeout")
        let latest = try await reader.latestChange()
        XCTAssertGreaterThan(latest, before)
        // A reader already past the latest change waits for the next one (here: the timeout),
        // however short its poll.
        let clock = ContinuousClock()
        let start = clock.now
        await reader.waitForChange(after: latest, poll: .milliseconds(1), timeout: .milliseconds(300))
        XCTAssertGreaterThanOrEqual(clock.now - start, .milliseconds(300))
    }

    /// A change committed while the listener's connection is lost (its notification goes to no
    /// one) still reaches a reader waiting with a long timeout: the listener wakes its readers
    /// when it stops listening, they poll until it listens again, and it wakes them then.
    func testAChangeMadeWhileTheListenerIsDownStillReachesAReader() async throws {
        let database = try TestPostgres.createDatabase()
        defer { TestPostgres.drop(database.name) }
        let reader = try await listeningReader(database)
        let before = try await reader.latestChange()
        let timeout = Duration.seconds(60)
        let found = Task {
            let clock = ContinuousClock()
            let start = clock.now
            while (try? await reader.latestChange()) ?? before <= before, clock.now - start < timeout {
                await reader.waitForChange(after: before, poll: .milliseconds(100), timeout: timeout)
            }
            return clock.now - start
        }
        try await Task.sleep(for: .milliseconds(200))
        let ended = try TestPostgres.psql(try TestPostgres.serverDirectory(), "postgres", """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = '\(database.name)' AND query = 'LISTEN \(PGChangeListener.channel)'
            """)
        XCTAssertEqual(ended.trimmingCharacters(in: .whitespacesAndNewlines), "1", "the listener's connection")
        try logAChange(in: database.name)
        let waited = await found.value
        XCTAssertLessThan(waited, timeout, "found by a poll or the wake-up when the listener listened again, not the timeout")
        let latest = try await reader.latestChange()
        XCTAssertGreaterThan(latest, before)
    }
}
