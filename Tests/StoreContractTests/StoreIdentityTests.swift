import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Issue 13, bug 1: ids are never handed out twice.
final class StoreIdentityTests: XCTestCase {
    func testARemovedChannelsItemIDsAreNotHandedOutAgain() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let keep = try await library.addTestChannel("keep")
            _ = try await library.ingest(Feed(kind: .podcast, title: "keep", items: [item("k1")]), channelID: keep, now: 1000)
            let gone = try await library.addTestChannel("gone")
            _ = try await library.ingest(Feed(kind: .podcast, title: "gone", items: [item("g1"), item("g2")]), channelID: gone, now: 1000)
            let removed = [try await library.id(of: "g1"), try await library.id(of: "g2")]
            try await library.removeChannel(id: gone)

            let fresh = try await library.addTestChannel("fresh")
            XCTAssertGreaterThan(fresh, gone, "a channel id is not reused either")
            _ = try await library.ingest(Feed(kind: .podcast, title: "fresh", items: [item("f1"), item("f2")]), channelID: fresh, now: 2000)
            let new = [try await library.id(of: "f1"), try await library.id(of: "f2")]
            XCTAssertTrue(new.allSatisfy { $0 > removed.max() ?? 0 }, "new \(new), removed \(removed)")
        }
    }
}
