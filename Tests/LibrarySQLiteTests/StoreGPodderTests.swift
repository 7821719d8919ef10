import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// gpodder.net sync in the SQLite store: pending actions' rows, and v13-gpodder over a library
/// with data (the behaviour is StoreContractTests').
@Suite struct StoreGPodderTests {
    /// Actions for episodes the library does not have are kept as rows without an item, until
    /// their episode arrives (StoreContractTests has what that does to watch state).
    @Test func actionsMatchingNoEpisodeStayPending() async throws {
        let t = try TestLibrary()
        let feed = "https://example.com/new.xml"
        func play(_ guid: String) -> EpisodeAction {
            EpisodeAction(podcast: feed, episode: "https://example.com/\(guid).mp3", guid: guid, kind: .play, device: "phone",
                          timestamp: 5000, started: 0, position: 30, total: 600)
        }
        _ = try await t.library.recordEpisodeActions([play("e1"), play("e9")], now: 5000)
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: "https://example.com/new", feedURL: feed,
                                                     name: "New", now: 6000)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "New", items: [
            Item(id: "e1", guid: "e1", title: "e1", duration: 600, enclosure: Enclosure(url: "https://example.com/e1.mp3")),
        ]), channelID: channel.id, now: 7000)
        let pending = try await t.library.read { db in
            try String.fetchAll(db, sql: "SELECT guid FROM episode_actions WHERE item IS NULL ORDER BY id")
        }
        #expect(pending == ["e9"])
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
