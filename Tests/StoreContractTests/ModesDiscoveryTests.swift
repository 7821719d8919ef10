import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

private let day = CraftedLibrary.day

/// The discovery mode (`DiscoveryMode`): never-started items of the channels played least, one
/// per channel in turn, each channel's newest first.
final class ModesDiscoveryTests: XCTestCase {
    /// A is played most (two plays), B once, C never. Started items: a1, a3 and b1 watched, b2 in
    /// progress; what is left never started: A a4, a2; B b3; C c3, c2, c1 (newest first).
    private func plays(_ db: TestDatabase) async throws -> CraftedLibrary {
        let l = try await CraftedLibrary(db, mode: .discovery, [
            ("A", .podcast, [item("a1", published: 10 * day), item("a2", published: 20 * day),
                             item("a3", published: 30 * day), item("a4", published: 35 * day)], 1000),
            ("B", .youtube, [item("b1", published: 40 * day), item("b2", published: 50 * day), item("b3", published: 60 * day)], 1000),
            ("C", .rumble, [item("c1", published: 5 * day), item("c2", published: 6 * day), item("c3", published: 7 * day)], 1000),
        ])
        try await l.library.setWatched([try await l.id("a1"), try await l.id("a3"), try await l.id("b1")], watched: true, now: 2000)
        try await l.library.setProgress(try await l.id("b2"), seconds: 30, now: 2000)
        _ = try await l.library.appendHistory(item: try await l.id("a1"), position: nil, now: 2000)
        _ = try await l.library.appendHistory(item: try await l.id("a3"), position: nil, now: 2001)
        _ = try await l.library.appendHistory(item: try await l.id("b1"), position: nil, now: 2002)
        return l
    }

    func testLeastPlayedChannelsFirstOnePerChannelInTurn() async throws {
        try await forEachEngine { db in
            let p = try await plays(db)
            await assertEqual(try await p.ids(), ["c3", "b3", "a4", "c2", "a2", "c1"])
        }
    }

    func testPagesContinueTheRounds() async throws {
        try await forEachEngine { db in
            let p = try await plays(db)
            await assertEqual(try await p.ids(limit: 2, page: 1), ["c3", "b3"])
            await assertEqual(try await p.ids(limit: 2, page: 2), ["a4", "c2"])
            await assertEqual(try await p.ids(limit: 2, page: 3), ["a2", "c1"])
            await assertEqual(try await p.ids(limit: 2, page: 4), [])
            // A page that needs a channel's deeper items after the others ran out.
            await assertEqual(try await p.ids(limit: 5, page: 2), ["c1"])
        }
    }

    func testFiltersAndStartingAnItemRemovesIt() async throws {
        try await forEachEngine { db in
            let p = try await plays(db)
            await assertEqual(try await p.ids(FeedFilter(platform: .rumble)), ["c3", "c2", "c1"])
            await assertEqual(try await p.ids(FeedFilter(channelID: p["A"])), ["a4", "a2"])
            await assertEqual(try await p.ids(FeedFilter(watchedOnly: true)), [])
            try await p.library.setProgress(try await p.id("c3"), seconds: 1, now: 3000)
            await assertEqual(try await p.ids(), ["c2", "b3", "a4", "c1", "a2"])
        }
    }

    func testPlayingAChannelMovesItBack() async throws {
        try await forEachEngine { db in
            let p = try await plays(db)
            // Three plays of C's: now C is played most, B least.
            for _ in 0..<3 { _ = try await p.library.appendHistory(item: try await p.id("c1"), position: nil, now: 4000) }
            await assertEqual(try await p.ids(), ["b3", "a4", "c3", "a2", "c2", "c1"])
        }
    }
}
