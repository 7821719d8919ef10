import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The SQLite store's search: FTS5 (its index made lazily, its rank, its integrity), the prefix
/// index and the plan (what a search finds is StoreContractTests').
@Suite struct StoreSearchTests {
    let t: TestLibrary
    let cooking: Int64
    let tube: Int64

    init() async throws {
        t = try TestLibrary()
        cooking = try await t.library.addTestChannel("Café Cuisine")
        tube = try await t.library.addTestChannel("Garage", platform: .youtube)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
            Item(id: "bread", title: "Sourdough bread at home", published: 300, description: "Flour, water, salt and patience."),
            Item(id: "notes", title: "Listener questions", published: 200, description: "We talk about sourdough starters and nutrition."),
            Item(id: "creme", title: "Crème brûlée", published: 100, description: "Dessert."),
        ]), channelID: cooking, now: 1000)
        _ = try await t.library.ingest(Feed(kind: .youtube, title: "Garage", items: [
            Item(id: "engine", title: "Engine rebuild, part 1", published: 400, description: "Bread-and-butter work on a café racer."),
        ]), channelID: tube, now: 1000)
    }

    func ids(_ text: String, _ filter: FeedFilter = FeedFilter(), limit: Int = 20, page: Int = 1) async throws -> [String] {
        try await t.library.search(SearchQuery(text: text, filter: filter, page: try PageRequest(page: page, perPage: limit))).map(\.itemID)
    }

    /// FTS5's own check of the index after every kind of write (StoreContractTests has what the
    /// search finds after them).
    @Test func theIndexStaysIntactThroughEveryWrite() async throws {
        _ = try await ids("sourdough")
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
            Item(id: "bread", title: "Rye bread at home", published: 300, description: "Flour, water, salt and patience."),
        ]), channelID: cooking, now: 2000)
        #expect(try await ids("rye") == ["bread"])
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Kitchen Table", items: []), channelID: cooking, now: 3000)
        #expect(try await ids("kitchen table").count == 3)
        try await t.library.removeChannel(id: cooking)
        #expect(try await ids("bread") == ["engine"])
        try await t.library.write { db in try db.execute(sql: "INSERT INTO items_search (items_search) VALUES ('integrity-check')") }
    }

    @Test func newItemsAreIndexedByTheNextSearchNotByIngest() async throws {
        func mark() async throws -> Int64? {
            try await t.library.read { db in try Int64.fetchOne(db, sql: "SELECT indexed_upto FROM search_state") }
        }
        _ = try await ids("sourdough")
        let before = try await mark()
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
            Item(id: "late", title: "Late sourdough", published: 500), Item(id: "gone", title: "Gone sourdough", published: 600),
        ]), channelID: cooking, now: 3000)
        #expect(try await mark() == before, "ingest does not tokenize")
        // Changed and deleted before they were indexed: the triggers leave them alone.
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
            Item(id: "late", title: "Later sourdough", published: 500),
        ]), channelID: cooking, now: 3001)
        try await t.library.write { db in try db.execute(sql: "DELETE FROM items WHERE item_id = 'gone'") }
        #expect(Set(try await ids("sourdough")) == ["bread", "late", "notes"])
        #expect(try await ids("later") == ["late"])
        #expect(try await ids("gone").isEmpty)
        #expect(try await mark() == (try await t.library.read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM items") }))
        try await t.library.write { db in try db.execute(sql: "INSERT INTO items_search (items_search) VALUES ('integrity-check')") }
    }

    @Test func theRankIsTheRule() async throws {
        let rank = try await t.library.read { db in
            try String.fetchOne(db, sql: "SELECT v FROM items_search_config WHERE k = 'rank'")
        }
        #expect(rank == Schema.searchRank)
        #expect(Schema.searchRank == "bm25(\(SearchRule.titleWeight), \(SearchRule.notesWeight), \(SearchRule.channelWeight))")
    }

    @Test func v8IndexesTheItemsAlreadyThere() async throws {
        let dir = TempDir()
        let path = dir.file("old.sqlite")
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v7-ids-never-reused")
            // As v7 stored a channel and an item: today's subscribe writes v11's subscriptions,
            // today's ingest v10's columns.
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at)
                    VALUES (1, 'podcast', 'https://example.com/Old Show', 'https://example.com/Old Show.xml', 'Old Show', 1000)
                    """)
                try db.execute(sql: """
                    INSERT INTO items (channel_id, item_id, title, description, discovered_at) VALUES (1, 'x', 'Ancient episode', 'Notes', 1)
                    """)
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.search(SearchQuery(text: "ancient")).map(\.itemID) == ["x"])
        #expect(try await library.search(SearchQuery(text: "old show")).map(\.itemID) == ["x"])
    }

    /// A word in nearly every item beside rarer words whose rows seldom meet: the rarer words
    /// drive and each row is checked for the common word (`SearchPlan.Split`); with one driver
    /// word, or every word everywhere, one AND (StoreContractTests checks what such searches find).
    @Test func aWordInNearlyEveryItemBesideRarerWordsIsSplit() async throws {
        let archive = try await t.library.addTestChannel("Archive")
        let daily = try await t.library.addTestChannel("Daily Tube", platform: .youtube)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Archive", items: (0..<300).map {
            Item(id: "a\($0)", title: "Vintage show \($0)" + ($0 % 10 == 0 ? " everyday" : ""), description: "A rare blue note.")
        }), channelID: archive, now: 5000)
        _ = try await t.library.ingest(Feed(kind: .youtube, title: "Daily Tube", items: (0..<(SearchRule.rankedWordLimit + 100)).map {
            Item(id: "d\($0)", title: "Everyday episode \($0)",
                 description: [$0 % 20 == 0 ? "rare" : "", $0 % 23 == 0 ? "blue" : ""].joined(separator: " "))
        }), channelID: daily, now: 5000)
        // (After a search: the plan reads the index that searches keep current.)
        #expect(try await ids("everyday rare blue").count == 20)
        for text in ["everyday rare blue", "blue everyday rare", "everyday rare 4"] {
            #expect(try t.library.searchPlan(text)?.split == true, "\(text): split into a driver and a check")
        }
        #expect(try t.library.searchPlan("everyday episode")?.split == false, "every word everywhere: one AND")
        #expect(try t.library.searchPlan("everyday rare")?.split == false, "one driver word: one AND")
        #expect(try t.library.searchPlan("everyday 42")?.split == false, "one driver phrase: one AND")
    }

    @Test func aPrefixIsSpelledAsTheWordsItStandsFor() async throws {
        _ = try await ids("bread")  // indexes the items
        let spelled = { (prefix: String) in try await t.library.read { db in try SearchPlan.spell(prefix: prefix, db) } }
        #expect(try await spelled("SOUR") == ["\"sourdough\""])
        #expect(try await spelled("brea") == ["\"bread\""])
        #expect(try await spelled("zzzz") == [], "no word starts with it")
        #expect(try await spelled("cr") == nil, "the prefix index serves one to three characters")
        #expect(try await spelled("b") == nil)
        #expect(try await spelled("crè") == nil, "not ASCII: FTS5 folds it")
    }
}
