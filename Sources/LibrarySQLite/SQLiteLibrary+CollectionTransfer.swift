import FeedModel
import GRDB
import LibraryStore

/// Copying and moving items between collections (`CollectionTransfer`): read what the plan
/// needs, let `TransferPlan` decide, write what it says; one transaction.
extension SQLiteLibrary {
    public func transfer(_ transfer: CollectionTransfer, now: Int64) async throws(LibraryError) -> CollectionTransferResult {
        let user = user
        return try await write { db in
            let source = try Self.requireCollectionDetails(transfer.source, user: user, db)
            _ = try Self.requireCollectionDetails(transfer.target, user: user, db)
            let entries = try Row.fetchAll(db, sql: "SELECT item, position, added_at FROM collection_items WHERE collection = ? ORDER BY position",
                                           arguments: [transfer.source]).map {
                TransferPlan.SourceEntry(item: $0["item"], position: $0["position"], addedAt: $0["added_at"])
            }
            let target = try Int64.fetchAll(db, sql: "SELECT item FROM collection_items WHERE collection = ? ORDER BY position",
                                            arguments: [transfer.target])
            var expanded: [TransferSubject: [Int64]] = [:]
            for subject in transfer.subjects where subject.kind != .item {
                expanded[subject] = try Self.expand(subject, user: user, db)
            }
            let plan = try TransferPlan(transfer, sourceName: source.name, source: entries, target: target, expanded: expanded, now: now)

            if !plan.removed.isEmpty {
                let delete = try db.cachedStatement(sql: "DELETE FROM collection_items WHERE collection = ? AND item = ?")
                for item in plan.removed { try delete.execute(arguments: [transfer.source, item]) }
                try Self.renumber(collection: transfer.source, order: nil, db)
                try db.execute(sql: "UPDATE collections SET updated_at = ? WHERE id = ?", arguments: [now, transfer.source])
            }
            if !plan.added.isEmpty {
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO collection_items (collection, item, position, added_at)
                    VALUES (?1, ?2, (SELECT coalesce(max(position), 0) + 1 FROM collection_items WHERE collection = ?1), ?3)
                    """)
                for entry in plan.added { try insert.execute(arguments: [transfer.target, entry.item, entry.addedAt]) }
                if let order = plan.targetOrder { try Self.renumber(collection: transfer.target, order: order, db) }
                // As adding one: a collection without a cover takes its first item's picture.
                try db.execute(sql: """
                    UPDATE collections SET cover_url = coalesce(cover_url, (SELECT i.thumbnail FROM collection_items ci
                        CROSS JOIN items i ON i.id = ci.item WHERE ci.collection = ?1 AND i.thumbnail IS NOT NULL ORDER BY ci.position LIMIT 1)),
                        updated_at = ?2
                    WHERE id = ?1
                    """, arguments: [transfer.target, now])
            }
            return CollectionTransferResult(transfer.operation, source: try Self.requireCollectionDetails(transfer.source, user: user, db),
                                            target: try Self.requireCollectionDetails(transfer.target, user: user, db),
                                            affected: plan.affected, duplicates: plan.duplicates, failures: plan.failures)
        }
    }

    public func collectionTargets(of id: Int64) async throws(LibraryError) -> [CollectionTarget] {
        let user = user
        return try await read { db in
            _ = try Self.requireCollectionDetails(id, user: user, db)
            return try Row.fetchAll(db, sql: """
                \(Self.collectionDetailsSelection) AND c.id <> ?2 ORDER BY c.sort_order, c.name COLLATE NOCASE, c.id
                """, arguments: [user.rawValue, id]).map { row in
                let details = Self.collectionDetails(row: row)
                let shared = try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM collection_items t CROSS JOIN collection_items s ON s.item = t.item AND s.collection = ?2
                                   WHERE t.collection = ?1)
                    """, arguments: [details.id, id]) ?? false
                return CollectionTarget(collection: details, hasItems: shared)
            }
        }
    }

    /// The items a channel or collection subject stands for (`TransferSubject`); nil when it is
    /// not the user's.
    private static func expand(_ subject: TransferSubject, user: UserID, _ db: Database) throws -> [Int64]? {
        switch subject.kind {
        case .item:
            return [subject.id]
        case .channel:
            let items = try Int64.fetchAll(db, sql: """
                SELECT i.id FROM items i WHERE i.channel_id = ?2 AND \(LibraryItem.visibleByID)
                ORDER BY i.published IS NULL, i.published, i.id
                """, arguments: [user.rawValue, subject.id])
            if items.isEmpty, try Bool.fetchOne(db, sql: "SELECT 1 FROM subscriptions WHERE user_id = ? AND channel_id = ?",
                                                arguments: [user.rawValue, subject.id]) == nil {
                return nil
            }
            return items
        case .collection:
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM collections WHERE id = ? AND user_id = ?",
                                    arguments: [subject.id, user.rawValue]) != nil else { return nil }
            return try Int64.fetchAll(db, sql: "SELECT item FROM collection_items WHERE collection = ? ORDER BY position",
                                      arguments: [subject.id])
        }
    }
}
