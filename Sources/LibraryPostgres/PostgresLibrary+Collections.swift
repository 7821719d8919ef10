import FeedModel
import LibraryStore

// Collections by name (the CLI's `collection …`), as the SQLite library's
// (SQLiteLibrary+Collections.swift); by id in PostgresLibrary+CollectionsByID.swift.
//
// Concurrency: every write that reads positions or membership first locks the collection's row
// (`FOR NO KEY UPDATE`, which an item's foreign-key check does not wait for), so two writers of
// one collection take turns: the second then reads what the first committed (READ COMMITTED
// takes a new snapshot per statement) and never computes the same next position. A write
// touching two collections locks both in id order. A name taken meanwhile is settled by the
// schema's UNIQUE (user_id, name).
extension PostgresLibrary {
    public func createCollection(_ name: String, now: Int64) async throws(LibraryError) {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .invalid("a collection needs a name") }
        let user = user
        try await write { db throws(LibraryError) in
            _ = try Self.insertCollection(name, description: nil, user: user, now: now, db)
        }
    }

    /// All collections, by name.
    public func collections() async throws(LibraryError) -> [CollectionSummary] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT c.name, c.created_at, (SELECT count(*) FROM collection_items ci WHERE ci.collection = c.id) AS items
                FROM collections c WHERE c.user_id = $1 ORDER BY \(Self.collectionNameOrder), c.id
                """, [user.rawValue]).rows.map { row throws(LibraryError) in
                CollectionSummary(name: try row.get("name"), items: try row.get("items"), createdAt: try row.get("created_at"))
            }
        }
    }

    /// The items of collection `name`, in order.
    public func collection(_ name: String) async throws(LibraryError) -> [LibraryItem] {
        let user = user
        return try await snapshot { db throws(LibraryError) in
            let id = try Self.requireCollection(name, user: user, locked: false, db)
            return try db.query("""
                SELECT \(LibraryItem.pgSelection) FROM collection_items ci JOIN items i ON i.id = ci.item \(LibraryItem.pgByIDJoins(user: "$1"))
                WHERE ci.collection = $2 ORDER BY ci.position
                """, [user.rawValue, id]).rows.map(LibraryItem.init(pgRow:))
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
        try await write { db throws(LibraryError) in
            let collection = try Self.requireCollection(name, user: user, locked: true, db)
            try Self.requireItems(ids, user: user, db)
            try Self.append(ids, to: collection, named: name, now: now, db)
        }
    }

    /// Removes items from collection `name`, all or none: every id must be in it.
    public func removeFromCollection(items ids: [Int64], collection name: String) async throws(LibraryError) {
        let ids = Self.unique(ids)
        let user = user
        try await write { db throws(LibraryError) in
            let collection = try Self.requireCollection(name, user: user, locked: true, db)
            try Self.requireItems(ids, user: user, db)
            let removed = Set(try db.query("DELETE FROM collection_items WHERE collection = $1 AND item = ANY($2::bigint[]) RETURNING item",
                                           [collection, ids]).rows.map { row throws(LibraryError) in try row.get(0) as Int64 })
            // Throwing rolls back the ones deleted: all or none.
            if let missing = ids.first(where: { !removed.contains($0) }) {
                throw .notInCollection(item: missing, collection: name)
            }
            _ = try Self.releaseUnfollowed(Self.unfollowedChannels(items: ids, db), db)
        }
    }

    /// Deletes collection `name` (its items stay in the library, but those of channels nobody
    /// follows that were in no other collection: `releaseUnfollowed`).
    public func deleteCollection(_ name: String) async throws(LibraryError) {
        let user = user
        try await write { db throws(LibraryError) in
            let id = try Self.requireCollection(name, user: user, locked: true, db)
            let unfollowed = try Self.unfollowedChannels(collection: id, db)
            try db.query("DELETE FROM collections WHERE id = $1", [id])
            _ = try Self.releaseUnfollowed(unfollowed, db)
        }
    }

    // MARK: Shared by the calls by name and by id

    /// SQLite's `ORDER BY name COLLATE NOCASE` (`noCase`).
    static let collectionNameOrder = noCase("c.name")

    /// Makes `user`'s collection `name`; `collectionExists` if they have one by that name (the
    /// schema's UNIQUE decides, so two made at once cannot both be).
    static func insertCollection(_ name: String, description: String?, user: UserID, now: Int64, _ db: PGConnection) throws(LibraryError) -> Int64 {
        guard let row = try db.query("""
            INSERT INTO collections (user_id, name, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
            ON CONFLICT (user_id, name) DO NOTHING RETURNING id
            """, [user.rawValue, name, description, now]).first else { throw .collectionExists(name) }
        return try row.get("id")
    }

    /// Appends `ids` (in the library, checked) to the end of `collection` in that order, after
    /// the collection's row was locked; `alreadyInCollection` names the first already there.
    static func append(_ ids: [Int64], to collection: Int64, named name: String, now: Int64, _ db: PGConnection) throws(LibraryError) {
        guard !ids.isEmpty else { return }
        let present = Set(try db.query("SELECT item FROM collection_items WHERE collection = $1 AND item = ANY($2::bigint[])",
                                       [collection, ids]).rows.map { row throws(LibraryError) in try row.get(0) as Int64 })
        if let there = ids.first(where: { present.contains($0) }) {
            throw .alreadyInCollection(item: there, collection: name)
        }
        try db.query("""
            INSERT INTO collection_items (collection, item, position, added_at)
            SELECT $1, new.item, last.position + new.n, $3
            FROM unnest($2::bigint[]) WITH ORDINALITY AS new(item, n),
                 (SELECT coalesce(max(position), 0) AS position FROM collection_items WHERE collection = $1) AS last
            ORDER BY new.n
            """, [collection, ids, now])
    }

    /// The id of `user`'s collection `name` (another user's of the same name is not theirs),
    /// its row locked when `locked` (a write).
    private static func requireCollection(_ name: String, user: UserID, locked: Bool, _ db: PGConnection) throws(LibraryError) -> Int64 {
        guard let row = try db.query("SELECT id FROM collections WHERE user_id = $1 AND name = $2\(locked ? " FOR NO KEY UPDATE" : "")",
                                     [user.rawValue, name]).first else { throw .noCollection(name) }
        return try row.get("id")
    }
}
