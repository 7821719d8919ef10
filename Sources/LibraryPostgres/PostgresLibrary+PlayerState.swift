import FeedModel
import LibraryStore

// The player's volume and what played last, as the SQLite library's
// (SQLiteLibrary+PlayerState.swift): one row per user, each write a single upsert.
extension PostgresLibrary {
    public func savedVolume() async throws(LibraryError) -> Double? {
        let user = user
        return try await read { db throws(LibraryError) -> Double? in
            guard let row = try db.query("SELECT volume FROM player_state WHERE user_id = $1", [user.rawValue]).first else { return nil }
            return try row.get("volume")
        }
    }

    public func saveVolume(_ volume: Double, now: Int64) async throws(LibraryError) {
        guard PlayerVolume.range.contains(volume) else {
            throw .invalid("volume \(volume) is outside \(PlayerVolume.range.lowerBound)…\(PlayerVolume.range.upperBound)")
        }
        let user = user
        try await write { db throws(LibraryError) -> Void in
            try db.query("""
                INSERT INTO player_state (user_id, volume, updated_at) VALUES ($3, $1, $2)
                ON CONFLICT (user_id) DO UPDATE SET volume = $1, updated_at = $2
                """, [volume, now, user.rawValue])
        }
    }

    public func lastPlayed() async throws(LibraryError) -> LastPlayed? {
        let user = user
        return try await read { db throws(LibraryError) -> LastPlayed? in
            guard let row = try db.query("""
                SELECT last_item, last_url, last_file, last_title, last_position FROM player_state WHERE user_id = $1
                """, [user.rawValue]).first else { return nil }
            guard let target = MediaTarget(item: try row.get("last_item"), url: try row.get("last_url"), file: try row.get("last_file")) else {
                return nil  // never set, forgotten, or its item was removed
            }
            return LastPlayed(target: target, title: try row.get("last_title") ?? "", position: try row.get("last_position"))
        }
    }

    public func saveLastPlayed(_ last: LastPlayed?, now: Int64) async throws(LibraryError) {
        let stored = LastPlayed.stored(last)
        let user = user
        try await write { db throws(LibraryError) -> Void in
            if let item = stored.item { try Self.requireItems([item], user: user, db) }
            try db.query("""
                INSERT INTO player_state (user_id, last_item, last_url, last_file, last_title, last_position, updated_at)
                VALUES ($7, $1, $2, $3, $4, $5, $6)
                ON CONFLICT (user_id) DO UPDATE SET last_item = $1, last_url = $2, last_file = $3, last_title = $4,
                    last_position = $5, updated_at = $6
                """, [stored.item, stored.url, stored.file, stored.title, stored.position, now, user.rawValue])
        }
    }
}
