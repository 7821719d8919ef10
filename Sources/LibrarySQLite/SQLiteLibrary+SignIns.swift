import FeedModel
import GRDB
import LibraryStore

// Single sign-ons under way and re-authentications (`SignInStore`), in the library so that every
// process serving it sees them.
extension SQLiteLibrary: SignInStore {
    public func keepSignIn(_ signIn: PendingSignIn, capacity: Int) async throws(LibraryError) {
        let columns = try SignInColumns(signIn)
        let live = SignInRule.liveStarts(at: signIn.started)
        try await write { db in
            try db.execute(sql: "DELETE FROM sign_ins WHERE NOT (started_at > ? AND started_at <= ?)", arguments: [live.after, live.notAfter])
            // Room for this one: the newest `capacity - 1` stay.
            try db.execute(sql: """
                DELETE FROM sign_ins WHERE state_hash IN
                    (SELECT state_hash FROM sign_ins ORDER BY started_at DESC, state_hash DESC LIMIT -1 OFFSET ?)
                """, arguments: [max(0, capacity - 1)])
            try db.execute(sql: """
                INSERT INTO sign_ins (state_hash, nonce, verifier, callback, next_path, browser_hash, session_id, mobile_redirect, started_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [signIn.stateHash, signIn.nonce, signIn.verifier, signIn.callback, columns.nextPath, columns.browserHash,
                                 columns.session, columns.mobileRedirect, signIn.started])
        }
    }

    public func takeSignIn(stateHash: String, now: Int64) async throws(LibraryError) -> PendingSignIn? {
        let taken = try await write { db -> PendingSignIn? in
            guard let row = try Row.fetchOne(db, sql: """
                DELETE FROM sign_ins WHERE state_hash = ?
                RETURNING state_hash, nonce, verifier, callback, next_path, browser_hash, session_id, mobile_redirect, started_at
                """, arguments: [stateHash]),
                  let destination = SignInColumns(nextPath: row["next_path"], browserHash: row["browser_hash"], session: row["session_id"],
                                                  mobileRedirect: row["mobile_redirect"]).destination else { return nil }
            return PendingSignIn(stateHash: row["state_hash"], nonce: row["nonce"], verifier: row["verifier"], callback: row["callback"],
                                 destination: destination, started: row["started_at"])
        }
        guard let taken, SignInRule.isLive(started: taken.started, now: now) else { return nil }
        return taken
    }

    public func recordReauthentication(session: Int64, authenticated: Int64) async throws(LibraryError) {
        try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM sessions WHERE id = ?", arguments: [session]) != nil else {
                throw LibraryError.noSession(session)
            }
            try db.execute(sql: """
                INSERT INTO session_reauthentications (session_id, authenticated_at) VALUES (?, ?)
                ON CONFLICT (session_id) DO UPDATE SET authenticated_at = excluded.authenticated_at
                """, arguments: [session, authenticated])
        }
    }

    public func reauthentication(session: Int64) async throws(LibraryError) -> Int64? {
        try await read { db in
            try Int64.fetchOne(db, sql: "SELECT authenticated_at FROM session_reauthentications WHERE session_id = ?", arguments: [session])
        }
    }
}
