import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// v14-saved-and-collections: a v11 library's saved items and collections (two users' of them)
/// survive with their times, order and owners, gain the API's ids and fields, and the CLI's
/// name-based calls keep working on them.
@Suite struct StoreSavedAndCollectionsMigrationTests {
    @Test func aV11LibraryKeepsItsSavedItemsAndCollections() async throws {
        let dir = TempDir()
        let path = dir.file("v11.sqlite")
        do {
            let old = try SQLiteLibrary(path: path, migrateUpTo: "v11-users")
            #expect(try await old.appliedMigrations().last == "v11-users")
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO users (id, name, is_admin, created_at) VALUES (2, 'bob', 0, 10);
                    INSERT INTO channels (id, platform, source_url, feed_url, name, added_at)
                        VALUES (7, 'podcast', 'https://x', 'https://x/feed', 'X', 100);
                    INSERT INTO subscriptions (user_id, channel_id, added_at) VALUES (1, 7, 100), (2, 7, 100);
                    INSERT INTO items (id, channel_id, item_id, title, url, enclosure_url, thumbnail, published, discovered_at)
                        VALUES (42, 7, 'a', 'First', 'https://x/a', 'https://x/a.mp3', 'https://x/a.png', 500, 600),
                               (43, 7, 'b', 'Second', NULL, 'https://x/b.mp3', NULL, 510, 600),
                               (44, 7, 'c', 'Third', NULL, NULL, NULL, 520, 600);
                    INSERT INTO saved_items (user_id, item, saved_at) VALUES (1, 43, 800), (1, 42, 801), (2, 44, 802);
                    INSERT INTO collections (id, user_id, name, created_at) VALUES (3, 1, 'Later', 900), (4, 2, 'Later', 901);
                    INSERT INTO collection_items (collection, item, position, added_at) VALUES (3, 43, 1, 901), (3, 42, 2, 902), (4, 44, 1, 903);
                    """)
            }
        }
        let library = try SQLiteLibrary(path: path)
        #expect(try await library.appliedMigrations() == Schema.migrationNames)
        let bob = library.acting(as: UserID(2))
        for (table, count) in ["saved_items": 3, "collections": 2, "collection_items": 3] {
            let n = try await library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") }
            #expect(n == count, "\(table)")
        }

        // The CLI's view, unchanged: most recently saved first, collections by name in order.
        #expect(try await library.saved().map(\.id) == [42, 43])
        #expect(try await bob.saved().map(\.id) == [44])
        #expect(try await library.collection("Later").map(\.id) == [43, 42])
        #expect(try await bob.collection("Later").map(\.id) == [44])

        // The API's view: saved videos with ids, each with its item's data and its saved time.
        let (videos, total) = try await library.savedVideos(SavedVideoQuery())
        #expect(total == 2)
        #expect(videos.map(\.itemID) == [42, 43])
        #expect(videos.map(\.savedAt) == [801, 800])
        #expect(videos.map(\.updatedAt) == [801, 800])
        #expect(videos.first?.page == SavedPage(platform: "podcast", videoID: "a", videoURL: "https://x/a", title: "First",
                                               thumbnailURL: "https://x/a.png", uploadDate: 500, channelName: "X",
                                               channelRef: "7", channelURL: "https://x"))
        #expect(videos.last?.page.videoURL == "https://x/b.mp3", "no page: the media")
        let bobs = try await bob.savedVideos(SavedVideoQuery())
        #expect(bobs.videos.map(\.itemID) == [44])
        if let first = videos.first {
            await #expect(throws: LibraryError.noSavedVideo(first.id)) { try await bob.savedVideo(id: first.id) }
        }

        // Collections keep their ids, gain a description, cover, sort order and update time.
        let details = try await library.collectionDetails()
        #expect(details == [CollectionDetails(id: 3, name: "Later", description: nil, coverURL: nil, sortOrder: 0, itemCount: 2,
                                              createdAt: 900, updatedAt: 900)])
        #expect(try await library.collectionEntries(id: 3).map { "\($0.item.id)@\($0.position)" } == ["43@1", "42@2"])
        #expect(try await bob.collectionDetails().map(\.id) == [4])
        await #expect(throws: LibraryError.noCollectionID(4)) { try await library.collectionEntries(id: 4) }

        // The name-based calls and the id-based ones act on the same rows.
        try await library.addToCollection(item: 44, collection: "Later", now: 1000)
        try await library.reorderCollection(id: 3, items: [44], now: 1001)
        #expect(try await library.collection("Later").map(\.id) == [44, 43, 42])
        try await library.unsave(42)
        #expect(try await library.savedVideos(SavedVideoQuery()).videos.map(\.itemID) == [43])

        // A page saved by URL is not an item: the CLI's `saved` lists the items only.
        let page = try await library.saveVideo(page: SavedPage(platform: "web", videoID: "https://p.example/v",
                                                               videoURL: "https://p.example/v", title: "P"), notes: nil, now: 1100)
        #expect(page.created && page.video.itemID == nil)
        #expect(try await library.saved().map(\.id) == [43])
        #expect(try await library.savedVideos(SavedVideoQuery()).total == 2)
    }
}
