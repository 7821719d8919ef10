import FeedModel
import LibraryStore

// Users and sessions, gpodder's devices and subscription changes, the change log: as the SQLite
// library (SQLiteLibrary+Users.swift, +SyncDevices.swift, +Changes.swift).
extension PostgresLibrary {
    public func addUser(name: String, isAdmin: Bool, passwordHash: String?, now: Int64) async throws(LibraryError) -> User {
        guard let name = LibraryUsers.validName(name) else {
            throw .invalid("a user name is 1 to \(LibraryUsers.maxNameBytes) bytes of one line (got \(LibraryError.quoted(name)))")
        }
        return try await write { db throws(LibraryError) in
            // The name's uniqueness is the schema's; ON CONFLICT makes a taken name an answer, not an error.
            let row = try db.query("""
                INSERT INTO users (name, password_hash, is_admin, created_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (name) DO NOTHING RETURNING \(Self.userColumns)
                """, [name, passwordHash.flatMap { $0.isEmpty ? nil : $0 }, isAdmin, now]).first
            guard let row else { throw .userExists(name) }
            return try Self.user(row)
        }
    }

    public func users() async throws(LibraryError) -> [User] {
        try await read { db throws(LibraryError) in
            try db.query("SELECT \(Self.userColumns) FROM users ORDER BY id").rows.map(Self.user)
        }
    }

    public func user(named name: String) async throws(LibraryError) -> User {
        try Self.requireValid(name)
        return try await read { db throws(LibraryError) in try Self.requireUser(db, "name = $1", [name], name: name) }
    }

    public func user(id: UserID) async throws(LibraryError) -> User {
        try await read { db throws(LibraryError) in try Self.requireUser(db, "id = $1", [id.rawValue], name: id.description) }
    }

    public func passwordHash(of name: String) async throws(LibraryError) -> String? {
        try Self.requireValid(name)
        return try await read { db throws(LibraryError) in
            guard let row = try db.query("SELECT password_hash FROM users WHERE name = $1", [name]).first else { throw .noUser(name) }
            return try row.get("password_hash")
        }
    }

    public func setPasswordHash(_ hash: String?, for name: String) async throws(LibraryError) {
        try Self.requireValid(name)
        try await write { db throws(LibraryError) in
            let changed = try db.query("UPDATE users SET password_hash = $1 WHERE name = $2", [hash.flatMap { $0.isEmpty ? nil : $0 }, name]).affected
            if changed == 0 { throw .noUser(name) }
        }
    }

    /// Everything of the user goes with their row (ON DELETE CASCADE: `v5-account-deletion`
    /// logs no change for a user gone); then the channels they followed, or had items of in their
    /// collections, are released as when the last follower unsubscribes (`removeChannel`); then
    /// their rows of the change log, and the log's newest row, if it was theirs, comes back as
    /// nobody's (`UserStore.removeUser` says why).
    public func removeUser(named name: String) async throws(LibraryError) -> RemovedUser {
        try Self.requireValid(name)
        return try await write { db throws(LibraryError) in
            let user = try Self.requireUser(db, "name = $1", [name], name: name)
            guard user.id != .owner else { throw .userKept(name, .owner) }
            if user.isAdmin {
                // Every admin locked (in id order), so two admins removing each other cannot both
                // find the other still there.
                let admins: [Int64] = try db.query("SELECT id FROM users WHERE is_admin = 1 ORDER BY id FOR UPDATE").rows
                    .map { row throws(LibraryError) in try row.get(0) }
                if !admins.contains(where: { $0 != user.id.rawValue }) { throw .userKept(name, .lastAdmin) }
            }
            let touched: [Int64] = try db.query("""
                SELECT channel_id FROM subscriptions WHERE user_id = $1
                UNION SELECT i.channel_id FROM collections k JOIN collection_items ci ON ci.collection = k.id
                    JOIN items i ON i.id = ci.item WHERE k.user_id = $1
                """, [user.id.rawValue]).rows.map { row throws(LibraryError) in try row.get(0) }
            // Those channels first (in id order, as every writer locks channels), then the user's rows.
            try db.query("SELECT 1 FROM channels WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE", [touched])
            try db.query("DELETE FROM users WHERE id = $1", [user.id.rawValue])
            let released = try Self.releaseUnfollowed(touched, db)
            // The sync clock's row lock is the one every commit publishing changes takes (last,
            // as here): none is published meanwhile, so the newest read is the newest there is.
            try db.query("SELECT 1 FROM sync_clock WHERE id = 1 FOR NO KEY UPDATE")
            let newest = try db.query("SELECT seq, kind, at FROM changes ORDER BY seq DESC LIMIT 1").first
            try db.query("DELETE FROM changes WHERE user_id = $1", [user.id.rawValue])
            if let newest {
                let seq: Int64 = try newest.get("seq"), kind: String = try newest.get("kind"), at: Int64 = try newest.get("at")
                try db.query("""
                    INSERT INTO changes (seq, user_id, kind, payload, at) SELECT $1, $2, $3, '{}', $4
                    WHERE NOT EXISTS (SELECT 1 FROM changes WHERE seq = $1)
                    """, [seq, UserID.nobody.rawValue, kind, at])
            }
            return RemovedUser(channels: released.unfollowed, items: released.removed)
        }
    }

    // MARK: Sessions

    public func createSession(user: UserID, tokenHash: String, deviceName: String?, now: Int64) async throws(LibraryError) -> Session {
        guard !tokenHash.isEmpty else { throw .invalid("a session needs its token's hash") }
        return try await write { db throws(LibraryError) in
            _ = try Self.requireUser(db, "id = $1", [user.rawValue], name: user.description)
            guard let row = try db.query("""
                INSERT INTO sessions (user_id, token_hash, device_name, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
                RETURNING *
                """, [user.rawValue, tokenHash, deviceName, now, now + SessionRule.lifetime]).first else {
                throw PGRow.unexpected("INSERT … RETURNING gave no row")
            }
            return try Self.session(row)
        }
    }

    public func session(tokenHash: String, now: Int64) async throws(LibraryError) -> LiveSession? {
        // One read on most requests: "last used" moves only when it is `lastUsedResolution` old.
        let found = try await read { db throws(LibraryError) -> LiveSession? in
            guard let row = try db.query("""
                SELECT s.id, s.user_id, s.device_name, s.created_at, s.expires_at, s.last_used_at,
                       u.name, u.is_admin, u.password_hash IS NOT NULL AS has_password, u.created_at AS user_created_at
                FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1 AND s.expires_at > $2
                """, [tokenHash, now], plan: .generic).first else { return nil }  // a key's lookup, on every request
            let user = User(id: UserID(try row.get("user_id")), name: try row.get("name"), isAdmin: try row.get("is_admin"),
                            hasPassword: try row.get("has_password"), createdAt: try row.get("user_created_at"))
            return LiveSession(session: try Self.session(row), user: user)
        }
        guard var live = found else { return nil }
        if let last = live.session.lastUsedAt, now - last < SessionRule.lastUsedResolution, now >= last { return live }
        let id = live.session.id
        let stillThere: Bool
        do throws(LibraryError) {
            stillThere = try await write { db throws(LibraryError) in
                try db.query("UPDATE sessions SET last_used_at = $1 WHERE id = $2", [now, id]).affected > 0
            }
        } catch where error.isDiskFull {
            return live   // "last used" is bookkeeping: a full disk must not sign anyone out
        }
        live.session.lastUsedAt = now
        return stillThere ? live : nil  // revoked meanwhile
    }

    public func sessions(of user: UserID?) async throws(LibraryError) -> [Session] {
        try await read { db throws(LibraryError) in
            try db.query("SELECT * FROM sessions WHERE $1::bigint IS NULL OR user_id = $1 ORDER BY created_at DESC, id DESC",
                         [user?.rawValue]).rows.map(Self.session)
        }
    }

    public func revokeSession(id: Int64) async throws(LibraryError) {
        try await write { db throws(LibraryError) in
            if try db.query("DELETE FROM sessions WHERE id = $1", [id]).affected == 0 { throw .noSession(id) }
        }
    }

    public func revokeSessions(of user: UserID, except kept: Int64?) async throws(LibraryError) -> Int {
        try await write { db throws(LibraryError) in
            try db.query("DELETE FROM sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2", [user.rawValue, kept]).affected
        }
    }

    static let userColumns = "id, name, is_admin, password_hash IS NOT NULL AS has_password, created_at"

    static func user(_ row: PGRow) throws(LibraryError) -> User {
        User(id: UserID(try row.get("id")), name: try row.get("name"), isAdmin: try row.get("is_admin"),
             hasPassword: try row.get("has_password"), createdAt: try row.get("created_at"))
    }

    private static func session(_ row: PGRow) throws(LibraryError) -> Session {
        Session(id: try row.get("id"), userID: UserID(try row.get("user_id")), deviceName: try row.get("device_name"),
                createdAt: try row.get("created_at"), expiresAt: try row.get("expires_at"), lastUsedAt: try row.get("last_used_at"))
    }

    /// Only a valid name (`LibraryUsers.validName`, as stored) can be anyone's.
    private static func requireValid(_ name: String) throws(LibraryError) {
        guard LibraryUsers.validName(name) == name else { throw .noUser(name) }
    }

    static func requireUser(_ db: PGConnection, _ condition: String, _ arguments: [any PGBindable], name: String) throws(LibraryError) -> User {
        guard let row = try db.query("SELECT \(userColumns) FROM users WHERE \(condition)", arguments).first else { throw .noUser(name) }
        return try user(row)
    }

    // MARK: gpodder devices and subscription changes

    public func syncDevices() async throws(LibraryError) -> [SyncDevice] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("SELECT device, caption, type, updated_at FROM sync_devices WHERE user_id = $1 ORDER BY device",
                         [user.rawValue]).rows.map { row throws(LibraryError) in
                SyncDevice(id: try row.get("device"), caption: try row.get("caption"),
                           type: SyncDeviceType(rawValue: try row.get("type")) ?? .other, updatedAt: try row.get("updated_at"))
            }
        }
    }

    public func saveSyncDevice(id: String, caption: String?, type: SyncDeviceType?, now: Int64) async throws(LibraryError) {
        guard let id = SyncRule.validDeviceID(id) else {
            throw .invalid("a device id is 1 to \(SyncRule.maxDeviceIDBytes) letters, digits, dots, dashes or underscores (got \"\(id)\")")
        }
        let user = user
        try await write { db throws(LibraryError) -> Void in
            try db.query("""
                INSERT INTO sync_devices AS d (user_id, device, caption, type, created_at, updated_at)
                VALUES ($1, $2, coalesce($3, ''), coalesce($4, 'other'), $5, $5)
                ON CONFLICT (user_id, device) DO UPDATE SET caption = coalesce($3, d.caption), type = coalesce($4, d.type), updated_at = $5
                """, [user.rawValue, id, caption, type?.rawValue, now])
        }
    }

    public func subscriptionChanges(since: Int64) async throws(LibraryError) -> SubscriptionChanges {
        let user = user
        return try await snapshot { db throws(LibraryError) in
            var changes = SubscriptionChanges(added: [], removed: [], timestamp: try Self.syncClock(db))
            // Since 0 is "everything": the subscriptions as they are, nothing to remove.
            let rows = try db.query("""
                SELECT url, subscribed FROM sync_subscription_changes
                WHERE user_id = $1 AND changed > $2 AND ($2 > 0 OR subscribed = 1) ORDER BY changed, url
                """, [user.rawValue, since]).rows
            for row in rows {
                if try row.get("subscribed") as Bool { changes.added.append(try row.get("url")) } else { changes.removed.append(try row.get("url")) }
            }
            return changes
        }
    }

    public func syncClock() async throws(LibraryError) -> Int64 {
        try await read { db throws(LibraryError) in try Self.syncClock(db) }
    }

    /// The sync clock's last reading.
    static func syncClock(_ db: PGConnection) throws(LibraryError) -> Int64 {
        try db.query("SELECT last FROM sync_clock").first.map { row throws(LibraryError) in try row.get("last") as Int64 } ?? 0
    }

    // MARK: The change log

    /// Every user's changes (the log is the server's to fan out), in one snapshot: the oldest
    /// kept and the latest are read with the page, so a prune between them cannot hide a gap.
    public func changes(after seq: Int64, limit: Int) async throws(LibraryError) -> ChangeBatch {
        try await snapshot { db throws(LibraryError) in
            guard let bounds = try db.query("SELECT min(seq) AS oldest, coalesce(max(seq), 0) AS latest FROM changes").first else {
                throw PGRow.unexpected("an aggregate gave no row")
            }
            let oldest = try bounds.get("oldest") as Int64?, latest = try bounds.get("latest") as Int64
            // Nothing after `seq` is missing if the log starts right after it or before it.
            if seq > latest || (oldest.map { seq < $0 - 1 } ?? false) { return .gone(latest: latest) }
            let rows = try db.query("SELECT seq, user_id, kind, payload FROM changes WHERE seq > $1 ORDER BY seq LIMIT $2",
                                    [seq, max(limit, 0)]).rows
            var changes: [Change] = []
            for row in rows {
                // The table's CHECK allows only the kinds there are.
                guard let kind = Change.Kind(rawValue: try row.get("kind")) else { continue }
                changes.append(Change(seq: try row.get("seq"), user: UserID(try row.get("user_id")), kind: kind, payload: try row.get("payload")))
            }
            return .changes(changes)
        }
    }

    public func latestChange() async throws(LibraryError) -> Int64 {
        try await read { db throws(LibraryError) in
            try db.query("SELECT coalesce(max(seq), 0) AS latest FROM changes").first?.get("latest") as Int64? ?? 0
        }
    }
}
