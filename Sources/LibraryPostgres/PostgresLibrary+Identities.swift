import FeedModel
import LibraryStore

// Users' identities at OpenID providers, as the SQLite library (SQLiteLibrary+Identities.swift).
extension PostgresLibrary: IdentityStore {
    public func user(issuer: String, subject: String, now: Int64) async throws(LibraryError) -> User? {
        try await write { db throws(LibraryError) in
            guard let row = try db.query("""
                UPDATE user_identities SET last_used_at = $3 WHERE issuer = $1 AND subject = $2 RETURNING user_id
                """, [issuer, subject, now]).first else { return nil }
            let user: Int64 = try row.get("user_id")
            return try Self.requireUser(db, "id = $1", [user], name: String(user))
        }
    }

    public func link(issuer: String, subject: String, email: String?, to user: UserID, now: Int64) async throws(LibraryError) {
        try IdentityRule.require(issuer: issuer, subject: subject)
        try await write { db throws(LibraryError) in
            _ = try Self.requireUser(db, "id = $1", [user.rawValue], name: user.description)
            try Self.insertIdentity(db, issuer: issuer, subject: subject, email: email, user: user, now: now)
        }
    }

    public func addUser(names: [String], issuer: String, subject: String, email: String?, now: Int64) async throws(LibraryError) -> User {
        try IdentityRule.require(issuer: issuer, subject: subject)
        let candidates = try IdentityRule.candidateNames(names)
        return try await write { db throws(LibraryError) in
            // The first free name: ON CONFLICT makes a taken one no row, not an error that ends the transaction.
            for name in candidates {
                guard let row = try db.query("""
                    INSERT INTO users (name, password_hash, is_admin, created_at) VALUES ($1, NULL, 0, $2)
                    ON CONFLICT (name) DO NOTHING RETURNING \(Self.userColumns)
                    """, [name, now]).first else { continue }
                let user = try Self.user(row)
                try Self.insertIdentity(db, issuer: issuer, subject: subject, email: email, user: user.id, now: now)
                return user
            }
            throw .userExists(candidates[0])
        }
    }

    public func identities(of user: UserID?) async throws(LibraryError) -> [UserIdentity] {
        try await read { db throws(LibraryError) in
            try db.query("""
                SELECT user_id, issuer, subject, email, created_at, last_used_at FROM user_identities
                WHERE $1::bigint IS NULL OR user_id = $1 ORDER BY issuer COLLATE "C", subject COLLATE "C"
                """, [user?.rawValue]).rows.map { row throws(LibraryError) in
                UserIdentity(userID: UserID(try row.get("user_id")), issuer: try row.get("issuer"), subject: try row.get("subject"),
                             email: try row.get("email"), createdAt: try row.get("created_at"), lastUsedAt: try row.get("last_used_at"))
            }
        }
    }

    public func unlink(issuer: String, subject: String) async throws(LibraryError) {
        try await write { db throws(LibraryError) in
            if try db.query("DELETE FROM user_identities WHERE issuer = $1 AND subject = $2", [issuer, subject]).affected == 0 {
                throw .noIdentity(issuer: issuer, subject: subject)
            }
        }
    }

    /// Linked to `user` unless linked already: to them, nothing changes; to another, `identityTaken`.
    private static func insertIdentity(_ db: PGConnection, issuer: String, subject: String, email: String?, user: UserID,
                                       now: Int64) throws(LibraryError) {
        let inserted = try db.query("""
            INSERT INTO user_identities (user_id, issuer, subject, email, created_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (issuer, subject) DO NOTHING
            """, [user.rawValue, issuer, subject, email.flatMap { $0.isEmpty ? nil : $0 }, now]).affected
        guard inserted == 0 else { return }
        let owner: Int64? = try db.query("SELECT user_id FROM user_identities WHERE issuer = $1 AND subject = $2",
                                         [issuer, subject]).first?.get("user_id")
        guard owner == user.rawValue else { throw .identityTaken(issuer: issuer, subject: subject) }
    }
}
