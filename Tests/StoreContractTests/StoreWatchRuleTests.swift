import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Every way the store changes a watch state applies `WatchRule` the same: a position near
/// enough the end counts as heard (watched, progress reset) whichever caller wrote it (the CLI's
/// `progress` and the API's progress routes and the player's checkpoints through `setProgress`,
/// saved videos, a phone's episode actions, the actions applied when their episode arrives); a
/// person's mark wins over the rule.
final class StoreWatchRuleTests: XCTestCase {
    private static let feedURL = "https://example.com/show.xml"

    /// Items of 600 s (`long`: 3600 s), whose media URLs are `https://example.com/ID.mp3`.
    private struct Show {
        let library: any UserLibrary
        let ids: [Int64]
        let long: Int64

        init(_ db: TestDatabase) async throws {
            library = db.owner
            let channel = try await library.addChannel(platform: .podcast, sourceURL: "https://example.com/show",
                                                       feedURL: StoreWatchRuleTests.feedURL, name: "Show", now: 1000)
            let items = (1...6).map { Item(id: "e\($0)", guid: "e\($0)", title: "E\($0)", duration: $0 == 6 ? 3600 : 600,
                                           enclosure: Enclosure(url: "https://example.com/e\($0).mp3")) }
            _ = try await library.ingest(Feed(kind: .podcast, title: "Show", items: items), channelID: channel.id, now: 1000)
            var ids: [Int64] = []
            for n in 1...5 { ids.append(try await library.id(of: "e\(n)")) }
            self.ids = ids
            long = try await library.id(of: "e6")
        }

        func state(_ id: Int64) async throws -> Shown {
            let item = try await library.item(id: id)
            return Shown(watched: item.watched, progress: item.progress)
        }
    }

    private struct Shown: Equatable { var watched: Bool, progress: Int }

    func testAPositionNearTheEndIsHeardWhicheverCallerWroteIt() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let (library, ids) = (s.library, s.ids)
            // `setProgress`: the CLI's `progress`, the API's feed and collection progress routes, the player's checkpoints.
            await assertEqual(try await library.setProgress(ids[0], seconds: 590, now: 2000), .watched)
            // A saved video's progress on its library item.
            let saved = try await library.saveVideo(item: ids[1], notes: nil, now: 2000).video
            let updated = try await library.updateSavedVideo(id: saved.id, SavedVideoChange(progressSeconds: 590), now: 2001)
            XCTAssertTrue(updated.watched)
            XCTAssertEqual(updated.progressSeconds, 0)
            // A phone's play action.
            _ = try await library.recordEpisodeActions([EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/e3.mp3",
                                                                      guid: "e3", kind: .play, timestamp: 2002, started: 0, position: 590)],
                                                       now: 2002)
            for id in ids[0...2] {
                await assertEqual(try await s.state(id), Shown(watched: true, progress: 0), "item \(id)")
            }
            // The same positions short of the rule are progress, and leave the mark as it is.
            await assertEqual(try await library.setProgress(ids[3], seconds: 500, now: 2003), .inProgress)
            await assertEqual(try await s.state(ids[3]), Shown(watched: false, progress: 500))
            try await library.setWatched([ids[4]], now: 2004)
            await assertEqual(try await library.setProgress(ids[4], seconds: 100, now: 2005), .watched)
            await assertEqual(try await s.state(ids[4]), Shown(watched: true, progress: 100))
        }
    }

    func testASavedPageOutsideTheLibraryFollowsTheSameRule() async throws {
        try await forEachEngine { db in
            let library = try await Show(db).library
            let page = SavedPage(platform: "youtube", videoID: "abc", videoURL: "https://www.youtube.com/watch?v=abc", title: "A",
                                 durationSeconds: 212)
            let saved = try await library.saveVideo(page: page, notes: nil, now: 2000).video
            let partway = try await library.updateSavedVideo(id: saved.id, SavedVideoChange(progressSeconds: 100), now: 2001)
            XCTAssertFalse(partway.watched)
            XCTAssertEqual(partway.progressSeconds, 100)
            XCTAssertNil(partway.watchedAt)
            let heard = try await library.updateSavedVideo(id: saved.id, SavedVideoChange(progressSeconds: 211), now: 2002)
            XCTAssertTrue(heard.watched)
            XCTAssertEqual(heard.progressSeconds, 0)
            XCTAssertEqual(heard.watchedAt, 2002)
            // A mark with a progress is taken as given.
            let marked = try await library.updateSavedVideo(id: saved.id, SavedVideoChange(watched: false, progressSeconds: 211), now: 2003)
            XCTAssertFalse(marked.watched)
            XCTAssertEqual(marked.progressSeconds, 211)
            XCTAssertNil(marked.watchedAt)
        }
    }

    /// The player knows the media's length better than the feed: a feed that says 600 s for
    /// an hour's episode must not make minute 10 "heard".
    func testTheCallersLengthWinsOverTheFeedsDuration() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let (library, ids) = (s.library, s.ids)
            await assertEqual(try await library.setProgress(ids[0], seconds: 590, length: 3600, now: 2000), .inProgress)
            await assertEqual(try await library.setProgress(s.long, seconds: 3500, length: 3510, now: 2001), .watched)
            // A length of 0 is unknown: the item's duration decides.
            await assertEqual(try await library.setProgress(ids[1], seconds: 590, length: 0, now: 2002), .watched)
            // A phone's `total` is the length it played.
            _ = try await library.recordEpisodeActions([EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/e3.mp3",
                                                                      guid: "e3", kind: .play, timestamp: 2003, started: 0,
                                                                      position: 590, total: 3600)], now: 2003)
            await assertEqual(try await s.state(ids[2]), Shown(watched: false, progress: 590))
        }
    }

    /// A person's mark wins over the rule: the API's watched routes take a progress with it.
    func testAMarkIsTakenAsGiven() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let (library, ids) = (s.library, s.ids)
            await assertEqual(try await library.updateWatchState(ids[0], .mark(watched: false, progress: 595), now: 2000), .inProgress)
            await assertEqual(try await s.state(ids[0]), Shown(watched: false, progress: 595))
            await assertEqual(try await library.updateWatchState(ids[0], .mark(watched: true, progress: 30), now: 2001), .watched)
            await assertEqual(try await s.state(ids[0]), Shown(watched: true, progress: 30))
            await assertThrows(LibraryError.invalid("progress must be 0 or more seconds (got -1)")) {
                try await library.updateWatchState(ids[0], .mark(watched: true, progress: -1), now: 2002)
            }
        }
    }

    /// Actions a phone uploaded before their episode was here follow the same rule when it arrives.
    func testAPendingActionIsHeardByTheSameRuleWhenItsEpisodeArrives() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            let later = "https://example.com/later.xml"
            _ = try await library.recordEpisodeActions([EpisodeAction(podcast: later, episode: "https://example.com/l1.mp3", guid: "l1",
                                                                      kind: .play, timestamp: 2000, started: 0, position: 1190)], now: 2000)
            let channel = try await library.addChannel(platform: .podcast, sourceURL: "https://example.com/later", feedURL: later,
                                                       name: "Later", now: 3000)
            _ = try await library.ingest(Feed(kind: .podcast, title: "Later", items: [
                Item(id: "l1", guid: "l1", title: "L1", duration: 1200, enclosure: Enclosure(url: "https://example.com/l1.mp3")),
            ]), channelID: channel.id, now: 3000)
            await assertEqual(try await s.state(try await library.id(of: "l1")), Shown(watched: true, progress: 0))
        }
    }
}
