import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

private let day = CraftedLibrary.day, now = CraftedLibrary.now

/// Newest and short-form on a crafted library with known dates, durations and discovery times.
final class ModesNewestTests: XCTestCase {
    /// A (podcast), B (YouTube) and C (Rumble), stored at 1000, 2000 and 3000.
    private func crafted(_ db: TestDatabase) async throws -> CraftedLibrary {
        try await CraftedLibrary(db, [
            ("A", .podcast, [item("a1", published: now - 1 * day, duration: 3600), item("a2", duration: 200),
                             item("a3", published: now - 20 * day, duration: 100)], 1000),
            ("B", .youtube, [item("b1", published: now - 2 * day, isShort: true), item("b2"),
                             item("b3", published: now - 1 * day, duration: 180)], 2000),
            ("C", .rumble, [item("c1", published: now - 5 * day, duration: 181), item("c2", published: now - 10 * day)], 3000),
        ])
    }

    func testNewestPutsUnknownDatesLastThenByDiscovery() async throws {
        try await forEachEngine { db in
            let l = try await crafted(db)
            // b3 and a1 share a date: the later-discovered b3 comes first.
            await assertEqual(try await l.ids(), ["b3", "a1", "b1", "c1", "c2", "a3", "b2", "a2"])
        }
    }

    func testPaging() async throws {
        try await forEachEngine { db in
            let l = try await crafted(db)
            await assertEqual(try await l.ids(limit: 3, page: 1), ["b3", "a1", "b1"])
            await assertEqual(try await l.ids(limit: 3, page: 2), ["c1", "c2", "a3"])
            await assertEqual(try await l.ids(limit: 3, page: 3), ["b2", "a2"])
            await assertEqual(try await l.ids(limit: 3, page: 4), [])
            await assertEqual(try await l.ids(limit: 3, page: Int.max), [], "a page past any end is empty, not a trap")
        }
    }

    func testFilters() async throws {
        try await forEachEngine { db in
            let l = try await crafted(db)
            await assertEqual(try await l.ids(FeedFilter(platform: .youtube)), ["b3", "b1", "b2"])
            await assertEqual(try await l.ids(FeedFilter(channelID: l["A"])), ["a1", "a3", "a2"])
            await assertEqual(try await l.ids(FeedFilter(platform: .youtube, channelID: l["A"])), [])
            try await l.library.setWatched([try await l.id("a1"), try await l.id("c2")], now: 5)
            try await l.library.setProgress(try await l.id("b3"), seconds: 9, now: 6)
            await assertEqual(try await l.ids(FeedFilter(unwatchedOnly: true)), ["b3", "b1", "c1", "a3", "b2", "a2"])
        }
    }

    func testShortForm() async throws {
        try await forEachEngine { db in
            let l = try await crafted(db)
            // 180 s counts as short, 181 s does not; b1 has no duration but is flagged short.
            await assertEqual(try await l.ids(mode: .shortForm), ["b3", "b1", "a3"])
            await assertEqual(try await l.ids(FeedFilter(platform: .podcast), mode: .shortForm), ["a3"])
            try await l.library.setWatched([try await l.id("b3")], now: 5)
            await assertEqual(try await l.ids(FeedFilter(unwatchedOnly: true), mode: .shortForm), ["b1", "a3"])
        }
    }

    func testItemsCarryChannelAndWatchState() async throws {
        try await forEachEngine { db in
            let l = try await crafted(db)
            let b3 = try await l.id("b3")
            try await l.library.setProgress(b3, seconds: 42, now: 7)
            let first = try await unwrap(try await l.library.feed(page: .first(1), now: now).first)
            XCTAssertEqual(first.id, b3)
            XCTAssertEqual(first.channel, "B")
            XCTAssertEqual(first.platform, .youtube)
            XCTAssertEqual(first.channelID, l["B"])
            XCTAssertEqual(first.progress, 42)
            XCTAssertFalse(first.watched)
            XCTAssertEqual(first.duration, 180)
            XCTAssertEqual(first.published, now - day)
            XCTAssertEqual(first.url, "https://example.com/b3")
            XCTAssertEqual(first.title, "Title b3")
            XCTAssertNil(first.enclosureURL)
        }
    }
}

/// Catch-up: resume list, then the window's unwatched items round-robin across channels.
final class ModesCatchUpTests: XCTestCase {
    /// P (prolific; p0 outside the 14-day window), Q (YouTube) and R; q2 and p3 in progress
    /// (p3 played last), p2 watched.
    private func backlog(_ db: TestDatabase) async throws -> CraftedLibrary {
        let l = try await CraftedLibrary(db, mode: .catchUp, [
            ("P", .podcast, [item("p0", published: now - 15 * day), item("p1", published: now - 13 * day),
                             item("p2", published: now - 12 * day), item("p3", published: now - 11 * day),
                             item("p4", published: now - 10 * day), item("p5", published: now - 9 * day)], 1),
            ("Q", .youtube, [item("q1", published: now - 8 * day), item("q2", published: now - 2 * day)], 1),
            ("R", .podcast, [item("r1", published: now - 12 * day - day / 2), item("r2")], 1),
        ])
        try await l.library.setProgress(try await l.id("q2"), seconds: 100, now: 5000)
        try await l.library.setProgress(try await l.id("p3"), seconds: 20, now: 6000)
        try await l.library.setWatched([try await l.id("p2")], now: 7000)
        return l
    }

    func testResumeThenRoundRobinOldestFirst() async throws {
        try await forEachEngine { db in
            let l = try await backlog(db)
            // Resume: p3 (played at 6000) before q2 (5000). Round 1: each channel's oldest unwatched
            // item in the window, oldest first (p1, r1, q1); round 2: p4; round 3: p5.
            await assertEqual(try await l.ids(), ["p3", "q2", "p1", "r1", "q1", "p4", "p5"])
        }
    }

    func testPagingAcrossBothParts() async throws {
        try await forEachEngine { db in
            let l = try await backlog(db)
            await assertEqual(try await l.ids(limit: 3, page: 1), ["p3", "q2", "p1"])
            await assertEqual(try await l.ids(limit: 3, page: 2), ["r1", "q1", "p4"])
            await assertEqual(try await l.ids(limit: 3, page: 3), ["p5"])
            // Absurd values from a command line give an empty page or everything, never a trap.
            await assertEqual(try await l.ids(limit: Int.max, page: 2), [])
            await assertEqual(try await l.ids(limit: 2, page: Int.max), [])
            await assertEqual(try await l.ids(days: Int.max), ["p3", "q2", "p0", "r1", "q1", "p1", "p4", "p5"])
        }
    }

    func testWindow() async throws {
        try await forEachEngine { db in
            let l = try await backlog(db)
            // 10 days: p4 sits exactly on the window's start and is included.
            await assertEqual(try await l.ids(days: 10), ["p3", "q2", "p4", "q1", "p5"])
            await assertEqual(try await l.ids(days: 1), ["p3", "q2"])
        }
    }

    func testFilters() async throws {
        try await forEachEngine { db in
            let l = try await backlog(db)
            await assertEqual(try await l.ids(FeedFilter(channelID: l["P"])), ["p3", "p1", "p4", "p5"])
            await assertEqual(try await l.ids(FeedFilter(platform: .youtube)), ["q2", "q1"])
        }
    }

    func testFinishingAnItemMovesItOut() async throws {
        try await forEachEngine { db in
            let l = try await backlog(db)
            try await l.library.setWatched([try await l.id("p3")], now: 8000)
            try await l.library.setWatched([try await l.id("p1")], watched: false, now: 8000)
            await assertEqual(try await l.ids(), ["q2", "p1", "r1", "q1", "p4", "p5"])
        }
    }

    /// A channel whose only item comes late in the window still belongs to round one, ahead of
    /// every channel's second item, on whichever page.
    func testLateChannelStillJoinsRoundOne() async throws {
        try await forEachEngine { db in
            let lib = db.owner
            let c1 = try await lib.addTestChannel("C1"), c2 = try await lib.addTestChannel("C2"), c3 = try await lib.addTestChannel("C3")
            try await lib.ingest(items: [item("c1a", published: now - 10 * day), item("c1b", published: now - 9 * day)], channelID: c1, now: 1)
            try await lib.ingest(items: [item("c2a", published: now - 8 * day), item("c2b", published: now - 7 * day)], channelID: c2, now: 1)
            try await lib.ingest(items: [item("c3a", published: now - 1 * day)], channelID: c3, now: 1)
            let page = { (n: Int) in try await lib.feed(mode: .catchUp, page: try PageRequest(page: n, perPage: 2), now: now).map(\.itemID) }
            await assertEqual(try await page(1), ["c1a", "c2a"])
            await assertEqual(try await page(2), ["c3a", "c1b"])
            await assertEqual(try await page(3), ["c2b"])
            await assertEqual(try await lib.feed(mode: .catchUp, now: now).map(\.itemID), ["c1a", "c2a", "c3a", "c1b", "c2b"])
        }
    }
}
