import GRDB

extension TestLibrary {
    /// The first column of every row `sql` selects, as text, read straight from the library file
    /// (what is stored, whatever the store's API shows).
    public func strings(_ sql: String) throws -> [String] {
        let queue = try DatabaseQueue(path: library.path)
        return try queue.read { db in try String.fetchAll(db, sql: sql) }
    }
}

extension TestLibrary {
    /// Runs `sql` straight on the library file (what another process, or time passing, would
    /// have changed: a test makes every channel due again).
    public func execute(_ sql: String) throws {
        let queue = try DatabaseQueue(path: library.path)
        try queue.write { db in try db.execute(sql: sql) }
    }
}
