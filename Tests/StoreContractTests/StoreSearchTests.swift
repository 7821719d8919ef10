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
