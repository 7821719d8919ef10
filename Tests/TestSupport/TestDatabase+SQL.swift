import GRDB

/// Statements run straight on a test's library, past its store (what another process, or time
/// passing, would have changed; what is stored, whatever the store's API shows). The two
/// schemas share their table and column names; a statement in one engine's dialect only is
/// the test's to choose by `engine`.
extension TestDatabase {
    /// The first column of every row `sql` selects, as text (a NULL as "").
    public func strings(_ sql: String) throws -> [String] {
        if let postgresName {
            // psql -tA: a line per row, each ended by a newline.
            var lines = try TestPostgres.psql(try TestPostgres.serverDirectory(), postgresName, sql)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            return lines
        }
        let queue = try DatabaseQueue(path: dbSetting)
        return try queue.read { db in try String?.fetchAll(db, sql: sql).map { $0 ?? "" } }
    }

    /// Runs `sql` (one statement or several, in one transaction).
    public func execute(_ sql: String) throws {
        if let postgresName {
            try TestPostgres.psql(try TestPostgres.serverDirectory(), postgresName, sql)
            return
        }
        let queue = try DatabaseQueue(path: dbSetting)
        try queue.inTransaction { db in
            try db.execute(sql: sql)
            return .commit
        }
    }
}
