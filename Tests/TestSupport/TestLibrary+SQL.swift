import GRDB
import LibraryStore
import LibrarySQLite

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

extension SQLiteLibrary {
    /// The library id of the item the parser called `itemID`, whoever follows its channel (read
    /// from the file: the tests of the server and the CLI find another user's items by it). On
    /// a store reached through the protocols, `SavedVideoStore.id(of:)` finds the acting user's.
    public func id(of itemID: String) async throws -> Int64 {
        try await read { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM items WHERE item_id = ?", arguments: [itemID]) else {
                throw LibraryError.invalid("test: no item_id \(itemID)")
            }
            return id
        }
    }
}
