import FeedModel
@testable import LibraryPostgres
import LibraryStore
import TestSupport
import XCTest

/// Several pollers on one PostgreSQL database at once, each with its own connections as
/// `feedctl worker` processes have: claims never share a channel and never wait for a locked
/// one; polls stored at once never deadlock (PostgreSQL's own count says so) and keep every
/// count right; the same feed stored twice at once is stored once.
final class PostgresPollingConcurrencyTests: XCTestCase {
    private var database: (name: String, url: String)!

    override func setUpWithError() throws {
        database = try TestPostgres.createDatabase()
    }

    override func tearDown() {
        if let database { TestPostgres.drop(database.name) }
    }

    /// A poller of its own (a pool of its own, as another process has).
    private func poller(connections: Int = 2) async throws -> PostgresLibrary {
        try await PostgresLibrary(url: database.url, location: "test", connections: connections)
    }

    private func psql(_ sql: String) throws -> String {
        try TestPostgres.psql(try TestPostgres.serverDirectory(), "postgres", sql).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The deadlocks PostgreSQL detected in the test's database. A backend reports its counts
    /// when it exits: this waits until nobody is connected to it (the pollers were let go).
    private func deadlocks() throws -> Int {
        try waitUntil("SELECT count(*) = 0 FROM pg_stat_activity WHERE datname = '\(database.name)'")
        XCTAssertEqual(try psql("SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database.name)'"), "0", "every connection closed")
        return Int(try psql("SELECT deadlocks FROM pg_stat_database WHERE datname = '\(database.name)'")) ?? -1
    }

    /// Asks `condition` (a query answering a boolean) until it holds, for 20 s at most.
    private func waitUntil(_ condition: String) throws {
        for _ in 0..<400 {
            if try psql(condition) == "t" { return }
            usleep(50_000)
        }
    }

    private func count(_ library: PostgresLibrary, _ sql: String) async throws -> Int64 {
        try await library.read { db throws(LibraryError) in try db.query(sql).first?.get(0) ?? -1 }
    }

    /// `users` users following `channels` channels each, every channel's subscriptions made in
    /// another order of users (so a statement over one channel's subscriptions meets its users in
    /// another order than over the next one's). Returns the channel ids.
    private func followedChannels(_ library: PostgresLibrary, users: Int, channels: Int) async throws -> [Int64] {
        var stores: [PostgresLibrary] = [library]
        for n in 1..<users {
            stores.append(library.acting(as: try await library.addUser(name: "user\(n)", isAdmin: false, passwordHash: nil, now: 1).id))
        }
        var ids: [Int64] = []
        for c in 0..<channels {
            for u in 0..<users {
                let store = stores[(c + u) % users]
                let channel = try await store.addChannel(platform: .podcast, sourceURL: "https://example.com/\(c)",
                                                         feedURL: "https://example.com/\(c).xml", name: "C\(c)", now: 1)
                if u == 0 { ids.append(channel.id) }
            }
        }
        return ids
    }

    func testWorkersStoringPollsOfTheSameChannelsAtOnceNeverDeadlockAndKeepTheCounts() async throws {
        try await storePollsAtOnce()
        XCTAssertEqual(try deadlocks(), 0)
    }

    /// Four workers store six batches each, every batch every channel's poll in an order of the
    /// worker's own (each channel followed by three users).
    private func storePollsAtOnce() async throws {
        let setup = try await poller()
        let channels = try await followedChannels(setup, users: 3, channels: 12)
        let workers = 4, rounds = 6
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for w in 0..<workers {
                let library = try await poller()
                group.addTask {
                    var failures: [String] = []
                    var random = SplitMix64(seed: UInt64(w + 1))
                    for round in 0..<rounds {
                        // Every channel, in an order of this worker's own: each gets an item of
                        // this worker's round and one every worker sends (stored once).
                        var order = channels
                        order.shuffle(using: &random)
                        let polls = order.map { id in
                            Poll(subject: .channel(id: id), outcome: .changed(Validators(etag: "\(w)-\(round)"), Feed(
                                kind: .rss, title: "C\(id)", items: [item("w\(w)-r\(round)-c\(id)"), item("shared-r\(round)-c\(id)")])))
                        }
                        for (poll, result) in zip(polls, await library.apply(polls, now: 1000 + Int64(round))) {
                            if case .failure(let error) = result { failures.append("\(poll.subject): \(error)") }
                        }
                    }
                    return failures
                }
            }
            return try await group.reduce([], +)
        }
        XCTAssertEqual(failures, [])
        let perChannel = Int64(rounds * (workers + 1))
        await assertEqual(try await count(setup, "SELECT count(*) FROM items"), Int64(channels.count) * perChannel)
        await assertEqual(try await count(setup, "SELECT count(*) FROM subscriptions WHERE items <> \(perChannel)"), 0,
                          "every subscription counts its channel's items")
        await assertEqual(try await count(setup, "SELECT count(*) FROM users WHERE feed_items <> \(Int64(channels.count) * perChannel)"), 0,
                          "every user's total is their subscriptions'")
        await assertEqual(try await count(setup, "SELECT count(*) FROM channels WHERE last_error IS NOT NULL OR consecutive_errors > 0"), 0)
    }

    /// Workers storing different channels' polls at once meet only in the users following them
    /// (each subscription's count moves its user's total): every channel followed by the same
    /// users, each channel's subscriptions made in another order of users.
    func testWorkersStoringPollsOfDifferentChannelsAtOnceNeverDeadlock() async throws {
        try await storeDifferentChannelsAtOnce()
        XCTAssertEqual(try deadlocks(), 0)
    }

    private func storeDifferentChannelsAtOnce() async throws {
        let setup = try await poller()
        let channels = try await followedChannels(setup, users: 12, channels: 16)
        let workers = 4, rounds = 25
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for w in 0..<workers {
                let library = try await poller()
                let mine = channels.enumerated().filter { $0.offset % workers == w }.map(\.element)
                group.addTask {
                    var failures: [String] = []
                    for round in 0..<rounds {
                        let polls = mine.map { id in
                            Poll(subject: .channel(id: id), outcome: .changed(Validators(), Feed(kind: .rss, title: "C\(id)",
                                                                                                 items: [item("r\(round)-c\(id)")])))
                        }
                        for case .failure(let error) in await library.apply(polls, now: 1000 + Int64(round)) { failures.append("\(error)") }
                    }
                    return failures
                }
            }
            return try await group.reduce([], +)
        }
        XCTAssertEqual(failures, [])
        await assertEqual(try await count(setup, "SELECT count(*) FROM users WHERE feed_items <> \(channels.count * rounds)"), 0,
                          "every user's total is their subscriptions'")
    }

    /// A user subscribing (a channel others follow, whose first poll brings items) while workers
    /// store polls of channels the same users follow: the subscription counts the subscriber's
    /// total at once, and the batch's counts move the other followers' totals after.
    func testSubscribingWhileWorkersStorePollsNeverDeadlocks() async throws {
        try await subscribeWhileStoring()
        XCTAssertEqual(try deadlocks(), 0)
    }

    private func subscribeWhileStoring() async throws {
        let setup = try await poller()
        let users = 6, rounds = 30
        let channels = try await followedChannels(setup, users: users, channels: 9)
        // The last user follows all but the first channel, which they subscribe to and leave in turn.
        let subscriber = setup.acting(as: UserID(Int64(users)))
        try await subscriber.removeChannel(id: channels[0])
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            let subscribing = try await poller()
            group.addTask {
                var failures: [String] = []
                let store = subscribing.acting(as: UserID(Int64(users)))
                for round in 0..<rounds {
                    let new = NewChannel(platform: .podcast, sourceURL: "https://example.com/0", feedURL: "https://example.com/0.xml",
                                         name: "", reach: .anyAddress)
                    let poll = Poll(subject: .subscription(new), outcome: .changed(Validators(), Feed(kind: .rss, items: [item("s\(round)")])))
                    for case .failure(let error) in await store.apply([poll], now: 1000) { failures.append("\(error)") }
                    do { try await store.removeChannel(id: channels[0]) } catch { failures.append("\(error)") }
                }
                return failures
            }
            for w in 0..<2 {
                let library = try await poller()
                let mine = channels.dropFirst().enumerated().filter { $0.offset % 2 == w }.map(\.element)
                group.addTask {
                    var failures: [String] = []
                    for round in 0..<rounds {
                        let polls = mine.map { id in
                            Poll(subject: .channel(id: id), outcome: .changed(Validators(), Feed(kind: .rss, items: [item("r\(round)-c\(id)")])))
                        }
                        for case .failure(let error) in await library.apply(polls, now: 1000) { failures.append("\(error)") }
                    }
                    return failures
                }
            }
            return try await group.reduce([], +)
        }
        XCTAssertEqual(failures, [])
        await assertEqual(try await count(setup, """
            SELECT count(*) FROM users u WHERE feed_items <> (SELECT coalesce(sum(items), 0) FROM subscriptions s WHERE s.user_id = u.id)
            """), 0, "every user's total is their subscriptions'")
    }

    func testPollersClaimingAtOnceNeverShareAChannel() async throws {
        let setup = try await poller()
        let polls = (0..<120).map { n in
            Poll(subject: .subscription(NewChannel(platform: .podcast, sourceURL: "https://example.com/\(n)", feedURL: "https://example.com/\(n).xml",
                                                   name: "C\(n)", reach: .anyAddress)), outcome: .notFetched)
        }
        let all = try await setup.apply(polls, now: 1).map { try $0.get().channelID }
        let taken = try await withThrowingTaskGroup(of: (String, [Int64]).self) { group in
            for p in 0..<6 {
                let polling = try await poller().polling
                group.addTask {
                    var mine: [Int64] = []
                    while true {
                        let claimed = try await polling.claimDueChannels(now: 2000, claimant: "p\(p)", limit: 7, lease: .standard).map(\.id)
                        XCTAssertLessThanOrEqual(claimed.count, 7)
                        if claimed.isEmpty { return ("p\(p)", mine) }
                        mine += claimed
                    }
                }
            }
            return try await group.reduce(into: [String: [Int64]]()) { $0[$1.0] = $1.1 }
        }
        XCTAssertEqual(taken.values.flatMap { $0 }.sorted(), all.sorted(), "every channel claimed once, by one poller")
        await assertEqual(try await count(setup, "SELECT count(DISTINCT claimed_by) FROM channels"), Int64(taken.values.filter { !$0.isEmpty }.count))
    }

    /// A channel another transaction holds (its poll being stored, a user removing it) is
    /// skipped by a claim, which takes the others without waiting for it.
    func testAClaimSkipsAChannelAnotherTransactionHolds() async throws {
        let setup = try await poller()
        let held = try await setup.addTestChannel("held"), free = try await setup.addTestChannel("free")
        let holder = try await poller(connections: 1)
        let pid: Int64 = try await holder.read { db throws(LibraryError) in try db.query("SELECT pg_backend_pid()").first?.get(0) ?? 0 }
        let holding = Task {
            try await holder.write { db throws(LibraryError) in
                _ = try db.query("SELECT id FROM channels WHERE id = $1 FOR NO KEY UPDATE", [held])
                _ = try db.query("SELECT pg_sleep(120)")
            }
        }
        // Once the holder waits (its lock taken), claim.
        try waitUntil("SELECT count(*) = 1 FROM pg_stat_activity WHERE pid = \(pid) AND wait_event = 'PgSleep'")
        let claimed = try await setup.polling.claimDueChannels(now: 2000, claimant: "worker", limit: 10, lease: .standard).map(\.id)
        XCTAssertEqual(claimed, [free], "the held channel is skipped, not waited for (it would be claimed once its holder let go)")
        _ = try psql("SELECT pg_cancel_backend(\(pid))")
        _ = await holding.result
        await assertEqual(try await setup.polling.claimDueChannels(now: 2000, claimant: "worker", limit: 10, lease: .standard).map(\.id), [held])
    }

    /// Two pollers storing the same feed's poll at once (a lease that expired mid-poll): the
    /// second waits for the first and finds its items; nothing is stored twice.
    func testTheSameFeedStoredTwiceAtOnceIsStoredOnce() async throws {
        let setup = try await poller()
        let channel = try await setup.addTestChannel("show")
        let first = try await poller(), second = try await poller()
        for round in 0..<8 {
            let feed = Feed(kind: .rss, title: "Show", items: (0..<40).map { item("r\(round)-\($0)") } + [item("always")])
            let poll = ChannelPoll(channelID: channel, outcome: .changed(Validators(), feed))
            async let a = first.polling.apply([poll], claimant: "first", now: 100 + Int64(round))
            async let b = second.polling.apply([poll], claimant: "second", now: 100 + Int64(round))
            let results = try (await a + b).map { try $0.get().ingest }
            XCTAssertEqual(results.map(\.new).reduce(0, +), round == 0 ? 41 : 40, "round \(round): \(results)")
            XCTAssertEqual(results.map(\.updated), [0, 0], "round \(round)")
        }
        await assertEqual(try await count(setup, "SELECT count(*) FROM items"), 8 * 40 + 1)
        await assertEqual(try await count(setup, "SELECT count(DISTINCT item_id) FROM items"), 8 * 40 + 1)
        await assertEqual(try await count(setup, "SELECT items FROM subscriptions"), 8 * 40 + 1)
    }
}
