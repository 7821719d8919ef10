import FeedModel
import LibraryStore

// Single sign-ons under way and re-authentications, as the SQLite library
// (SQLiteLibrary+SignIns.swift). Each replica of a server reads and takes them here.
extension PostgresLibrary: SignInStore {
    public func keepSignIn(_ signIn: PendingSignIn, capacity: Int) async throws(LibraryError) {
        let columns = try SignInColumns(signIn)
        let live = SignInRule.liveStarts(at: signIn.started)
        try await write { db throws(LibraryError) in
            try db.query("DELETE FROM sign_ins WHERE NOT (started_at > $1 AND started_at <= $2)", [live.after, live.notAfter])
            // Room for this one: the newest `capacity - 1` stay (replicas keeping at once may
            // each leave one more, for a moment).
            try db.query("""
                DELETE FROM sign_ins WHERE state_hash IN
                    (SELECT state_hash FROM sign_ins ORDER BY started_at DESC, state_hash COLLATE "C" DESC OFFSET $1)
                """, [Int64(max(0, capacity - 1))])
            try db.query("""
                INSERT INTO sign_ins (state_hash, nonce, verifier, callback, next_path, browser_hash, session_id, mobile_redirect, started_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                """, [signIn.stateHash, signIn.nonce, signIn.verifier, signIn.callback, columns.nextPath, columns.browserHash,
                      columns.session, columns.mobileRedirect, signIn.started])
        }
    }

    public func takeSignIn(stateHash: String, now: Int64) async throws(LibraryError) -> PendingSignIn? {
        // One statement: of two replicas taking the same state at once, one gets the row.
        let taken = try await write { db throws(LibraryError) -> PendingSignIn? in
            guard let row = try db.query("""
                DELETE FROM sign_ins WHERE state_hash = $1
                RETURNING state_hash, nonce, verifier, callback, next_path, browser_hash, session_id, mobile_redirect, started_at
                """, [stateHash]).first,
                  let destination = SignInColumns(nextPath: try row.get("next_path"), browserHash: try row.get("browser_hash"),
                                                  session: try row.get("session_id"), mobileRedirect: try row.get("mobile_redirect")).destination
            else { return nil }
            return PendingSignIn(stateHash: try row.get("state_hash"), nonce: try row.get("nonce"), verifier: try row.get("verifier"),
                                 callback: try row.get("callback"), destination: destination, started: try row.get("started_at"))
        }
        guard let taken, SignInRule.isLive(started: taken.started, now: now) else { return nil }
        return taken
    }

    public func recordReauthentication(session: Int64, authenticated: Int64) async throws(LibraryError) {
        try await write { db throws(LibraryError) in
            let recorded = try db.query("""
                INSERT INTO session_reauthentications (session_id, authenticated_at) SELECT id, $2 FROM sessions WHERE id = $1
                ON CONFLICT (session_id) DO UPDATE SET authenticated_at = excluded.authenticated_at
                """, [session, authenticated]).affected
            if recorded == 0 { throw .noSession(session) }
        }
    }

    public func reauthentication(session: Int64) async throws(LibraryError) -> Int64? {
        try await read { db throws(LibraryError) in
            try db.query("SELECT authenticated_at FROM session_reauthentications WHERE session_id = $1", [session]).first?.get("authenticated_at")
        }
    }
}
