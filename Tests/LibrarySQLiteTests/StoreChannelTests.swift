import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

@Suite struct StoreChannelTests {
    let t: TestLibrary
    init() async throws { t = try TestLibrary() }

    @Test func defaultPath() async {
        #expect(SQLiteLibrary.defaultPath(environment: ["FEEDCTL_DB": "/tmp/x.sqlite", "XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/tmp/x.sqlite")
        #expect(SQLiteLibrary.defaultPath(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/d/feedctl/library.sqlite")
        #expect(SQLiteLibrary.defaultPath(environment: ["XDG_DATA_HOME": "", "HOME": "/h"]) == "/h/.local/share/feedctl/library.sqlite")
        #expect(SQLiteLibrary.defaultPath(environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"]) == "/h/.local/share/feedctl/library.sqlite")
        #expect(SQLiteLibrary.defaultPath(environment: ["FEEDCTL_DB": "", "HOME": "/h"]) == "/h/.local/share/feedctl/library.sqlite")
    }

    @Test func openCreatesTheDirectory() async throws {
        let dir = TempDir()
        let library = try SQLiteLibrary(environment: ["XDG_DATA_HOME": dir.path])
        #expect(library.path == dir.file("feedctl/library.sqlite"))
        #expect(FileManager.default.fileExists(atPath: library.path))
    }

    @Test func openFailureNamesTheFile() async {
        #expect(throws: LibraryError.self) { try SQLiteLibrary(path: "/proc/feedctl-nope/library.sqlite") }
        do {
            _ = try SQLiteLibrary(path: "/proc/feedctl-nope/library.sqlite")
        } catch {
            #expect(String(describing: error).contains("/proc/feedctl-nope"))
        }
    }

    @Test func aFileThatIsNotADatabaseIsATypedError() async throws {
        let dir = TempDir()
        let path = dir.file("garbage.sqlite")
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteLibrary(path: path)
            Issue.record("garbage opened as a library")
        } catch {
            #expect(String(describing: error) == "library \(path): file is not a database")
            #expect(error.databaseFailure?.kind == .corrupt)
            #expect(error.databaseFailure?.code == ResultCode.SQLITE_NOTADB.rawValue)
        }
    }

    @Test func addIsAnUpsertOnTheFeedURL() async throws {
        let a = try await t.library.addChannel(platform: .youtube, sourceURL: "https://www.youtube.com/@a",
                                         feedURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UCa", name: "A", now: 10)
        #expect(a.id == 1 && a.platform == .youtube && a.active && a.nextPoll == nil && a.addedAt == 10 && a.speed == nil)
        let again = try await t.library.addChannel(platform: .youtube, sourceURL: "https://www.youtube.com/channel/UCa",
                                             feedURL: a.feedURL, name: "", image: "https://i/a.jpg", now: 20)
        #expect(again.id == 1 && again.name == "A" && again.sourceURL == "https://www.youtube.com/channel/UCa")
        #expect(again.image == "https://i/a.jpg" && again.addedAt == 10)
        #expect(try await t.library.allChannels().count == 1)
        #expect(try await t.library.channel(feedURL: a.feedURL)?.id == 1)
        #expect(try await t.library.channel(feedURL: "https://nope") == nil)
    }

    @Test func listWithCountsAndRemoveKeepsHistory() async throws {
        let b = try await t.library.addTestChannel("beta")
        let a = try await t.library.addTestChannel("Alpha", platform: .rumble)
        _ = try await t.library.ingest(items: [item("1"), item("2"), item("3")], channelID: b, now: 1)
        _ = try await t.library.ingest(items: [item("4")], channelID: a, now: 1)
        let one = try await t.library.id(of: "1")
        try await t.library.setWatched([one], now: 5)
        try await t.library.save(one, now: 5)
        try await t.library.appendHistory(item: one, position: 12, now: 6)
        try await t.library.createCollection("Later", now: 6)
        try await t.library.addToCollection(item: one, collection: "Later", now: 6)

        let list = try await t.library.channelSummaries()
        #expect(list.map(\.name) == ["Alpha", "beta"])
        #expect(list.map(\.items) == [1, 3] && list.map(\.unwatched) == [1, 2])
        #expect(list[0].platform == .rumble && list[0].url == "https://example.com/Alpha")

        try await t.library.removeChannel(id: b)
        await #expect(throws: LibraryError.noChannel(b)) { try await t.library.channelSummary(id: b) }
        await #expect(throws: LibraryError.noItem(one)) { try await t.library.item(id: one) }
        #expect(try await t.library.saved().isEmpty)
        #expect(try await t.library.collections().map(\.items) == [0])
        let history = try await t.library.history()
        #expect(history.count == 1)
        #expect(history[0].item == nil && history[0].title == "Title 1" && history[0].channel == "beta"
                && history[0].url == "https://example.com/1" && history[0].position == 12)
        let orphans = try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM watch_state") }
        #expect(orphans == 0)
        await #expect(throws: LibraryError.noChannel(b)) { try await t.library.removeChannel(id: b) }
    }

    /// Applies one poll of channel `id`; returns the channel's next poll time.
    private func poll(_ id: Int64, _ outcome: Poll.Outcome, now: Int64, interval: Int64 = 600) async throws -> Int64? {
        _ = try await t.library.apply([Poll(subject: .channel(id: id), outcome: outcome, pollInterval: interval)], now: now)[0].get()
        return try await t.library.channel(id: id).nextPoll
    }

    @Test func syncOutcomesAndBackoff() async throws {
        let id = try await t.library.addTestChannel("c")
        #expect(try await t.library.polling.dueChannels(now: 0).map(\.id) == [id])
        let validators = Validators(etag: "\"e1\"", lastModified: "Mon", bodyHash: "h1")
        #expect(try await poll(id, .unchanged(validators), now: 1000) == 1600)
        #expect(try await t.library.polling.dueChannels(now: 1599).isEmpty)
        #expect(try await t.library.polling.dueChannels(now: 1600).map(\.id) == [id])

        // Failures back off 600, 1200, 2400… from the poll interval, keep validators and items.
        #expect(try await poll(id, .failed(message: "HTTP 500", retryAfter: nil), now: 2000) == 2600)
        #expect(try await poll(id, .failed(message: "HTTP 502", retryAfter: nil), now: 3000) == 4200)
        var c = try await t.library.channel(id: id)
        #expect(c.consecutiveErrors == 2 && c.lastError == "HTTP 502" && c.etag == "\"e1\"" && c.lastSynced == 1000)
        // Retry-After wins when longer; a day is the cap.
        #expect(try await poll(id, .failed(message: "HTTP 429", retryAfter: 7200), now: 5000) == 12200)
        #expect(try await poll(id, .failed(message: "x", retryAfter: 999_999), now: 0) == 86_400)
        #expect(SyncPolicy.backoff(consecutiveErrors: 60, pollInterval: 3600, retryAfter: nil) == 86_400)
        #expect(SyncPolicy.backoff(consecutiveErrors: 1, pollInterval: 3600, retryAfter: nil) == 3600)

        // A 304 passes no validators: the stored ones stay; errors reset.
        #expect(try await poll(id, .unchanged(Validators()), now: 9000) == 9600)
        c = try await t.library.channel(id: id)
        #expect(c.consecutiveErrors == 0 && c.lastError == nil && c.etag == "\"e1\"" && c.bodyHash == "h1"
                && c.lastModified == "Mon" && c.lastSynced == 9000 && c.nextPoll == 9600)
        #expect(try await t.library.channelSummary(id: id).nextPoll == 9600)

        try await t.library.setActive(channelID: id, false)
        #expect(try await t.library.polling.dueChannels(now: 100_000).isEmpty)
        await #expect(throws: LibraryError.noChannel(77)) { try await poll(77, .failed(message: "x", retryAfter: nil), now: 1) }
    }

    /// A permanent redirect moves the feed URL, unless another channel already polls the new
    /// one (then the channel keeps its URL: the redirect is followed again next time).
    @Test func movedFeedURL() async throws {
        let a = try await t.library.addTestChannel("a")
        _ = try await t.library.addTestChannel("b")
        _ = try await poll(a, .unchanged(Validators(movedTo: "https://new.example.com/a.xml")), now: 10)
        #expect(try await t.library.channel(id: a).feedURL == "https://new.example.com/a.xml")
        _ = try await poll(a, .unchanged(Validators(movedTo: "https://example.com/b.xml")), now: 20)
        #expect(try await t.library.channel(id: a).feedURL == "https://new.example.com/a.xml")
        await #expect(throws: LibraryError.noChannel(9)) {
            try await poll(9, .unchanged(Validators(movedTo: "https://z")), now: 30)
        }
    }

    @Test func readersAreNotBlockedByAWriter() async throws {
        let id = try await t.library.addTestChannel("r")
        _ = try await t.library.ingest(items: [item("one")], channelID: id, now: 1)
        let library = t.library
        // Hold the write lock (a changed row, not committed) until a concurrent read has finished.
        // A reader waiting on the writer would make the writer give up after 30 s and commit, and
        // the read would then see the new title.
        let writing = DispatchSemaphore(value: 0), readDone = DispatchSemaphore(value: 0)
        let writer = Task.detached {
            try await library.write { db in
                try db.execute(sql: "UPDATE items SET title = 'changing'")
                writing.signal()
                _ = readDone.wait(timeout: .now() + 30)
            }
        }
        // The read starts only once the writer holds its uncommitted change.
        let holding = await withCheckedContinuation { (started: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async { started.resume(returning: writing.wait(timeout: .now() + 30) == .success) }
        }
        #expect(holding, "the writer never started")
        let seen = try await library.item(id: 1).title
        readDone.signal()
        try await writer.value
        #expect(seen == "Title one")
        #expect(try await library.item(id: 1).title == "changing")
    }
}
