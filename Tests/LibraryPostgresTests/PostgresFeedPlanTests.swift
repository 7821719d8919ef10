import FeedModel
@testable import LibraryPostgres
import LibraryStore
import TestSupport
import XCTest

/// The feed's statements read the indexes the schema makes for them, on a generated library of
/// 6,000 items in 200 channels (statistics gathered): the API's newest page reads down
/// `items_newest` in its own order and sorts nothing, so a first page costs about its rows
/// whatever the library's size. Plans, not timings: a plan that walks the library is the
/// regression the benchmark would only show later.
final class PostgresFeedPlanTests: XCTestCase {
    private var database: (name: String, url: String)!
    private var library: PostgresLibrary!

    override func setUp() async throws {
        database = try TestPostgres.createDatabase()
        library = try await PostgresLibrary(url: database.url, location: "test", connections: 1)
        // The owner follows every channel, bob every fifth; a third of the items have a watch
        // row of the owner's, a fifth of bob's items one of his; every 50th item is undated.
        try await library.write { db throws(LibraryError) in
            try db.execute("""
                INSERT INTO users (name, created_at) VALUES ('bob', 1);
                INSERT INTO channels (platform, source_url, feed_url, name, added_at)
                    SELECT (ARRAY['youtube', 'rumble', 'podcast'])[1 + n % 3], 'https://ex.com/' || n, 'https://ex.com/' || n || '.xml',
                           'Channel ' || n, 1
                    FROM generate_series(1, 200) n;
                INSERT INTO items (channel_id, item_id, title, url, published, duration, is_short, discovered_at, views)
                    SELECT 1 + (n * 7919) % 200, 'i' || n, 'Title ' || n, 'https://ex.com/i/' || n,
                           CASE WHEN n % 50 = 0 THEN NULL ELSE 1700000000 - (n * 3607) % 8000000 END,
                           CASE WHEN n % 7 = 0 THEN NULL ELSE (n * 37) % 5000 END, (n % 11 = 0)::int, 1700000000 + n % 1000, n % 997
                    FROM generate_series(1, 6000) n;
                INSERT INTO subscriptions (user_id, channel_id, added_at) SELECT 1, id, 1 FROM channels;
                INSERT INTO subscriptions (user_id, channel_id, added_at) SELECT 2, id, 1 FROM channels WHERE id % 5 = 0;
                INSERT INTO watch_state (user_id, item, watched, progress_seconds, watched_at, updated_at)
                    SELECT 1, id, (id % 4 = 0)::int, CASE WHEN id % 9 = 0 AND id % 4 <> 0 THEN 30 ELSE 0 END,
                           CASE WHEN id % 4 = 0 THEN 5 END, id
                    FROM items WHERE id % 3 = 0;
                INSERT INTO watch_state (user_id, item, watched, progress_seconds, watched_at, updated_at)
                    SELECT 2, i.id, (i.id % 2 = 0)::int, CASE WHEN i.id % 2 = 1 THEN 10 ELSE 0 END, CASE WHEN i.id % 2 = 0 THEN 5 END, i.id
                    FROM items i JOIN subscriptions s ON s.user_id = 2 AND s.channel_id = i.channel_id WHERE i.id % 5 = 0;
                INSERT INTO play_history (user_id, item, title, channel_name, played_at) SELECT 1, id, 't', 'c', id FROM items WHERE id % 13 = 0;
                """)
        }
        try await library.read { db throws(LibraryError) in try db.execute("ANALYZE") }
    }

    override func tearDown() async throws {
        library = nil
        if let database { TestPostgres.drop(database.name) }
    }

    private static let bob = UserID(2)

    /// The plan, as PostgreSQL's text without costs, of the statement `make` builds.
    private func plan(_ make: @escaping @Sendable () -> PGStatement?) async throws -> String {
        try await library.read { db throws(LibraryError) in
            guard let statement = make() else { throw LibraryError.invalid("test: no statement to explain") }
            return try db.query("EXPLAIN (COSTS OFF) " + statement.sql, statement.parameters).rows
                .map { row throws(LibraryError) in try row.get(0) as String }.joined(separator: "\n")
        }
    }

    /// Whether the plan sorts rows (a full or incremental sort node, not a sort key).
    private static func sorts(_ plan: String) -> Bool {
        plan.split(separator: "\n").contains { line in
            let node = line.drop(while: { $0 == " " || $0 == "-" || $0 == ">" })
            return node.hasPrefix("Sort") && !node.hasPrefix("Sort Key") && !node.hasPrefix("Sort Method")
                || node.hasPrefix("Incremental Sort")
        }
    }

    func testTheAPIsNewestPageReadsDownItsIndexAndSortsNothing() async throws {
        for user in [UserID.owner, Self.bob] {
            for page in [ItemPageQuery(), ItemPageQuery(page: try PageRequest(page: 3, perPage: 50))] {
                let plan = try await plan { PostgresLibrary.itemPageStatements(page, user: user).page }
                XCTAssertTrue(plan.contains("Index Scan Backward using items_newest on items"), plan)
                XCTAssertFalse(Self.sorts(plan), plan)
                XCTAssertFalse(plan.contains("Seq Scan on items"), plan)
            }
        }
    }

    /// The app's feed page (newest first, all or unwatched) is prepared on the connection and
    /// runs on its generic plan (`PGPlan.generic`): planned once, not on every call (PostgreSQL's
    /// `auto` kept planning it: a `LIMIT $n` makes a generic plan look dear), and that plan
    /// still reads down `items_newest` and sorts nothing, for a user who follows every channel
    /// and one who follows a fifth of them.
    func testTheAppsFeedPageRunsOnItsGenericPlanWhichReadsDownItsIndex() async throws {
        let queries = [ItemPageQuery(), ItemPageQuery(watch: .unwatched), ItemPageQuery(page: try PageRequest(page: 3, perPage: 50))]
        for user in [UserID.owner, Self.bob] {
            for query in queries {
                let store = library.acting(as: user)
                for _ in 0..<8 { _ = try await store.itemPage(query) }
                let (plans, plan) = try await library.read { db throws(LibraryError) -> (String, String) in
                    guard let page = PostgresLibrary.itemPageStatements(query, user: user).page, page.plan == .generic,
                          let name = db.preparedName(of: page.sql) else { throw LibraryError.invalid("test: the page's statement is not prepared generic") }
                    let row = try db.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1", [name]).first
                    let plans = "\(try row?.get("generic_plans") as Int64? ?? 0) generic, \(try row?.get("custom_plans") as Int64? ?? 0) custom"
                    let values = page.parameters.map { $0.pgText.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL" }
                    let plan = try db.query("EXPLAIN (COSTS OFF) EXECUTE \(name)(\(values.joined(separator: ", ")))", plan: .generic).rows
                        .map { row throws(LibraryError) in try row.get(0) as String }.joined(separator: "\n")
                    return (plans, plan)
                }
                XCTAssertTrue(plans.hasSuffix(" generic, 0 custom") && !plans.hasPrefix("0 "), plans)
                XCTAssertTrue(plan.contains("Index Scan Backward using items_newest on items"), plan)
                XCTAssertFalse(Self.sorts(plan), plan)
                XCTAssertFalse(plan.split(separator: "\n").contains { $0.hasSuffix("Seq Scan on items i") }, plan)
            }
        }
    }

    /// For a user who has watched many of their items, the unwatched page still reads down
    /// `items_newest` and stops at the page's end, on its generic plan and planned for its values:
    /// over a left join the planner cannot estimate "not watched" (it took it to keep one row) and
    /// hash-joined and sorted every followed item for a page (200 ms on 100,000 items, a third
    /// watched), so it is asked as an anti-join (`LibraryItem.pgUnwatched`).
    func testTheUnwatchedPageReadsDownItsIndexWhenManyItemsAreWatched() async throws {
        try await library.write { db throws(LibraryError) in
            try db.execute("""
                INSERT INTO items (channel_id, item_id, title, url, published, discovered_at)
                    SELECT 1 + n % 200, 'w' || n, 'Title ' || n, 'https://ex.com/w/' || n, 1600000000 - n, 1
                    FROM generate_series(1, 20000) n;
                INSERT INTO watch_state (user_id, item, watched, watched_at, updated_at)
                    SELECT 1, id, 1, 5, id FROM items WHERE id % 3 = 0
                    ON CONFLICT (user_id, item) DO UPDATE SET watched = 1, progress_seconds = 0, watched_at = 5;
                """)
        }
        try await library.read { db throws(LibraryError) in try db.execute("ANALYZE") }
        let query = ItemPageQuery(watch: .unwatched)
        for _ in 0..<8 { _ = try await library.itemPage(query) }
        let (generic, custom) = try await library.read { db throws(LibraryError) -> (String, String) in
            guard let page = PostgresLibrary.itemPageStatements(query, user: .owner).page, page.plan == .generic,
                  let name = db.preparedName(of: page.sql) else { throw LibraryError.invalid("test: the page's statement is not prepared generic") }
            let values = page.parameters.map { $0.pgText.map { "'" + $0 + "'" } ?? "NULL" }
            let generic = try db.query("EXPLAIN (COSTS OFF) EXECUTE \(name)(\(values.joined(separator: ", ")))", plan: .generic).rows
                .map { row throws(LibraryError) in try row.get(0) as String }.joined(separator: "\n")
            let custom = try db.query("EXPLAIN (COSTS OFF) " + page.sql, page.parameters).rows
                .map { row throws(LibraryError) in try row.get(0) as String }.joined(separator: "\n")
            return (generic, custom)
        }
        for plan in [generic, custom] {
            XCTAssertTrue(plan.contains("Index Scan Backward using items_newest on items"), plan)
            XCTAssertFalse(Self.sorts(plan), plan)
        }
        let page = try await library.itemPage(query)
        XCTAssertEqual(page.items.count, 50)
        XCTAssertFalse(page.items.contains { $0.item.watched }, "only unwatched items")
    }

    /// On thousands of followed channels the generic plan does not memoize the channel lookup:
    /// costed for a tenth of the items (it cannot know the limit), Memoize caches were sized for
    /// every channel and allocated and zeroed on each call (0.6 ms of a 50-row page on 20,000
    /// channels). Made with the generic mode's 64 kB (`PGConnection.setPlanMode`), a cache is
    /// bounded, and the planner keeps one only where it pays (here the subscription check's
    /// small one, not the channels' rows).
    func testTheAppsFeedPageHasNoChannelSizedCacheOnManyChannels() async throws {
        try await library.write { db throws(LibraryError) in
            try db.execute("""
                INSERT INTO channels (platform, source_url, feed_url, name, added_at)
                    SELECT 'podcast', 'https://many.example/' || n, 'https://many.example/' || n || '.xml', 'Many ' || n, 1
                    FROM generate_series(1, 3000) n;
                INSERT INTO items (channel_id, item_id, title, url, published, discovered_at)
                    SELECT c.id, 'm' || c.id || '-' || e, 'Many item', 'https://many.example/i/' || c.id || '-' || e, 1600000000 - c.id * 2 - e, 1
                    FROM channels c, generate_series(1, 2) e WHERE c.feed_url LIKE 'https://many.example/%';
                INSERT INTO subscriptions (user_id, channel_id, added_at) SELECT 1, id, 1 FROM channels WHERE feed_url LIKE 'https://many.example/%';
                """)
        }
        try await library.read { db throws(LibraryError) in try db.execute("ANALYZE") }
        for _ in 0..<8 { _ = try await library.itemPage(ItemPageQuery()) }
        let plan = try await library.read { db throws(LibraryError) -> String in
            guard let page = PostgresLibrary.itemPageStatements(ItemPageQuery(), user: .owner).page, page.plan == .generic,
                  let name = db.preparedName(of: page.sql) else { throw LibraryError.invalid("test: the page's statement is not prepared generic") }
            let values = page.parameters.map { $0.pgText.map { "'" + $0 + "'" } ?? "NULL" }
            return try db.query("EXPLAIN (COSTS OFF) EXECUTE \(name)(\(values.joined(separator: ", ")))", plan: .generic).rows
                .map { row throws(LibraryError) in try row.get(0) as String }.joined(separator: "\n")
        }
        XCTAssertTrue(plan.contains("Index Scan Backward using items_newest on items"), plan)
        let lines = plan.split(separator: "\n")
        let memoized = lines.indices.filter { lines[$0].contains("Memoize") }.compactMap { memoize in
            lines[(memoize + 1)...].first { $0.contains("->") }   // the node it caches
        }
        XCTAssertFalse(memoized.contains { $0.contains(" on channels") }, plan)
        XCTAssertFalse(plan.contains("Gather"), plan)
        XCTAssertFalse(Self.sorts(plan), plan)
    }

    func testTheFeedsNewestAndShortFormPagesReadDownTheirIndexes() async throws {
        for user in [UserID.owner, Self.bob] {
            let newest = try await plan { PostgresLibrary.feedStatement(FeedQuery(), user: user, now: 1_700_000_000) }
            XCTAssertTrue(newest.contains("Index Scan Backward using items_newest on items"), newest)
            XCTAssertFalse(newest.contains("Seq Scan on items"), newest)
        }
        // Short items of every channel (bob's fifth of them is read channel by channel: PostgreSQL's choice).
        let short = try await plan { PostgresLibrary.feedStatement(FeedQuery(mode: .shortForm), user: .owner, now: 1_700_000_000) }
        XCTAssertTrue(short.contains("Index Scan Backward using items_short on items"), short)
        XCTAssertFalse(short.contains("Seq Scan on items"), short)
        let api = try await plan { PostgresLibrary.itemPageStatements(ItemPageQuery(shortOnly: true), user: .owner).page }
        XCTAssertTrue(api.contains("Index Scan Backward using items_short on items"), api)
    }

    /// Each followed channel's items are a seek into `items_channel_published` (its window, or
    /// its newest), and the resume list comes from `watch_state_in_progress`.
    func testCatchUpAndDiscoverySeekEachChannelsItems() async throws {
        for user in [UserID.owner, Self.bob] {
            for mode in [FeedMode.catchUp, .discovery] {
                let plan = try await plan { PostgresLibrary.feedStatement(FeedQuery(mode: mode), user: user, now: 1_700_000_000) }
                XCTAssertTrue(plan.contains("items_channel_published"), plan)
                // Keyed by each followed channel in turn, not a scan of every channel's items.
                XCTAssertTrue(plan.contains(/Index Cond: \(+channel_id = \w+\.channel_id/), plan)
            }
            let resume = try await plan { PostgresLibrary.feedStatement(FeedQuery(mode: .catchUp), user: user, now: 1_700_000_000) }
            XCTAssertTrue(resume.contains("watch_state_in_progress"), resume)
        }
    }
}
