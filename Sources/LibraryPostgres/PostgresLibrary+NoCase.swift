extension PostgresLibrary {
    /// SQLite's `ORDER BY x COLLATE NOCASE` (channels and collections by name): ASCII letters
    /// folded, then compared byte by byte whatever the database's collation, so both engines
    /// list names in the same order.
    static func noCase(_ expression: String) -> String {
        "translate(\(expression), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE \"C\""
    }
}
