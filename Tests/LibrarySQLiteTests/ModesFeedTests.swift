import FeedModel
import Foundation
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

private let day: Int64 = 86_400
private let now: Int64 = 100 * day

/// Newest and short-form on a crafted library with known dates, durations and discovery times.
@Suite struct ModesNewestTests {
    let t: TestLibrary
    let a: Int64, b: Int64, c: Int64

    init() async throws {
        t = try TestLibrary()
        let lib = t.library
        a = try await lib.addTestChannel("A", platform: .podcast)
        b = try await lib.addTestChannel("B", platform: .youtube)
        c = try await lib.addTestChannel("C", platform: .rumble)
        _ = try await lib.ingest(items: [item("a1", published: now - 1 * day, duration: 3600), item("a2", duration: 200),
                                   item("a3", published: now - 20 * day, duration: 100)], channelID: a, now: 1000)
        _ = try await lib.ingest(items: [item("b1", published: now - 2 * day, isShort: true), item("b2"),
                                   item("b3", published: now - 1 * day, duration: 180)], channelID: b, now: 2000)
        _ = try await lib.ingest(items: [item("c1", published: now - 5 * day, duration: 181),
                                   item("c2", published: now - 10 * day)], channelID: c, now: 3000)
    }

    private func ids(_ mode: FeedMode = .newest, _ filter: FeedFilter = FeedFilter(), limit: Int = 50, page: Int = 1) async throws -> [String] {
        try await t.library.feed(mode: mode, filter: filter, page: try PageRequest(page: page, perPage: limit), now: now).map(\.itemID)
    }

    @Test func newestPutsUnknownDatesLastThenByDiscovery() async throws {
        // b3 and a1 share a date: the later-discovered b3 comes first.
        #expect(try await ids() == ["b3", "a1", "b1", "c1", "c2", "a3", "b2", "a2"])
    }

    @Test func paging() async throws {
        #expect(try await ids(limit: 3, page: 1) == ["b3", "a1", "b1"])
        #expect(try await ids(limit: 3, page: 2) == ["c1", "c2", "a3"])
        #expect(try await ids(limit: 3, page: 3) == ["b2", "a2"])
        #expect(try await ids(limit: 3, page: 4) == [])
        #expect(try await ids(limit: 3, page: Int.max) == [], "a page past any end is empty, not a trap")
    }

    @Test func filters() async throws {
        #expect(try await ids(.newest, FeedFilter(platform: .youtube)) == ["b3", "b1", "b2"])
        #expect(try await ids(.newest, FeedFilter(channelID: a)) == ["a1", "a3", "a2"])
        #expect(try await ids(.newest, FeedFilter(platform: .youtube, channelID: a)) == [])
        try await t.library.setWatched([try await t.library.id(of: "a1"), try await t.library.id(of: "c2")], now: 5)
        try await t.library.setProgress(try await t.library.id(of: "b3"), seconds: 9, now: 6)
        #expect(try await ids(.newest, FeedFilter(unwatchedOnly: true)) == ["b3", "b1", "c1", "a3", "b2", "a2"])
    }

    @Test func shortForm() async throws {
        // 180 s counts as short, 181 s does not; b1 has no duration but is flagged short.
        #expect(try await ids(.shortForm) == ["b3", "b1", "a3"])
        #expect(try await ids(.shortForm, FeedFilter(platform: .podcast)) == ["a3"])
        try await t.library.setWatched([try await t.library.id(of: "b3")], now: 5)
        #expect(try await ids(.shortForm, FeedFilter(unwatchedOnly: true)) == ["b1", "a3"])
    }

    @Test func itemsCarryChannelAndWatchState() async throws {
        let b3 = try await t.library.id(of: "b3")
        try await t.library.setProgress(b3, seconds: 42, now: 7)
        let first = try #require(try await t.library.feed(page: .first(1), now: now).first)
        #expect(first.id == b3 && first.channel == "B" && first.platform == .youtube && first.channelID == b)
        #expect(first.progress == 42 && !first.watched && first.duration == 180 && first.published == now - day)
        #expect(first.url == "https://example.com/b3" && first.title == "Title b3" && first.enclosureURL == nil)
    }
}

/// Catch-up: resume list, then the window's unwatched items round-robin across channels.
@Suite struct ModesCatchUpTests {
    let t: TestLibrary
    let p: Int64, q: Int64, r: Int64

    init() async throws {
        t = try TestLibrary()
        let lib = t.library
        p = try await lib.addTestChannel("P", platform: .podcast)
        q = try await lib.addTestChannel("Q", platform: .youtube)
        r = try await lib.addTestChannel("R", platform: .podcast)
        // P is prolific; p0 is outside the 14-day window.
        _ = try await lib.ingest(items: [item("p0", published: now - 15 * day), item("p1", published: now - 13 * day),
                                   item("p2", published: now - 12 * day), item("p3", published: now - 11 * day),
                                   item("p4", published: now - 10 * day), item("p5", published: now - 9 * day)],
                           channelID: p, now: 1)
        _ = try await lib.ingest(items: [item("q1", published: now - 8 * day), item("q2", published: now - 2 * day)], channelID: q, now: 1)
        _ = try await lib.ingest(items: [item("r1", published: now - 12 * day - day / 2), item("r2")], channelID: r, now: 1)
        try await lib.setProgress(try await lib.id(of: "q2"), seconds: 100, now: 5000)
        try await lib.setProgress(try await lib.id(of: "p3"), seconds: 20, now: 6000)
        try await lib.setWatched([try await lib.id(of: "p2")], now: 7000)
    }

    private func ids(_ filter: FeedFilter = FeedFilter(), limit: Int = 50, page: Int = 1, days: Int = 14) async throws -> [String] {
        try await t.library.feed(mode: .catchUp, filter: filter, page: try PageRequest(page: page, perPage: limit), days: days, now: now).map(\.itemID)
    }

    @Test func resumeThenRoundRobinOldestFirst() async throws {
        // Resume: p3 (played at 6000) before q2 (5000). Round 1: each channel's oldest unwatched
        // item in the window, oldest first (p1, r1, q1); round 2: p4; round 3: p5.
        #expect(try await ids() == ["p3", "q2", "p1", "r1", "q1", "p4", "p5"])
    }

    @Test func pagingAcrossBothParts() async throws {
        #expect(try await ids(limit: 3, page: 1) == ["p3", "q2", "p1"])
        #expect(try await ids(limit: 3, page: 2) == ["r1", "q1", "p4"])
        #expect(try await ids(limit: 3, page: 3) == ["p5"])
        // Absurd values from a command line give an empty page or everything, never a trap.
        #expect(try await ids(limit: Int.max, page: 2) == [])
        #expect(try await ids(limit: 2, page: Int.max) == [])
        #expect(try await ids(days: Int.max) == ["p3", "q2", "p0", "r1", "q1", "p1", "p4", "p5"])
    }

    @Test func window() async throws {
        // 10 days: p4 sits exactly on the window's start and is included.
        #expect(try await ids(days: 10) == ["p3", "q2", "p4", "q1", "p5"])
        #expect(try await ids(days: 1) == ["p3", "q2"])
    }

    @Test func filters() async throws {
        #expect(try await ids(FeedFilter(channelID: p)) == ["p3", "p1", "p4", "p5"])
        #expect(try await ids(FeedFilter(platform: .youtube)) == ["q2", "q1"])
    }

    @Test func finishingAnItemMovesItOut() async throws {
        try await t.library.setWatched([try await t.library.id(of: "p3")], now: 8000)
        try await t.library.setWatched([try await t.library.id(of: "p1")], watched: false, now: 8000)
        #expect(try await ids() == ["q2", "p1", "r1", "q1", "p4", "p5"])
    }

    /// A channel whose only item comes late in the window still belongs to round one, ahead of
    /// every channel's second item, on whichever page.
    @Test func lateChannelStillJoinsRoundOne() async throws {
        let fresh = try TestLibrary()
        let lib = fresh.library
        let c1 = try await lib.addTestChannel("C1"), c2 = try await lib.addTestChannel("C2"), c3 = try await lib.addTestChannel("C3")
        _ = try await lib.ingest(items: [item("c1a", published: now - 10 * day), item("c1b", published: now - 9 * day)], channelID: c1, now: 1)
        _ = try await lib.ingest(items: [item("c2a", published: now - 8 * day), item("c2b", published: now - 7 * day)], channelID: c2, now: 1)
        _ = try await lib.ingest(items: [item("c3a", published: now - 1 * day)], channelID: c3, now: 1)
        let page = { (n: Int) in try await lib.feed(mode: .catchUp, page: try PageRequest(page: n, perPage: 2), now: now).map(\.itemID) }
        #expect(try await page(1) == ["c1a", "c2a"])
        #expect(try await page(2) == ["c3a", "c1b"])
        #expect(try await page(3) == ["c2b"])
        #expect(try await lib.feed(mode: .catchUp, now: now).map(\.itemID) == ["c1a", "c2a", "c3a", "c1b", "c2b"])
    }
}
