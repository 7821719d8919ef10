@testable import FeedIngest
import Foundation
import GRDB
import TestSupport
import XCTest

/// Sync end to end: the generated corpus served from 127.0.0.1, a real library file, and the
/// manifest as the ground truth.
final class SyncCorpusE2ETests: XCTestCase {
    /// Channels added without a fetch (as after an import): one cold sync brings in every
    /// manifest item; a second adds nothing and costs one 304 per channel.
    func testColdSyncHasEveryManifestItemAndTheSecondSyncIsAll304s() async throws {
        let (root, manifest) = try SyncCorpus.shared()
        let h = try SyncHarness(root: root)
        let channels = try await manifest.files.asyncMap { try await h.addChannel("/" + $0.path, platform: $0.platform) }

        let cold = await h.syncer.sync(channels, now: 2000)
        XCTAssertEqual(cold.channels.map(\.id), channels.map(\.id), "results come back in the channels' order")
        for (file, result) in zip(manifest.files, cold.channels) {
            XCTAssertEqual(result.status, .updated, "\(file.path): \(result.error ?? "")")
            XCTAssertEqual(result.newItems, file.expectedTitles.count, file.path)
            XCTAssertNil(result.error, file.path)
            try await assertLibrary(h, channel: result.id, matches: file)
            let stored = try await h.library.channel(id: result.id)
            XCTAssertEqual(stored.name, file.channel.title, file.path)
            XCTAssertEqual(stored.lastSynced, 2000, file.path)
            XCTAssertEqual(stored.nextPoll, 2000 + 3600, file.path)
            XCTAssertNotNil(stored.etag, file.path)
        }
        XCTAssertEqual(cold.newItems, manifest.files.reduce(0) { $0 + $1.expectedTitles.count })
        XCTAssertEqual(cold.errors, 0)

        let before = try h.server.stats().log.count
        let rows = try await h.snapshotAll()
        let again = await h.syncer.sync(try await h.library.allChannels(), now: 3000)
        XCTAssertEqual(again.channels.map(\.status), Array(repeating: .unchanged, count: channels.count))
        XCTAssertEqual(again.newItems, 0)
        XCTAssertEqual(again.errors, 0)
        let second = Array(try h.server.stats().log.dropFirst(before))
        XCTAssertEqual(second.map(\.path).sorted(), manifest.files.map { "/" + $0.path }.sorted())
        XCTAssertEqual(second.map(\.status), Array(repeating: 304, count: channels.count))
        XCTAssertEqual(second.map(\.sent), Array(repeating: 0, count: channels.count), "a 304 has no body")
        let got1 = try await h.snapshotAll()
        XCTAssertEqual(got1, rows, "an all-304 sync writes no item")
        let value3 = try await h.library.channel(id: channels[0].id).nextPoll
        XCTAssertEqual(value3, 3000 + 3600, "a 304 is a successful poll")
    }

    /// `channel add` for every corpus file stores each channel with all its items, under the
    /// right platform; the sync right after is all 304s.
    func testSubscribingEveryFileStoresEveryItem() async throws {
        let (root, manifest) = try SyncCorpus.shared()
        let h = try SyncHarness(root: root)
        for file in manifest.files {
            let added = try await h.subscriber.add(h.server.url("/" + file.path), now: 5000)
            XCTAssertEqual(added.count, 1, file.path)
            guard let entry = added.first else { continue }
            XCTAssertEqual(entry.newItems, file.expectedTitles.count, file.path)
            XCTAssertEqual(entry.channel.platform, file.platform, file.path)
            XCTAssertEqual(entry.channel.name, file.channel.title, file.path)
            XCTAssertEqual(entry.channel.items, file.expectedTitles.count, file.path)
            XCTAssertEqual(entry.channel.unwatched, file.expectedTitles.count, file.path)
            XCTAssertEqual(entry.channel.feedURL, h.server.url("/" + file.path), file.path)
            XCTAssertEqual(entry.channel.lastSynced, 5000, file.path)
            XCTAssertNil(entry.channel.lastError, file.path)
            try await assertLibrary(h, channel: entry.channel.id, matches: file)
        }
        let value4 = try await h.library.allChannels().count
        XCTAssertEqual(value4, manifest.files.count)

        // Adding a feed again is not a second channel and finds nothing new.
        let repeated = try await h.subscriber.add(h.server.url("/" + manifest.files[0].path), now: 5001)
        XCTAssertEqual(repeated.map(\.newItems), [0])
        let value5 = try await h.library.allChannels().count
        XCTAssertEqual(value5, manifest.files.count)

        let before = try h.server.stats().log.count
        let report = await h.syncer.sync(try await h.library.allChannels(), now: 6000)
        XCTAssertEqual(report.newItems, 0)
        XCTAssertEqual(Set(report.channels.map(\.status)), [.unchanged])
        XCTAssertEqual(Set(try h.server.stats().log.dropFirst(before).map(\.status)), [304])
    }

    /// A server without validators sends the whole body every time: an identical body is
    /// recognised by its hash and neither parsed nor written; a changed one is.
    func testUnchangedBodyWithoutValidatorsIsSkippedByItsHash() async throws {
        let (corpus, manifest) = try SyncCorpus.shared()
        let h = try SyncHarness()
        let path = "youtube/channel-0001.xml"
        try h.copy([path], from: corpus)
        let channel = try await h.addChannel("/plain/" + path, platform: .youtube)

        let first = await h.syncer.sync([channel], now: 2000)
        XCTAssertEqual(first.channels.map(\.status), [.updated])
        let stored = try await h.library.channel(id: channel.id)
        XCTAssertNil(stored.etag)
        XCTAssertNil(stored.lastModified)
        XCTAssertNotNil(stored.bodyHash)

        // Were the body parsed and ingested again, this title would be put back.
        let file = try manifest.file(path)
        let victim = file.libraryID(file.items[0])
        try await h.library.write { db in
            try db.execute(sql: "UPDATE items SET title = 'edited locally' WHERE item_id = ?", arguments: [victim])
        }
        let same = await h.syncer.sync([try await h.library.channel(id: channel.id)], now: 3000)
        XCTAssertEqual(same.channels.map(\.status), [.unchanged])
        XCTAssertEqual(same.newItems, 0)
        let value1 = try await h.titles(channel: channel.id)[victim]
        XCTAssertEqual(value1, "edited locally")
        XCTAssertEqual(try h.server.stats().statuses("/plain/" + path), [200, 200])
        let value6 = try await h.library.channel(id: channel.id).lastSynced
        XCTAssertEqual(value6, 3000)

        try h.edit(path) { $0 + "\n" }  // same feed, different bytes
        let changed = await h.syncer.sync([try await h.library.channel(id: channel.id)], now: 4000)
        XCTAssertEqual(changed.channels.map(\.status), [.updated])
        XCTAssertEqual(changed.newItems, 0)
        let value2 = try await h.titles(channel: channel.id)[victim]
        XCTAssertEqual(value2, file.items[0].title)
    }

    /// Titles and view counts change upstream; the items are updated in place and what the
    /// person did with them (watched, progress) stays.
    func testWatchStateSurvivesAResyncThatChangesTitlesAndViews() async throws {
        let (corpus, manifest) = try SyncCorpus.shared()
        let h = try SyncHarness()
        let paths = ["youtube/channel-0002.xml", "podcast/feed-0001.xml"]
        try h.copy(paths, from: corpus)
        let channels = try await paths.asyncMap { try await h.addChannel("/" + $0) }
        _ = await h.syncer.sync(channels, now: 2000)

        let video = try manifest.file(paths[0]), podcast = try manifest.file(paths[1])
        let watched = try await h.library.id(of: video.libraryID(video.items[0]))
        let playing = try await h.library.id(of: video.libraryID(video.items[1]))
        let episode = try await h.library.id(of: podcast.libraryID(podcast.items[0]))
        try await h.library.setWatched([watched, episode], now: 2100)
        try await h.library.setProgress(playing, seconds: 95, now: 2200)
        let stateBefore = try await h.watchState()

        try h.edit(paths[0]) { text in
            text.replacingOccurrences(of: "<title>\(xmlEscaped(video.items[0].title))</title>", with: "<title>Renamed video</title>")
                .replacingOccurrences(of: "views=\"", with: "views=\"1")
        }
        try h.edit(paths[1]) { $0.replacingOccurrences(of: xmlEscaped(podcast.items[0].title), with: "Renamed episode") }
        let report = await h.syncer.sync(try await channels.asyncMap { try await h.library.channel(id: $0.id) }, now: 3000)

        XCTAssertEqual(report.channels.map(\.status), [.updated, .updated])
        XCTAssertEqual(report.newItems, 0)
        let value7 = try await h.library.item(id: watched).title
        XCTAssertEqual(value7, "Renamed video")
        let value8 = try await h.library.item(id: episode).title
        XCTAssertEqual(value8, "Renamed episode")
        let got2 = try await h.watchState()
        XCTAssertEqual(got2, stateBefore)
        let value9 = try await h.library.item(id: watched).watched
        XCTAssertEqual(value9, true)
        let value10 = try await h.library.item(id: playing).progress
        XCTAssertEqual(value10, 95)
        let value11 = try await h.library.item(id: episode).watched
        XCTAssertEqual(value11, true)
        // Every video's views gained a leading 1 (493 → 1493).
        let channelID = channels[0].id
        let views = try await h.library.read { db in
            try Row.fetchAll(db, sql: "SELECT item_id, views FROM items WHERE channel_id = ?", arguments: [channelID])
                .map { (id: $0["item_id"] as String, views: $0["views"] as Int64?) }
        }
        XCTAssertEqual(views.count, 15)
        let expectedViews = try manifestViews(video)
        for row in views {
            XCTAssertEqual(row.views, expectedViews[row.id].map { Int64("1\($0)")! }, row.id)
        }
    }
}

extension SyncHarness {
    /// All items and watch state, as text.
    func snapshotAll() async throws -> [String] {
        try await library.allChannels().asyncMap { try await snapshot(channel: $0.id) }.flatMap { $0 }
    }

    /// The watch_state table, as text.
    func watchState() async throws -> [String] {
        try await library.read { db in try Row.fetchAll(db, sql: "SELECT * FROM watch_state ORDER BY item").map(\.description) }
    }
}

/// The text as it appears escaped in the corpus's XML (`&` and `<` as entities; quotes stay).
func xmlEscaped(_ s: String) -> String {
    s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
}

/// item_id → views of a YouTube manifest file (read from the raw manifest: `views` is YouTube-only).
func manifestViews(_ file: Manifest.File) throws -> [String: Int64] {
    let (root, _) = try SyncCorpus.shared()
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("manifest.json"))) as? [String: Any]
    let files = json?["files"] as? [[String: Any]] ?? []
    let entry = files.first { $0["path"] as? String == file.path }
    var views: [String: Int64] = [:]
    for item in entry?["items"] as? [[String: Any]] ?? [] {
        if let id = item["video_id"] as? String, let n = (item["views"] as? NSNumber)?.int64Value { views[id] = n }
    }
    return views
}
