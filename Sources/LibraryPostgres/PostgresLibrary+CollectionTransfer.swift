import FeedModel
import LibraryStore

/// Copying and moving items between collections (SQLiteLibrary+CollectionTransfer.swift): read
/// what the plan needs, let `TransferPlan` decide, write what it says; one transaction, both
/// collections locked in id order (PostgresLibrary+Collections.swift), the items taken locked
/// against a release of their channel (`requireItems`).
extension PostgresLibrary {
    public func transfer(_ transfer: CollectionTransfer, now: Int64) async throws(LibraryError) -> CollectionTransferResult {
        let user = user
        return try await write { db throws(LibraryError) in
            let locked: [Int64] = try db.query("""
                SELECT id FROM collections WHERE user_id = $1 AND id = ANY($2::bigint[]) ORDER BY id FOR NO KEY UPDATE
                """, [user.rawValue, [transfer.source, transfer.target]]).rows.map { row throws(LibraryError) in try row.get(0) }
            for id in [transfer.source, transfer.target] where !locked.contains(id) { throw .noCollectionID(id) }
            let source = try Self.requireCollectionDetails(transfer.source, user: user, db)
            let entries = try db.query("SELECT item, position, added_at FROM collection_items WHERE collection = $1 ORDER BY position",
                                       [transfer.source]).rows.map { row throws(LibraryError) in
                TransferPlan.SourceEntry(item: try row.get("item"), position: try row.get("position"), addedAt: try row.get("added_at"))
            }
            let target: [Int64] = try db.query("SELECT item FROM collection_items WHERE collection = $1 ORDER BY position",
                                               [transfer.target]).rows.map { row throws(LibraryError) in try row.get(0) }
            var expanded: [TransferSubject: [Int64]] = [:]
            for subject in transfer.subjects where subject.kind != .item {
                expanded[subject] = try Self.expand(subject, user: user, db)
            }
            let plan = try TransferPlan(transfer, sourceName: source.name, source: entries, target: target, expanded: expanded, now: now)
            // The items taken from outside the source (a channel's) must not go meanwhile.
            let inSource = Set(entries.map(\.item))
            try Self.requireItems(plan.added.map(\.item).filter { !inSource.contains($0) }, user: user, db)

            if !plan.removed.isEmpty {
                try db.query("DELETE FROM collection_items WHERE collection = $1 AND item = ANY($2::bigint[])", [transfer.source, plan.removed])
                try Self.renumber(collection: transfer.source, order: [], db)
                try db.query("UPDATE collections SET updated_at = $1 WHERE id = $2", [now, transfer.source])
            }
            if !plan.added.isEmpty {
                try db.query("""
                    INSERT INTO collection_items (collection, item, position, added_at)
                    SELECT $1, new.item, last.position + new.n, new.added_at
                    FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS new(item, added_at, n),
                         (SELECT coalesce(max(position), 0) AS position FROM collection_items WHERE collection = $1) AS last
                    ORDER BY new.n
                    """, [transfer.target, plan.added.map(\.item), plan.added.map(\.addedAt)])
                if let order = plan.targetOrder { try Self.renumber(collection: transfer.target, order: order, db) }
                // As adding one: a collection without a cover takes its first item's picture.
                try db.query("""
                    UPDATE collections SET cover_url = coalesce(cover_url, (SELECT i.thumbnail FROM collection_items ci
                        JOIN items i ON i.id = ci.item WHERE ci.collection = $1 AND i.thumbnail IS NOT NULL ORDER BY ci.position LIMIT 1)),
                        updated_at = $2
                    WHERE id = $1
                    """, [transfer.target, now])
            }
            return CollectionTransferResult(transfer.operation, source: try Self.requireCollectionDetails(transfer.source, user: user, db),
                                            target: try Self.requireCollectionDetails(transfer.target, user: user, db),
                                            affected: plan.affected, duplicates: plan.duplicates, failures: plan.failures)
        }
    }

    public func collectionTargets(of id: Int64) async throws(LibraryError) -> [CollectionTarget] {
        let user = user
        return try await snapshot { db throws(LibraryError) in
            _ = try Self.requireCollectionDetails(id, user: user, db)
            return try db.query("""
                SELECT d.*, EXISTS (SELECT 1 FROM collection_items t JOIN collection_items s ON s.item = t.item AND s.collection = $2
                                    WHERE t.collection = d.id) AS has_items
                FROM (\(Self.collectionDetailsSelection) AND c.id <> $2) d
                ORDER BY d.sort_order, \(Self.noCase("d.name")), d.id
                """, [user.rawValue, id]).rows.map { row throws(LibraryError) in
                CollectionTarget(collection: try Self.collectionDetails(row: row), hasItems: try row.get("has_items"))
            }
        }
    }

    /// The items a channel or collection subject stands for (`TransferSubject`); nil when it is
    /// not the user's.
    private static func expand(_ subject: TransferSubject, user: UserID, _ db: PGConnection) throws(LibraryError) -> [Int64]? {
        switch subject.kind {
        case .item:
            return [subject.id]
        case .channel:
            let items: [Int64] = try db.query("""
                SELECT i.id FROM items i WHERE i.channel_id = $2 AND \(LibraryItem.pgVisibleByID(user: "$1"))
                ORDER BY i.published ASC NULLS LAST, i.id
                """, [user.rawValue, subject.id]).rows.map { row throws(LibraryError) in try row.get(0) }
            if items.isEmpty, try db.query("SELECT 1 FROM subscriptions WHERE user_id = $1 AND channel_id = $2",
                                           [user.rawValue, subject.id]).first == nil {
                return nil
            }
            return items
        case .collection:
            guard try db.query("SELECT 1 FROM collections WHERE id = $1 AND user_id = $2", [subject.id, user.rawValue]).first != nil else {
                return nil
            }
            return try db.query("SELECT item FROM collection_items WHERE collection = $1 ORDER BY position", [subject.id])
                .rows.map { row throws(LibraryError) in try row.get(0) }
        }
    }
}
