import FeedModel
import Foundation
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

private let day: Int64 = 86_400
private let now: Int64 = 100 * day

/// `itemPage`, the HTTP API's query: filters, orders, totals and pages on a crafted library.
@Suite struct StoreItemPageTests {
    let t: TestLibrary
    let a: Int64, b: Int64

    init() async throws {
        t = try TestLibrary()
        let lib = t.library
        a = try await lib.addTestChannel("A", platform: .podcast)
        b = try await lib.addTestChannel("B", platform: .youtube)
        _ = try await lib.ingest(items: [item("a1", published: now - 1 * day, duration: 3600, views: 5), item("a2", duration: 200),
                                   item("a3", published: now - 20 * day, duration: 100, views: 50)], channelID: a, now: 1000)
        _ = try await lib.ingest(items: [item("b1", published: now - 2 * day, isShort: true), item("b2", published: now - 3 * day, duration: 900, views: 7)],
                                 channelID: b, now: 2000)
    }

    private func page(_ query: ItemPageQuery) async throws -> (ids: [String], total: Int) {
        let page = try await t.library.itemPage(query)
        return (page.items.map(\.item.itemID), page.total)
    }

    @Test func ordersPutUnknownsLast() async throws {
        #expect(try await page(ItemPageQuery(order: .newest)).ids == ["a1", "b1", "b2", "a3", "a2"])
        #expect(try await page(ItemPageQuery(order: .oldest)).ids == ["a3", "b2", "b1", "a1", "a2"])
        #expect(try await page(ItemPageQuery(order: .mostViewed)).ids == ["a3", "b2", "a1", "b1", "a2"])
        #expect(try await page(ItemPageQuery(order: .shortest)).ids == ["a3", "a2", "b2", "a1", "b1"])
        #expect(try await page(ItemPageQuery(order: .longest)).ids == ["a1", "b2", "a2", "a3", "b1"])
        #expect(Set(try await page(ItemPageQuery(order: .random)).ids) == ["a1", "a2", "a3", "b1", "b2"])
    }

    @Test func filtersCountTheirTotal() async throws {
        #expect(try await page(ItemPageQuery(channelIDs: [a, b], page: .first(2))) == (["a1", "b1"], 5))
        #expect(try await page(ItemPageQuery(channelIDs: [b])) == (["b1", "b2"], 2))
        #expect(try await page(ItemPageQuery(platform: .podcast, page: try PageRequest(page: 3, perPage: 1))) == (["a2"], 3))
        #expect(try await page(ItemPageQuery(publishedSince: now - 2 * day)) == (["a1", "b1"], 2))
        #expect(try await page(ItemPageQuery(minDuration: 200, maxDuration: 900)) == (["b2", "a2"], 2))
        #expect(try await page(ItemPageQuery(shortOnly: true)) == (["b1", "a3"], 2))
        try await t.library.setWatched([try await t.library.id(of: "a1")], now: 5)
        try await t.library.setProgress(try await t.library.id(of: "b2"), seconds: 9, now: 6)
        #expect(try await page(ItemPageQuery(watch: .watched)) == (["a1"], 1))
        #expect(try await page(ItemPageQuery(watch: .unwatched)) == (["b1", "b2", "a3", "a2"], 4))
        let record = try #require(try await t.library.itemRecords(ids: [try await t.library.id(of: "a1")]).first)
        #expect(record.watchedAt == 5)
        #expect(record.views == 5)
        #expect(record.discoveredAt == 1000)
    }

    @Test func pagesPastTheEndAndAbsurdPagesAreEmpty() async throws {
        #expect(try await page(ItemPageQuery(page: try PageRequest(page: 4, perPage: 2))) == ([], 5))
        #expect(try await page(ItemPageQuery(page: try PageRequest(page: Int.max, perPage: 100))) == ([], 5))
        #expect(try await page(ItemPageQuery(page: try PageRequest(page: Int.max / 2, perPage: 3))) == ([], 5))
        #expect(try await t.library.itemRecords(ids: [999_999]).isEmpty)
    }
}
