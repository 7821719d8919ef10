import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

private let day = CraftedLibrary.day, now = CraftedLibrary.now

/// `itemPage`, the HTTP API's query: filters, orders, totals and pages on a crafted library.
final class StoreItemPageTests: XCTestCase {
    /// A (podcast) and B (YouTube), stored at 1000 and 2000.
    private func crafted(_ db: TestDatabase) async throws -> CraftedLibrary {
        try await CraftedLibrary(db, [
            ("A", .podcast, [item("a1", published: now - 1 * day, duration: 3600, views: 5), item("a2", duration: 200),
                             item("a3", published: now - 20 * day, duration: 100, views: 50)], 1000),
            ("B", .youtube, [item("b1", published: now - 2 * day, isShort: true),
                             item("b2", published: now - 3 * day, duration: 900, views: 7)], 2000),
        ])
    }

    func testOrdersPutUnknownsLast() async throws {
        try await forEachEngine { db in
            let l = try await crafted(db)
            await assertEqual(try await l.page(ItemPageQuery(order: .newest)).ids, ["a1", "b1", "b2", "a3", "a2"])
            await assertEqual(try await l.page(ItemPageQuery(order: .oldest)).ids, ["a3", "b2", "b1", "a1", "a2"])
            await assertEqual(try await l.page(ItemPageQuery(order: .mostViewed)).ids, ["a3", "b2", "a1", "b1", "a2"])
            await assertEqual(try await l.page(ItemPageQuery(order: .shortest)).ids, ["a3", "a2", "b2", "a1", "b1"])
            await assertEqual(try await l.page(ItemPageQuery(order: .longest)).ids, ["a1", "b2", "a2", "a3", "b1"])
            await assertEqual(Set(try await l.page(ItemPageQuery(order: .random)).ids), ["a1", "a2", "a3", "b1", "b2"])
        }
    }

    func testFiltersCountTheirTotal() async throws {
        try await forEachEngine { db in
            let l = try await crafted(db)
            await assertEqual(try await l.page(ItemPageQuery(channelIDs: [l["A"], l["B"]], page: .first(2))), Page(["a1", "b1"], 5))
            await assertEqual(try await l.page(ItemPageQuery(channelIDs: [l["B"]])), Page(["b1", "b2"], 2))
            await assertEqual(try await l.page(ItemPageQuery(platform: .podcast, page: try PageRequest(page: 3, perPage: 1))), Page(["a2"], 3))
            await assertEqual(try await l.page(ItemPageQuery(publishedSince: now - 2 * day)), Page(["a1", "b1"], 2))
            await assertEqual(try await l.page(ItemPageQuery(minDuration: 200, maxDuration: 900)), Page(["b2", "a2"], 2))
            await assertEqual(try await l.page(ItemPageQuery(shortOnly: true)), Page(["b1", "a3"], 2))
            try await l.library.setWatched([try await l.id("a1")], now: 5)
            try await l.library.setProgress(try await l.id("b2"), seconds: 9, now: 6)
            await assertEqual(try await l.page(ItemPageQuery(watch: .watched)), Page(["a1"], 1))
            await assertEqual(try await l.page(ItemPageQuery(watch: .unwatched)), Page(["b1", "b2", "a3", "a2"], 4))
            let record = try await unwrap(try await l.library.itemRecords(ids: [try await l.id("a1")]).first)
            XCTAssertEqual(record.watchedAt, 5)
            XCTAssertEqual(record.views, 5)
            XCTAssertEqual(record.discoveredAt, 1000)
        }
    }

    func testPagesPastTheEndAndAbsurdPagesAreEmpty() async throws {
        try await forEachEngine { db in
            let l = try await crafted(db)
            await assertEqual(try await l.page(ItemPageQuery(page: try PageRequest(page: 4, perPage: 2))), Page([], 5))
            await assertEqual(try await l.page(ItemPageQuery(page: try PageRequest(page: Int.max, perPage: 100))), Page([], 5))
            await assertEqual(try await l.page(ItemPageQuery(page: try PageRequest(page: Int.max / 2, perPage: 3))), Page([], 5))
            await assertTrue(try await l.library.itemRecords(ids: [999_999]).isEmpty)
        }
    }
}

private struct Page: Equatable {
    var ids: [String]
    var total: Int
    init(ids: [String], total: Int) { self.ids = ids; self.total = total }
    init(_ ids: [String], _ total: Int) { self.init(ids: ids, total: total) }
}

extension CraftedLibrary {
    /// `query`'s page as the items' feed ids and the total.
    fileprivate func page(_ query: ItemPageQuery) async throws -> Page {
        let page = try await library.itemPage(query)
        return Page(ids: page.items.map(\.item.itemID), total: page.total)
    }
}
