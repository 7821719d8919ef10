import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// gpodder.net sync in the store: the sync clock, subscription changes made anywhere, episode
/// actions onto watch state (last writer wins, guids kept apart), feedctl's own progress given
/// back, devices.
final class StoreGPodderTests: XCTestCase {
    private static let feedURL = "https://example.com/show.xml"

    /// One podcast of three episodes: `a` and `b` share a media URL (their guids differ), `c`
    /// has its own; each is 600 s long.
    private struct Podcast {
        let library: any UserLibrary
        let ids: [Int64]

        init(_ db: TestDatabase) async throws {
            library = db.owner
            let channel = try await library.addChannel(platform: .podcast, sourceURL: "https://example.com/show",
                                                       feedURL: StoreGPodderTests.feedURL, name: "Show", now: 1000)
            let items = [
                Item(id: "guid-a", guid: "guid-a", title: "A", duration: 600, enclosure: Enclosure(url: "https://example.com/same.mp3")),
                Item(id: "guid-b", guid: "guid-b", title: "B", duration: 600, enclosure: Enclosure(url: "https://example.com/same.mp3")),
                Item(id: "guid-c", guid: "guid-c", title: "C", duration: 600, enclosure: Enclosure(url: "https://example.com/c.mp3")),
            ]
            _ = try await library.ingest(Feed(kind: .podcast, title: "Show", items: items), channelID: channel.id, now: 1000)
            var ids: [Int64] = []
            for guid in ["guid-a", "guid-b", "guid-c"] { ids.append(try await library.id(of: guid)) }
            self.ids = ids
        }
    }

    private func play(_ guid: String?, _ episode: String = "https://example.com/same.mp3", position: Int, total: Int? = 600,
                      at time: Int64, device: String = "phone") -> EpisodeAction {
        EpisodeAction(podcast: Self.feedURL, episode: episode, guid: guid, kind: .play, device: device, timestamp: time,
                      started: 0, position: position, total: total)
    }

    func testSubscriptionsMadeAnywhereArePulledAndSinceZeroIsAll() async throws {
        try await forEachEngine { db in
            let library = try await Podcast(db).library
            let all = try await library.subscriptionChanges(since: 0)
            XCTAssertEqual(all.added, [Self.feedURL])
            XCTAssertTrue(all.removed.isEmpty)
            let other = try await library.addChannel(platform: .podcast, sourceURL: "https://example.com/two",
                                                     feedURL: "https://example.com/two.xml", name: "Two", now: 2000)
            let after = try await library.subscriptionChanges(since: all.timestamp)
            XCTAssertEqual(after.added, ["https://example.com/two.xml"])
            XCTAssertTrue(after.removed.isEmpty)
            XCTAssertGreaterThan(after.timestamp, all.timestamp)
            try await library.removeChannel(id: other.id)
            let removed = try await library.subscriptionChanges(since: after.timestamp)
            XCTAssertTrue(removed.added.isEmpty)
            XCTAssertEqual(removed.removed, ["https://example.com/two.xml"])
            await assertEqual(try await library.subscriptionChanges(since: 0).added, [Self.feedURL])
            // Another user's subscriptions are not this user's.
            let bob = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            await assertEqual(try await db.store(for: bob.id).subscriptionChanges(since: 0).added, [])
            // Removing a user who follows channels works (their change rows go with them).
            _ = try await db.store(for: bob.id).addChannel(platform: .podcast, sourceURL: Self.feedURL, feedURL: Self.feedURL,
                                                           name: "Show", now: 3000)
            try await library.removeUser(named: "bob")
        }
    }

    func testPlayActionsMoveProgressAndMarkHeardItemsWatched() async throws {
        try await forEachEngine { db in
            let p = try await Podcast(db)
            let (library, ids) = (p.library, p.ids)
            _ = try await library.recordEpisodeActions([play("guid-a", position: 120, at: 5000)], now: 5000)
            await assertEqual(try await library.item(id: ids[0]).progress, 120)
            await assertEqual(try await library.item(id: ids[1]).progress, 0)  // same URL, other guid: untouched
            _ = try await library.recordEpisodeActions([play("guid-b", position: 600, at: 5001)], now: 5001)
            await assertTrue(try await library.item(id: ids[1]).watched)
            await assertEqual(try await library.item(id: ids[0]).watched, false)
            // Position -1 is none: kept, but moves nothing.
            _ = try await library.recordEpisodeActions([play("guid-a", position: -1, at: 5002)], now: 5002)
            await assertEqual(try await library.item(id: ids[0]).progress, 120)
            // `new` marks it unwatched again.
            _ = try await library.recordEpisodeActions([EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/same.mp3",
                                                                      guid: "guid-b", kind: .new, timestamp: 5003)], now: 5003)
            await assertEqual(try await library.item(id: ids[1]).watched, false)
            // Without a guid, the media URL finds the one item that has it; never one of two.
            _ = try await library.recordEpisodeActions([play(nil, "https://example.com/c.mp3", position: 33, at: 5004)], now: 5004)
            await assertEqual(try await library.item(id: ids[2]).progress, 33)
            _ = try await library.recordEpisodeActions([play(nil, position: 44, at: 5005)], now: 5005)
            await assertEqual(try await library.item(id: ids[0]).progress, 120)
            await assertEqual(try await library.item(id: ids[1]).progress, 0)
        }
    }

    func testTheLastWriterWinsByTheActionsTimestamp() async throws {
        try await forEachEngine { db in
            let p = try await Podcast(db)
            let (library, ids) = (p.library, p.ids)
            _ = try await library.recordEpisodeActions([play("guid-a", position: 300, at: 6000)], now: 6000)
            // An older action uploaded later does not win.
            _ = try await library.recordEpisodeActions([play("guid-a", position: 100, at: 5000, device: "laptop")], now: 6001)
            await assertEqual(try await library.item(id: ids[0]).progress, 300)
            // Within one upload, the latest by timestamp wins whatever the order.
            _ = try await library.recordEpisodeActions([play("guid-a", position: 400, at: 7001), play("guid-a", position: 350, at: 7000)],
                                                       now: 7002)
            await assertEqual(try await library.item(id: ids[0]).progress, 400)
            // feedctl's own change is a writer too.
            try await library.setProgress(ids[0], seconds: 10, now: 8000)
            _ = try await library.recordEpisodeActions([play("guid-a", position: 500, at: 7500)], now: 8001)
            await assertEqual(try await library.item(id: ids[0]).progress, 10)
            // The aggregated pull gives the latest action of each episode, guids kept apart.
            _ = try await library.recordEpisodeActions([play("guid-b", position: 60, at: 7600)], now: 8002)
            let aggregated = try await library.episodeActions(EpisodeActionQuery(since: 0, device: "phone", aggregated: true)).actions
            XCTAssertEqual(aggregated.map(\.guid).sorted { ($0 ?? "") < ($1 ?? "") }, ["guid-a", "guid-b"])
            XCTAssertEqual(aggregated.first { $0.guid == "guid-a" }?.position, 500)
        }
    }

    /// A phone subscribes and uploads positions before this library has polled the feed: the
    /// actions are kept, then applied when the episodes arrive (in order: the later action
    /// wins), for the user who follows the podcast and no one else; what still matches nothing
    /// stays pending, and is applied when its episode arrives later.
    func testActionsForEpisodesNotYetHereApplyWhenTheyArrive() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let bob = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let newFeed = "https://example.com/new.xml"
            func action(_ guid: String, _ kind: EpisodeActionKind, position: Int? = nil, at time: Int64) -> EpisodeAction {
                EpisodeAction(podcast: newFeed, episode: "https://example.com/\(guid).mp3", guid: guid, kind: kind, device: "phone",
                              timestamp: time, started: position == nil ? nil : 0, position: position, total: position == nil ? nil : 600)
            }
            _ = try await library.recordEpisodeActions([
                action("e1", .play, position: 120, at: 5000),
                action("e2", .play, position: 590, at: 5001),          // heard to the end
                action("e3", .play, position: 200, at: 5002), action("e3", .new, at: 5003),  // then reset
                action("e9", .play, position: 30, at: 5004),           // not in the feed yet
            ], now: 5004)
            let channel = try await library.addChannel(platform: .podcast, sourceURL: "https://example.com/new", feedURL: newFeed,
                                                       name: "New", now: 6000)
            // Bob follows it too, but the actions were not his.
            await assertEqual(try await db.store(for: bob.id).addChannel(platform: .podcast, sourceURL: "https://example.com/new",
                                                                         feedURL: newFeed, name: "New", now: 6000).id, channel.id)
            func episode(_ id: String) -> Item {
                Item(id: id, guid: id, title: id, duration: 600, enclosure: Enclosure(url: "https://example.com/\(id).mp3"))
            }
            _ = try await library.ingest(Feed(kind: .podcast, title: "New", items: ["e1", "e2", "e3"].map(episode)), channelID: channel.id, now: 7000)
            let ids = try await [library.id(of: "e1"), library.id(of: "e2"), library.id(of: "e3")]
            let records = try await library.itemRecords(ids: ids)
            XCTAssertEqual(records.map(\.item.progress), [120, 0, 0])
            XCTAssertEqual(records.map(\.item.watched), [false, true, false])
            await assertEqual(try await db.store(for: bob.id).itemRecords(ids: ids).map(\.item.progress), [0, 0, 0])
            // e9 arrives later: its action was still kept.
            _ = try await library.ingest(Feed(kind: .podcast, title: "New", items: ["e1", "e2", "e3", "e9"].map(episode)),
                                         channelID: channel.id, now: 8000)
            let e9 = try await library.id(of: "e9")
            await assertEqual(try await library.item(id: e9).progress, 30)
            await assertEqual(try await db.store(for: bob.id).item(id: e9).progress, 0)
            await assertEqual(try await library.itemRecords(ids: ids).map(\.item.progress), [120, 0, 0])
        }
    }

    func testActionsAreKeptAndGivenBackWithFeedctlsOwnProgress() async throws {
        try await forEachEngine { db in
            let p = try await Podcast(db)
            let (library, ids) = (p.library, p.ids)
            let start = try await library.syncClock()
            let unknown = EpisodeAction(podcast: "https://elsewhere.example/feed", episode: "https://elsewhere.example/e.mp3",
                                        kind: .download, device: "phone", timestamp: 4000)
            let uploaded = try await library.recordEpisodeActions([unknown, play("guid-a", position: 90, at: 4001)], now: 4001)
            XCTAssertGreaterThan(uploaded, start)
            // Nothing since the upload: the phone's own change is not echoed as feedctl's.
            await assertTrue(try await library.episodeActions(EpisodeActionQuery(since: uploaded)).actions.isEmpty)
            let all = try await library.episodeActions(EpisodeActionQuery(since: 0)).actions
            XCTAssertTrue(all.contains(unknown))
            XCTAssertTrue(all.contains { $0.guid == "guid-a" && $0.position == 90 && $0.device == "phone" })
            // Progress set in feedctl comes back as a play action, watched as one at the end.
            try await library.setProgress(ids[2], seconds: 42, now: 9000)
            try await library.setWatched([ids[1]], now: 9001)
            let local = try await library.episodeActions(EpisodeActionQuery(since: uploaded)).actions
            XCTAssertTrue(local.contains(EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/c.mp3", guid: "guid-c", kind: .play,
                                                       timestamp: 9000, position: 42, total: 600)), "\(local)")
            XCTAssertTrue(local.contains(EpisodeAction(podcast: Self.feedURL, episode: "https://example.com/same.mp3", guid: "guid-b", kind: .play,
                                                       timestamp: 9001, position: 600, total: 600)), "\(local)")
            // A device's own uploads only, without feedctl's.
            await assertTrue(try await library.episodeActions(EpisodeActionQuery(since: uploaded, device: "phone")).actions.isEmpty)
            // Another user sees none of it.
            let bob = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            await assertTrue(try await db.store(for: bob.id).episodeActions(EpisodeActionQuery(since: 0)).actions.isEmpty)
        }
    }

    func testTheSyncClockNeverRepeats() async throws {
        try await forEachEngine { db in
            let p = try await Podcast(db)
            var stamps: [Int64] = []
            for n in 0..<5 {
                stamps.append(try await p.library.recordEpisodeActions([play("guid-c", position: n, at: 100 + Int64(n))], now: 100))
            }
            try await p.library.setProgress(p.ids[0], seconds: 5, now: 100)
            stamps.append(try await p.library.syncClock())
            XCTAssertEqual(stamps, stamps.sorted())
            XCTAssertEqual(Set(stamps).count, stamps.count)
        }
    }

    /// A user's devices: created by id, updated by what is given, another user's apart;
    /// gpodder.net's device id rule.
    func testDevicesAreSavedPerUser() async throws {
        try await forEachEngine { db in
            let library = db.owner
            await assertEqual(try await library.syncDevices(), [])
            try await library.saveSyncDevice(id: "phone", caption: "My phone", type: .mobile, now: 10)
            try await library.saveSyncDevice(id: "laptop", caption: nil, type: nil, now: 11)
            try await library.saveSyncDevice(id: "phone", caption: nil, type: nil, now: 12)
            try await library.saveSyncDevice(id: "laptop", caption: "Work", type: .laptop, now: 13)
            let devices = try await library.syncDevices()
            XCTAssertEqual(devices.map(\.id), ["laptop", "phone"])
            XCTAssertEqual(devices.map(\.caption), ["Work", "My phone"])
            XCTAssertEqual(devices.map(\.type), [.laptop, .mobile])
            XCTAssertEqual(devices.map(\.updatedAt), [13, 12])
            do {
                try await library.saveSyncDevice(id: "no spaces", caption: nil, type: nil, now: 14)
                XCTFail("a device id with a space was accepted")
            } catch {
                if case .invalid = error as? LibraryError {} else { XCTFail("\(error)") }
            }
            let bob = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            await assertEqual(try await db.store(for: bob.id).syncDevices(), [])
            await assertEqual(try await library.syncDevices().count, 2)
        }
    }
}
