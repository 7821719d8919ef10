import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary: IdentityStore {
    public func user(issuer: String, subject: String, now: Int64) async throws(LibraryError) -> User? {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, user_id FROM user_identities WHERE issuer = ? AND subject = ?",
                                             arguments: [issuer, subject]) else { return nil }
            try db.execute(sql: "UPDATE user_identities SET last_used_at = ? WHERE id = ?", arguments: [now, row["id"] as Int64])
            return try Self.requireUser(db, "id = ?", [row["user_id"] as Int64], name: String(row["user_id"] as Int64))
        }
    }

    public func link(issuer: String, subject: String, email: String?, to user: UserID, now: Int64) async throws(LibraryError) {
        try IdentityRule.require(issuer: issuer, subject: subject)
        try await write { db in
            _ = try Self.requireUser(db, "id = ?", [user.rawValue], name: user.description)
            try Self.insertIdentity(db, issuer: issuer, subject: subject, email: email, user: user, now: now)
        }
    }

    public func addUser(names: [String], issuer: String, subject: String, email: String?, now: Int64) async throws(LibraryError) -> User {
        try IdentityRule.require(issuer: issuer, subject: subject)
        let candidates = try IdentityRule.candidateNames(names)
        return try await write { db in
            guard let name = try candidates.first(where: {
                try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE name = ?", arguments: [$0]) == nil
            }) else { throw LibraryError.userExists(candidates[0]) }
            try db.execute(sql: "INSERT INTO users (name, password_hash, is_admin, created_at) VALUES (?, NULL, 0, ?)", arguments: [name, now])
            let user = try Self.requireUser(db, "id = ?", [db.lastInsertedRowID], name: name)
            try Self.insertIdentity(db, issuer: issuer, subject: subject, email: email, user: user.id, now: now)
            return user
        }
    }

    public func identities(of user: UserID?) async throws(LibraryError) -> [UserIdentity] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT user_id, issuer, subject, email, created_at, last_used_at FROM user_identities
                WHERE ?1 IS NULL OR user_id = ?1 ORDER BY issuer, subject
                """, arguments: [user?.rawValue]).map {
                UserIdentity(userID: UserID($0["user_id"]), issuer: $0["issuer"], subject: $0["subject"], email: $0["email"],
                             createdAt: $0["created_at"], lastUsedAt: $0["last_used_at"])
            }
        }
    }

    public func unlink(issuer: String, subject: String) async throws(LibraryError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM user_identities WHERE issuer = ? AND subject = ?", arguments: [issuer, subject])
            if db.changesCount == 0 { throw LibraryError.noIdentity(issuer: issuer, subject: subject) }
        }
    }

    /// Linked to `user` unless linked already: to them, nothing changes; to another, `identityTaken`.
    private static func insertIdentity(_ db: Database, issuer: String, subject: String, email: String?, user: UserID, now: Int64) throws {
        if let owner = try Int64.fetchOne(db, sql: "SELECT user_id FROM user_identities WHERE issuer = ? AND subject = ?",
                                          arguments: [issuer, subject]) {
            guard owner == user.rawValue else { throw LibraryError.identityTaken(issuer: issuer, subject: subject) }
            return
        }
        try db.execute(sql: """
            INSERT INTO user_identities (user_id, issuer, subject, email, created_at) VALUES (?, ?, ?, ?, ?)
            """, arguments: [user.rawValue, issuer, subject, email.flatMap { $0.isEmpty ? nil : $0 }, now])
    }
}
