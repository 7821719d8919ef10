import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    @discardableResult
    public func addUser(name: String, isAdmin: Bool, passwordHash: String?, now: Int64) async throws(LibraryError) -> User {
        guard let name = LibraryUsers.validName(name) else {
            throw .invalid("a user name is 1 to \(LibraryUsers.maxNameBytes) bytes of one line (got \(LibraryError.quoted(name)))")
        }
        return try await write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE name = ?", arguments: [name]) != nil {
                throw LibraryError.userExists(name)
            }
            try db.execute(sql: "INSERT INTO users (name, password_hash, is_admin, created_at) VALUES (?, ?, ?, ?)",
                           arguments: [name, passwordHash.flatMap { $0.isEmpty ? nil : $0 }, isAdmin, now])
            return try Self.requireUser(db, "id = ?", [db.lastInsertedRowID], name: name)
        }
    }

    public func users() async throws(LibraryError) -> [User] {
        try await read { db in try Row.fetchAll(db, sql: "SELECT \(Self.userColumns) FROM users ORDER BY id").map(Self.user(row:)) }
    }

    public func user(named name: String) async throws(LibraryError) -> User {
        try Self.requireValid(name)
        return try await read { db in try Self.requireUser(db, "name = ?", [name], name: name) }
    }

    public func user(id: UserID) async throws(LibraryError) -> User {
        try await read { db in try Self.requireUser(db, "id = ?", [id.rawValue], name: id.description) }
    }

    public func passwordHash(of name: String) async throws(LibraryError) -> String? {
        try Self.requireValid(name)
        return try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT password_hash FROM users WHERE name = ?", arguments: [name]) else {
                throw LibraryError.noUser(name)
            }
            return row["password_hash"]
        }
    }

    public func setPasswordHash(_ hash: String?, for name: String) async throws(LibraryError) {
        try Self.requireValid(name)
        try await write { db in
            try db.execute(sql: "UPDATE users SET password_hash = ? WHERE name = ?",
                           arguments: [hash.flatMap { $0.isEmpty ? nil : $0 }, name])
            if db.changesCount == 0 { throw LibraryError.noUser(name) }
        }
    }

    /// Everything of the user goes with their row (ON DELETE CASCADE); then the channels they
    /// followed, or had items of in their collections, are released as when the last follower
    /// unsubscribes (`removeChannel`); then their rows of the change log (the cascade's triggers
    /// logged some more), and the log's newest row before, if it went, comes back as nobody's
    /// (`UserStore.removeUser` says why).
    @discardableResult
    public func removeUser(named name: String) async throws(LibraryError) -> RemovedUser {
        try Self.requireValid(name)
        return try await write { db in
            let user = try Self.requireUser(db, "name = ?", [name], name: name)
            guard user.id != .owner else { throw LibraryError.userKept(name, .owner) }
            if user.isAdmin, try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE is_admin = 1 AND id <> ?)",
                                               arguments: [user.id.rawValue]) != true {
                throw LibraryError.userKept(name, .lastAdmin)
            }
            let newest = try Row.fetchOne(db, sql: "SELECT seq, kind, at FROM changes ORDER BY seq DESC LIMIT 1")
            let touched = try Int64.fetchAll(db, sql: """
                SELECT channel_id FROM subscriptions WHERE user_id = ?1
                UNION SELECT i.channel_id FROM collections k CROSS JOIN collection_items ci ON ci.collection = k.id
                    CROSS JOIN items i ON i.id = ci.item WHERE k.user_id = ?1
                """, arguments: [user.id.rawValue])
            try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [user.id.rawValue])
            let released = try Self.releaseUnfollowed(touched, db)
            try db.execute(sql: "DELETE FROM changes WHERE user_id = ?", arguments: [user.id.rawValue])
            if let newest {
                // (Also when the cascade's rows pruned it: the log is pruned every thousandth row.)
                let seq: Int64 = newest["seq"], kind: String = newest["kind"], at: Int64 = newest["at"]
                try db.execute(sql: """
                    INSERT INTO changes (seq, user_id, kind, payload, at) SELECT ?, ?, ?, '{}', ?
                    WHERE NOT EXISTS (SELECT 1 FROM changes WHERE seq = ?)
                    """, arguments: [seq, UserID.nobody.rawValue, kind, at, seq])
            }
            return RemovedUser(channels: released.unfollowed, items: released.removed)
        }
    }

    // MARK: Sessions

    @discardableResult
    public func createSession(user: UserID, tokenHash: String, deviceName: String?, now: Int64) async throws(LibraryError) -> Session {
        guard !tokenHash.isEmpty else { throw .invalid("a session needs its token's hash") }
        return try await write { db in
            _ = try Self.requireUser(db, "id = ?", [user.rawValue], name: user.description)
            try db.execute(sql: """
                INSERT INTO sessions (user_id, token_hash, device_name, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
                """, arguments: [user.rawValue, tokenHash, deviceName, now, now + SessionRule.lifetime])
            return try Self.sessions(db, "WHERE id = ?", [db.lastInsertedRowID])[0]
        }
    }

    public func session(tokenHash: String, now: Int64) async throws(LibraryError) -> LiveSession? {
        // One read on most requests: "last used" moves only when it is `lastUsedResolution` old.
        let found = try readNow(oneStatement: true) { db -> LiveSession? in
            let statement = try db.cachedStatement(sql: """
                SELECT s.id, s.user_id, s.device_name, s.created_at, s.expires_at, s.last_used_at,
                       u.name, u.is_admin, u.password_hash IS NOT NULL, u.created_at
                FROM sessions s CROSS JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.expires_at > ?
                """)
            return try StatementColumns.fetchOne(statement, arguments: [tokenHash, now]) { row in
                let user = UserID(row.int64(1) ?? 0)
                return LiveSession(session: Session(id: row.int64(0) ?? 0, userID: user, deviceName: row.text(2), createdAt: row.int64(3) ?? 0,
                                                    expiresAt: row.int64(4) ?? 0, lastUsedAt: row.int64(5)),
                                   user: User(id: user, name: row.text(6) ?? "", isAdmin: row.bool(7), hasPassword: row.bool(8),
                                              createdAt: row.int64(9) ?? 0))
            }
        }
        guard var live = found else { return nil }
        if let last = live.session.lastUsedAt, now - last < SessionRule.lastUsedResolution, now >= last { return live }
        let id = live.session.id
        let stillThere: Bool
        do throws(LibraryError) {
            stillThere = try await write { db in
                try db.execute(sql: "UPDATE sessions SET last_used_at = ? WHERE id = ?", arguments: [now, id])
                return db.changesCount > 0
            }
        } catch where error.isDiskFull {
            return live   // "last used" is bookkeeping: a full disk must not sign anyone out
        }
        live.session.lastUsedAt = now
        return stillThere ? live : nil  // revoked meanwhile
    }

    public func sessions(of user: UserID?) async throws(LibraryError) -> [Session] {
        try await read { db in
            try Self.sessions(db, "WHERE ?1 IS NULL OR user_id = ?1 ORDER BY created_at DESC, id DESC", [user?.rawValue])
        }
    }

    public func revokeSession(id: Int64) async throws(LibraryError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw LibraryError.noSession(id) }
        }
    }

    @discardableResult
    public func revokeSessions(of user: UserID, except kept: Int64?) async throws(LibraryError) -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE user_id = ? AND id IS NOT ?", arguments: [user.rawValue, kept])
            return db.changesCount
        }
    }

    static let userColumns = "id, name, is_admin, password_hash IS NOT NULL AS has_password, created_at"

    static func user(row: Row) -> User {
        User(id: UserID(row["id"]), name: row["name"], isAdmin: row["is_admin"], hasPassword: row["has_password"],
             createdAt: row["created_at"])
    }

    /// Only a valid name (`LibraryUsers.validName`, as stored) can be anyone's: one with a control
    /// character is nobody's, whatever SQLite would make of it (a NUL ends a C string).
    private static func requireValid(_ name: String) throws(LibraryError) {
        guard LibraryUsers.validName(name) == name else { throw .noUser(name) }
    }

    static func requireUser(_ db: Database, _ condition: String, _ arguments: StatementArguments, name: String) throws -> User {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(userColumns) FROM users WHERE \(condition)", arguments: arguments) else {
            throw LibraryError.noUser(name)
        }
        return user(row: row)
    }

    private static func sessions(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> [Session] {
        try Row.fetchAll(db, sql: "SELECT * FROM sessions \(sql)", arguments: arguments).map {
            Session(id: $0["id"], userID: UserID($0["user_id"]), deviceName: $0["device_name"], createdAt: $0["created_at"],
                    expiresAt: $0["expires_at"], lastUsedAt: $0["last_used_at"])
        }
    }
}
