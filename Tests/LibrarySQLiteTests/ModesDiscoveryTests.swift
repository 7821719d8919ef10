import FeedModel
import Foundation
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

private let day: Int64 = 86_400
private let now: Int64 = 100 * day

/// The discovery mode (`DiscoveryMode`): never-started items of the channels played least, one
/// per channel in turn, each channel's newest first.
@Suite struct ModesDiscoveryTests {
    let t: TestLibrary
    let a: Int64, b: Int64, c: Int64

    /// A is played most (two plays), B once, C never. Started items: a1, a3 and b1 watched, b2 in
    /// progress; what is left never started: A a4, a2; B b3; C c3, c2, c1 (newest first).
    init() async throws {
        t = try TestLibrary()
        let lib = t.library
        a = try await lib.addTestChannel("A", platform: .podcast)
        b = try await lib.addTestChannel("B", platform: .youtube)
        c = try await lib.addTestChannel("C", platform: .rumble)
        _ = try await lib.ingest(items: [item("a1", published: 10 * day), item("a2", published: 20 * day),
                                         item("a3", published: 30 * day), item("a4", published: 35 * day)], channelID: a, now: 1000)
        _ = try await lib.ingest(items: [item("b1", published: 40 * day), item("b2", published: 50 * day),
                                         item("b3", published: 60 * day)], channelID: b, now: 1000)
        _ = try await lib.ingest(items: [item("c1", published: 5 * day), item("c2", published: 6 * day),
                                         item("c3", published: 7 * day)], channelID: c, now: 1000)
        let id = { (name: String) async throws -> Int64 in try await lib.id(of: name) }
        try await lib.setWatched([try await id("a1"), try await id("a3"), try await id("b1")], watched: true, now: 2000)
        try await lib.setProgress(try await id("b2"), seconds: 30, now: 2000)
        _ = try await lib.appendHistory(item: try await id("a1"), position: nil, now: 2000)
        _ = try await lib.appendHistory(item: try await id("a3"), position: nil, now: 2001)
        _ = try await lib.appendHistory(item: try await id("b1"), position: nil, now: 2002)
    }

    private func ids(_ filter: FeedFilter = FeedFilter(), limit: Int = 50, page: Int = 1) async throws -> [String] {
        try await t.library.feed(mode: .discovery, filter: filter, page: try PageRequest(page: page, perPage: limit), now: now).map(\.itemID)
    }

    @Test func leastPlayedChannelsFirstOnePerChannelInTurn() async throws {
        #expect(try await ids() == ["c3", "b3", "a4", "c2", "a2", "c1"])
    }

    @Test func pagesContinueTheRounds() async throws {
        #expect(try await ids(limit: 2, page: 1) == ["c3", "b3"])
        #expect(try await ids(limit: 2, page: 2) == ["a4", "c2"])
        #expect(try await ids(limit: 2, page: 3) == ["a2", "c1"])
        #expect(try await ids(limit: 2, page: 4) == [])
        // A page that needs a channel's deeper items after the others ran out.
        #expect(try await ids(limit: 5, page: 2) == ["c1"])
    }

    @Test func filtersAndStartingAnItemRemovesIt() async throws {
        #expect(try await ids(FeedFilter(platform: .rumble)) == ["c3", "c2", "c1"])
        #expect(try await ids(FeedFilter(channelID: a)) == ["a4", "a2"])
        #expect(try await ids(FeedFilter(watchedOnly: true)) == [])
        try await t.library.setProgress(try await t.library.id(of: "c3"), seconds: 1, now: 3000)
        #expect(try await ids() == ["c2", "b3", "a4", "c1", "a2"])
    }

    @Test func playingAChannelMovesItBack() async throws {
        // Three plays of C's: now C is played most, B least.
        for _ in 0..<3 { _ = try await t.library.appendHistory(item: try await t.library.id(of: "c1"), position: nil, now: 4000) }
        #expect(try await ids() == ["b3", "a4", "c3", "a2", "c2", "c1"])
    }
}
