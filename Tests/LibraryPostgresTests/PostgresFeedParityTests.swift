import FeedModel
@testable import LibraryPostgres
import LibraryStore
import TestSupport
import XCTest

private let day: Int64 = 86_400
private let now: Int64 = 100 * day

/// The PostgreSQL feed answers what the SQLite one answers: one generated library (shared and
/// private channels of three users, undated items, same-second ties in every sort key, watch
/// rows of every kind, including rows for items a user no longer follows, plays) built alike in
/// both engines, then every mode, filter, window and page of `feed`, `feedTotal` and
/// `itemPage`, and every item by id, asked of both for each user. The contract tests state the
/// rules on small crafted libraries; this checks the ties and corners they do not reach.
final class PostgresFeedParityTests: XCTestCase {
    private var database: (name: String, url: String)!

    override func setUpWithError() throws {
        database = try TestPostgres.createDatabase()
    }

    override func tearDown() {
        if let database { TestPostgres.drop(database.name) }
    }

    /// Who follows which of the nine channels (`C0`…`C8`): the owner C0–C6, bob C2–C8, carol C0 and C8.
    private static let followers: [[Int]] = [[0, 2], [0], [0, 1], [0, 1], [0, 1], [0, 1], [0, 1], [1], [1, 2]]
    private static let platforms: [Platform] = [.podcast, .youtube, .rumble]

    private struct Engines {
        let sqlite: TestLibrary
        let postgres: PostgresLibrary
        /// owner, bob, carol.
        let users: [UserID]
        let channelIDs: [Int64]
        let itemIDs: [Int64]

        func pair(_ user: UserID) -> (sqlite: any UserLibrary, postgres: any UserLibrary) {
            (sqlite.library.store(for: user), postgres.store(for: user))
        }
    }

    /// The generated library in both engines, from `seed`.
    private func engines(seed: UInt64) async throws -> Engines {
        let sqlite = try TestLibrary()
        let postgres = try await PostgresLibrary(url: database.url, location: "test", connections: 2)
        var built: [(users: [UserID], channels: [Int64], items: [Int64])] = []
        for engine in [sqlite.library as any LibraryDatabase, postgres as any LibraryDatabase] {
            var random = SplitMix64(seed: seed)
            let owner = engine.owner
            var users = [UserID.owner]
            for name in ["bob", "carol"] { users.append(try await owner.addUser(name: name, isAdmin: false, passwordHash: nil, now: 1).id) }
            // Each channel by its first follower, then the others follow it (SQLite spends a channel
            // id on a subscription to a channel already there: made first, both number them alike).
            var channels: [Int64] = []
            for (index, followers) in Self.followers.enumerated() {
                channels.append(try await engine.store(for: users[followers[0]]).addTestChannel("C\(index)", platform: Self.platforms[index % 3], now: 10))
            }
            for (index, followers) in Self.followers.enumerated() {
                for follower in followers.dropFirst() {
                    _ = try await engine.store(for: users[follower]).addTestChannel("C\(index)", platform: Self.platforms[index % 3], now: 10)
                }
            }
            // Two polls per channel, the channels in a new order each time, at a few times: items
            // tie on discovery within a poll and across polls and channels, in either id order.
            for poll in 0..<2 {
                for index in channels.indices.shuffled(using: &random) where index != 5 {  // C5 stays empty
                    let items = (0..<Int.random(in: 0...14, using: &random)).map { n in
                        Self.item("c\(index)p\(poll)n\(n)", &random)
                    }
                    let store = engine.store(for: users[Self.followers[index][0]])
                    try await store.ingest(items: items, channelID: channels[index], now: 1000 + Int64.random(in: 0...2, using: &random))
                }
            }
            let items = try await Self.itemIDs(engine, sqlite: sqlite)
            for statement in Self.watchAndPlays(users: users, items: items, channels: channels.count, &random) {
                try await Self.execute(statement, engine, sqlite: sqlite)
            }
            built.append((users, channels, items))
        }
        XCTAssertEqual(built[0].users, built[1].users)
        XCTAssertEqual(built[0].channels, built[1].channels)
        XCTAssertEqual(built[0].items, built[1].items, "both engines numbered the items alike")
        let names = "SELECT item_id FROM items ORDER BY id"
        let pgNames = try await postgres.read { db throws(LibraryError) in try db.query(names).rows.map { row throws(LibraryError) in try row.get(0) as String } }
        XCTAssertEqual(try sqlite.strings(names), pgNames)
        XCTAssertGreaterThan(built[1].items.count, 60, "a library worth comparing")
        return Engines(sqlite: sqlite, postgres: postgres, users: built[1].users, channelIDs: built[1].channels, itemIDs: built[1].items)
    }

    /// An item whose every sort key is often undated or shared with others.
    private static func item(_ id: String, _ random: inout SplitMix64) -> Item {
        func maybe<T>(_ percent: Int, _ value: T) -> T? { Int.random(in: 0..<100, using: &random) < percent ? value : nil }
        let published = maybe(85, now - day * Int64.random(in: 0...40, using: &random) - 3600 * Int64.random(in: 0...1, using: &random))
        let duration = maybe(80, [0, 30, 180, 181, 600, 601, 1799, 1800, 3600, Int.random(in: 1...7200, using: &random)].randomElement(using: &random)!)
        var item = Item(id: id, title: "Title \(id)", url: maybe(80, "https://example.com/\(id)"), published: published, duration: duration,
                        views: maybe(70, Int64.random(in: 0...5, using: &random) * 100), isShort: Int.random(in: 0..<10, using: &random) == 0)
        item.description = maybe(50, "Notes of \(id)")
        item.notesMarkup = maybe(30, "<p>Notes of <b>\(id)</b></p>")
        item.enclosure = maybe(50, Enclosure(url: "https://cdn.example.com/\(id).mp3", type: "audio/mpeg", length: 1000))
        item.author = maybe(30, "Author")
        item.episode = maybe(30, 3)
        item.season = maybe(30, 1)
        item.explicit = maybe(50, Bool.random(using: &random))
        item.episodeType = maybe(30, "full")
        item.chaptersURL = maybe(20, "https://example.com/\(id).json")
        item.transcriptURL = maybe(20, "https://example.com/\(id).vtt")
        item.persons = maybe(20, [Person(name: "Ann", role: "host", href: nil, image: nil)]) ?? []
        item.funding = maybe(20, [Link(url: "https://example.com/give", title: "Give")]) ?? []
        item.thumbnail = maybe(40, "https://example.com/\(id).jpg")
        return item
    }

    /// Watch rows and plays, the same SQL for both engines: for each user about a quarter of the
    /// items watched, a sixth in progress, some rows back at zero; update times from a few
    /// values (ties); rows for items of channels the user does not follow too.
    private static func watchAndPlays(users: [UserID], items: [Int64], channels: Int, _ random: inout SplitMix64) -> [String] {
        var statements: [String] = []
        for user in users {
            var rows: [String] = []
            for item in items {
                let time = 5000 + 10 * Int64.random(in: 0...6, using: &random)
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<25: rows.append("(\(user.rawValue), \(item), 1, 0, \(time), \(time))")
                case 25..<42: rows.append("(\(user.rawValue), \(item), 0, \(Int.random(in: 1...900, using: &random)), NULL, \(time))")
                case 42..<50: rows.append("(\(user.rawValue), \(item), 0, 0, NULL, \(time))")
                default: break
                }
            }
            if !rows.isEmpty {
                statements.append("INSERT INTO watch_state (user_id, item, watched, progress_seconds, watched_at, updated_at) VALUES " + rows.joined(separator: ", "))
            }
            let plays = (0..<Int.random(in: 0...12, using: &random)).map { n in
                let item = Int.random(in: 0..<8, using: &random) == 0 ? "NULL" : String(items.randomElement(using: &random)!)
                return "(\(user.rawValue), \(item), 'played', 'channel', \(6000 + n))"
            }
            if !plays.isEmpty {
                statements.append("INSERT INTO play_history (user_id, item, title, channel_name, played_at) VALUES " + plays.joined(separator: ", "))
            }
        }
        return statements
    }

    private static func itemIDs(_ engine: any LibraryDatabase, sqlite: TestLibrary) async throws -> [Int64] {
        if let postgres = engine as? PostgresLibrary {
            return try await postgres.read { db throws(LibraryError) in
                try db.query("SELECT id FROM items ORDER BY id").rows.map { row throws(LibraryError) in try row.get(0) as Int64 }
            }
        }
        return try sqlite.strings("SELECT id FROM items ORDER BY id").compactMap { Int64($0) }
    }

    private static func execute(_ sql: String, _ engine: any LibraryDatabase, sqlite: TestLibrary) async throws {
        if let postgres = engine as? PostgresLibrary {
            try await postgres.write { db throws(LibraryError) in try db.execute(sql) }
        } else {
            try sqlite.execute(sql)
        }
    }

    /// What a call answered, as text: its value, or its error.
    private static func answer<T>(_ body: () async throws -> T) async -> String {
        do { return "\(try await body())" } catch { return "error: \(error)" }
    }

    /// Asks both engines the same and fails naming the question when they differ; returns the answer.
    @discardableResult
    private func same<T>(_ question: String, _ engines: (sqlite: any UserLibrary, postgres: any UserLibrary),
                         _ ask: (any UserLibrary) async throws -> T) async -> String {
        let expected = await Self.answer { try await ask(engines.sqlite) }
        let actual = await Self.answer { try await ask(engines.postgres) }
        XCTAssertEqual(actual, expected, question)
        answers[expected.hasPrefix("error: ") ? "error" : expected.hasPrefix("[]") || expected.hasPrefix("ItemPage(items: [],") ? "empty" : "some", default: 0] += 1
        return expected
    }

    /// How many answers compared were errors, empty, or had something in them.
    private var answers: [String: Int] = [:]

    /// Fails unless most answers compared had something in them (two engines that both fail or
    /// both list nothing agree without proving anything).
    private func assertMostAnswersHadItems() {
        let (some, all) = (answers["some", default: 0], answers.values.reduce(0, +))
        XCTAssertGreaterThan(some * 2, all, "answers compared: \(answers)")
    }

    private func filters(_ e: Engines) -> [FeedFilter] {
        var filters = [FeedFilter(), FeedFilter(unwatchedOnly: true), FeedFilter(watchedOnly: true),
                       FeedFilter(unwatchedOnly: true, watchedOnly: true)]
        filters += Self.platforms.map { FeedFilter(platform: $0) }
        filters += e.channelIDs.map { FeedFilter(channelID: $0) }
        filters += [FeedFilter(platform: .youtube, channelID: e.channelIDs[1]), FeedFilter(platform: .podcast, channelID: e.channelIDs[1]),
                    FeedFilter(platform: .rumble, unwatchedOnly: true), FeedFilter(channelID: e.channelIDs[3], watchedOnly: true)]
        return filters
    }

    func testEveryModeFilterWindowAndPageListsWhatSQLiteLists() async throws {
        let e = try await engines(seed: 28)
        for user in e.users {
            let pair = e.pair(user)
            for mode in FeedMode.allCases {
                for filter in filters(e) {
                    for days in mode == .catchUp ? [14, 3, 45, Int.max] : [14] {
                        let what = "user \(user.rawValue) \(mode) \(filter) days \(days)"
                        await same("\(what), one page of all", pair) { try await $0.feed(mode: mode, filter: filter, page: .first(1000), days: days, now: now) }
                        await same("\(what), total", pair) { try await $0.feedTotal(FeedQuery(mode: mode, filter: filter, days: days), now: now) }
                        // Pages of 4 until past the end, which is empty.
                        var page = 1
                        while page <= 40 {
                            let shown = await same("\(what), page \(page) of 4", pair) {
                                try await $0.feed(mode: mode, filter: filter, page: try PageRequest(page: page, perPage: 4), days: days, now: now)
                            }
                            if shown == "[]" { break }
                            page += 1
                        }
                        XCTAssertLessThan(page, 40, what)
                    }
                }
            }
            for days in [0, -1] {
                await same("user \(user.rawValue) catch-up days \(days)", pair) { try await $0.feed(mode: .catchUp, days: days, now: now) }
                await same("user \(user.rawValue) catch-up total days \(days)", pair) { try await $0.feedTotal(FeedQuery(mode: .catchUp, days: days), now: now) }
            }
            await same("user \(user.rawValue) past any end", pair) { try await $0.feed(page: try PageRequest(page: Int.max, perPage: 3), now: now) }
        }
        assertMostAnswersHadItems()
    }

    func testEveryItemPageOrderFilterAndPageIsSQLites() async throws {
        let e = try await engines(seed: 29)
        let c = e.channelIDs
        var queries: [ItemPageQuery] = []
        for watch in WatchFilter.allCases {
            for order in ItemOrder.allCases where order != .random {
                queries += [ItemPageQuery(order: order, watch: watch), ItemPageQuery(order: order, watch: watch, shortOnly: true),
                            ItemPageQuery(order: order, watch: watch, platform: .youtube),
                            ItemPageQuery(order: order, watch: watch, channelIDs: [c[0], c[3], c[7], c[3]]),
                            ItemPageQuery(order: order, watch: watch, platform: .podcast, channelIDs: [c[0], c[1], c[3]]),
                            ItemPageQuery(order: order, watch: watch, publishedSince: now - 10 * day),
                            ItemPageQuery(order: order, watch: watch, minDuration: 600, maxDuration: 1800),
                            ItemPageQuery(order: order, watch: watch, shortOnly: true, platform: .rumble, maxDuration: 100)]
            }
        }
        for user in e.users {
            let pair = e.pair(user)
            for var query in queries {
                let what = "user \(user.rawValue) \(query)"
                for page in 1...40 {
                    query.page = try PageRequest(page: page, perPage: 6)
                    let shown = await same("\(what), page \(page) of 6", pair) { try await $0.itemPage(query) }
                    if shown.hasPrefix("ItemPage(items: [],") { break }
                }
                query.page = try PageRequest(page: Int.max, perPage: 7)
                await same("\(what), past any end", pair) { try await $0.itemPage(query) }
            }
            // Random order: the same items and total.
            for watch in WatchFilter.allCases {
                await same("user \(user.rawValue) random \(watch)", pair) { library in
                    let page = try await library.itemPage(ItemPageQuery(order: .random, watch: watch, page: .first(1000)))
                    return (page.items.map(\.item.id).sorted(), page.total)
                }
            }
        }
        assertMostAnswersHadItems()
    }

    func testEveryItemByIDAndItemsAfterAreSQLites() async throws {
        let e = try await engines(seed: 30)
        let ids = e.itemIDs + [0, -1, (e.itemIDs.last ?? 0) + 1]
        for user in e.users {
            let pair = e.pair(user)
            for id in ids {
                await same("user \(user.rawValue) item \(id)", pair) { try await $0.item(id: id) }
                await same("user \(user.rawValue) details \(id)", pair) { try await $0.itemDetails(id: id) }
                await same("user \(user.rawValue) notes \(id)", pair) { try await $0.storedNotes(id: id) }
            }
            await same("user \(user.rawValue) records", pair) { try await $0.itemRecords(ids: ids.reversed() + ids.prefix(5)) }
            await same("user \(user.rawValue) no records", pair) { try await $0.itemRecords(ids: []) }
            await same("user \(user.rawValue) last item", pair) { try await $0.lastItemID() }
            for after in [0, e.itemIDs[e.itemIDs.count / 2], e.itemIDs.last ?? 0] {
                for channels in [e.channelIDs, [e.channelIDs[7], e.channelIDs[2]], []] {
                    for limit in [1000, 3, 0] {
                        await same("user \(user.rawValue) after \(after) in \(channels) limit \(limit)", pair) {
                            try await $0.items(after: after, channelIDs: channels, limit: limit)
                        }
                    }
                }
            }
        }
        assertMostAnswersHadItems()
    }
}
