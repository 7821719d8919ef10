import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary: SyncDeviceStore {
    public func syncDevices() async throws(LibraryError) -> [SyncDevice] {
        let user = user
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT device, caption, type, updated_at FROM sync_devices WHERE user_id = ? ORDER BY device",
                             arguments: [user.rawValue]).map { row in
                SyncDevice(id: row["device"], caption: row["caption"],
                           type: SyncDeviceType(rawValue: row["type"]) ?? .other, updatedAt: row["updated_at"])
            }
        }
    }

    public func saveSyncDevice(id: String, caption: String?, type: SyncDeviceType?, now: Int64) async throws(LibraryError) {
        guard let id = SyncRule.validDeviceID(id) else {
            throw .invalid("a device id is 1 to \(SyncRule.maxDeviceIDBytes) letters, digits, dots, dashes or underscores (got \"\(id)\")")
        }
        let user = user
        try await write { db in
            try db.execute(sql: """
                INSERT INTO sync_devices (user_id, device, caption, type, created_at, updated_at) VALUES (?1, ?2, coalesce(?3, ''), coalesce(?4, 'other'), ?5, ?5)
                ON CONFLICT (user_id, device) DO UPDATE SET caption = coalesce(?3, caption), type = coalesce(?4, type), updated_at = ?5
                """, arguments: [user.rawValue, id, caption, type?.rawValue, now])
        }
    }

    public func subscriptionChanges(since: Int64) async throws(LibraryError) -> SubscriptionChanges {
        let user = user
        return try await read { db in
            let timestamp = try Self.syncClock(db)
            var changes = SubscriptionChanges(added: [], removed: [], timestamp: timestamp)
            // Since 0 is "everything": the subscriptions as they are, nothing to remove.
            let rows = try Row.fetchAll(db, sql: """
                SELECT url, subscribed FROM sync_subscription_changes
                WHERE user_id = ? AND changed > ? AND (? > 0 OR subscribed = 1) ORDER BY changed, url
                """, arguments: [user.rawValue, since, since])
            for row in rows {
                if row["subscribed"] as Bool { changes.added.append(row["url"]) } else { changes.removed.append(row["url"]) }
            }
            return changes
        }
    }

    public func syncClock() async throws(LibraryError) -> Int64 {
        try await read { db in try Self.syncClock(db) }
    }

    /// The sync clock's last reading (see `Schema.v13GPodder`).
    static func syncClock(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT last FROM sync_clock") ?? 0
    }
}
