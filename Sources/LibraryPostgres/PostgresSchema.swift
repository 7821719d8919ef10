/// PLACEHOLDER on the pgcore branch: the pgschema helper's file replaces this one.
enum PostgresSchema {
    static let migrations: [(name: String, sql: String)] = [
        ("v1-placeholder", "CREATE TABLE IF NOT EXISTS placeholder (id BIGINT)"),
    ]
}
