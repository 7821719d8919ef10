import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// v12-search-one-character-prefixes makes the search index again with a one-character prefix
/// index: a library indexed by v8 (some items above the index's mark, not indexed yet) finds
/// exactly what it found before, each item once, and the items above the mark after the next
/// search catches up.
@Suite struct StoreSearchIndexMigrationTests {
    @Test func theIndexIsMadeAgainWithOneCharacterPrefixesAndFindsTheSame() async throws {
        let dir = TempDir()
        let path = dir.file("v11.sqlite")
        let titles = ["Episode 3 of Bread", "Episode 30 of Butter", "Episode 4 of Bread", "Episode 39 of Brine"]
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v11-users")
            // A channel and its subscription as v11 had them (today's subscribe also writes v18's reach).
            let channel = try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO channels (platform, source_url, feed_url, name, added_at)
                        VALUES ('podcast', 'https://example.com/Bakery', 'https://example.com/Bakery.xml', 'Bakery', 1000)
                    """)
                let id = db.lastInsertedRowID
                try db.execute(sql: "INSERT INTO subscriptions (channel_id, added_at) VALUES (?, 1000)", arguments: [id])
                return id
            }
            // Items written as v11 had them (today's ingest also writes v15's counts).
            func add(_ id: String, _ title: String, _ notes: String?) async throws {
                try await old.write { db in
                    try db.execute(sql: "INSERT INTO items (channel_id, item_id, title, description, discovered_at) VALUES (?, ?, ?, ?, 5000)",
                                   arguments: [channel, id, title, notes])
                }
            }
            for (offset, title) in titles.enumerated() { try await add("e\(offset)", title, "Notes \(offset).") }
            // A search indexes these; the next item stays above the mark.
            #expect(try await old.search(SearchQuery(text: "episode 3")).map(\.itemID).sorted() == ["e0", "e1", "e3"])
            try await add("e9", "Episode 300 of Bagels", nil)
            let sql = try await old.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'items_search'") }
            #expect(sql?.contains("prefix = '2 3'") == true)
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations() == Schema.migrationNames)
        let sql = try await library.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'items_search'") }
        #expect(sql?.contains("prefix = '1 2 3'") == true)
        // Only what v8 had indexed is in the new index until a search catches up.
        let indexed = try await library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items_search WHERE items_search MATCH 'episode'") }
        #expect(indexed == 4)
        #expect(try await library.search(SearchQuery(text: "episode 3")).map(\.itemID).sorted() == ["e0", "e1", "e3", "e9"])
        #expect(try await library.search(SearchQuery(text: "b")).count == 5, "each item once")
        #expect(try await library.search(SearchQuery(text: "bread")).map(\.itemID).sorted() == ["e0", "e2"])
        // The rank v8 configured is configured again.
        let rank = try await library.read { db in
            try String.fetchOne(db, sql: "SELECT v FROM items_search_config WHERE k = 'rank'")
        }
        #expect(rank == Schema.searchRank)
        // The triggers v8 made work on the new table: a changed title is found by its new words.
        try await library.write { db in try db.execute(sql: "UPDATE items SET title = 'Episode 4 of Rye' WHERE item_id = 'e2'") }
        #expect(try await library.search(SearchQuery(text: "rye")).map(\.itemID) == ["e2"])
        #expect(try await library.search(SearchQuery(text: "bread")).map(\.itemID) == ["e0"])
    }
}
