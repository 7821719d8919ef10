#if canImport(Glibc)
import Glibc
#endif
@testable import APIServer
import FeedModel
import Foundation
import LibraryStore
import Synchronization
import TestSupport
import XCTest

/// `GET /api/events` (issue 27) on the real server over a real library: every kind of change
/// arrives, whoever makes it (the server's routes, the store, a `feedctl` process); a reconnect
/// with `Last-Event-ID` gets what it missed, or a reset when that is gone; a user never sees
/// another's changes; the per-user cap answers 429; keepalives come, the idle timeout does not
/// cut a stream, and a stream ends cleanly when the server stops.
final class EventStreamTests: XCTestCase {
    private func harness(logins: Bool = false, _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> APIHarness {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: true, version: "test")
        configure(&configuration)
        return try await APIHarness(configuration: configuration, logins: logins, events: true)
    }

    /// What `EventStream.read` waits for to have a stream's first message whole: its blank
    /// line, then the end of the chunk it came in.
    static let firstMessage = "\n\n\r\n"

    /// One server-sent event as the stream carried it: `data` is the JSON as written.
    struct Event: Equatable {
        var id: Int64?
        var kind: String
        var data: String
    }

    /// The stream's text without the HTTP head and the chunks' framing.
    static func body(_ received: String) -> String {
        var bytes = Array(received.utf8)[...]
        guard let head = received.range(of: "\r\n\r\n") else { return "" }
        bytes = bytes.dropFirst(received[..<head.upperBound].utf8.count)
        var body: [UInt8] = []
        while let end = bytes.firstIndex(of: UInt8(ascii: "\r")),
              let size = Int(String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self), radix: 16), size > 0,
              bytes.endIndex >= end + 2 + size {
            body += bytes[(end + 2)..<(end + 2 + size)]
            bytes = bytes[min(bytes.endIndex, end + 2 + size + 2)...]
        }
        return String(decoding: body, as: UTF8.self)
    }

    /// The events (with `event:`) in what a stream received, in order.
    static func events(in received: String) -> [Event] {
        body(received).components(separatedBy: "\n\n").compactMap { block in
            var id: Int64?, kind: String?, data: String?
            for line in block.components(separatedBy: "\n") {
                if line.hasPrefix("id: ") { id = Int64(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { kind = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            guard let kind, let data else { return nil }
            return Event(id: id, kind: kind, data: data)
        }
    }

    /// The position a stream starts at (its first `id:` line).
    static func position(_ received: String) -> Int64? {
        body(received).components(separatedBy: "\n").first { $0.hasPrefix("id: ") }.flatMap { Int64($0.dropFirst(4)) }
    }

    /// A channel of the owner's with `count` items, stored as a sync stores them: (channel, item ids).
    private func channel(_ library: any UserLibrary, items count: Int = 2) async throws -> (Int64, [Int64]) {
        let feed = "https://example.com/\(UUID().uuidString)"
        let channel = try await library.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Show", now: 1)
        try await library.ingest(items: (0..<count).map { Item(id: "e\($0)", title: "Episode \($0)") }, channelID: channel.id, now: 2)
        return (channel.id, try await library.itemIDs(channelID: channel.id).sorted())
    }

    func testEveryKindOfChangeArrivesOnAnOpenStream() async throws {
        let h = try await harness()
        let library = h.owner
        let stream = try EventStream(port: h.port, path: "/api/events")
        defer { stream.close() }
        let head = stream.read(until: "id: 0\n\n", timeout: 10)
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200"), head)
        XCTAssertTrue(head.lowercased().contains("content-type: text/event-stream"), head)

        // Through the server's routes: a subscription (and its first sync), a watched mark.
        let added = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let channel = try XCTUnwrap(added["id"] as? Int)
        let items = try await library.itemIDs(channelID: Int64(channel)).sorted()
        let item = try XCTUnwrap(items.first)
        _ = try await h.object("PATCH", "/api/feed/\(item)/watched", body: #"{"is_watched": true}"#)
        // Through the store, as any other process writes it: saved, a collection, a failed poll.
        let (saved, _) = try await library.saveVideo(item: item, notes: nil, now: 3)
        let collection = try await library.createCollection("Mix", description: nil, now: 4)
        _ = try await library.addToCollection(id: collection.id, item: item, now: 5)
        _ = await library.apply([Poll(subject: .channel(id: Int64(channel)), outcome: .failed(message: "feed gone", retryAfter: nil))], now: 6)

        let text = stream.read(until: #""error":"feed gone""#, timeout: 10)
        let events = Self.events(in: text)
        XCTAssertEqual(events.map(\.kind), ["subscription", "sync", "watch", "saved", "collection", "collection", "sync"], text)
        XCTAssertEqual(events.map(\.data), [
            #"{"channel_id":\#(channel),"action":"added"}"#,
            #"{"channel_id":\#(channel),"new_items":\#(items.count),"error":null}"#,
            #"{"item_id":\#(item),"watched":true,"progress_seconds":0}"#,
            #"{"saved_id":\#(saved.id),"item_id":\#(item),"action":"added"}"#,
            #"{"collection_id":\#(collection.id),"action":"created"}"#,
            #"{"collection_id":\#(collection.id),"action":"items"}"#,
            #"{"channel_id":\#(channel),"new_items":0,"error":"feed gone"}"#,
        ], text)
        // Each with its place in the log, growing.
        let ids = events.compactMap(\.id)
        XCTAssertEqual(ids.count, events.count)
        XCTAssertEqual(ids, ids.sorted())
    }

    func testAFeedctlWatchedRunAsAnotherProcessReachesAnOpenStream() async throws {
        let h = try await harness()
        let (_, items) = try await channel(h.owner)
        let stream = try EventStream(port: h.port, path: "/api/events")
        defer { stream.close() }
        XCTAssertNotNil(Self.position(stream.read(until: Self.firstMessage, timeout: 10)))

        let feedctl = try XCTUnwrap(PackagePaths.builtProgram("feedctl")?.path, "feedctl not built")
        let environment = ["XDG_CONFIG_HOME": h.dir.file("config"), "HOME": h.dir.file("home"), "PATH": "/usr/bin:/bin"]
        let run = try ProcessRunner.capture(feedctl, ["watched", String(items[1]), "--db", h.database.dbSetting],
                                            environment: environment, timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        // The spec wants it within a second; the hub reads the log every 250 ms. A test asserts
        // no timing (a loaded CI machine is not the product): it must arrive, and the time it took
        // is printed for whoever reads the log.
        let started = ContinuousClock.now
        var text = stream.read(until: "event: watch", timeout: 15)
        print("EventStreamTests: another process's watched mark reached the stream in \(ContinuousClock.now - started)")
        XCTAssertTrue(text.contains("event: watch\ndata: {\"item_id\":\(items[1]),\"watched\":true,\"progress_seconds\":0}\n\n"), text)

        // A sync by another process (`channel add` polls the feed, as a cron `feedctl sync` or
        // the daemon's scheduler would): its subscription, then its new items.
        let added = try ProcessRunner.capture(feedctl, ["channel", "add", h.feeds.url("/podcast.xml"), "--db", h.database.dbSetting],
                                              environment: environment, timeout: 60)
        XCTAssertEqual(added.status, 0, added.stderr)
        text = stream.read(until: "\"new_items\":3", timeout: 10)
        let events = Self.events(in: text).filter { $0.kind != "watch" }
        XCTAssertEqual(events.map(\.kind), ["subscription", "sync"], text)
        XCTAssertTrue(events.last?.data.hasSuffix(#""new_items":3,"error":null}"#) == true, text)
    }

    func testAReconnectWithLastEventIDGetsWhatItMissedAndNothingOfAnotherUsers() async throws {
        let h = try await harness()
        let library = h.owner
        let (_, items) = try await channel(library)
        let bobUser = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let bob = h.database.store(for: bobUser.id)
        let first = try EventStream(port: h.port, path: "/api/events")
        let seen = try XCTUnwrap(Self.position(first.read(until: Self.firstMessage, timeout: 10)))
        first.close()

        // While it is away: two of the owner's changes, and bob's.
        try await library.setWatched([items[0]], watched: true, now: 10)
        _ = try await bob.createCollection("Bob's", description: nil, now: 11)
        try await library.setProgress(items[1], seconds: 42, now: 12)

        let again = try EventStream(port: h.port, path: "/api/events", headers: ["Last-Event-ID": String(seen)])
        defer { again.close() }
        var text = again.read(until: "\"progress_seconds\":42", timeout: 10)
        XCTAssertEqual(Self.events(in: text).map(\.data), [
            #"{"item_id":\#(items[0]),"watched":true,"progress_seconds":0}"#,
            #"{"item_id":\#(items[1]),"watched":false,"progress_seconds":42}"#,
        ], text)
        // Then what happens next, once.
        try await library.setProgress(items[1], seconds: 50, now: 13)
        text = again.read(until: "\"progress_seconds\":50", timeout: 10)
        XCTAssertEqual(Self.events(in: text).map(\.kind), ["watch", "watch", "watch"], text)
        XCTAssertFalse(text.contains("collection"), "bob's change reached the owner's stream: \(text)")
    }

    func testALastEventIDFromBeforeWhatTheLogKeepsGetsAReset() async throws {
        let h = try await harness()
        let library = h.owner
        // More changes than the log keeps (one transaction, as a burst of progress would be),
        // spread over 100 items: PostgreSQL updating one row 11,000 times in one transaction
        // walks a chain of its versions each time (quadratic: over a minute on a loaded machine).
        let (_, items) = try await channel(library, items: 100)
        for item in items { try await library.setProgress(item, seconds: 1, now: 10) }
        let last = ChangeFeedRule.kept + ChangeFeedRule.pruneEvery + 1
        let list = items.map(String.init).joined(separator: ",")
        switch h.database.engine {
        case .sqlite:
            try h.database.execute((2...last).map { "UPDATE watch_state SET progress_seconds = \($0) WHERE item = \(items[Int($0 % Int64(items.count))]);" }.joined())
        case .postgresql:
            try h.database.execute("DO $$ DECLARE ids bigint[] := ARRAY[\(list)]; BEGIN FOR s IN 2..\(last) LOOP "
                                   + "UPDATE watch_state SET progress_seconds = s WHERE item = ids[1 + s % \(items.count)]; END LOOP; END $$")
        }
        let latest = try await h.database.database.changes.latestChange()
        for lastID in ["1", "not-a-number", String(latest + 100)] {
            let stream = try EventStream(port: h.port, path: "/api/events", headers: ["Last-Event-ID": lastID])
            let text = stream.read(until: "event: reset", timeout: 10)
            stream.close()
            XCTAssertTrue(text.contains("id: \(latest)\nevent: reset\ndata: {}\n\n"), "Last-Event-ID \(lastID): \(text)")
            XCTAssertFalse(text.contains("event: watch"), text)
        }
        // One that is kept resumes.
        let stream = try EventStream(port: h.port, path: "/api/events", headers: ["Last-Event-ID": String(latest - 1)])
        defer { stream.close() }
        let text = stream.read(until: "event: watch", timeout: 10)
        XCTAssertTrue(text.contains("id: \(latest)\nevent: watch\n"), text)
        XCTAssertFalse(text.contains("reset"), text)
    }

    func testOneUsersChangesNeverReachAnothersStreamAndAStreamNeedsASignIn() async throws {
        let h = try await harness(logins: true)
        _ = try await h.addUser("alice", password: "correct horse", admin: false)
        _ = try await h.addUser("bob", password: "bobs password", admin: false)
        let alice = try await h.login("alice", "correct horse"), bob = try await h.login("bob", "bobs password")
        let podcast = h.feeds.url("/podcast.xml")
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(podcast)"}"#, status: 201, token: alice)
        let added = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(podcast)"}"#, status: 201, token: bob)
        let users = try await h.owner.users()
        let bobUser = try XCTUnwrap(users.first { $0.name == "bob" })
        let items = try await h.database.store(for: bobUser.id).itemIDs(channelID: Int64(try XCTUnwrap(added["id"] as? Int))).sorted()

        let nobody = try EventStream(port: h.port, path: "/api/events")
        XCTAssertTrue(nobody.read(until: "\r\n", timeout: 10).hasPrefix("HTTP/1.1 401"))
        nobody.close()
        // Alice by her token, bob by his cookie (as his browser's EventSource sends it).
        let aliceStream = try EventStream(port: h.port, path: "/api/events", headers: ["Authorization": "Bearer \(alice)"])
        let bobStream = try EventStream(port: h.port, path: "/api/events", headers: ["Cookie": "session_token=\(bob)"])
        defer { aliceStream.close(); bobStream.close() }
        XCTAssertTrue(aliceStream.read(until: Self.firstMessage, timeout: 10).hasPrefix("HTTP/1.1 200"))
        XCTAssertTrue(bobStream.read(until: Self.firstMessage, timeout: 10).hasPrefix("HTTP/1.1 200"))

        _ = try await h.object("PATCH", "/api/feed/\(items[0])/watched", body: #"{"is_watched": true}"#, token: bob)
        _ = try await h.object("PATCH", "/api/feed/\(items[1])/progress", body: #"{"watch_progress_seconds": 30}"#, token: alice)
        let bobs = bobStream.read(until: "event: watch", timeout: 10)
        XCTAssertTrue(bobs.contains("{\"item_id\":\(items[0]),\"watched\":true,"), bobs)
        let alices = aliceStream.read(until: "event: watch", timeout: 10)
        XCTAssertTrue(alices.contains("{\"item_id\":\(items[1]),\"watched\":false,\"progress_seconds\":30}"), alices)
        // Alice's own change came after bob's: had his reached her stream, it would be there by now.
        XCTAssertFalse(alices.contains("\"item_id\":\(items[0]),"), alices)
        XCTAssertEqual(Self.events(in: alices).map(\.kind), ["watch"], alices)
        XCTAssertFalse(bobStream.read(until: "never", timeout: 0.5).contains("\"item_id\":\(items[1]),"))
    }

    func testStreamsPastTheCapPerUserAreAnswered429() async throws {
        let h = try await harness { $0.changeStreams.perUser = 2 }
        let streams = try (0..<2).map { _ in try EventStream(port: h.port, path: "/api/events") }
        defer { streams.forEach { $0.close() } }
        for stream in streams { XCTAssertTrue(stream.read(until: Self.firstMessage, timeout: 10).hasPrefix("HTTP/1.1 200")) }
        let third = try EventStream(port: h.port, path: "/api/events")
        defer { third.close() }
        let refused = third.read(until: "}", timeout: 10)
        XCTAssertTrue(refused.hasPrefix("HTTP/1.1 429"), refused)
        XCTAssertTrue(refused.contains(APIErrorBody.json("you have 2 event streams open, the most one user may; close one (a tab or a device) first")), refused)
        // One closed, another may open.
        streams[0].close()
        XCTAssertTrue(eventually(timeout: 10) {
            let next = try? EventStream(port: h.port, path: "/api/events")
            defer { next?.close() }
            return next?.read(until: Self.firstMessage, timeout: 5).hasPrefix("HTTP/1.1 200") == true
        })
    }

    /// One reader for the whole server, and only while someone listens.
    func testTheHubReadsTheLogOnlyWhileAStreamIsOpen() async throws {
        let database = try await TestDatabase.make()
        let hub = ChangeHub(feed: database.database.changes, settings: ChangeStreamSettings(perUser: 1), log: { _ in })
        var reading = await hub.isReading
        XCTAssertFalse(reading)
        // (The stream is kept: a stream nobody holds ends, as a client that left.)
        let (id, messages, _) = try await hub.open(for: .owner, resume: .now)
        defer { withExtendedLifetime(messages) {} }
        reading = await hub.isReading
        XCTAssertTrue(reading)
        do {
            _ = try await hub.open(for: .owner, resume: .now)
            XCTFail("a second stream past the cap of 1 was opened")
        } catch {
            XCTAssertEqual(error.status, .tooManyRequests)
        }
        reading = await hub.isReading
        XCTAssertTrue(reading, "a refused stream leaves the reader to the open one")
        await hub.close(id, of: .owner)
        reading = await hub.isReading
        XCTAssertFalse(reading)
    }

    /// The hub reads the log when its feed says a change may be there: on PostgreSQL as a change
    /// commits (LISTEN/NOTIFY), not every poll interval; on SQLite, which cannot tell, every poll
    /// interval, through the same call. Either way the change reaches the stream.
    func testTheHubPollsTheLogOnlyOnAnEngineThatCannotTellItOfAChange() async throws {
        try await forEachEngine { db in
            let feed = CountedChangeFeed(db.database.changes)
            let hub = ChangeHub(feed: feed, settings: ChangeStreamSettings(pollInterval: .milliseconds(50)), log: { _ in })
            let (id, messages, _) = try await hub.open(for: .owner, resume: .now)
            if db.engine == .postgresql {
                // Until its listener listens the reader polls; the first wait returns when it does.
                await feed.waitForChange(after: try await feed.latestChange(), poll: .seconds(10), timeout: .seconds(10))
            }
            let before = feed.reads
            try await Task.sleep(for: .seconds(1))   // nothing changes: 20 poll intervals
            let idle = feed.reads - before
            switch db.engine {
            case .postgresql: XCTAssertLessThanOrEqual(idle, 1, "PostgreSQL: no read without a change, not one every 50 ms")
            case .sqlite: XCTAssertGreaterThanOrEqual(idle, 5, "SQLite: a read every 50 ms")
            }
            let (_, items) = try await channel(db.owner, items: 1)
            try await db.owner.setWatched([items[0]], watched: true, now: 10)
            let arrived = Task { () -> Change? in
                for await message in messages { if case .change(let change) = message, change.kind == .watch { return change } }
                return nil
            }
            let deadline = Task { try await Task.sleep(for: .seconds(30)); arrived.cancel() }
            let change = await arrived.value
            deadline.cancel()
            XCTAssertEqual(change?.user, .owner, "the change reached the stream")
            await hub.close(id, of: .owner)
        }
    }

    func testStreamsPastTheServersTotalAreAnswered503() async throws {
        let h = try await harness { $0.changeStreams.total = 2 }
        let streams = try (0..<2).map { _ in try EventStream(port: h.port, path: "/api/events") }
        defer { streams.forEach { $0.close() } }
        for stream in streams { XCTAssertTrue(stream.read(until: Self.firstMessage, timeout: 10).hasPrefix("HTTP/1.1 200")) }
        let third = try EventStream(port: h.port, path: "/api/events")
        defer { third.close() }
        let refused = third.read(until: "}", timeout: 10)
        XCTAssertTrue(refused.hasPrefix("HTTP/1.1 503"), refused)
        XCTAssertTrue(refused.contains(APIErrorBody.json("the server holds 2 event streams, its most; try again when some have closed")), refused)
    }

    func testAStreamOutlivesTheIdleTimeoutSaysKeepaliveAndEndsCleanlyWhenTheServerStops() async throws {
        let h = try await harness {
            $0.changeStreams.keepalive = .milliseconds(300)
            $0.connections.idle = .milliseconds(500)
        }
        let (_, items) = try await channel(h.owner)
        let stream = try EventStream(port: h.port, path: "/api/events")
        defer { stream.close() }
        XCTAssertTrue(stream.read(until: ": keepalive\n\n", timeout: 10).contains(": keepalive\n\n"))
        try await Task.sleep(for: .seconds(1.5))   // three idle timeouts
        try await h.owner.setWatched([items[0]], watched: true, now: 10)
        XCTAssertTrue(stream.read(until: "event: watch", timeout: 10).contains("event: watch"))

        await h.stop()
        // The last chunk of the answer, then the connection closes.
        let text = stream.read(until: "\r\n0\r\n\r\n", timeout: 10)
        XCTAssertTrue(text.hasSuffix("\r\n0\r\n\r\n"), String(text.suffix(200)))
    }
}

/// A library's change log that counts the reads of it (`changes(after:limit:)`) and passes every
/// call on to the store's own.
private final class CountedChangeFeed: ChangeFeed {
    private let base: any ChangeFeed
    private let count = Mutex(0)
    init(_ base: any ChangeFeed) { self.base = base }

    var reads: Int { count.withLock { $0 } }

    func changes(after seq: Int64, limit: Int) async throws(LibraryError) -> ChangeBatch {
        count.withLock { $0 += 1 }
        return try await base.changes(after: seq, limit: limit)
    }

    func latestChange() async throws(LibraryError) -> Int64 { try await base.latestChange() }

    func waitForChange(after seq: Int64, poll: Duration, timeout: Duration) async {
        await base.waitForChange(after: seq, poll: poll, timeout: timeout)
    }
}
