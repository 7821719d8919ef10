import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

private let day: Int64 = 86_400
private let now: Int64 = 100 * day

/// Newest and short-form on a crafted library with known dates, durations and discovery times.
final class ModesNewestTests: XCTestCase {
    private struct Crafted {
        let library: any UserLibrary
        let a: Int64, b: Int64, c: Int64

        init(_ db: TestDatabase) async throws {
            let lib = db.owner
            library = lib
            a = try await lib.addTestChannel("A", platform: .podcast)
            b = try await lib.addTestChannel("B", platform: .youtube)
            c = try await lib.addTestChannel("C", platform: .rumble)
            try await lib.ingest(items: [item("a1", published: now - 1 * day, duration: 3600), item("a2", duration: 200),
                                         item("a3", published: now - 20 * day, duration: 100)], channelID: a, now: 1000)
            try await lib.ingest(items: [item("b1", published: now - 2 * day, isShort: true), item("b2"),
                                         item("b3", published: now - 1 * day, duration: 180)], channelID: b, now: 2000)
            try await lib.ingest(items: [item("c1", published: now - 5 * day, duration: 181),
                                         item("c2", published: now - 10 * day)], channelID: c, now: 3000)
        }

        func ids(_ mode: FeedMode = .newest, _ filter: FeedFilter = FeedFilter(), limit: Int = 50, page: Int = 1) async throws -> [String] {
            try await library.feed(mode: mode, filter: filter, page: try PageRequest(page: page, perPage: limit), now: now).map(\.itemID)
        }
    }

    func testNewestPutsUnknownDatesLastThenByDiscovery() async throws {
        try await forEachEngine { db in
            let l = try await Crafted(db)
            // b3 and a1 share a date: the later-discovered b3 comes first.
            await assertEqual(try await l.ids(), ["b3", "a1", "b1", "c1", "c2", "a3", "b2", "a2"])
        }
    }

    func testPaging() async throws {
        try await forEachEngine { db in
            let l = try await Crafted(db)
            await assertEqual(try await l.ids(limit: 3, page: 1), ["b3", "a1", "b1"])
            await assertEqual(try await l.ids(limit: 3, page: 2), ["c1", "c2", "a3"])
            await assertEqual(try await l.ids(limit: 3, page: 3), ["b2", "a2"])
            await assertEqual(try await l.ids(limit: 3, page: 4), [])
            await assertEqual(try await l.ids(limit: 3, page: Int.max), [], "a page past any end is empty, not a trap")
        }
    }

    func testFilters() async throws {
        try await forEachEngine { db in
            let l = try await Crafted(db)
            await assertEqual(try await l.ids(.newest, FeedFilter(platform: .youtube)), ["b3", "b1", "b2"])
            await assertEqual(try await l.ids(.newest, FeedFilter(channelID: l.a)), ["a1", "a3", "a2"])
            await assertEqual(try await l.ids(.newest, FeedFilter(platform: .youtube, channelID: l.a)), [])
            try await l.library.setWatched([try await l.library.id(of: "a1"), try await l.library.id(of: "c2")], now: 5)
            try await l.library.setProgress(try await l.library.id(of: "b3"), seconds: 9, now: 6)
            await assertEqual(try await l.ids(.newest, FeedFilter(unwatchedOnly: true)), ["b3", "b1", "c1", "a3", "b2", "a2"])
        }
    }

    func testShortForm() async throws {
        try await forEachEngine { db in
            let l = try await Crafted(db)
            // 180 s counts as short, 181 s does not; b1 has no duration but is flagged short.
            await assertEqual(try await l.ids(.shortForm), ["b3", "b1", "a3"])
            await assertEqual(try await l.ids(.shortForm, FeedFilter(platform: .podcast)), ["a3"])
            try await l.library.setWatched([try await l.library.id(of: "b3")], now: 5)
            await assertEqual(try await l.ids(.shortForm, FeedFilter(unwatchedOnly: true)), ["b1", "a3"])
        }
    }

    func testItemsCarryChannelAndWatchState() async throws {
        try await forEachEngine { db in
            let l = try await Crafted(db)
            let b3 = try await l.library.id(of: "b3")
            try await l.library.setProgress(b3, seconds: 42, now: 7)
            let first = try await unwrap(try await l.library.feed(page: .first(1), now: now).first)
            XCTAssertEqual(first.id, b3)
            XCTAssertEqual(first.channel, "B")
            XCTAssertEqual(first.platform, .youtube)
            XCTAssertEqual(first.channelID, l.b)
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
    private struct Backlog {
        let library: any UserLibrary
        let p: Int64, q: Int64, r: Int64

        init(_ db: TestDatabase) async throws {
            let lib = db.owner
            library = lib
            p = try await lib.addTestChannel("P", platform: .podcast)
            q = try await lib.addTestChannel("Q", platform: .youtube)
            r = try await lib.addTestChannel("R", platform: .podcast)
            // P is prolific; p0 is outside the 14-day window.
            try await lib.ingest(items: [item("p0", published: now - 15 * day), item("p1", published: now - 13 * day),
                                         item("p2", published: now - 12 * day), item("p3", published: now - 11 * day),
                                         item("p4", published: now - 10 * day), item("p5", published: now - 9 * day)],
                                 channelID: p, now: 1)
            try await lib.ingest(items: [item("q1", published: now - 8 * day), item("q2", published: now - 2 * day)], channelID: q, now: 1)
            try await lib.ingest(items: [item("r1", published: now - 12 * day - day / 2), item("r2")], channelID: r, now: 1)
            try await lib.setProgress(try await lib.id(of: "q2"), seconds: 100, now: 5000)
            try await lib.setProgress(try await lib.id(of: "p3"), seconds: 20, now: 6000)
            try await lib.setWatched([try await lib.id(of: "p2")], now: 7000)
        }

        func ids(_ filter: FeedFilter = FeedFilter(), limit: Int = 50, page: Int = 1, days: Int = 14) async throws -> [String] {
            try await library.feed(mode: .catchUp, filter: filter, page: try PageRequest(page: page, perPage: limit), days: days,
                                   now: now).map(\.itemID)
        }
    }

    func testResumeThenRoundRobinOldestFirst() async throws {
        try await forEachEngine { db in
            let l = try await Backlog(db)
            // Resume: p3 (played at 6000) before q2 (5000). Round 1: each channel's oldest unwatched
            // item in the window, oldest first (p1, r1, q1); round 2: p4; round 3: p5.
            await assertEqual(try await l.ids(), ["p3", "q2", "p1", "r1", "q1", "p4", "p5"])
        }
    }

    func testPagingAcrossBothParts() async throws {
        try await forEachEngine { db in
            let l = try await Backlog(db)
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
            let l = try await Backlog(db)
            // 10 days: p4 sits exactly on the window's start and is included.
            await assertEqual(try await l.ids(days: 10), ["p3", "q2", "p4", "q1", "p5"])
            await assertEqual(try await l.ids(days: 1), ["p3", "q2"])
        }
    }

    func testFilters() async throws {
        try await forEachEngine { db in
            let l = try await Backlog(db)
            await assertEqual(try await l.ids(FeedFilter(channelID: l.p)), ["p3", "p1", "p4", "p5"])
            await assertEqual(try await l.ids(FeedFilter(platform: .youtube)), ["q2", "q1"])
        }
    }

    func testFinishingAnItemMovesItOut() async throws {
        try await forEachEngine { db in
            let l = try await Backlog(db)
            try await l.library.setWatched([try await l.library.id(of: "p3")], now: 8000)
            try await l.library.setWatched([try await l.library.id(of: "p1")], watched: false, now: 8000)
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
