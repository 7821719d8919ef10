import FeedModel
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// Every way the store changes a watch state goes through one writer, and `WatchRule` is
/// applied there: a position near enough the end counts as heard (watched, progress reset)
/// whichever caller wrote it (the CLI's `progress` and the API's progress routes and the
/// player's checkpoints through `setProgress`, saved videos, a phone's episode actions, the
/// actions applied when their episode arrives); a person's mark wins over the rule.
@Suite struct StoreWatchRuleTests {
    static let feedURL = "https://example.com/show.xml"
    let t: TestLibrary
    /// Items of 600 s (`long`: 3600 s), whose media URLs are `https://example.com/ID.mp3`.
    let ids: [Int64]
    let long: Int64

    init() async throws {
        t = try TestLibrary()
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: "https://example.com/show", feedURL: Self.feedURL,
                                                     name: "Show", now: 1000)
        let items = (1...6).map { Item(id: "e\($0)", guid: "e\($0)", title: "E\($0)", duration: $0 == 6 ? 3600 : 600,
                                       enclosure: Enclosure(url: "https://example.com/e\($0).mp3")) }
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Show", items: items), channelID: channel.id, now: 1000)
        var ids: [Int64] = []
        for n in 1...5 { ids.append(try await t.library.id(of: "e\(n)")) }
        self.ids = ids
        long = try await t.library.id(of: "e6")
    }

    struct Shown: Equatable { var watched: Bool, progress: Int }

    func state(_ id: Int64) async throws -> Shown {
        let item = try await t.library.item(id: id)
        return Shown(watched: item.watched, progress: item.progress)
    }

    @Test func aPositionNearTheEndIsHeardWhicheverCallerWroteIt() async throws {
        // `setProgress`: the CLI's `progress`, the API's feed and collection progress routes, the player's checkpoints.
        #expect(try await t.library.setProgress(ids[0], seconds: 590, now: 2000) == .watched)
        // A saved video's progress on its library item.
        let saved = try await t.library.saveVideo(item: ids[1], notes: nil, now: 2000).video
        let updated = try await t.library.updateSavedVideo(id: saved.id, SavedVideoChange(progressSeconds: 590), now: 2001)
        #expect(updated.watched && updated.progressSeconds == 0)
        // A phone's play action.
        _ = try await t.library.recordEpisodeActions([EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/e3.mp3",
                                                                    guid: "e3", kind: .play, timestamp: 2002, started: 0, position: 590)],
                                                     now: 2002)
        for id in ids[0...2] {
            #expect(try await state(id) == Shown(watched: true, progress: 0), "item \(id)")
        }
        // The same positions short of the rule are progress, and leave the mark as it is.
        #expect(try await t.library.setProgress(ids[3], seconds: 500, now: 2003) == .inProgress)
        #expect(try await state(ids[3]) == Shown(watched: false, progress: 500))
        try await t.library.setWatched([ids[4]], now: 2004)
        #expect(try await t.library.setProgress(ids[4], seconds: 100, now: 2005) == .watched)
        #expect(try await state(ids[4]) == Shown(watched: true, progress: 100))
    }

    @Test func aSavedPageOutsideTheLibraryFollowsTheSameRule() async throws {
        let page = SavedPage(platform: "youtube", videoID: "abc", videoURL: "https://www.youtube.com/watch?v=abc", title: "A",
                             durationSeconds: 212)
        let saved = try await t.library.saveVideo(page: page, notes: nil, now: 2000).video
        let partway = try await t.library.updateSavedVideo(id: saved.id, SavedVideoChange(progressSeconds: 100), now: 2001)
        #expect(!partway.watched && partway.progressSeconds == 100 && partway.watchedAt == nil)
        let heard = try await t.library.updateSavedVideo(id: saved.id, SavedVideoChange(progressSeconds: 211), now: 2002)
        #expect(heard.watched && heard.progressSeconds == 0 && heard.watchedAt == 2002)
        // A mark with a progress is taken as given.
        let marked = try await t.library.updateSavedVideo(id: saved.id, SavedVideoChange(watched: false, progressSeconds: 211), now: 2003)
        #expect(!marked.watched && marked.progressSeconds == 211 && marked.watchedAt == nil)
    }

    /// The player knows the media's length better than the feed: a feed that says 600 s for
    /// an hour's episode must not make minute 10 "heard".
    @Test func theCallersLengthWinsOverTheFeedsDuration() async throws {
        #expect(try await t.library.setProgress(ids[0], seconds: 590, length: 3600, now: 2000) == .inProgress)
        #expect(try await t.library.setProgress(long, seconds: 3500, length: 3510, now: 2001) == .watched)
        // A length of 0 is unknown: the item's duration decides.
        #expect(try await t.library.setProgress(ids[1], seconds: 590, length: 0, now: 2002) == .watched)
        // A phone's `total` is the length it played.
        _ = try await t.library.recordEpisodeActions([EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/e3.mp3",
                                                                    guid: "e3", kind: .play, timestamp: 2003, started: 0,
                                                                    position: 590, total: 3600)], now: 2003)
        #expect(try await state(ids[2]) == Shown(watched: false, progress: 590))
    }

    /// A person's mark wins over the rule: the API's watched routes take a progress with it.
    @Test func aMarkIsTakenAsGiven() async throws {
        #expect(try await t.library.updateWatchState(ids[0], .mark(watched: false, progress: 595), now: 2000) == .inProgress)
        #expect(try await state(ids[0]) == Shown(watched: false, progress: 595))
        #expect(try await t.library.updateWatchState(ids[0], .mark(watched: true, progress: 30), now: 2001) == .watched)
        #expect(try await state(ids[0]) == Shown(watched: true, progress: 30))
        await #expect(throws: LibraryError.invalid("progress must be 0 or more seconds (got -1)")) {
            try await t.library.updateWatchState(ids[0], .mark(watched: true, progress: -1), now: 2002)
        }
    }

    /// Actions a phone uploaded before their episode was here go through the same writer when it arrives.
    @Test func aPendingActionIsHeardByTheSameRuleWhenItsEpisodeArrives() async throws {
        let later = "https://example.com/later.xml"
        _ = try await t.library.recordEpisodeActions([EpisodeAction(podcast: later, episode: "https://example.com/l1.mp3", guid: "l1",
                                                                    kind: .play, timestamp: 2000, started: 0, position: 1190)], now: 2000)
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: "https://example.com/later", feedURL: later,
                                                     name: "Later", now: 3000)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Later", items: [
            Item(id: "l1", guid: "l1", title: "L1", duration: 1200, enclosure: Enclosure(url: "https://example.com/l1.mp3")),
        ]), channelID: channel.id, now: 3000)
        #expect(try await state(try await t.library.id(of: "l1")) == Shown(watched: true, progress: 0))
    }
}
