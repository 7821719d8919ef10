import GRDB

extension TestLibrary {
    /// The first column of every row `sql` selects, as text, read straight from the library file
    /// (what is stored, whatever the store's API shows).
    public func strings(_ sql: String) throws -> [String] {
        let queue = try DatabaseQueue(path: library.path)
        return try queue.read { db in try String.fetchAll(db, sql: sql) }
    }
}
