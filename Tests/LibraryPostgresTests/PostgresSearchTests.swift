import FeedModel
@testable import LibraryPostgres
import LibraryStore
import TestSupport
import XCTest

/// The PostgreSQL search beyond the contract (StoreSearchTests, StoreSearchCommonWordTests): its
/// bm25 puts items in SQLite's order wherever the two indexes' statistics agree, and its
/// statements read the GIN index.
final class PostgresSearchTests: XCTestCase {
    private var database: (name: String, url: String)!

    override func setUpWithError() throws {
        database = try TestPostgres.createDatabase()
    }

    override func tearDown() {
        if let database { TestPostgres.drop(database.name) }
    }

    /// A library of `count` items in two channels, every item ten words long (title 3, notes
    /// 6, channel name 1) drawn from a vocabulary where some words are far more common than
    /// others, at random but the same every run; "quince" opens every 97th item's notes.
    private static func corpus(_ count: Int) -> [(channel: String, items: [Item])] {
        let vocabulary = ["apple", "apricot", "banana", "basil", "cherry", "chestnut", "date", "dill", "elder", "endive",
                          "fennel", "fig", "garlic", "grape", "hazel", "herb", "kale", "kiwi", "leek", "lemon"]
        var seed: UInt64 = 0x9E3779B97F4A7C15
        func word() -> String {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            // Squared: the first words of the vocabulary are drawn far more often than the last.
            let unit = Double(seed >> 11) / Double(1 << 53)
            return vocabulary[Int(unit * unit * Double(vocabulary.count))]
        }
        func words(_ n: Int) -> String { (0..<n).map { _ in word() }.joined(separator: " ") }
        return ["Alpha", "Beta"].map { channel in
            (channel, (0..<count / 2).map { n in Item(id: "\(channel)\(n)", title: words(3), description: n % 97 == 0 ? "quince " + words(5) : words(6)) })
        }
    }

    /// Where every item is as long as the average (so FTS5's avgdl, of all items, is the mean
    /// length of the matches, which this store reads) and no item was removed (so the highest id
    /// is the item count), the order is SQLite's, ties included.
    func testRanksInSQLitesOrderWhereTheStatisticsAgree() async throws {
        let sqlite = try TestLibrary()
        let postgres = try await PostgresLibrary(url: database.url, location: "test", connections: 2)
        let libraries: [any UserLibrary] = [sqlite.library, postgres]
        for library in libraries {
            for (channel, items) in Self.corpus(400) {
                let id = try await library.addTestChannel(channel)
                _ = try await library.ingest(Feed(kind: .podcast, title: channel, items: items), channelID: id, now: 5000)
            }
        }
        let queries = ["apple", "apricot", "fig", "lemon", "kiwi", "herb", "ap", "a", "che", "le", "apple banana", "banana apple",
                       "cherry dill", "fig grape", "apple apple", "basil ch", "elder e", "kale lemon", "quince", "quince apple", "apple zzz"]
        var ranked = 0
        for text in queries {
            let expected = try await sqlite.library.search(SearchQuery(text: text, page: .first(500))).map(\.itemID)
            let found = try await postgres.search(SearchQuery(text: text, page: .first(500))).map(\.itemID)
            XCTAssertEqual(found, expected, text)
            if expected.count > 1 { ranked += 1 }
        }
        XCTAssertGreaterThan(ranked, 12, "most queries order several items")
        // A paged search walks the same order.
        let pages = try await (1...4).asyncMap { page in
            try await postgres.search(SearchQuery(text: "ap", page: try PageRequest(page: page, perPage: 25))).map(\.itemID)
        }
        let whole = try await sqlite.library.search(SearchQuery(text: "ap", page: .first(100))).map(\.itemID)
        XCTAssertEqual(pages.flatMap { $0 }, whole)
    }

    /// The word counts and both orders' pages find their rows through `items_search_document`
    /// (GIN) on a library of a few thousand items with show notes of a hundred-odd words, not by
    /// reading every document.
    func testTheSearchReadsTheGINIndex() async throws {
        let library = try await PostgresLibrary(url: database.url, location: "test", connections: 2)
        var seed: UInt64 = 42
        func word() -> String {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return "word\((seed >> 33) % 5000)"
        }
        for (channel, items) in Self.corpus(3000) {
            let id = try await library.addTestChannel(channel)
            let notes = items.map { item in
                var item = item
                item.description = (item.description ?? "") + " " + (0..<120).map { _ in word() }.joined(separator: " ")
                return item
            }
            _ = try await library.ingest(Feed(kind: .podcast, title: channel, items: notes), channelID: id, now: 5000)
        }
        // What autovacuum does after a large ingest: the statistics, and the GIN index's pending
        // list of new entries merged into it (until then a lookup reads the whole list).
        try await library.read { db throws(LibraryError) in try db.execute("VACUUM ANALYZE") }
        let plans = try await library.read { db throws(LibraryError) in
            func plan(_ sql: String, _ parameters: [any PGBindable]) throws(LibraryError) -> String {
                try db.query("EXPLAIN " + sql, parameters).rows.map { row throws(LibraryError) in try row.get(0) as String }.joined(separator: "\n")
            }
            let terms = TypedTerms(SearchTerms("quince lem"))
            let page = SearchPage(user: .owner, filter: FeedFilter(platform: .podcast, unwatchedOnly: true), page: .first(20), terms: terms)
            let ranked = page.statement(.ranked(SearchRank(hits: [10, 10], typed: terms.counts, items: 3000)))
            let newest = page.statement(.newest)
            return [try plan(TypedTerms.countSQL, ["quince", false, SearchRule.rankedWordLimit + 1]),
                    try plan(ranked.sql, ranked.parameters), try plan(newest.sql, newest.parameters)]
        }
        for plan in plans {
            XCTAssertTrue(plan.contains("Bitmap Index Scan on items_search_document"), plan)
            XCTAssertFalse(plan.contains("Seq Scan on items_search"), plan)
        }
    }
}
