import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    public func createCollection(_ name: String, now: Int64) async throws(LibraryError) {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .invalid("a collection needs a name") }
        let user = user
        try await write { db in
            if try Self.collectionID(name, user: user, db) != nil { throw LibraryError.collectionExists(name) }
            try db.execute(sql: "INSERT INTO collections (user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?)",
                           arguments: [user.rawValue, name, now, now])
        }
    }

    /// All collections, by name.
    public func collections() async throws(LibraryError) -> [CollectionSummary] {
        let user = user
        return try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT name, created_at, (SELECT count(*) FROM collection_items ci WHERE ci.collection = c.id) AS items
                FROM collections c WHERE user_id = ? ORDER BY name COLLATE NOCASE, id
                """, arguments: [user.rawValue]).map { CollectionSummary(name: $0["name"], items: $0["items"], createdAt: $0["created_at"]) }
        }
    }

    /// The items of collection `name`, in order.
    public func collection(_ name: String) async throws(LibraryError) -> [LibraryItem] {
        let user = user
        return try await read { db in
            let id = try Self.requireCollection(name, user: user, db)
            let ids = try Int64.fetchAll(db, sql: "SELECT item FROM collection_items WHERE collection = ? ORDER BY position",
                                         arguments: [id])
            return try LibraryItem.fetchAll(db, ids: ids, user: user)
        }
    }

    /// Appends item `id` to collection `name`; an item is in a collection at most once.
    public func addToCollection(item id: Int64, collection name: String, now: Int64) async throws(LibraryError) {
        try await addToCollection(items: [id], collection: name, now: now)
    }

    /// Removes item `id` from collection `name`.
    public func removeFromCollection(item id: Int64, collection name: String) async throws(LibraryError) {
        try await removeFromCollection(items: [id], collection: name)
    }

    /// Appends items to collection `name` in the order given, all or none: every id must be in
    /// the library and not yet in the collection, or nothing changes.
    public func addToCollection(items ids: [Int64], collection name: String, now: Int64) async throws(LibraryError) {
        let ids = Self.unique(ids)
        let user = user
        try await write { db in
            let collection = try Self.requireCollection(name, user: user, db)
            try Self.requireItems(ids, user: user, db)
            let present = try db.cachedStatement(sql: "SELECT 1 FROM collection_items WHERE collection = ? AND item = ?")
            if let there = try ids.first(where: { try Bool.fetchOne(present, arguments: [collection, $0]) != nil }) {
                throw LibraryError.alreadyInCollection(item: there, collection: name)
            }
            for id in ids { try Self.append(item: id, to: collection, named: name, now: now, db) }
        }
    }

    /// Removes items from collection `name`, all or none: every id must be in it.
    public func removeFromCollection(items ids: [Int64], collection name: String) async throws(LibraryError) {
        let ids = Self.unique(ids)
        let user = user
        try await write { db in
            let collection = try Self.requireCollection(name, user: user, db)
            try Self.requireItems(ids, user: user, db)
            let delete = try db.cachedStatement(sql: "DELETE FROM collection_items WHERE collection = ? AND item = ?")
            for id in ids {
                try delete.execute(arguments: [collection, id])
                // Throwing rolls back the ones already deleted: all or none.
                if db.changesCount == 0 { throw LibraryError.notInCollection(item: id, collection: name) }
            }
            _ = try Self.releaseUnfollowed(Self.unfollowedChannels(items: ids, db), db)
        }
    }

    /// Deletes collection `name` (its items stay in the library, but those of channels nobody
    /// follows that were in no other collection: `releaseUnfollowed`).
    public func deleteCollection(_ name: String) async throws(LibraryError) {
        let user = user
        try await write { db in
            let id = try Self.requireCollection(name, user: user, db)
            let unfollowed = try Self.unfollowedChannels(collection: id, db)
            try db.execute(sql: "DELETE FROM collections WHERE id = ?", arguments: [id])
            _ = try Self.releaseUnfollowed(unfollowed, db)
        }
    }

    private static func append(item: Int64, to collection: Int64, named name: String, now: Int64, _ db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM collection_items WHERE collection = ? AND item = ?",
                             arguments: [collection, item]) != nil {
            throw LibraryError.alreadyInCollection(item: item, collection: name)
        }
        try db.execute(sql: """
            INSERT INTO collection_items (collection, item, position, added_at)
            VALUES (?1, ?2, (SELECT coalesce(max(position), 0) + 1 FROM collection_items WHERE collection = ?1), ?3)
            """, arguments: [collection, item, now])
    }

    /// The id of `user`'s collection `name` (another user's of the same name is not theirs).
    private static func collectionID(_ name: String, user: UserID, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM collections WHERE user_id = ? AND name = ?", arguments: [user.rawValue, name])
    }

    private static func requireCollection(_ name: String, user: UserID, _ db: Database) throws -> Int64 {
        guard let id = try collectionID(name, user: user, db) else { throw LibraryError.noCollection(name) }
        return id
    }
}
