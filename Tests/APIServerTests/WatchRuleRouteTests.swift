import Accounts
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Every HTTP route that writes a position goes through the store's one watch-state writer,
/// where `WatchRule` is applied: a position near the end marks the item watched (progress
/// reset) whichever route wrote it. Before, only a phone's gpodder action did; the feed's,
/// the collections' and the saved videos' progress routes left the item "in progress" at 97 %.
final class WatchRuleRouteTests: XCTestCase {
    static let password = "owner-password-1"

    func testAPositionNearTheEndMarksTheItemWatchedWhicheverRouteWroteIt() async throws {
        let h = try await APIHarness()
        let owner = try await h.owner.user(id: .owner).name
        try await h.owner.setPasswordHash(try Password.hash(Self.password, cost: 4), for: owner)
        let podcast = h.feeds.url("/podcast.xml")
        _ = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(podcast)"}"#, status: 201)
        // tone-show-2 and tone-show-3 are 60 s long: 58 s counts as heard, 30 s does not.
        let item = try await h.owner.id(of: "tone-show-3")
        let media = h.feeds.url("/media/tones-60s.mp3")
        let created = try await h.object("POST", "/api/collections", body: #"{"name": "Later"}"#, status: 201)
        let collection = try XCTUnwrap(created["id"] as? Int)
        _ = try await h.object("POST", "/api/collections/\(collection)/items", body: #"{"item_id": \#(item)}"#, status: 201)
        let savedVideo = try await h.object("POST", "/api/saved-videos", body: #"{"video_url": "\#(media)"}"#, status: 201)
        let saved = try XCTUnwrap(savedVideo["id"] as? Int)
        let basic = ["Authorization": "Basic " + Data("\(owner):\(Self.password)".utf8).base64EncodedString()]

        let routes: [(name: String, write: (Int) async throws -> Int)] = [
            ("PUT /api/feed/items/{id}/progress", { try await h.call("PUT", "/api/feed/items/\(item)/progress?progress_seconds=\($0)").status }),
            ("PATCH /api/feed/{id}/progress", { try await h.call("PATCH", "/api/feed/\(item)/progress", body: #"{"watch_progress_seconds": \#($0)}"#).status }),
            ("PUT /api/collections/{id}/items/{item}/progress", {
                try await h.call("PUT", "/api/collections/\(collection)/items/\(item)/progress", body: #"{"progress_seconds": \#($0)}"#).status
            }),
            ("PUT /api/saved-videos/{id}/progress", { try await h.call("PUT", "/api/saved-videos/\(saved)/progress?progress_seconds=\($0)").status }),
            ("PUT /api/saved-videos/{id}", { try await h.call("PUT", "/api/saved-videos/\(saved)", body: #"{"watch_progress_seconds": \#($0)}"#).status }),
            ("POST /api/2/episodes (gpodder)", { position in
                // Stamped after the reset below (the last writer wins), a day after the harness's clock.
                let action = #"[{"podcast": "\#(podcast)", "episode": "\#(media)", "action": "play", "timestamp": "2026-11-21T10:00:00", "position": \#(position)}]"#
                return try await h.call("POST", "/api/2/episodes/\(owner).json", body: action, headers: basic).status
            }),
        ]
        for route in routes {
            for (position, heard) in [(30, false), (58, true)] {
                let reset = try await h.call("PUT", "/api/feed/items/\(item)/unwatched").status
                XCTAssertEqual(reset, 200)
                let written = try await route.write(position)
                XCTAssertEqual(written, 200, route.name)
                let shown = try await h.object("GET", "/api/feed/items/\(item)")
                XCTAssertEqual(shown["is_watched"] as? Bool, heard, "\(route.name) at \(position) s")
                XCTAssertEqual(shown["watch_progress_seconds"] as? Int, heard ? 0 : position, "\(route.name) at \(position) s")
            }
        }
    }

    /// Issue 27: a play finished in the browser reaches History as the daemon's do, by the store's
    /// one rule (`WatchUpdate.recordsPlay`): a heard position records a play once; later heard
    /// positions of the same play, and a person's marks, record none; a replay records another.
    func testAHeardPositionRecordsOnePlayInTheHistory() async throws {
        let h = try await APIHarness()
        _ = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let item = try await h.owner.id(of: "tone-show-3")   // 60 s long
        func plays() async throws -> Int { try await h.owner.history(limit: 100).filter { $0.item == item }.count }
        func progress(_ seconds: Int) async throws {
            let status = try await h.call("PATCH", "/api/feed/\(item)/progress", body: #"{"watch_progress_seconds": \#(seconds)}"#).status
            XCTAssertEqual(status, 200)
        }
        try await progress(10)
        try await progress(30)
        let none = try await plays()
        XCTAssertEqual(none, 0, "a play under way is no play yet")
        try await progress(58)
        let one = try await plays()
        XCTAssertEqual(one, 1, "heard: one play")
        try await progress(59)
        try await progress(60)
        let still = try await plays()
        XCTAssertEqual(still, 1, "the same play's later positions")
        _ = try await h.call("PUT", "/api/feed/items/\(item)/unwatched")
        _ = try await h.call("PUT", "/api/feed/items/\(item)/watched")
        let marks = try await plays()
        XCTAssertEqual(marks, 1, "a person's marks are no plays")
        try await progress(20)      // played again from the start
        try await progress(60)
        let again = try await plays()
        XCTAssertEqual(again, 2, "a replay heard is another play")
        let entry = try await h.owner.history(limit: 1)[0]
        XCTAssertEqual(entry.item, item)
        XCTAssertEqual(entry.playedAt, APIHarness.now)
    }
}
