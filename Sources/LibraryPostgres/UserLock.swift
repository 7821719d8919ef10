import LibraryStore

/// A transaction-scoped advisory lock named after a user (`pg_advisory_xact_lock`, held until
/// COMMIT or ROLLBACK): the writers of one user's state of a kind take turns, other users never
/// wait. Its two-number form keeps its own key space (no clash with the migrator's one-number
/// lock): the first number is the kind (four ASCII letters), the second the user's id folded
/// into 32 bits (two users whose ids fold alike only take turns, nothing worse).
enum UserLock: Int32 {
    /// "upnx": the user's up-next queue, which has no row of its own to lock
    /// (PostgresLibrary+UpNext.swift).
    case upNext = 0x75_70_6e_78
    /// "wtch": the store's own writers of the user's watch states (marks, positions, a saved
    /// video's) take turns, as SQLite's one writer has them, so several at once neither deadlock
    /// on each other's rows (a mark of [a, b] and one of [b, a]) nor both decide from a state the
    /// other is changing (two checkpoints of one play both recording it). A phone's actions and
    /// the ingest's pending ones do not take it: they lock the rows they decide on
    /// (`writeWatchState`).
    case watchState = 0x77_74_63_68

    /// Takes this lock of `user` until the transaction ends.
    func take(for user: UserID, _ db: PGConnection) throws(LibraryError) {
        try db.query("SELECT pg_advisory_xact_lock($1::int, ($2::bigint % 2147483648)::int)", [rawValue, user.rawValue])
    }
}
