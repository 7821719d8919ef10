import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// `search` with a word in (nearly) every item, past `SearchRule.rankedWordLimit`: newest first,
/// and the items found must be exactly those holding every word, under every filter, on every
/// page, whatever plan a store chooses for it.
final class StoreSearchCommonWordTests: XCTestCase {
    private func ids(_ library: any UserLibrary, _ text: String, _ filter: FeedFilter = FeedFilter(), limit: Int = 20,
                     page: Int = 1) async throws -> [String] {
        try await library.search(SearchQuery(text: text, filter: filter, page: try PageRequest(page: page, perPage: limit))).map(\.itemID)
    }

    /// A word in every item puts the search on the newest-first path, where the last word is a
    /// prefix.
    func testAWordInEveryItemWithAPrefixAndFiltersFindsExactlyTheMatches() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let alpha = try await library.addTestChannel("Alpha Show")
            let beta = try await library.addTestChannel("Beta Tube", platform: .youtube)
            let half = SearchRule.rankedWordLimit / 2 + 1  // "everyday" in more items than the limit
            func notes(_ n: Int) -> String { n % 3 == 0 ? "A chance." : n % 5 == 0 ? "Two channels." : "Nothing." }
            let numbers = [Array(0..<half), Array(half..<2 * half)]
            for (channel, kind, range) in [(alpha, Feed.Kind.podcast, numbers[0]), (beta, .youtube, numbers[1])] {
                _ = try await library.ingest(Feed(kind: kind, title: channel == alpha ? "Alpha Show" : "Beta Tube", items: range.map {
                    Item(id: "e\($0)", title: "Everyday episode \($0)", description: notes($0))
                }), channelID: channel, now: 5000)
            }
            try await library.setWatched(try await [library.id(of: "e\(2 * half - 3)"), library.id(of: "e\(half + 10)")], now: 6000)
            let watched: Set = [2 * half - 3, half + 10]
            // Ids grow with discovery: alpha's items, then beta's; newest first is the reverse.
            let newestFirst = Array((0..<2 * half).reversed())
            func expected(_ keep: (Int) -> Bool, limit: Int = 20, page: Int = 1) -> [String] {
                Array(newestFirst.filter(keep).dropFirst(limit * (page - 1)).prefix(limit)).map { "e\($0)" }
            }
            let chan = { (n: Int) in n % 3 == 0 || n % 5 == 0 }  // "chance", "channels"
            let one = { (n: Int) in String(n).hasPrefix("1") }
            let inBeta = { (n: Int) in n >= half }
            await assertEqual(try await ids(library, "everyday chan"), expected(chan))
            await assertEqual(try await ids(library, "EVERYDAY Chan", limit: 7, page: 2), expected(chan, limit: 7, page: 2))
            await assertEqual(try await ids(library, "everyday chan", FeedFilter(channelID: beta), limit: 9, page: 3),
                              expected({ chan($0) && inBeta($0) }, limit: 9, page: 3))
            await assertEqual(try await ids(library, "everyday chan", FeedFilter(channelID: alpha), limit: 9, page: 2),
                              expected({ chan($0) && !inBeta($0) }, limit: 9, page: 2))
            await assertEqual(try await ids(library, "everyday chan", FeedFilter(platform: .youtube, unwatchedOnly: true)),
                              expected({ chan($0) && inBeta($0) && !watched.contains($0) }))
            await assertEqual(try await ids(library, "everyday 1", limit: 30), expected(one, limit: 30), "a one-character prefix")
            await assertEqual(try await ids(library, "everyday 1", FeedFilter(channelID: alpha), limit: 30, page: 2),
                              expected({ one($0) && !inBeta($0) }, limit: 30, page: 2))
            await assertEqual(try await ids(library, "episode 1", FeedFilter(unwatchedOnly: true), limit: 50, page: 4),
                              expected({ one($0) && !watched.contains($0) }, limit: 50, page: 4))
            await assertEqual(try await ids(library, "everyday 4999"), ["e4999"], "every word must still match")
            await assertEqual(try await ids(library, "everyday 49"), expected { String($0).hasPrefix("49") }, "a two-character prefix")
            await assertTrue(try await ids(library, "everyday zzzz").isEmpty)
            await assertEqual(try await ids(library, "everyday chance"), expected { $0 % 3 == 0 }, "an earlier word matches whole")
            await assertEqual(try await ids(library, "chance everyday"), expected { $0 % 3 == 0 })
        }
    }

    /// A word in nearly every item beside rarer words whose items seldom meet (the SQLite store
    /// splits such a search into a driver and a check: `SearchPlan.Split`), also where the common
    /// word is missing from most items the rarer words find, and where one word drives.
    func testAWordInNearlyEveryItemBesideRarerWordsFindsExactlyTheMatches() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let archive = try await library.addTestChannel("Archive")
            let daily = try await library.addTestChannel("Daily Tube", platform: .youtube)
            // The archive first (lower ids): "rare", "blue" and "vintage" in each item, "everyday" in every tenth.
            let old = 300
            _ = try await library.ingest(Feed(kind: .podcast, title: "Archive", items: (0..<old).map {
                Item(id: "a\($0)", title: "Vintage show \($0)" + ($0 % 10 == 0 ? " everyday" : ""), description: "A rare blue note.")
            }), channelID: archive, now: 5000)
            // Then more items than the rank limit, each with "everyday"; "rare" in every 20th, "blue"
            // in every 23rd: both in every 460th.
            let new = SearchRule.rankedWordLimit + 100
            _ = try await library.ingest(Feed(kind: .youtube, title: "Daily Tube", items: (0..<new).map {
                Item(id: "d\($0)", title: "Everyday episode \($0)",
                     description: [$0 % 20 == 0 ? "rare" : "", $0 % 23 == 0 ? "blue" : ""].joined(separator: " "))
            }), channelID: daily, now: 5000)
            let watched = ["d\(4600)", "d\(920)", "a280"]
            try await library.setWatched(try await watched.asyncMap { try await library.id(of: $0) }, now: 6000)
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
            // 12 daily items, then 30 of the archive's 300, which "rare blue" all find.
            for (limit, page) in [(20, 1), (20, 2), (20, 3), (7, 1), (7, 2), (7, 4), (3, 5), (50, 1)] {
                await assertEqual(try await ids(library, "everyday rare blue", limit: limit, page: page), expected(all, limit: limit, page: page))
                await assertEqual(try await ids(library, "blue everyday rare", limit: limit, page: page), expected(all, limit: limit, page: page))
            }
            await assertEqual(try await ids(library, "everyday rare blue", FeedFilter(channelID: archive)), expected { inArchive($0) && all($0) })
            await assertEqual(try await ids(library, "everyday rare blue", FeedFilter(channelID: archive), limit: 4, page: 3),
                              expected({ inArchive($0) && all($0) }, limit: 4, page: 3))
            await assertEqual(try await ids(library, "everyday rare blue", FeedFilter(platform: .youtube)),
                              expected { !inArchive($0) && all($0) })
            await assertEqual(try await ids(library, "everyday rare blue", FeedFilter(unwatchedOnly: true), limit: 30),
                              expected({ all($0) && !watched.contains($0) }, limit: 30))
            await assertEqual(try await ids(library, "everyday rare blue", FeedFilter(channelID: daily), limit: 5, page: 3),
                              expected({ !inArchive($0) && all($0) }, limit: 5, page: 3))
            await assertTrue(try await ids(library, "everyday rare blue", FeedFilter(channelID: daily), limit: 5, page: 4).isEmpty)
            // One driver word.
            await assertEqual(try await ids(library, "everyday rare", limit: 20, page: 4), expected({ everyday($0) && rare($0) }, page: 4))
            await assertEqual(try await ids(library, "vintage everyday show"), expected { inArchive($0) && everyday($0) })
            await assertEqual(try await ids(library, "everyday 4242"), ["d4242"], "every word must still match")
            await assertTrue(try await ids(library, "everyday zzzz").isEmpty)
            await assertTrue(try await ids(library, "everyday rare zzzz").isEmpty)
            let startsWith = { (prefix: String) in { (id: String) in everyday(id) && String(number(id)).hasPrefix(prefix) } }
            await assertEqual(try await ids(library, "everyday 42", limit: 30), expected(startsWith("42"), limit: 30), "a two-character prefix")
            await assertEqual(try await ids(library, "everyday 7", limit: 30, page: 3), expected(startsWith("7"), limit: 30, page: 3),
                              "a one-character prefix")
            await assertEqual(try await ids(library, "everyday rare 4", limit: 10), expected({ startsWith("4")($0) && rare($0) }, limit: 10))
        }
    }
}
