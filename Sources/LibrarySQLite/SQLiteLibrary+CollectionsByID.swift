import FeedModel
import GRDB
import LibraryStore

/// Collections by id, as the API names them. The name-based calls (`collection add NAME …`)
/// and these act on the same rows.
extension SQLiteLibrary {
    static let collectionDetailsSelection = """
        SELECT c.id, c.name, c.description, c.cover_url, c.sort_order, c.created_at, coalesce(c.updated_at, c.created_at) AS updated_at,
            (SELECT count(*) FROM collection_items ci WHERE ci.collection = c.id) AS items
        FROM collections c WHERE c.user_id = ?1
        """

    public func collectionDetails() async throws(LibraryError) -> [CollectionDetails] {
        let user = user
        return try await read { db in
            try Row.fetchAll(db, sql: "\(Self.collectionDetailsSelection) ORDER BY c.sort_order, c.name COLLATE NOCASE, c.id",
                             arguments: [user.rawValue]).map(Self.collectionDetails(row:))
        }
    }

    public func collectionDetails(id: Int64) async throws(LibraryError) -> CollectionDetails {
        let user = user
        return try await read { db in try Self.requireCollectionDetails(id, user: user, db) }
    }

    public func createCollection(_ name: String, description: String?, now: Int64) async throws(LibraryError) -> CollectionDetails {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .invalid("a collection needs a name") }
        let user = user
        return try await write { db in
            if try Self.collectionName(taken: name, except: nil, user: user, db) { throw LibraryError.collectionExists(name) }
            try db.execute(sql: """
                INSERT INTO collections (user_id, name, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
                """, arguments: [user.rawValue, name, description, now, now])
            return try Self.requireCollectionDetails(db.lastInsertedRowID, user: user, db)
        }
    }

    public func updateCollection(id: Int64, _ change: CollectionChange, now: Int64) async throws(LibraryError) -> CollectionDetails {
        let name = change.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name, name.isEmpty { throw .invalid("a collection needs a name") }
        if let order = change.sortOrder, order < 0 { throw .invalid("sort_order must not be negative") }
        let user = user
        return try await write { db in
            _ = try Self.requireCollectionDetails(id, user: user, db)
            if let name {
                if try Self.collectionName(taken: name, except: id, user: user, db) { throw LibraryError.collectionExists(name) }
                try db.execute(sql: "UPDATE collections SET name = ? WHERE id = ?", arguments: [name, id])
            }
            if let description = change.description {
                try db.execute(sql: "UPDATE collections SET description = ? WHERE id = ?", arguments: [description, id])
            }
            if let order = change.sortOrder {
                try db.execute(sql: "UPDATE collections SET sort_order = ? WHERE id = ?", arguments: [order, id])
            }
            try db.execute(sql: "UPDATE collections SET updated_at = ? WHERE id = ?", arguments: [now, id])
            return try Self.requireCollectionDetails(id, user: user, db)
        }
    }

    public func deleteCollection(id: Int64) async throws(LibraryError) {
        let user = user
        try await write { db in
            let unfollowed = try Self.unfollowedChannels(collection: id, db)
            try db.execute(sql: "DELETE FROM collections WHERE id = ? AND user_id = ?", arguments: [id, user.rawValue])
            if db.changesCount == 0 { throw LibraryError.noCollectionID(id) }
            _ = try Self.releaseUnfollowed(unfollowed, db)
        }
    }

    public func collectionEntries(id: Int64) async throws(LibraryError) -> [CollectionEntry] {
        let user = user
        return try await read { db in
            _ = try Self.requireCollectionDetails(id, user: user, db)
            return try Self.entries(collection: id, user: user, db)
        }
    }

    public func addToCollection(id: Int64, item: Int64, now: Int64) async throws(LibraryError) -> CollectionEntry {
        let user = user
        return try await write { db in
            let collection = try Self.requireCollectionDetails(id, user: user, db)
            try Self.requireItems([item], user: user, db)
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM collection_items WHERE collection = ? AND item = ?", arguments: [id, item]) != nil {
                throw LibraryError.alreadyInCollection(item: item, collection: collection.name)
            }
            try db.execute(sql: """
                INSERT INTO collection_items (collection, item, position, added_at)
                VALUES (?1, ?2, (SELECT coalesce(max(position), 0) + 1 FROM collection_items WHERE collection = ?1), ?3)
                """, arguments: [id, item, now])
            // The backend's rule: the first item's picture becomes the cover of a collection without one.
            try db.execute(sql: """
                UPDATE collections SET cover_url = (SELECT thumbnail FROM items WHERE id = ?2), updated_at = ?3
                WHERE id = ?1 AND cover_url IS NULL
                """, arguments: [id, item, now])
            guard let entry = try Self.entries(collection: id, user: user, db).first(where: { $0.item.id == item }) else {
                throw LibraryError.noItem(item)
            }
            return entry
        }
    }

    public func removeFromCollection(id: Int64, item: Int64, now: Int64) async throws(LibraryError) {
        let user = user
        try await write { db in
            let collection = try Self.requireCollectionDetails(id, user: user, db)
            try db.execute(sql: "DELETE FROM collection_items WHERE collection = ? AND item = ?", arguments: [id, item])
            if db.changesCount == 0 { throw LibraryError.notInCollection(item: item, collection: collection.name) }
            _ = try Self.releaseUnfollowed(Self.unfollowedChannels(items: [item], db), db)
            try Self.renumber(collection: id, order: nil, db)
            try db.execute(sql: "UPDATE collections SET updated_at = ? WHERE id = ?", arguments: [now, id])
        }
    }

    public func reorderCollection(id: Int64, items: [Int64], now: Int64) async throws(LibraryError) {
        let ids = Self.unique(items)
        let user = user
        try await write { db in
            let collection = try Self.requireCollectionDetails(id, user: user, db)
            let present = Set(try Int64.fetchAll(db, sql: "SELECT item FROM collection_items WHERE collection = ?", arguments: [id]))
            if let missing = ids.first(where: { !present.contains($0) }) {
                throw LibraryError.notInCollection(item: missing, collection: collection.name)
            }
            try Self.renumber(collection: id, order: ids, db)
            try db.execute(sql: "UPDATE collections SET updated_at = ? WHERE id = ?", arguments: [now, id])
        }
    }

    /// Numbers the collection's items 1…count: `order` first, in that order, then the rest as
    /// they were. Positions are UNIQUE per collection, so they move out of the way (negative)
    /// first.
    static func renumber(collection: Int64, order: [Int64]?, _ db: Database) throws {
        let current = try Int64.fetchAll(db, sql: "SELECT item FROM collection_items WHERE collection = ? ORDER BY position",
                                         arguments: [collection])
        let first = order ?? []
        let chosen = Set(first)
        let final = first + current.filter { !chosen.contains($0) }
        try db.execute(sql: "UPDATE collection_items SET position = -position WHERE collection = ?", arguments: [collection])
        let set = try db.cachedStatement(sql: "UPDATE collection_items SET position = ? WHERE collection = ? AND item = ?")
        for (index, item) in final.enumerated() { try set.execute(arguments: [index + 1, collection, item]) }
    }

    static func entries(collection: Int64, user: UserID, _ db: Database) throws -> [CollectionEntry] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT ci.item, ci.position, ci.added_at, w.watched_at FROM collection_items ci
            LEFT JOIN watch_state w ON w.user_id = ? AND w.item = ci.item
            WHERE ci.collection = ? ORDER BY ci.position
            """, arguments: [user.rawValue, collection])
        let items = try LibraryItem.fetchAll(db, ids: rows.map { $0["item"] }, user: user)
        let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return rows.compactMap { row in
            byID[row["item"]].map { CollectionEntry(item: $0, position: row["position"], addedAt: row["added_at"], watchedAt: row["watched_at"]) }
        }
    }

    private static func collectionName(taken name: String, except id: Int64?, user: UserID, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM collections WHERE user_id = ? AND name = ? AND id IS NOT ?",
                          arguments: [user.rawValue, name, id]) != nil
    }

    /// `user`'s collection `id`; another user's is `noCollectionID`, as one that never was.
    static func requireCollectionDetails(_ id: Int64, user: UserID, _ db: Database) throws -> CollectionDetails {
        guard let row = try Row.fetchOne(db, sql: "\(collectionDetailsSelection) AND c.id = ?2", arguments: [user.rawValue, id]) else {
            throw LibraryError.noCollectionID(id)
        }
        return collectionDetails(row: row)
    }

    static func collectionDetails(row: Row) -> CollectionDetails {
        CollectionDetails(id: row["id"], name: row["name"], description: row["description"], coverURL: row["cover_url"],
                          sortOrder: row["sort_order"], itemCount: row["items"], createdAt: row["created_at"], updatedAt: row["updated_at"])
    }
}
