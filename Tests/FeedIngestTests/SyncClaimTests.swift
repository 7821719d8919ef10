import FeedIngest
import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// One sync scheduler however many processes run (issue 15): a channel is claimed in the library
/// before it is polled, so two pollers on one library file never fetch the same feed at once.
final class SyncClaimTests: XCTestCase {
    private func feed(_ n: Int) -> String {
        "<rss><channel><title>Feed \(n)</title><item><guid>g\(n)</guid><title>Episode \(n)</title></item></channel></rss>"
    }

    /// A scheduler round as the daemon runs it: claim the due channels, poll them, release what was not stored.
    private static func round(_ library: SQLiteLibrary, _ claimant: String) async throws -> [Int64] {
        let due = try await library.claimDueChannels(now: 2000, claimant: claimant)
        _ = await Syncer(store: library).sync(due, now: 2000)
        _ = await library.releaseClaimsUninterrupted(due.map(\.id), claimant: claimant)
        return due.map(\.id)
    }

    /// Two store values on one file (each its own connection pool, as two processes have), each
    /// running a scheduler round at the same moment: every feed is fetched exactly once.
    func testTwoPollersSyncingAtOnceFetchEachFeedOnce() async throws {
        let h = try SyncHarness()
        defer { h.server.stop() }
        let count = 24
        for n in 0..<count {
            try h.server.write("f\(n).xml", feed(n))
            try await h.addChannel("/f\(n).xml")
        }
        let one = h.library, other = try SQLiteLibrary(path: h.library.path)
        async let first = Self.round(one, "first")
        async let second = Self.round(other, "second")
        let (a, b) = try await (first, second)
        XCTAssertEqual((a + b).sorted(), Array(1...Int64(count)), "every due channel was polled by one of them")
        XCTAssertTrue(Set(a).isDisjoint(with: b))
        let stats = try h.server.stats()
        for n in 0..<count { XCTAssertEqual(stats.hits["/f\(n).xml"], 1, "/f\(n).xml") }
        // Storing a poll released its claim, and a later round finds nothing due.
        let claimed = try await h.library.claimDueChannels(now: 2001, claimant: "third")
        XCTAssertEqual(claimed.map(\.id), [])
    }

    func testAClaimBlocksOthersUntilReleasedOrLapsed() async throws {
        let h = try SyncHarness()
        defer { h.server.stop() }
        let a = try await h.addChannel("/a.xml"), b = try await h.addChannel("/b.xml")
        let got1 = try await h.library.claimDueChannels(now: 2000, claimant: "crashed").map(\.id)
        XCTAssertEqual(got1, [a.id, b.id])
        let got2 = try await h.library.claimDueChannels(now: 2000, claimant: "other").map(\.id)
        XCTAssertEqual(got2, [])
        let got3 = try await h.library.claimChannels([a.id, b.id], now: 2000, claimant: "other")
        XCTAssertEqual(got3, [], "held by another")
        let got4 = try await h.library.claimChannels([a.id], now: 2000, claimant: "crashed")
        XCTAssertEqual(got4, [a.id], "its own claim")
        // Only the holder releases.
        try await h.library.releaseClaims([a.id], claimant: "other")
        let got5 = try await h.library.claimChannels([a.id], now: 2000, claimant: "other")
        XCTAssertEqual(got5, [])
        try await h.library.releaseClaims([a.id], claimant: "crashed")
        let got6 = try await h.library.claimChannels([a.id], now: 2000, claimant: "other")
        XCTAssertEqual(got6, [a.id])
        // A claim whose holder died lapses: b (and a, claimed at the same time) are free after SyncClaim.claimSeconds.
        let later = 2000 + SyncClaim.claimSeconds
        let got7 = try await h.library.claimDueChannels(now: later - 1, claimant: "other").map(\.id)
        XCTAssertEqual(got7, [])
        let got8 = try await h.library.claimDueChannels(now: later, claimant: "other").map(\.id)
        XCTAssertEqual(got8, [a.id, b.id], "both claims have lapsed")
    }
}
