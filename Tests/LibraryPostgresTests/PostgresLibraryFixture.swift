@testable import LibraryPostgres
import LibraryStore
import TestSupport

/// A fresh PostgreSQL library (its own database, dropped by `drop()`) with channels and items
/// written in SQL, for the tests of an area whose setup calls (`apply`) are another area's:
/// the owner follows "show" (items a, b, c; b has a thumbnail), bob follows "bobs" (item m).
struct PostgresLibraryFixture {
    let database: (name: String, url: String)
    let owner: PostgresLibrary
    let bob: PostgresLibrary
    let show: Int64, bobs: Int64
    let a: Int64, b: Int64, c: Int64, m: Int64

    /// `connections` bounds the pool (the concurrency tests want several writers at once).
    init(connections: Int = 4) async throws {
        database = try TestPostgres.createDatabase()
        owner = try await PostgresLibrary(url: database.url, location: "test", connections: connections)
        let bobUser = try await owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        bob = owner.acting(as: bobUser.id)
        show = try await Self.channel(owner, "show", followedBy: .owner)
        bobs = try await Self.channel(owner, "bobs", followedBy: bobUser.id)
        let shown = try await Self.items(owner, channel: show, ["a", "b", "c"], thumbnail: "b")
        (a, b, c) = (shown[0], shown[1], shown[2])
        m = try await Self.items(owner, channel: bobs, ["m"])[0]
    }

    func drop() { TestPostgres.drop(database.name) }

    /// Items added to channel `channel` (ids in the order given); `thumbnail` names the one with a picture.
    static func items(_ library: PostgresLibrary, channel: Int64, _ names: [String], thumbnail: String? = nil) async throws -> [Int64] {
        try await library.write { db throws(LibraryError) in
            try db.query("""
                INSERT INTO items (channel_id, item_id, title, url, thumbnail, published, discovered_at)
                SELECT $1, name, 'Title ' || name, 'https://example.com/' || name,
                       CASE WHEN name = $3 THEN 'https://example.com/' || name || '.jpg' END, n, n
                FROM unnest($2::text[]) WITH ORDINALITY AS new(name, n) ORDER BY n RETURNING id
                """, [channel, names, thumbnail]).rows.map { row throws(LibraryError) in try row.get("id") as Int64 }
        }
    }

    static func channel(_ library: PostgresLibrary, _ name: String, followedBy user: UserID) async throws -> Int64 {
        try await library.write { db throws(LibraryError) in
            guard let row = try db.query("""
                INSERT INTO channels (platform, source_url, feed_url, name, added_at)
                VALUES ('podcast', 'https://example.com/' || $1, 'https://example.com/' || $1 || '.xml', $1, 1) RETURNING id
                """, [name]).first else { throw LibraryError.invalid("no channel row") }
            let id: Int64 = try row.get("id")
            try db.query("INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES ($1, $2, 1)", [user.rawValue, id])
            return id
        }
    }

    /// Removes a channel as SQL (its items go with it, by cascade).
    func removeChannel(_ id: Int64) async throws {
        try await owner.write { db throws(LibraryError) in _ = try db.query("DELETE FROM channels WHERE id = $1", [id]) }
    }

    /// One column of the rows `sql` returns, as numbers (its parameters numbers too).
    func numbers(_ sql: String, _ parameters: [Int64] = []) async throws -> [Int64] {
        try await owner.read { db throws(LibraryError) in
            try db.query(sql, parameters).rows.map { row throws(LibraryError) in try row.get(0) as Int64 }
        }
    }

    /// The change log's payloads after `seq`, in order.
    func changes(after seq: Int64) async throws -> [String] {
        guard case .changes(let changes) = try await owner.changes(after: seq, limit: 1000) else { return ["gone"] }
        return changes.map { "\($0.user.rawValue) \($0.kind.rawValue) \($0.payload)" }
    }
}
