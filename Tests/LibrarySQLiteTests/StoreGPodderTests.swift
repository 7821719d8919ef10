import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// gpodder.net sync in the store: the sync clock, subscription changes made anywhere, episode
/// actions onto watch state (last writer wins, guids kept apart), feedctl's own progress given
/// back, and v13-gpodder over a library with data.
@Suite struct StoreGPodderTests {
    static let feedURL = "https://example.com/show.xml"

    /// A library with one podcast of three episodes: `a` and `b` share a media URL (their guids
    /// differ), `c` has its own; each is 600 s long.
    func library() async throws -> (TestLibrary, [Int64]) {
        let t = try TestLibrary()
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: "https://example.com/show",
                                                     feedURL: Self.feedURL, name: "Show", now: 1000)
        let items = [
            Item(id: "guid-a", guid: "guid-a", title: "A", duration: 600, enclosure: Enclosure(url: "https://example.com/same.mp3")),
            Item(id: "guid-b", guid: "guid-b", title: "B", duration: 600, enclosure: Enclosure(url: "https://example.com/same.mp3")),
            Item(id: "guid-c", guid: "guid-c", title: "C", duration: 600, enclosure: Enclosure(url: "https://example.com/c.mp3")),
        ]
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Show", items: items), channelID: channel.id, now: 1000)
        var ids: [Int64] = []
        for guid in ["guid-a", "guid-b", "guid-c"] { ids.append(try await t.library.id(of: guid)) }
        return (t, ids)
    }

    func play(_ guid: String?, _ episode: String = "https://example.com/same.mp3", position: Int, total: Int? = 600,
              at time: Int64, device: String = "phone") -> EpisodeAction {
        EpisodeAction(podcast: Self.feedURL, episode: episode, guid: guid, kind: .play, device: device, timestamp: time,
                      started: 0, position: position, total: total)
    }

    @Test func subscriptionsMadeAnywhereArePulledAndSinceZeroIsAll() async throws {
        let (t, _) = try await library()
        let all = try await t.library.subscriptionChanges(since: 0)
        #expect(all.added == [Self.feedURL] && all.removed.isEmpty)
        let other = try await t.library.addChannel(platform: .podcast, sourceURL: "https://example.com/two",
                                                   feedURL: "https://example.com/two.xml", name: "Two", now: 2000)
        let after = try await t.library.subscriptionChanges(since: all.timestamp)
        #expect(after.added == ["https://example.com/two.xml"] && after.removed.isEmpty)
        #expect(after.timestamp > all.timestamp)
        try await t.library.removeChannel(id: other.id)
        let removed = try await t.library.subscriptionChanges(since: after.timestamp)
        #expect(removed.added.isEmpty && removed.removed == ["https://example.com/two.xml"])
        #expect(try await t.library.subscriptionChanges(since: 0).added == [Self.feedURL])
        // Another user's subscriptions are not this user's.
        let bob = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        #expect(try await t.library.acting(as: bob.id).subscriptionChanges(since: 0).added == [])
        // Removing a user who follows channels works (their change rows go with them).
        _ = try await t.library.acting(as: bob.id).addChannel(platform: .podcast, sourceURL: Self.feedURL, feedURL: Self.feedURL,
                                                              name: "Show", now: 3000)
        try await t.library.removeUser(named: "bob")
    }

    @Test func playActionsMoveProgressAndMarkHeardItemsWatched() async throws {
        let (t, ids) = try await library()
        _ = try await t.library.recordEpisodeActions([play("guid-a", position: 120, at: 5000)], now: 5000)
        #expect(try await t.library.item(id: ids[0]).progress == 120)
        #expect(try await t.library.item(id: ids[1]).progress == 0)  // same URL, other guid: untouched
        _ = try await t.library.recordEpisodeActions([play("guid-b", position: 600, at: 5001)], now: 5001)
        #expect(try await t.library.item(id: ids[1]).watched)
        #expect(try await t.library.item(id: ids[0]).watched == false)
        // Position -1 is none: kept, but moves nothing.
        _ = try await t.library.recordEpisodeActions([play("guid-a", position: -1, at: 5002)], now: 5002)
        #expect(try await t.library.item(id: ids[0]).progress == 120)
        // `new` marks it unwatched again.
        _ = try await t.library.recordEpisodeActions([EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/same.mp3",
                                                                    guid: "guid-b", kind: .new, timestamp: 5003)], now: 5003)
        #expect(try await t.library.item(id: ids[1]).watched == false)
        // Without a guid, the media URL finds the one item that has it; never one of two.
        _ = try await t.library.recordEpisodeActions([play(nil, "https://example.com/c.mp3", position: 33, at: 5004)], now: 5004)
        #expect(try await t.library.item(id: ids[2]).progress == 33)
        _ = try await t.library.recordEpisodeActions([play(nil, position: 44, at: 5005)], now: 5005)
        #expect(try await t.library.item(id: ids[0]).progress == 120)
        #expect(try await t.library.item(id: ids[1]).progress == 0)
    }

    @Test func theLastWriterWinsByTheActionsTimestamp() async throws {
        let (t, ids) = try await library()
        _ = try await t.library.recordEpisodeActions([play("guid-a", position: 300, at: 6000)], now: 6000)
        // An older action uploaded later does not win.
        _ = try await t.library.recordEpisodeActions([play("guid-a", position: 100, at: 5000, device: "laptop")], now: 6001)
        #expect(try await t.library.item(id: ids[0]).progress == 300)
        // Within one upload, the latest by timestamp wins whatever the order.
        _ = try await t.library.recordEpisodeActions([play("guid-a", position: 400, at: 7001), play("guid-a", position: 350, at: 7000)],
                                                     now: 7002)
        #expect(try await t.library.item(id: ids[0]).progress == 400)
        // feedctl's own change is a writer too.
        try await t.library.setProgress(ids[0], seconds: 10, now: 8000)
        _ = try await t.library.recordEpisodeActions([play("guid-a", position: 500, at: 7500)], now: 8001)
        #expect(try await t.library.item(id: ids[0]).progress == 10)
        // The aggregated pull gives the latest action of each episode, guids kept apart.
        _ = try await t.library.recordEpisodeActions([play("guid-b", position: 60, at: 7600)], now: 8002)
        let aggregated = try await t.library.episodeActions(EpisodeActionQuery(since: 0, device: "phone", aggregated: true)).actions
        #expect(aggregated.map(\.guid).sorted { ($0 ?? "") < ($1 ?? "") } == ["guid-a", "guid-b"])
        #expect(aggregated.first { $0.guid == "guid-a" }?.position == 500)
    }

    /// A phone subscribes and uploads positions before this library has polled the feed: the
    /// actions are kept, then applied when the episodes arrive (in order: the later action
    /// wins), for the user who follows the podcast and no one else; what still matches nothing
    /// stays pending.
    @Test func actionsForEpisodesNotYetHereApplyWhenTheyArrive() async throws {
        let t = try TestLibrary()
        let bob = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let newFeed = "https://example.com/new.xml"
        func action(_ guid: String, _ kind: EpisodeActionKind, position: Int? = nil, at time: Int64) -> EpisodeAction {
            EpisodeAction(podcast: newFeed, episode: "https://example.com/\(guid).mp3", guid: guid, kind: kind, device: "phone",
                          timestamp: time, started: position == nil ? nil : 0, position: position, total: position == nil ? nil : 600)
        }
        _ = try await t.library.recordEpisodeActions([
            action("e1", .play, position: 120, at: 5000),
            action("e2", .play, position: 590, at: 5001),          // heard to the end
            action("e3", .play, position: 200, at: 5002), action("e3", .new, at: 5003),  // then reset
            action("e9", .play, position: 30, at: 5004),           // never arrives
        ], now: 5004)
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: "https://example.com/new", feedURL: newFeed,
                                                     name: "New", now: 6000)
        // Bob follows it too, but the actions were not his.
        #expect(try await t.library.acting(as: bob.id).addChannel(platform: .podcast, sourceURL: "https://example.com/new",
                                                                  feedURL: newFeed, name: "New", now: 6000).id == channel.id)
        let items = ["e1", "e2", "e3"].map {
            Item(id: $0, guid: $0, title: $0, duration: 600, enclosure: Enclosure(url: "https://example.com/\($0).mp3"))
        }
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "New", items: items), channelID: channel.id, now: 7000)
        let ids = try await [t.library.id(of: "e1"), t.library.id(of: "e2"), t.library.id(of: "e3")]
        let records = try await t.library.itemRecords(ids: ids)
        #expect(records.map(\.item.progress) == [120, 0, 0])
        #expect(records.map(\.item.watched) == [false, true, false])
        #expect(try await t.library.acting(as: bob.id).itemRecords(ids: ids).map(\.item.progress) == [0, 0, 0])
        let pending = try await t.library.read { db in
            try String.fetchAll(db, sql: "SELECT guid FROM episode_actions WHERE item IS NULL ORDER BY id")
        }
        #expect(pending == ["e9"])
    }

    @Test func actionsAreKeptAndGivenBackWithFeedctlsOwnProgress() async throws {
        let (t, ids) = try await library()
        let start = try await t.library.syncClock()
        let unknown = EpisodeAction(podcast: "https://elsewhere.example/feed", episode: "https://elsewhere.example/e.mp3",
                                    kind: .download, device: "phone", timestamp: 4000)
        let uploaded = try await t.library.recordEpisodeActions([unknown, play("guid-a", position: 90, at: 4001)], now: 4001)
        #expect(uploaded > start)
        // Nothing since the upload: the phone's own change is not echoed as feedctl's.
        #expect(try await t.library.episodeActions(EpisodeActionQuery(since: uploaded)).actions.isEmpty)
        let all = try await t.library.episodeActions(EpisodeActionQuery(since: 0)).actions
        #expect(all.contains(unknown))
        #expect(all.contains { $0.guid == "guid-a" && $0.position == 90 && $0.device == "phone" })
        // Progress set in feedctl comes back as a play action, watched as one at the end.
        try await t.library.setProgress(ids[2], seconds: 42, now: 9000)
        try await t.library.setWatched([ids[1]], now: 9001)
        let local = try await t.library.episodeActions(EpisodeActionQuery(since: uploaded)).actions
        #expect(local.contains(EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/c.mp3", guid: "guid-c", kind: .play,
                                             timestamp: 9000, position: 42, total: 600)))
        #expect(local.contains(EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/same.mp3", guid: "guid-b", kind: .play,
                                             timestamp: 9001, position: 600, total: 600)))
        // A device's own uploads only, without feedctl's.
        #expect(try await t.library.episodeActions(EpisodeActionQuery(since: uploaded, device: "phone")).actions.isEmpty)
        // Another user sees none of it.
        let bob = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        #expect(try await t.library.acting(as: bob.id).episodeActions(EpisodeActionQuery(since: 0)).actions.isEmpty)
    }

    @Test func theSyncClockNeverRepeats() async throws {
        let (t, ids) = try await library()
        var stamps: [Int64] = []
        for n in 0..<5 {
            stamps.append(try await t.library.recordEpisodeActions([play("guid-c", position: n, at: 100 + Int64(n))], now: 100))
        }
        try await t.library.setProgress(ids[0], seconds: 5, now: 100)
        stamps.append(try await t.library.syncClock())
        #expect(stamps == stamps.sorted() && Set(stamps).count == stamps.count)
    }

    /// v13-gpodder over a v11 library with subscriptions and watch state: a new device's first
    /// pull gets them all.
    @Test func aV11LibraryMigratesWithItsSubscriptionsAndProgressPullable() async throws {
        let dir = TempDir()
        let path = dir.file("v11.sqlite")
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v11-users")
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at) VALUES (7, 'podcast', 'https://x', 'https://x/feed', 'X', 100);
                    INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 7, 100);
                    INSERT INTO items (id, channel_id, item_id, guid, title, duration, enclosure_url, discovered_at)
                        VALUES (42, 7, 'g1', 'g1', 'One', 100, 'https://x/1.mp3', 600), (43, 7, 'g2', 'g2', 'Two', 100, 'https://x/2.mp3', 600);
                    INSERT INTO watch_state (item, watched, progress_seconds, updated_at) VALUES (42, 0, 33, 710);
                    """)
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations().contains("v13-gpodder"))
        #expect(try await library.subscriptionChanges(since: 0).added == ["https://x/feed"])
        let actions = try await library.episodeActions(EpisodeActionQuery(since: 0)).actions
        #expect(actions == [EpisodeAction(podcast: "https://x/feed", episode: "https://x/1.mp3", guid: "g1", kind: .play,
                                          timestamp: 710, position: 33, total: 100)])
        // Nothing else changed: the watch state is as it was.
        #expect(try await library.item(id: 42).progress == 33)
    }
}
