import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// `feedctl worker` as it runs: real processes on one library file, real feeds from a loopback
/// server (`http_server.py`) that records, per feed, how many requests for it were in flight at
/// once. A feed fetched by two workers at the same time would show 2 there; slow feeds make that
/// likely if claims were wrong.
final class WorkerProcessTests: XCTestCase {
    private var server: TestHTTPServer!
    private var library: TestLibrary!
    private var running: [ProcessRunner.Running] = []

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        library = try TestLibrary(path: server.root.appendingPathComponent("library.sqlite").path)
    }

    override func tearDown() {
        for worker in running where worker.process.isRunning { worker.signal(SIGKILL) }
        running = []
        server.stop()
    }

    private func feed(_ n: Int) -> String {
        "<rss><channel><title>Feed \(n)</title><item><guid>g\(n)</guid><title>Episode \(n)</title></item></channel></rss>"
    }

    /// Subscribes the owner to the feed at `path` on the test server (recorded, not fetched: due).
    @discardableResult
    private func subscribe(_ path: String) async throws -> Int64 {
        let url = server.url(path)
        return try await library.library.addChannel(platform: .podcast, sourceURL: url, feedURL: url, name: path, now: Clock.now()).id
    }

    /// Starts `feedctl worker` on the library; with `lease`, its claims take that many seconds
    /// (`FEEDCTL_TEST_POLL_LEASE`, for tests only).
    private func startWorker(_ options: [String] = [], lease: Int? = nil) throws -> ProcessRunner.Running {
        var environment = ProcessInfo.processInfo.environment
        environment["FEEDCTL_TEST_POLL_LEASE"] = lease.map(String.init)
        let worker = try ProcessRunner.start(try DaemonTestCase.feedctlBinary().path,
                                             ["worker", "--db", library.library.path] + options, environment: environment)
        running.append(worker)
        return worker
    }

    private func count(_ sql: String) throws -> Int {
        Int(try library.strings(sql).first ?? "") ?? -1
    }

    /// Waits until the server has a request for `path` in flight (`inflight` 1) or none (0).
    private func waitForInflight(_ path: String, _ expected: Int, timeout: Double = 30) throws {
        var seen = -1
        let reached = eventually(timeout: timeout) {
            seen = (try? server.stats()).map { $0.inflight[path] ?? 0 } ?? -1
            return seen == expected
        }
        XCTAssertTrue(reached, "\(path): \(seen) requests in flight, waited for \(expected)")
        if !reached { throw ProcessRunner.Failure(description: "\(path) never had \(expected) requests in flight") }
    }

    /// Three workers on one library of 60 slow feeds, twice over (every channel made due again
    /// between the two): every channel is polled once per round, and no feed is ever requested
    /// twice at the same time.
    func testThreeWorkersPollEveryChannelOnceAndNeverOneFeedTwiceAtOnce() async throws {
        let count = 60
        var paths: [String] = []
        for n in 0..<count {
            try server.write("f\(n).xml", feed(n))
            paths.append("/delay/0.2/f\(n).xml")
            try await subscribe(paths[n])
        }
        for round in 1...2 {
            if round == 2 { try library.execute("UPDATE channels SET next_poll = NULL, last_synced = NULL") }
            let workers = try (0..<3).map { _ in try startWorker(["--batch", "4", "--concurrency", "4"]) }
            var polled = 0
            let done = eventually(timeout: 120) {
                polled = (try? self.count("SELECT count(*) FROM channels WHERE last_synced IS NOT NULL")) ?? 0
                return polled == count
            }
            XCTAssertTrue(done, "round \(round): \(polled) of \(count) channels polled")
            for worker in workers { worker.signal(SIGTERM) }
            for worker in workers {
                let result = try worker.wait(timeout: 30)
                XCTAssertEqual(result.status, 0, result.stderr)
                XCTAssertTrue(result.stderr.contains("worker: stopped after"), result.stderr)
            }
        }
        let stats = try server.stats()
        for path in paths {
            XCTAssertEqual(stats.hits[path], 2, "\(path) was fetched once per round")
            XCTAssertEqual(stats.max_overlap[path], 1, "\(path) was never fetched by two workers at once")
        }
        XCTAssertEqual(try self.count("SELECT count(*) FROM items"), count)
        XCTAssertEqual(try self.count("SELECT count(*) FROM channels WHERE claimed_by IS NOT NULL OR last_error IS NOT NULL"), 0)
    }

    /// A worker killed (SIGKILL) while it fetches a feed holds the channel only until its lease
    /// expires; then another worker polls it. The feed's answer is held (`/hold/`) so the kill
    /// comes mid-poll for sure.
    func testAKilledWorkersChannelIsPolledByAnotherAfterItsLease() async throws {
        let lease = 3
        try server.write("held.xml", feed(1))
        try server.write("held.xml.hold", "")
        let path = "/hold/held.xml"
        let id = try await subscribe(path)
        let first = try startWorker(lease: lease)
        try waitForInflight(path, 1)
        let expiry = try XCTUnwrap(Double(try library.strings("SELECT claimed_until FROM channels WHERE id = \(id)").first ?? ""),
                                   "the fetching worker holds a claim")
        first.signal(SIGKILL)
        XCTAssertEqual(try first.wait(timeout: 10).status, 128 + SIGKILL)
        try waitForInflight(path, 0)   // the server saw the killed worker's connection close
        try FileManager.default.removeItem(at: server.root.appendingPathComponent("held.xml.hold"))

        let second = try startWorker(lease: lease)
        XCTAssertTrue(eventually(timeout: 30) { ((try? self.count("SELECT count(*) FROM items WHERE channel_id = \(id)")) ?? 0) == 1 },
                      "the other worker polled the channel: \(second.stderrSoFar)")
        second.signal(SIGTERM)
        XCTAssertEqual(try second.wait(timeout: 30).status, 0)

        let stats = try server.stats()
        XCTAssertEqual(stats.hits[path], 2)
        XCTAssertEqual(stats.max_overlap[path], 1)
        let requests = stats.log.filter { $0.path == path }.compactMap(\.started).sorted()
        XCTAssertEqual(requests.count, 2)
        XCTAssertGreaterThanOrEqual(requests.last ?? 0, expiry, "the second fetch came once the killed worker's lease had expired")
        XCTAssertEqual(try library.strings("SELECT claimed_by IS NULL AND last_error IS NULL FROM channels WHERE id = \(id)"), ["1"])
    }

    /// Issue 26, item 1 ("every fetch made for a user's subscription is checked, whoever makes it
    /// (daemon, worker, cron sync)"): a worker polls a feed a server user follows (public
    /// addresses only) within that reach. `feeds.localhost` stands for a name that resolves to
    /// loopback only at fetch time (libcurl resolves it to 127.0.0.1 itself): Bob's is refused and
    /// nothing is requested for it; the owner's own feed on the same name is fetched.
    func testAWorkerKeepsAServerUsersFeedOffPrivateAddresses() async throws {
        try server.write("mine.xml", feed(1))
        try server.write("bobs.xml", feed(2))
        let mine = "http://feeds.localhost:\(server.port)/mine.xml", bobs = "http://feeds.localhost:\(server.port)/bobs.xml"
        let owner = library.library
        _ = try await owner.addChannel(platform: .podcast, sourceURL: mine, feedURL: mine, name: "mine", now: Clock.now())
        let bob = owner.acting(as: try await owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: Clock.now()).id)
        _ = try await bob.addChannel(platform: .podcast, sourceURL: bobs, feedURL: bobs, name: "bobs", reach: .publicOnly, now: Clock.now())

        let worker = try startWorker()
        XCTAssertTrue(eventually(timeout: 60) {
            (try? self.count("SELECT count(*) FROM channels WHERE last_synced IS NOT NULL OR last_error IS NOT NULL")) == 2
        }, "both channels polled: \(worker.stderrSoFar)")
        worker.signal(SIGTERM)
        XCTAssertEqual(try worker.wait(timeout: 30).status, 0)

        let errors = try library.strings("SELECT coalesce(last_error, '') FROM channels ORDER BY id")
        XCTAssertEqual(errors.count, 2)
        XCTAssertEqual(errors.first, "", "the owner's own feed on a private address was fetched")
        let refused = errors.last ?? ""
        XCTAssertTrue(refused.hasPrefix("\(bobs): refused: ") && refused.contains(" is a local address"), refused)
        let stats = try server.stats()
        XCTAssertEqual(stats.hits["/bobs.xml"] ?? 0, 0, "nothing was requested for Bob's feed")
        XCTAssertEqual(stats.hits["/mine.xml"], 1)
        XCTAssertEqual(try count("SELECT count(*) FROM items"), 1, "only the owner's item")
    }

    /// SIGTERM (or SIGINT) while a worker fetches: it finishes the poll, stores it, and exits 0.
    func testSIGTERMOrSIGINTMidPollFinishesAndStoresThePoll() async throws {
        for (n, sig) in [SIGTERM, SIGINT].enumerated() {
            try server.write("held\(n).xml", feed(n))
            try server.write("held\(n).xml.hold", "")
            let path = "/hold/held\(n).xml"
            let id = try await subscribe(path)
            let worker = try startWorker()
            try waitForInflight(path, 1)
            worker.signal(sig)
            // It stays while the feed's answer is held: what it holds is finished, not dropped.
            try await Task.sleep(for: .seconds(1))
            XCTAssertTrue(worker.process.isRunning, "signal \(sig): it left before its poll was stored")
            try FileManager.default.removeItem(at: server.root.appendingPathComponent("held\(n).xml.hold"))
            let result = try worker.wait(timeout: 30)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.stderr.contains("1 channel: 1 updated, 0 unchanged, 0 failed; 1 new item"), result.stderr)
            XCTAssertEqual(try count("SELECT count(*) FROM items WHERE channel_id = \(id)"), 1, "signal \(sig): its poll was stored")
            XCTAssertEqual(try library.strings("SELECT claimed_by IS NULL AND last_synced IS NOT NULL FROM channels WHERE id = \(id)"), ["1"])
        }
    }

    /// A second signal does not wait for a held fetch: the worker abandons it, releases the
    /// channel unpolled (nothing stored, no error, no backoff) and exits 0.
    func testASecondSignalAbandonsTheFetchAndReleasesTheChannel() async throws {
        try server.write("held.xml", feed(1))
        try server.write("held.xml.hold", "")
        let path = "/hold/held.xml"
        let id = try await subscribe(path)
        let worker = try startWorker()
        try waitForInflight(path, 1)
        worker.signal(SIGTERM)
        try await Task.sleep(for: .milliseconds(300))   // two signals sent at once may arrive as one
        worker.signal(SIGTERM)
        let result = try worker.wait(timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("1 channel: 0 updated, 0 unchanged, 0 failed, 1 released unpolled"), result.stderr)
        XCTAssertEqual(try library.strings("""
            SELECT claimed_by IS NULL AND last_synced IS NULL AND last_error IS NULL AND next_poll IS NULL FROM channels WHERE id = \(id)
            """), ["1"])
    }

    func testABadBatchOrTestLeaseIsAOneLineError() throws {
        let binary = try DaemonTestCase.feedctlBinary().path
        var run = try ProcessRunner.capture(binary, ["worker", "--db", library.library.path, "--batch", "0"])
        XCTAssertEqual(run.status, 64)
        XCTAssertEqual(run.stderr, "feedctl: --batch must be from 1 to 1000 (got 0)\n")
        var environment = ProcessInfo.processInfo.environment
        environment["FEEDCTL_TEST_POLL_LEASE"] = "soon"
        run = try ProcessRunner.capture(binary, ["worker", "--db", library.library.path], environment: environment)
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "feedctl: FEEDCTL_TEST_POLL_LEASE must be a whole number of seconds above 0 (got \"soon\"); it is for tests only\n")
        run = try ProcessRunner.capture(binary, ["worker", "--db", server.root.appendingPathComponent("none.sqlite").path])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.hasPrefix("feedctl: no library at "), run.stderr)
    }
}
