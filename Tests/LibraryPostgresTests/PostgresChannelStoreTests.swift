import FeedModel
@testable import LibraryPostgres
import LibraryStore
import TestSupport
import XCTest

/// What is the PostgreSQL store's own in channels and the ingest: ids it does not spend, text
/// PostgreSQL cannot hold, a feed its schema refuses, and SQLite's order of names.
final class PostgresChannelStoreTests: XCTestCase {
    private var database: (name: String, url: String)!

    override func setUpWithError() throws {
        database = try TestPostgres.createDatabase()
    }

    override func tearDown() {
        if let database { TestPostgres.drop(database.name) }
    }

    private func library() async throws -> PostgresLibrary {
        try await PostgresLibrary(url: database.url, location: "test", connections: 2)
    }

    private func column(_ library: PostgresLibrary, _ sql: String) async throws -> [String] {
        try await library.read { db throws(LibraryError) in
            try db.query(sql).rows.map { row throws(LibraryError) in try row.get(0) as String }
        }
    }

    /// An identity hands out a value to every row an INSERT tries: reading a feed again, or
    /// subscribing again to a feed the library has, inserts nothing, so spends no id.
    func testRereadingAFeedSpendsNoIDs() async throws {
        let library = try await library()
        let show = try await library.addTestChannel("show")
        try await library.ingest(items: [item("a"), item("b"), item("c")], channelID: show, now: 1)
        for now in Int64(2)...4 { try await library.ingest(items: [item("a"), item("b", title: "B \(now)"), item("c")], channelID: show, now: now) }
        try await library.ingest(items: [item("a"), item("d"), item("b")], channelID: show, now: 5)
        await assertEqual(try await column(library, "SELECT item_id || '=' || id FROM items ORDER BY id"), ["a=1", "b=2", "c=3", "d=4"])
        for _ in 0..<3 { _ = try await library.addTestChannel("show") }
        await assertEqual(try await library.addTestChannel("next"), show + 1)
    }

    /// PostgreSQL's text cannot hold U+0000: a feed's text with one is stored without it, and
    /// the feed's other items with it.
    func testANULInFeedTextIsDroppedNotFatal() async throws {
        let library = try await library()
        let show = try await library.addTestChannel("show")
        let result = try await library.ingest(Feed(kind: .rss, title: "Sh\u{0}ow", items: [
            Item(id: "n\u{0}ul", title: "a\u{0}b", description: "x\u{0}", persons: [Person(name: "An\u{0}n")]), item("plain"),
        ]), channelID: show, now: 1)
        XCTAssertEqual(result, IngestResult(new: 2, updated: 0))
        await assertEqual(try await column(library, "SELECT item_id || ' ' || title || ' ' || coalesce(description, '') FROM items ORDER BY id"),
                          ["nul ab x", "plain Title plain "])
        await assertEqual(try await library.channel(id: show).name, "Show")
    }

    /// A feed the schema refuses (here a self URL that is empty) fails alone: the batch's other
    /// polls are stored, and its channel records the one-line reason and backs off.
    func testAFeedTheSchemaRefusesFailsAloneWithItsReason() async throws {
        let library = try await library()
        let good = try await library.addTestChannel("good"), bad = try await library.addTestChannel("bad")
        let results = await library.apply([
            Poll(subject: .channel(id: good), outcome: .changed(Validators(etag: "g"), Feed(kind: .rss, items: [item("g1")])), pollInterval: 600),
            Poll(subject: .channel(id: bad), outcome: .changed(Validators(etag: "b"), Feed(kind: .rss, selfURL: "", items: [item("b1")])),
                 pollInterval: 600),
        ], now: 1000)
        XCTAssertEqual(try results[0].get().ingest, IngestResult(new: 1, updated: 0))
        XCTAssertThrowsError(try results[1].get()) { XCTAssertEqual(($0 as? LibraryError)?.databaseFailure?.kind, .constraint) }
        let failed = try await library.channel(id: bad)
        let reason = try XCTUnwrap(failed.lastError)
        XCTAssertTrue(reason.hasPrefix("https://example.com/bad.xml: library: "), reason)
        XCTAssertFalse(reason.contains("\n"), reason)
        XCTAssertFalse(reason.contains("test"), "no library location in what followers see: \(reason)")
        XCTAssertEqual(failed.consecutiveErrors, 1)
        XCTAssertEqual(failed.nextPoll, 1600)
        XCTAssertNil(failed.etag)
        await assertEqual(try await library.itemIDs(channelID: bad), [])
        await assertEqual(try await library.channel(id: good).etag, "g")
    }

    /// Names sort as SQLite's `COLLATE NOCASE` sorts them (ASCII letters folded, then byte by
    /// byte), whatever the database's collation; pages and filters cut the same lists.
    func testSubscriptionsAreListedInSQLitesOrder() async throws {
        let sqlite = try TestLibrary()
        let postgres = try await library()
        let names = ["beta", "Alpha", "école", "Zeta", "_x", "Émile", "zeta", "ALPHA", "alpha2", "Ørsted", "10 things", "9 lives", "ß"]
        var listed: [[String]] = []
        for engine in [sqlite.library as any LibraryDatabase, postgres as any LibraryDatabase] {
            let owner = engine.owner
            for (n, name) in names.enumerated() {
                let channel = try await owner.addChannel(platform: n % 3 == 0 ? .youtube : .podcast, sourceURL: "https://example.com/\(n)",
                                                         feedURL: "https://example.com/\(n).xml", name: name, now: 1)
                if n % 4 == 1 { try await owner.setActive(channelID: channel.id, false) }
            }
            var lines = try await owner.channelSummaries().map { "\($0.id) \($0.name)" }
            for query in [SubscriptionQuery(), SubscriptionQuery(platform: .youtube), SubscriptionQuery(active: false),
                          SubscriptionQuery(page: try PageRequest(page: 2, perPage: 4)),
                          SubscriptionQuery(platform: .podcast, active: true, page: try PageRequest(page: 1, perPage: 3)),
                          SubscriptionQuery(page: try PageRequest(page: 9, perPage: 4))] {
                let page = try await owner.subscriptions(query)
                lines.append("\(query): \(page.total) " + page.subscriptions.map { "\($0.channel.id)/\($0.summary.name)/\($0.channel.active)" }
                    .joined(separator: ","))
            }
            listed.append(lines)
        }
        XCTAssertEqual(listed[1], listed[0])
        XCTAssertEqual(listed[1].prefix(3), ["11 10 things", "12 9 lives", "5 _x"], "\(listed[1])")
    }
}
