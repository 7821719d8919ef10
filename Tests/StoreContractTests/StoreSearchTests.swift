import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// `search` (`SearchRule`): titles, show notes and channel names, ranked, prefix matching, accents
/// folded, `feed`'s filters, kept in step with every write; user text is never query syntax.
final class StoreSearchTests: XCTestCase {
    /// A cooking podcast of three items and a video channel of one.
    private struct Kitchen {
        let library: any UserLibrary
        let cooking: Int64, tube: Int64

        init(_ db: TestDatabase) async throws {
            library = db.owner
            cooking = try await library.addTestChannel("Café Cuisine")
            tube = try await library.addTestChannel("Garage", platform: .youtube)
            _ = try await library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
                Item(id: "bread", title: "Sourdough bread at home", published: 300, description: "Flour, water, salt and patience."),
                Item(id: "notes", title: "Listener questions", published: 200, description: "We talk about sourdough starters and nutrition."),
                Item(id: "creme", title: "Crème brûlée", published: 100, description: "Dessert."),
            ]), channelID: cooking, now: 1000)
            _ = try await library.ingest(Feed(kind: .youtube, title: "Garage", items: [
                Item(id: "engine", title: "Engine rebuild, part 1", published: 400, description: "Bread-and-butter work on a café racer."),
            ]), channelID: tube, now: 1000)
        }

        func ids(_ text: String, _ filter: FeedFilter = FeedFilter(), limit: Int = 20, page: Int = 1) async throws -> [String] {
            try await library.search(SearchQuery(text: text, filter: filter, page: try PageRequest(page: page, perPage: limit))).map(\.itemID)
        }
    }

    func testTitlesRankAboveNotesAndWordsMatchAsPrefixes() async throws {
        try await forEachEngine { db in
            let k = try await Kitchen(db)
            await assertEqual(try await k.ids("sourdough"), ["bread", "notes"], "a title match first")
            await assertEqual(try await k.ids("sour"), ["bread", "notes"], "prefix")
            await assertEqual(try await k.ids("nutri"), ["notes"])
            await assertEqual(try await k.ids("sourdough patience"), ["bread"], "every word must match")
            await assertEqual(try await k.ids("bread"), ["bread", "engine"])
            await assertTrue(try await k.ids("zzz").isEmpty)
            await assertEqual(try await k.ids("sourdough nutri"), ["notes"], "the last word is a prefix")
            await assertTrue(try await k.ids("sour nutrition").isEmpty, "earlier words match whole")
        }
    }

    func testAWordInMostItemsListsNewestFirst() async throws {
        try await forEachEngine { db in
            let k = try await Kitchen(db)
            let many = try await k.library.addTestChannel("Many")
            let count = SearchRule.rankedWordLimit + 1
            _ = try await k.library.ingest(Feed(kind: .podcast, title: "Many", items: (0..<count).map {
                Item(id: "m\($0)", title: "Common \($0)", description: $0 == 7 ? "common common common" : nil)
            }), channelID: many, now: 5000)
            // Ranked, m7 (the word four times) would come first; too common to rank, the newest is first.
            await assertEqual(try await k.ids("common", limit: 3), ["m\(count - 1)", "m\(count - 2)", "m\(count - 3)"])
            await assertEqual(try await k.ids("common 4999"), ["m4999"], "every word must still match")
            await assertEqual(try await k.ids("sourdough"), ["bread", "notes"], "rare words are still ranked")
        }
    }

    func testAccentsAreFoldedBothWays() async throws {
        try await forEachEngine { db in
            let k = try await Kitchen(db)
            await assertEqual(try await k.ids("creme brulee"), ["creme"])
            await assertEqual(try await k.ids("CRÈME"), ["creme"])
            await assertEqual(try await k.ids("cre\u{0300}me"), ["creme"], "a combining accent typed separately")
            // "cafe" is in one channel's name (all three of its items) and in the engine's notes.
            await assertEqual(Set(try await k.ids("cafe")), ["bread", "notes", "creme", "engine"])
            await assertEqual(try await k.ids("cafe").last, "engine", "the channel name weighs more than notes")
        }
    }

    func testFeedsFiltersApply() async throws {
        try await forEachEngine { db in
            let k = try await Kitchen(db)
            await assertEqual(try await k.ids("bread", FeedFilter(platform: .youtube)), ["engine"])
            await assertEqual(try await k.ids("bread", FeedFilter(channelID: k.cooking)), ["bread"])
            try await k.library.setWatched([try await k.library.id(of: "bread")], now: 2000)
            await assertEqual(try await k.ids("sourdough", FeedFilter(unwatchedOnly: true)), ["notes"])
            await assertEqual(try await k.ids("sourdough", limit: 1, page: 2), ["notes"])
            await assertTrue(try await k.ids("sourdough", limit: 1, page: 3).isEmpty)
        }
    }

    func testUserTextIsNeverQuerySyntax() async throws {
        try await forEachEngine { db in
            let k = try await Kitchen(db)
            for text in ["\"sourdough", "sourdough AND", "AND", "OR sourdough", "NOT", "sour*", "-sourdough",
                         "(sourdough", "sourdough)", "NEAR(sourdough", "^sourdough", "title:sourdough", "sour\"dough", "a'b",
                         "sourdough -- ; DROP TABLE items", "{title notes}: x", "sourdough NEAR/2 bread", "AND OR NOT"] {
                do { _ = try await k.ids(text) } catch { XCTFail("\(text): threw \(error)") }
            }
            // Text without a word is one clear line, not the engine's error.
            for text in ["\"", "*", "+", "()", " - "] {
                await assertThrows(LibraryError.invalid("nothing to search for in \"\(text)\": give a word")) { try await k.ids(text) }
            }
            await assertEqual(try await k.ids("\"sourdough"), ["bread", "notes"])
            await assertEqual(try await k.ids("-sourdough"), ["bread", "notes"], "'-' is not NOT")
            await assertEqual(try await k.ids("title:sourdough"), [], "'title' is a word here, not a column filter")
            await assertEqual(try await k.ids("(sourdough)"), ["bread", "notes"])
            await assertEqual(try await k.ids("sourdough OR zzz"), [], "OR is a word that must match too, not an operator")
            await assertThrows(LibraryError.invalid("nothing to search for in \"*-()\": give a word")) { try await k.ids("*-()") }
            await assertThrows(LibraryError.self) { try await k.ids("") }
        }
    }

    /// Each engine's own query syntax (FTS5's, PostgreSQL's tsquery), escapes, unicode and very
    /// long text: results or the one-line `invalid`, never the engine's error.
    func testHostileTextFindsOrIsInvalidNeverAnEngineError() async throws {
        try await forEachEngine { db in
            let k = try await Kitchen(db)
            let longWord = String(repeating: "sourdough", count: 1200)  // ~10 KB, past PostgreSQL's 2047-byte word
            let hostile = [
                "sour:*", "bread & !home", "bread | zzz", "bread <-> home", "bread <2> home", "'bread'", "''", "\\", "bread\\",
                "\\'", "bread:A", "bread:*A", "!(bread)", "(((bread", "bread)))", "$1", "%_", "\u{0}bread", "bread\u{0}", "🎧 bread 🎧",
                "パン", "خبز", "\u{0301}", "bread \u{0301}", "e\u{0301}\u{0301}\u{0301}", "x½", "ﬁ", "ß", "\u{202E}bread",
                longWord, String(repeating: "bread ", count: 1700), String(repeating: "&|!():*<-> ", count: 950),
                (0..<1500).map { "w\($0)" }.joined(separator: " "), String(repeating: "'\\\" bread ", count: 1000),
            ]
            for text in hostile {
                do {
                    _ = try await k.ids(text)
                } catch let error as LibraryError {
                    XCTAssertEqual(error, .invalid("nothing to search for in \"\(text)\": give a word"), String(text.prefix(40)))
                } catch {
                    XCTFail("\(text.prefix(40)): threw \(error)")
                }
            }
            await assertEqual(try await k.ids("sour:*"), ["bread", "notes"], "':' and '*' are separators")
            await assertEqual(try await k.ids("bread & !home"), ["bread"], "'&' and '!' are not AND and NOT")
            await assertEqual(try await k.ids("bread | zzz"), [], "'|' is not OR")
            await assertEqual(try await k.ids("bread <-> home"), ["bread"], "'<->' is not FOLLOWED BY")
            await assertEqual(try await k.ids("'bread'"), ["bread", "engine"])
            await assertEqual(try await k.ids("bread\\"), ["bread", "engine"], "a backslash escapes nothing")
            await assertEqual(try await k.ids("bread:A"), ["bread", "engine"], "':A' is no weight filter: 'A' is a word, a prefix")
            await assertEqual(try await k.ids("\u{0}bread"), ["bread", "engine"], "a NUL separates")
            await assertEqual(try await k.ids("🎧 bread 🎧"), ["bread", "engine"], "emoji separate")
            await assertEqual(try await k.ids(String(repeating: "bread ", count: 1700)), ["bread", "engine"], "a word typed again and again")
            await assertEqual(try await k.ids(longWord), [])
            for text in ["''", "\\\\", "$%", "&|!():*<->", String(repeating: "&|!():*<-> ", count: 950)] {
                await assertThrows(LibraryError.invalid("nothing to search for in \"\(text)\": give a word")) { try await k.ids(text) }
            }
        }
    }

    /// Best match first as bm25 weighs (`SearchRule`): a rarer word counts more, a match in a
    /// shorter item more than in a longer one, a word found more often more; equal matches
    /// older first.
    func testBestMatchFirstAsBM25Weighs() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let station = try await library.addTestChannel("Station")
            // In id order. "news" is in eight items, "zebra" in two: each of those two has one
            // word in its title and the other in its notes, and both are five words long.
            let filler = (0..<6).map { Item(id: "f\($0)", title: "Filler \($0)", description: "Daily news.") }
            _ = try await library.ingest(Feed(kind: .podcast, title: "Station", items: filler + [
                Item(id: "newsTitle", title: "News roundup", description: "About zebra."),
                Item(id: "zebraTitle", title: "Zebra sighting", description: "More news."),
                Item(id: "jazzLong", title: "Jazz", description: "One two three four five six seven eight nine ten."),
                Item(id: "jazzShort", title: "Jazz", description: "Short."),
                Item(id: "violinOnce", title: "Recital", description: "Violin and cello."),
                Item(id: "violinThrice", title: "Concert", description: "Violin violin violin."),
                Item(id: "harpOld", title: "Harp hour", description: "Strings."),
                Item(id: "harpNew", title: "Harp hour", description: "Strings."),
            ]), channelID: station, now: 5000)
            func ids(_ text: String) async throws -> [String] {
                try await library.search(SearchQuery(text: text)).map(\.itemID)
            }
            await assertEqual(try await ids("news zebra"), ["zebraTitle", "newsTitle"], "the rarer word's title match first")
            await assertEqual(try await ids("zebra news"), ["zebraTitle", "newsTitle"], "whatever the order typed")
            await assertEqual(try await ids("jazz"), ["jazzShort", "jazzLong"], "the shorter item first")
            await assertEqual(try await ids("violin"), ["violinThrice", "violinOnce"], "the word found more often first")
            await assertEqual(try await ids("harp"), ["harpOld", "harpNew"], "equal matches: the older first")
        }
    }

    func testTheSearchFollowsEveryWrite() async throws {
        try await forEachEngine { db in
            let k = try await Kitchen(db)
            // A re-ingest that changes a title and notes.
            _ = try await k.library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
                Item(id: "bread", title: "Rye bread at home", published: 300, description: "Flour, water, salt and patience."),
            ]), channelID: k.cooking, now: 2000)
            await assertEqual(try await k.ids("sourdough"), ["notes"])
            await assertEqual(try await k.ids("rye"), ["bread"])
            // The channel renamed by its feed.
            _ = try await k.library.ingest(Feed(kind: .podcast, title: "Kitchen Table", items: []), channelID: k.cooking, now: 3000)
            await assertEqual(try await k.ids("kitchen table").count, 3)
            await assertTrue(try await k.ids("cuisine").isEmpty)
            // The channel removed.
            try await k.library.removeChannel(id: k.cooking)
            await assertTrue(try await k.ids("sourdough").isEmpty)
            await assertEqual(try await k.ids("bread"), ["engine"])
        }
    }

    /// Items stored after a search, then changed, are found by their new words the next time.
    func testItemsStoredAfterASearchAreFoundByTheNext() async throws {
        try await forEachEngine { db in
            let k = try await Kitchen(db)
            _ = try await k.ids("sourdough")
            _ = try await k.library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
                Item(id: "late", title: "Late sourdough", published: 500),
            ]), channelID: k.cooking, now: 3000)
            _ = try await k.library.ingest(Feed(kind: .podcast, title: "Café Cuisine", items: [
                Item(id: "late", title: "Later sourdough", published: 500),
            ]), channelID: k.cooking, now: 3001)
            await assertEqual(Set(try await k.ids("sourdough")), ["bread", "late", "notes"])
            await assertEqual(try await k.ids("later"), ["late"])
        }
    }
}
