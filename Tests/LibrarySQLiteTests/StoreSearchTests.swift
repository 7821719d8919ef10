import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// `search`: FTS5 over titles, show notes and channel names, ranked, prefix matching, accents
/// folded, `feed`'s filters, kept in step with every write; user text is never FTS syntax.
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

    @Test func titlesRankAboveNotesAndWordsMatchAsPrefixes() async throws {
        #expect(try await ids("sourdough") == ["bread", "notes"], "a title match first")
        #expect(try await ids("sour") == ["bread", "notes"], "prefix")
        #expect(try await ids("nutri") == ["notes"])
        #expect(try await ids("sourdough patience") == ["bread"], "every word must match")
        #expect(try await ids("bread") == ["bread", "engine"])
        #expect(try await ids("zzz").isEmpty)
        #expect(try await ids("sourdough nutri") == ["notes"], "the last word is a prefix")
        #expect(try await ids("sour nutrition").isEmpty, "earlier words match whole")
    }

    @Test func aWordInMostItemsListsNewestFirst() async throws {
        let many = try await t.library.addTestChannel("Many")
        let count = SearchRule.rankedWordLimit + 1
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Many", items: (0..<count).map {
            Item(id: "m\($0)", title: "Common \($0)", description: $0 == 7 ? "common common common" : nil)
        }), channelID: many, now: 5000)
        // Ranked, m7 (the word four times) would come first; too common to rank, the newest is first.
        #expect(try await ids("common", limit: 3) == ["m\(count - 1)", "m\(count - 2)", "m\(count - 3)"])
        #expect(try await ids("common 4999") == ["m4999"], "every word must still match")
        #expect(try await ids("sourdough") == ["bread", "notes"], "rare words are still ranked")
    }

    @Test func accentsAreFoldedBothWays() async throws {
        #expect(try await ids("creme brulee") == ["creme"])
        #expect(try await ids("CRÈME") == ["creme"])
        #expect(try await ids("cre\u{0300}me") == ["creme"], "a combining accent typed separately")
        // "cafe" is in one channel's name (all three of its items) and in the engine's notes.
        #expect(Set(try await ids("cafe")) == ["bread", "notes", "creme", "engine"])
        #expect(try await ids("cafe").last == "engine", "the channel name weighs more than notes")
    }

    @Test func feedsFiltersApply() async throws {
        #expect(try await ids("bread", FeedFilter(platform: .youtube)) == ["engine"])
        #expect(try await ids("bread", FeedFilter(channelID: cooking)) == ["bread"])
        try await t.library.setWatched([try await t.library.id(of: "bread")], now: 2000)
        #expect(try await ids("sourdough", FeedFilter(unwatchedOnly: true)) == ["notes"])
        #expect(try await ids("sourdough", limit: 1, page: 2) == ["notes"])
        #expect(try await ids("sourdough", limit: 1, page: 3).isEmpty)
    }

    @Test func userTextIsNeverQuerySyntax() async throws {
        for text in ["\"sourdough", "sourdough AND", "AND", "OR sourdough", "NOT", "sour*", "-sourdough",
                     "(sourdough", "sourdough)", "NEAR(sourdough", "^sourdough", "title:sourdough", "sour\"dough", "a'b",
                     "sourdough -- ; DROP TABLE items", "{title notes}: x", "sourdough NEAR/2 bread", "AND OR NOT"] {
            _ = try await ids(text)  // must not throw
        }
        // Text without a word is one clear line, not an FTS5 error.
        for text in ["\"", "*", "+", "()", " - "] {
            await #expect(throws: LibraryError.invalid("nothing to search for in \"\(text)\": give a word")) { _ = try await ids(text) }
        }
        #expect(try await ids("\"sourdough") == ["bread", "notes"])
        #expect(try await ids("-sourdough") == ["bread", "notes"], "'-' is not NOT")
        #expect(try await ids("title:sourdough") == [], "'title' is a word here, not a column filter")
        #expect(try await ids("(sourdough)") == ["bread", "notes"])
        #expect(try await ids("sourdough OR zzz") == [], "OR is a word that must match too, not an operator")
        await #expect(throws: LibraryError.invalid("nothing to search for in \"*-()\": give a word")) { _ = try await ids("*-()") }
        await #expect(throws: LibraryError.self) { _ = try await ids("") }
    }

    @Test func theIndexFollowsEveryWrite() async throws {
        // A re-ingest that changes a title and notes.
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
            Item(id: "bread", title: "Rye bread at home", published: 300, description: "Flour, water, salt and patience."),
        ]), channelID: cooking, now: 2000)
        #expect(try await ids("sourdough") == ["notes"])
        #expect(try await ids("rye") == ["bread"])
        // The channel renamed by its feed.
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Kitchen Table", items: []), channelID: cooking, now: 3000)
        #expect(try await ids("kitchen table").count == 3)
        #expect(try await ids("cuisine").isEmpty)
        // The channel removed.
        try await t.library.removeChannel(id: cooking)
        #expect(try await ids("sourdough").isEmpty)
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

    /// A word in every item puts the search on the newest-first path, where the last word's prefix
    /// is spelled as the words it stands for (`SearchPlan`): the items found must be exactly
    /// those holding every word, under every filter, on every page.
    @Test func aWordInEveryItemWithAPrefixAndFiltersFindsExactlyTheMatches() async throws {
        let alpha = try await t.library.addTestChannel("Alpha Show")
        let beta = try await t.library.addTestChannel("Beta Tube", platform: .youtube)
        let half = SearchRule.rankedWordLimit / 2 + 1  // "everyday" in more items than the limit
        func notes(_ n: Int) -> String { n % 3 == 0 ? "A chance." : n % 5 == 0 ? "Two channels." : "Nothing." }
        let numbers = [Array(0..<half), Array(half..<2 * half)]
        for (channel, kind, range) in [(alpha, Feed.Kind.podcast, numbers[0]), (beta, .youtube, numbers[1])] {
            _ = try await t.library.ingest(Feed(kind: kind, title: channel == alpha ? "Alpha Show" : "Beta Tube", items: range.map {
                Item(id: "e\($0)", title: "Everyday episode \($0)", description: notes($0))
            }), channelID: channel, now: 5000)
        }
        try await t.library.setWatched(try await [t.library.id(of: "e\(2 * half - 3)"), t.library.id(of: "e\(half + 10)")], now: 6000)
        let watched: Set = [2 * half - 3, half + 10]
        // Ids grow with discovery: alpha's items, then beta's; newest first is the reverse.
        let newestFirst = Array((0..<2 * half).reversed())
        func expected(_ keep: (Int) -> Bool, limit: Int = 20, page: Int = 1) -> [String] {
            Array(newestFirst.filter(keep).dropFirst(limit * (page - 1)).prefix(limit)).map { "e\($0)" }
        }
        let chan = { (n: Int) in n % 3 == 0 || n % 5 == 0 }  // "chance", "channels"
        let one = { (n: Int) in String(n).hasPrefix("1") }
        let inBeta = { (n: Int) in n >= half }
        #expect(try await ids("everyday chan") == expected(chan))
        #expect(try await ids("EVERYDAY Chan", limit: 7, page: 2) == expected(chan, limit: 7, page: 2))
        #expect(try await ids("everyday chan", FeedFilter(channelID: beta), limit: 9, page: 3)
                == expected({ chan($0) && inBeta($0) }, limit: 9, page: 3))
        #expect(try await ids("everyday chan", FeedFilter(channelID: alpha), limit: 9, page: 2)
                == expected({ chan($0) && !inBeta($0) }, limit: 9, page: 2))
        #expect(try await ids("everyday chan", FeedFilter(platform: .youtube, unwatchedOnly: true))
                == expected({ chan($0) && inBeta($0) && !watched.contains($0) }))
        #expect(try await ids("everyday 1", limit: 30) == expected(one, limit: 30), "a one-character prefix")
        #expect(try await ids("everyday 1", FeedFilter(channelID: alpha), limit: 30, page: 2)
                == expected({ one($0) && !inBeta($0) }, limit: 30, page: 2))
        #expect(try await ids("episode 1", FeedFilter(unwatchedOnly: true), limit: 50, page: 4)
                == expected({ one($0) && !watched.contains($0) }, limit: 50, page: 4))
        #expect(try await ids("everyday 4999") == ["e4999"], "every word must still match")
        #expect(try await ids("everyday 49") == expected { String($0).hasPrefix("49") }, "the prefix index's lengths")
        #expect(try await ids("everyday zzzz").isEmpty)
        #expect(try await ids("everyday chance") == expected { $0 % 3 == 0 }, "an earlier word matches whole")
        #expect(try await ids("chance everyday") == expected { $0 % 3 == 0 })
    }

    /// A word in nearly every item beside rarer words whose rows seldom meet: the rarer words
    /// find the rows newest first and each row is looked up for the common word
    /// (`SearchPlan.Split`). The items found must be exactly those holding every word, in the
    /// same order, on every page and under every filter, also where the common word is missing
    /// from most rows the rarer words find (past `SearchPlan.maxMissedChecks` such rows, one AND
    /// finishes the page), and where one AND is chosen instead.
    @Test func aWordInNearlyEveryItemBesideRarerWordsFindsExactlyTheMatches() async throws {
        let archive = try await t.library.addTestChannel("Archive")
        let daily = try await t.library.addTestChannel("Daily Tube", platform: .youtube)
        // The archive first (lower ids): "rare", "blue" and "vintage" in each item, "everyday" in every tenth.
        let old = 300
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Archive", items: (0..<old).map {
            Item(id: "a\($0)", title: "Vintage show \($0)" + ($0 % 10 == 0 ? " everyday" : ""), description: "A rare blue note.")
        }), channelID: archive, now: 5000)
        // Then more items than the rank limit, each with "everyday"; "rare" in every 20th, "blue"
        // in every 23rd: both in every 460th.
        let new = SearchRule.rankedWordLimit + 100
        _ = try await t.library.ingest(Feed(kind: .youtube, title: "Daily Tube", items: (0..<new).map {
            Item(id: "d\($0)", title: "Everyday episode \($0)",
                 description: [$0 % 20 == 0 ? "rare" : "", $0 % 23 == 0 ? "blue" : ""].joined(separator: " "))
        }), channelID: daily, now: 5000)
        let watched = ["d\(4600)", "d\(920)", "a280"]
        try await t.library.setWatched(try await watched.asyncMap { try await t.library.id(of: $0) }, now: 6000)
        // Ids grow with discovery: the archive's items, then the daily ones; newest first is the reverse.
        let newestFirst = (0..<new).reversed().map { "d\($0)" } + (0..<old).reversed().map { "a\($0)" }
        func number(_ id: String) -> Int { Int(id.dropFirst()) ?? -1 }
        let inArchive = { (id: String) in id.hasPrefix("a") }
        let everyday = { (id: String) in !inArchive(id) || number(id) % 10 == 0 }
        let rare = { (id: String) in inArchive(id) || number(id) % 20 == 0 }
        let blue = { (id: String) in inArchive(id) || number(id) % 23 == 0 }
        let all = { (id: String) in everyday(id) && rare(id) && blue(id) }
        func expected(_ keep: (String) -> Bool, limit: Int = 20, page: Int = 1) -> [String] {
            Array(newestFirst.filter(keep).dropFirst(limit * (page - 1)).prefix(limit))
        }
        // 12 daily rows, then 30 of the archive's 300, which "rare blue" all find.
        for (limit, page) in [(20, 1), (20, 2), (20, 3), (7, 1), (7, 2), (7, 4), (3, 5), (50, 1)] {
            #expect(try await ids("everyday rare blue", limit: limit, page: page) == expected(all, limit: limit, page: page))
            #expect(try await ids("blue everyday rare", limit: limit, page: page) == expected(all, limit: limit, page: page))
        }
        #expect(try await ids("everyday rare blue", FeedFilter(channelID: archive)) == expected { inArchive($0) && all($0) })
        #expect(try await ids("everyday rare blue", FeedFilter(channelID: archive), limit: 4, page: 3)
                == expected({ inArchive($0) && all($0) }, limit: 4, page: 3))
        #expect(try await ids("everyday rare blue", FeedFilter(platform: .youtube)) == expected { !inArchive($0) && all($0) })
        #expect(try await ids("everyday rare blue", FeedFilter(unwatchedOnly: true), limit: 30)
                == expected({ all($0) && !watched.contains($0) }, limit: 30))
        #expect(try await ids("everyday rare blue", FeedFilter(channelID: daily), limit: 5, page: 3)
                == expected({ !inArchive($0) && all($0) }, limit: 5, page: 3))
        #expect(try await ids("everyday rare blue", FeedFilter(channelID: daily), limit: 5, page: 4).isEmpty)
        // One driver word: one AND.
        #expect(try await ids("everyday rare", limit: 20, page: 4) == expected({ everyday($0) && rare($0) }, page: 4))
        #expect(try await ids("vintage everyday show") == expected { inArchive($0) && everyday($0) })
        #expect(try await ids("everyday 4242") == ["d4242"], "every word must still match")
        #expect(try await ids("everyday zzzz").isEmpty)
        #expect(try await ids("everyday rare zzzz").isEmpty)
        let startsWith = { (prefix: String) in { (id: String) in everyday(id) && String(number(id)).hasPrefix(prefix) } }
        #expect(try await ids("everyday 42", limit: 30) == expected(startsWith("42"), limit: 30), "a prefix the prefix index serves")
        #expect(try await ids("everyday 7", limit: 30, page: 3) == expected(startsWith("7"), limit: 30, page: 3), "a one-character prefix")
        #expect(try await ids("everyday rare 4", limit: 10) == expected({ startsWith("4")($0) && rare($0) }, limit: 10))
        // (After a search: the plan reads the index that searches keep current.)
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
