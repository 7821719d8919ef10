import Foundation
import GRDB
import Testing
@testable import FeedIngest

@Suite struct StoreChannelTests {
    let t: TestLibrary
    init() throws { t = try TestLibrary() }

    @Test func defaultPath() {
        #expect(Library.defaultPath(environment: ["FEEDCTL_DB": "/tmp/x.sqlite", "XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/tmp/x.sqlite")
        #expect(Library.defaultPath(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/d/feedctl/library.sqlite")
        #expect(Library.defaultPath(environment: ["XDG_DATA_HOME": "", "HOME": "/h"]) == "/h/.local/share/feedctl/library.sqlite")
        #expect(Library.defaultPath(environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"]) == "/h/.local/share/feedctl/library.sqlite")
        #expect(Library.defaultPath(environment: ["FEEDCTL_DB": "", "HOME": "/h"]) == "/h/.local/share/feedctl/library.sqlite")
    }

    @Test func openCreatesTheDirectory() throws {
        let dir = TempDir()
        let library = try Library(environment: ["XDG_DATA_HOME": dir.path])
        #expect(library.path == dir.file("feedctl/library.sqlite"))
        #expect(FileManager.default.fileExists(atPath: library.path))
    }

    @Test func openFailureNamesTheFile() {
        #expect(throws: LibraryError.self) { try Library(path: "/proc/feedctl-nope/library.sqlite") }
        do {
            _ = try Library(path: "/proc/feedctl-nope/library.sqlite")
        } catch {
            #expect(error.description.contains("/proc/feedctl-nope"))
        }
    }

    @Test func aFileThatIsNotADatabaseIsATypedError() throws {
        let dir = TempDir()
        let path = dir.file("garbage.sqlite")
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            _ = try Library(path: path)
            Issue.record("garbage opened as a library")
        } catch {
            #expect(error.description == "library \(path): file is not a database")
        }
    }

    @Test func addIsAnUpsertOnTheFeedURL() throws {
        let a = try t.library.addChannel(platform: .youtube, sourceURL: "https://www.youtube.com/@a",
                                         feedURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UCa", name: "A", now: 10)
        #expect(a.id == 1 && a.platform == .youtube && a.active && a.nextPoll == nil && a.addedAt == 10 && a.speed == nil)
        let again = try t.library.addChannel(platform: .youtube, sourceURL: "https://www.youtube.com/channel/UCa",
                                             feedURL: a.feedURL, name: "", image: "https://i/a.jpg", now: 20)
        #expect(again.id == 1 && again.name == "A" && again.sourceURL == "https://www.youtube.com/channel/UCa")
        #expect(again.image == "https://i/a.jpg" && again.addedAt == 10)
        #expect(try t.library.allChannels().count == 1)
        #expect(try t.library.channel(feedURL: a.feedURL)?.id == 1)
        #expect(try t.library.channel(feedURL: "https://nope") == nil)
    }

    @Test func listWithCountsAndRemoveKeepsHistory() throws {
        let b = try t.library.addTestChannel("beta")
        let a = try t.library.addTestChannel("Alpha", platform: .rumble)
        _ = try t.library.ingest(items: [item("1"), item("2"), item("3")], channelID: b, now: 1)
        _ = try t.library.ingest(items: [item("4")], channelID: a, now: 1)
        let one = try t.library.id(of: "1")
        try t.library.setWatched([one], now: 5)
        try t.library.save(one, now: 5)
        try t.library.appendHistory(item: one, position: 12, now: 6)
        try t.library.createCollection("Later", now: 6)
        try t.library.addToCollection(item: one, collection: "Later", now: 6)

        let list = try t.library.channelSummaries()
        #expect(list.map(\.name) == ["Alpha", "beta"])
        #expect(list.map(\.items) == [1, 3] && list.map(\.unwatched) == [1, 2])
        #expect(list[0].platform == .rumble && list[0].url == "https://example.com/Alpha")

        try t.library.removeChannel(id: b)
        #expect(throws: LibraryError.noChannel(b)) { try t.library.channelSummary(id: b) }
        #expect(throws: LibraryError.noItem(one)) { try t.library.item(id: one) }
        #expect(try t.library.saved().isEmpty)
        #expect(try t.library.collections().map(\.items) == [0])
        let history = try t.library.history()
        #expect(history.count == 1)
        #expect(history[0].item == nil && history[0].title == "Title 1" && history[0].channel == "beta"
                && history[0].url == "https://example.com/1" && history[0].position == 12)
        let orphans = try t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM watch_state") }
        #expect(orphans == 0)
        #expect(throws: LibraryError.noChannel(b)) { try t.library.removeChannel(id: b) }
    }

    @Test func syncOutcomesAndBackoff() throws {
        let id = try t.library.addTestChannel("c")
        #expect(try t.library.dueChannels(now: 0).map(\.id) == [id])
        #expect(try t.library.recordSyncSuccess(channelID: id, now: 1000, etag: "\"e1\"", lastModified: "Mon",
                                                bodyHash: "h1", pollInterval: 600) == 1600)
        #expect(try t.library.dueChannels(now: 1599).isEmpty)
        #expect(try t.library.dueChannels(now: 1600).map(\.id) == [id])

        // Failures back off 600, 1200, 2400… from the poll interval, keep validators and items.
        #expect(try t.library.recordSyncFailure(channelID: id, error: "HTTP 500", now: 2000, pollInterval: 600) == 2600)
        #expect(try t.library.recordSyncFailure(channelID: id, error: "HTTP 502", now: 3000, pollInterval: 600) == 4200)
        var c = try t.library.channel(id: id)
        #expect(c.consecutiveErrors == 2 && c.lastError == "HTTP 502" && c.etag == "\"e1\"" && c.lastSynced == 1000)
        // Retry-After wins when longer; a day is the cap.
        #expect(try t.library.recordSyncFailure(channelID: id, error: "HTTP 429", now: 5000, retryAfter: 7200, pollInterval: 600) == 12200)
        #expect(try t.library.recordSyncFailure(channelID: id, error: "x", now: 0, retryAfter: 999_999, pollInterval: 600) == 86_400)
        #expect(SyncPolicy.backoff(consecutiveErrors: 60, pollInterval: 3600, retryAfter: nil) == 86_400)
        #expect(SyncPolicy.backoff(consecutiveErrors: 1, pollInterval: 3600, retryAfter: nil) == 3600)

        // A 304 passes no validators: the stored ones stay; errors reset.
        try t.library.recordSyncSuccess(channelID: id, now: 9000, pollInterval: 600)
        c = try t.library.channel(id: id)
        #expect(c.consecutiveErrors == 0 && c.lastError == nil && c.etag == "\"e1\"" && c.bodyHash == "h1"
                && c.lastModified == "Mon" && c.lastSynced == 9000 && c.nextPoll == 9600)
        #expect(try t.library.channelSummary(id: id).nextPoll == 9600)

        try t.library.setActive(channelID: id, false)
        #expect(try t.library.dueChannels(now: 100_000).isEmpty)
        #expect(throws: LibraryError.noChannel(77)) { try t.library.recordSyncFailure(channelID: 77, error: "x", now: 1) }
    }

    @Test func updateFeedURL() throws {
        let a = try t.library.addTestChannel("a")
        let b = try t.library.addTestChannel("b")
        try t.library.updateFeedURL(channelID: a, to: "https://new.example.com/a.xml")
        #expect(try t.library.channel(id: a).feedURL == "https://new.example.com/a.xml")
        #expect(throws: LibraryError.invalid("channel \(b) already uses feed URL https://example.com/b.xml")) {
            try t.library.updateFeedURL(channelID: a, to: "https://example.com/b.xml")
        }
        #expect(throws: LibraryError.noChannel(9)) { try t.library.updateFeedURL(channelID: 9, to: "https://z") }
    }

    @Test func readersAreNotBlockedByAWriter() async throws {
        let id = try t.library.addTestChannel("r")
        _ = try t.library.ingest(items: [item("one")], channelID: id, now: 1)
        let library = t.library
        // Hold the write lock until a concurrent read has finished (a reader waiting on the
        // writer would deadlock here; the test process would hang, not pass).
        let readDone = DispatchSemaphore(value: 0)
        let writer = Task.detached {
            try library.write { db in
                try db.execute(sql: "UPDATE items SET title = 'changing'")
                _ = readDone.wait(timeout: .now() + 30)
            }
        }
        try await Task.sleep(nanoseconds: 50_000_000)
        let seen = try library.item(id: 1).title
        readDone.signal()
        try await writer.value
        #expect(seen == "Title one")
        #expect(try library.item(id: 1).title == "changing")
    }
}
