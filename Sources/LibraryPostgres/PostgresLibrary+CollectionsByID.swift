import FeedModel
import LibraryStore

/// Collections by id, as the API names them (SQLiteLibrary+CollectionsByID.swift). The
/// name-based calls and these act on the same rows, with the same locking (see
/// PostgresLibrary+Collections.swift).
extension PostgresLibrary {
    /// `$1` is the acting user.
    static let collectionDetailsSelection = """
        SELECT c.id, c.name, c.description, c.cover_url, c.sort_order, c.created_at, coalesce(c.updated_at, c.created_at) AS updated_at,
            (SELECT count(*) FROM collection_items ci WHERE ci.collection = c.id) AS items
        FROM collections c WHERE c.user_id = $1
        """

    public func collectionDetails() async throws(LibraryError) -> [CollectionDetails] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("\(Self.collectionDetailsSelection) ORDER BY c.sort_order, \(Self.collectionNameOrder), c.id",
                         [user.rawValue]).rows.map(Self.collectionDetails(row:))
        }
    }

    public func collectionDetails(id: Int64) async throws(LibraryError) -> CollectionDetails {
        let user = user
        return try await read { db throws(LibraryError) in try Self.requireCollectionDetails(id, user: user, db) }
    }

    public func createCollection(_ name: String, description: String?, now: Int64) async throws(LibraryError) -> CollectionDetails {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .invalid("a collection needs a name") }
        let user = user
        return try await write { db throws(LibraryError) in
            let id = try Self.insertCollection(name, description: description, user: user, now: now, db)
            return try Self.requireCollectionDetails(id, user: user, db)
        }
    }

    public func updateCollection(id: Int64, _ change: CollectionChange, now: Int64) async throws(LibraryError) -> CollectionDetails {
        let name = change.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name, name.isEmpty { throw .invalid("a collection needs a name") }
        if let order = change.sortOrder, order < 0 { throw .invalid("sort_order must not be negative") }
        let user = user
        return try await write { db throws(LibraryError) in
            _ = try Self.lockCollection(id, user: user, db)
            // One statement per field, as SQLite's: each change the log records is its own row.
            if let name {
                do throws(LibraryError) {
                    try db.query("UPDATE collections SET name = $1 WHERE id = $2", [name, id])
                } catch where error.databaseFailure?.sqlState == "23505" {
                    throw .collectionExists(name)   // the schema's UNIQUE (user_id, name)
                }
            }
            if let description = change.description {
                try db.query("UPDATE collections SET description = $1 WHERE id = $2", [description, id])
            }
            if let order = change.sortOrder {
                try db.query("UPDATE collections SET sort_order = $1 WHERE id = $2", [order, id])
            }
            try db.query("UPDATE collections SET updated_at = $1 WHERE id = $2", [now, id])
            return try Self.requireCollectionDetails(id, user: user, db)
        }
    }

    public func deleteCollection(id: Int64) async throws(LibraryError) {
        let user = user
        try await write { db throws(LibraryError) in
            _ = try Self.lockCollection(id, user: user, db)
            let unfollowed = try Self.unfollowedChannels(collection: id, db)
            try db.query("DELETE FROM collections WHERE id = $1", [id])
            _ = try Self.releaseUnfollowed(unfollowed, db)
        }
    }

    public func collectionEntries(id: Int64) async throws(LibraryError) -> [CollectionEntry] {
        let user = user
        return try await snapshot { db throws(LibraryError) in
            _ = try Self.requireCollectionDetails(id, user: user, db)
            return try Self.entries(collection: id, item: nil, user: user, db)
        }
    }

    public func addToCollection(id: Int64, item: Int64, now: Int64) async throws(LibraryError) -> CollectionEntry {
        let user = user
        return try await write { db throws(LibraryError) in
            let name = try Self.lockCollection(id, user: user, db)
            try Self.requireItems([item], user: user, db)
            try Self.append([item], to: id, named: name, now: now, db)
            // The backend's rule: the first item's picture becomes the cover of a collection without one.
            try db.query("""
                UPDATE collections SET cover_url = (SELECT thumbnail FROM items WHERE id = $2), updated_at = $3
                WHERE id = $1 AND cover_url IS NULL
                """, [id, item, now])
            guard let entry = try Self.entries(collection: id, item: item, user: user, db).first else { throw .noItem(item) }
            return entry
        }
    }

    public func removeFromCollection(id: Int64, item: Int64, now: Int64) async throws(LibraryError) {
        let user = user
        try await write { db throws(LibraryError) in
            let name = try Self.lockCollection(id, user: user, db)
            if try db.query("DELETE FROM collection_items WHERE collection = $1 AND item = $2", [id, item]).affected == 0 {
                throw .notInCollection(item: item, collection: name)
            }
            _ = try Self.releaseUnfollowed(Self.unfollowedChannels(items: [item], db), db)
            try Self.renumber(collection: id, order: [], db)
            try db.query("UPDATE collections SET updated_at = $1 WHERE id = $2", [now, id])
        }
    }

    public func reorderCollection(id: Int64, items: [Int64], now: Int64) async throws(LibraryError) {
        let ids = Self.unique(items)
        let user = user
        try await write { db throws(LibraryError) in
            let name = try Self.lockCollection(id, user: user, db)
            let present = Set(try db.query("SELECT item FROM collection_items WHERE collection = $1", [id])
                .rows.map { row throws(LibraryError) in try row.get(0) as Int64 })
            if let missing = ids.first(where: { !present.contains($0) }) {
                throw .notInCollection(item: missing, collection: name)
            }
            try Self.renumber(collection: id, order: ids, db)
            try db.query("UPDATE collections SET updated_at = $1 WHERE id = $2", [now, id])
        }
    }

    /// Numbers the collection's items 1…count: `order` first, in that order, then the rest as
    /// they were. Positions are UNIQUE per collection and PostgreSQL checks that row by row, so
    /// they move out of the way (negative) first, then each takes its place: two statements, as
    /// SQLite's, so the log's trigger sees the same updates (one row: the one that becomes first).
    static func renumber(collection: Int64, order: [Int64], _ db: PGConnection) throws(LibraryError) {
        let current: [Int64] = try db.query("SELECT item FROM collection_items WHERE collection = $1 ORDER BY position", [collection])
            .rows.map { row throws(LibraryError) in try row.get(0) }
        let chosen = Set(order)
        let final = order + current.filter { !chosen.contains($0) }
        try db.query("UPDATE collection_items SET position = -position WHERE collection = $1", [collection])
        try db.query("""
            UPDATE collection_items ci SET position = new.n FROM unnest($2::bigint[]) WITH ORDINALITY AS new(item, n)
            WHERE ci.collection = $1 AND ci.item = new.item
            """, [collection, final])
    }

    /// The collection's entries (only `item`'s when given) that `user` can see, in order.
    private static func entries(collection: Int64, item: Int64?, user: UserID, _ db: PGConnection) throws(LibraryError) -> [CollectionEntry] {
        try db.query("""
            SELECT \(LibraryItem.pgSelection), ci.position AS entry_position, ci.added_at AS entry_added_at, w.watched_at AS entry_watched_at
            FROM collection_items ci JOIN items i ON i.id = ci.item \(LibraryItem.pgByIDJoins(user: "$1"))
            WHERE ci.collection = $2 AND ($3::bigint IS NULL OR ci.item = $3) ORDER BY ci.position
            """, [user.rawValue, collection, item]).rows.map { row throws(LibraryError) in
            CollectionEntry(item: try LibraryItem(pgRow: row), position: try row.get("entry_position"),
                            addedAt: try row.get("entry_added_at"), watchedAt: try row.get("entry_watched_at"))
        }
    }

    /// Locks `user`'s collection `id` for this transaction and returns its name; another
    /// user's is `noCollectionID`, as one that never was.
    static func lockCollection(_ id: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) -> String {
        guard let row = try db.query("SELECT name FROM collections WHERE id = $1 AND user_id = $2 FOR NO KEY UPDATE",
                                     [id, user.rawValue]).first else { throw .noCollectionID(id) }
        return try row.get("name")
    }

    /// `user`'s collection `id`; another user's is `noCollectionID`, as one that never was.
    static func requireCollectionDetails(_ id: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) -> CollectionDetails {
        guard let row = try db.query("\(collectionDetailsSelection) AND c.id = $2", [user.rawValue, id]).first else {
            throw .noCollectionID(id)
        }
        return try collectionDetails(row: row)
    }

    static func collectionDetails(row: PGRow) throws(LibraryError) -> CollectionDetails {
        CollectionDetails(id: try row.get("id"), name: try row.get("name"), description: try row.get("description"),
                          coverURL: try row.get("cover_url"), sortOrder: try row.get("sort_order"), itemCount: try row.get("items"),
                          createdAt: try row.get("created_at"), updatedAt: try row.get("updated_at"))
    }
}
