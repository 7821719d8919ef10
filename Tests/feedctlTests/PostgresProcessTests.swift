import FeedModel
import Foundation
import LibraryOpen
import LibraryStore
import TestSupport
import XCTest

/// Several processes on one PostgreSQL database (issue 28's deployment): `feedctl worker`s that
/// share the polling, and `feedctl serve` replicas behind haproxy (Debian's) that share
/// sessions, writes and the change log. Everything is real: the test run's PostgreSQL server
/// (`TestPostgres`, a database of this test's own), the built programs, haproxy with a config in
/// a temp dir on a free port, and the loopback feed server (`http_server.py`), which records per
/// feed how many requests for it were in flight at once. HTTP is spoken with the curl CLI, so no
/// check goes through the code under test.
final class PostgresProcessTests: XCTestCase {
    private var database: (name: String, url: String)!
    private var feeds: TestHTTPServer!
    private var dir: TempDir!
    /// Every process a test started, killed in `tearDown` if still running.
    private var running: [ProcessRunner.Running] = []

    override func setUpWithError() throws {
        database = try TestPostgres.createDatabase()
        feeds = try TestHTTPServer()
        dir = TempDir()
    }

    override func tearDown() {
        for process in running where process.process.isRunning {
            process.signal(SIGKILL)
            _ = try? process.wait(timeout: 10)
        }
        running = []
        feeds?.stop()
        if let database { TestPostgres.drop(database.name) }
        dir = nil
        super.tearDown()
    }

    // MARK: Workers

    /// Three workers on one database of 60 slow feeds and one whose answer is held: no feed is
    /// ever fetched by two workers at once, every channel is polled, and the worker killed
    /// (SIGKILL) while it fetches the held feed holds that channel only until its lease
    /// expires: then another worker polls it.
    func testThreeWorkersShareThePollingAndAKilledWorkersChannelIsPolledByAnotherAfterItsLease() async throws {
        // The lease is long enough that no fetch outlives it on a loaded machine (a slow feed takes
        // 0.3 s), and short enough to wait for once.
        let count = 60, lease = 10
        var paths: [String] = []
        for n in 0..<count {
            try feeds.write("f\(n).xml", Self.feed(n))
            paths.append("/delay/0.3/f\(n).xml")
        }
        try feeds.write("held.xml", Self.feed(1000))
        try feeds.write("held.xml.hold", "")
        let held = "/hold/held.xml"
        let library = try await LibraryOpener(db: database.url).open { _ in }
        var channels: [String: Int64] = [:]
        for path in paths + [held] {
            // Recorded, not fetched: due at once.
            channels[path] = try await library.owner.addChannel(platform: .podcast, sourceURL: feeds.url(path), feedURL: feeds.url(path),
                                                                name: path, now: Clock.now()).id
        }
        let heldID = try XCTUnwrap(channels[held])

        let workers = try (0..<3).map { _ in try startWorker(["--batch", "4", "--concurrency", "4"], lease: lease) }
        try waitForInflight(held, 1)
        // Who holds it: the claim names its process (`SyncClaimant`: "HOST pid N …").
        let claim = try sql("SELECT claimed_by || '|' || claimed_until FROM channels WHERE id = \(heldID)")
        let claimParts = claim.split(separator: "|")
        let expiry = try XCTUnwrap(claimParts.last.flatMap { Double($0) }, "the fetching worker holds a claim: \(claim)")
        let holder = try XCTUnwrap(workers.first { claim.contains(" pid \($0.process.processIdentifier) ") },
                                   "a worker of this test holds it: \(claim)")
        holder.signal(SIGKILL)
        XCTAssertEqual(try holder.wait(timeout: 10).status, 128 + SIGKILL)
        try waitForInflight(held, 0)   // the feed server saw the killed worker's connection close
        try FileManager.default.removeItem(at: feeds.root.appendingPathComponent("held.xml.hold"))

        var polled = 0
        let done = eventually(timeout: 120) {
            polled = Int((try? self.sql("SELECT count(*) FROM channels WHERE last_synced IS NOT NULL AND claimed_by IS NULL")) ?? "") ?? -1
            return polled == count + 1
        }
        XCTAssertTrue(done, "\(polled) of \(count + 1) channels polled and released")
        for worker in workers where worker !== holder {
            worker.signal(SIGTERM)
            let result = try worker.wait(timeout: 30)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.stderr.contains("worker: stopped after"), result.stderr)
        }

        let stats = try feeds.stats()
        for path in paths + [held] {
            XCTAssertGreaterThanOrEqual(stats.hits[path] ?? 0, 1, "\(path) was fetched")
            XCTAssertEqual(stats.max_overlap[path], 1, "\(path) was never fetched by two workers at once")
        }
        let heldRequests = stats.log.filter { $0.path == held }.compactMap(\.started).sorted()
        XCTAssertEqual(heldRequests.count, 2, "the held feed: the killed worker's fetch, then another's")
        XCTAssertGreaterThanOrEqual(heldRequests.last ?? 0, expiry, "the second fetch came once the killed worker's lease had expired")
        XCTAssertEqual(try sql("SELECT count(*) FROM items WHERE channel_id = \(heldID)"), "1")
        XCTAssertEqual(try sql("SELECT count(*) FROM items"), String(count + 1))
        XCTAssertEqual(try sql("SELECT count(*) FROM channels WHERE claimed_by IS NOT NULL OR last_error IS NOT NULL"), "0")
    }

    // MARK: Replicas

    /// Two replicas behind haproxy (round robin): a login made through it is valid on both
    /// replicas; every write it acknowledged (a subscription, a watch mark, progress, a saved
    /// item, a collection and its item, the queue) is read back through the replica that did not
    /// answer it; a logout ends the session on both.
    func testEveryWriteAReplicaAcknowledgedIsReadBackThroughTheOther() throws {
        try feeds.write("show.xml", Self.show(episodes: 3))
        try addUser("ann", password: "a long password")
        let replicas = try ["a", "b"].map { try startReplica($0) }
        let front = try startHAProxy(replicas)
        func other(_ name: String?) throws -> Replica {
            try XCTUnwrap(replicas.first { $0.name != name }, "haproxy named no replica (X-Replica: \(name ?? "none"))")
        }
        var servedBy: Set<String> = []
        /// A write through haproxy: its answer, and the replica that did not give it.
        func write(_ method: String, _ path: String, _ body: String, token: String?, expect status: Int,
                   line: UInt = #line) throws -> (json: Any?, other: Replica) {
            let answer = try http(method, front + path, body: body, token: token)
            XCTAssertEqual(answer.status, status, "\(method) \(path): \(answer.text)", line: line)
            if let name = answer.replica { servedBy.insert(name) }
            return (answer.json, try other(answer.replica))
        }

        let login = try write("POST", "/api/auth/login", #"{"username": "ann", "password": "a long password"}"#, token: nil, expect: 200)
        let token = try XCTUnwrap((login.json as? [String: Any])?["token"] as? String, "login: \(String(describing: login.json))")
        for replica in replicas {
            let me = try http("GET", replica.base + "/api/auth/me", token: token).json as? [String: Any]
            XCTAssertEqual(me?["authenticated"] as? Bool, true, "the session made through haproxy is valid on replica \(replica.name)")
            XCTAssertEqual((me?["user"] as? [String: Any])?["username"] as? String, "ann")
        }

        let subscribed = try write("POST", "/api/subscriptions", #"{"url": "\#(feeds.url("/show.xml"))"}"#, token: token, expect: 201)
        let channel = try XCTUnwrap(((subscribed.json as? [String: Any])?["id"] as? NSNumber)?.int64Value, "\(String(describing: subscribed.json))")
        XCTAssertEqual(try http("GET", subscribed.other.base + "/api/subscriptions/\(channel)", token: token).status, 200,
                       "the subscription, through the other replica")
        let page = try XCTUnwrap(try http("GET", subscribed.other.base + "/api/feed", token: token).json as? [String: Any])
        let items = try XCTUnwrap(page["items"] as? [[String: Any]], "\(page)")
        XCTAssertEqual(items.count, 3, "the subscription's items, through the other replica")
        let ids = items.compactMap { ($0["id"] as? NSNumber)?.int64Value }
        let links = items.compactMap { $0["video_url"] as? String }
        guard ids.count == 3, links.count == 3 else { return XCTFail("items without ids or links: \(items)") }

        func item(_ id: Int64, on replica: Replica) throws -> [String: Any] {
            try XCTUnwrap(try http("GET", replica.base + "/api/feed/items/\(id)", token: token).json as? [String: Any])
        }
        let watched = try write("PATCH", "/api/feed/\(ids[0])/watched", #"{"is_watched": true}"#, token: token, expect: 200)
        XCTAssertEqual(try item(ids[0], on: watched.other)["is_watched"] as? Bool, true, "the watch mark, through the other replica")
        let progress = try write("PATCH", "/api/feed/\(ids[1])/progress", #"{"watch_progress_seconds": 42}"#, token: token, expect: 200)
        XCTAssertEqual((try item(ids[1], on: progress.other)["watch_progress_seconds"] as? NSNumber)?.intValue, 42,
                       "the progress, through the other replica")

        let saved = try write("POST", "/api/saved-videos", #"{"video_url": "\#(links[2])"}"#, token: token, expect: 201)
        let savedID = try XCTUnwrap(((saved.json as? [String: Any])?["id"] as? NSNumber)?.int64Value, "\(String(describing: saved.json))")
        let savedBack = try http("GET", saved.other.base + "/api/saved-videos/\(savedID)", token: token)
        XCTAssertEqual(savedBack.status, 200, "the saved item, through the other replica: \(savedBack.text)")
        XCTAssertEqual(((savedBack.json as? [String: Any])?["item_id"] as? NSNumber)?.int64Value, ids[2])

        let created = try write("POST", "/api/collections", #"{"name": "Replicated"}"#, token: token, expect: 201)
        let collection = try XCTUnwrap(((created.json as? [String: Any])?["id"] as? NSNumber)?.int64Value, "\(String(describing: created.json))")
        XCTAssertEqual(try http("GET", created.other.base + "/api/collections/\(collection)", token: token).status, 200,
                       "the collection, through the other replica")
        let added = try write("POST", "/api/collections/\(collection)/items", #"{"item_id": \#(ids[0])}"#, token: token, expect: 201)
        let filled = try XCTUnwrap(try http("GET", added.other.base + "/api/collections/\(collection)", token: token).json as? [String: Any])
        XCTAssertEqual((filled["item_count"] as? NSNumber)?.intValue, 1, "the collection's item, through the other replica: \(filled)")

        let queued = try write("POST", "/api/queue", #"{"item_id": \#(ids[1])}"#, token: token, expect: 200)
        let queue = try XCTUnwrap(try http("GET", queued.other.base + "/api/queue", token: token).json as? [String: Any])
        let entries = queue["items"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.compactMap { (($0["item"] as? [String: Any])?["id"] as? NSNumber)?.int64Value }, [ids[1]],
                       "the queue, through the other replica: \(queue)")

        _ = try write("POST", "/api/auth/logout", "", token: token, expect: 200)
        for replica in replicas {
            let me = try http("GET", replica.base + "/api/auth/me", token: token).json as? [String: Any]
            XCTAssertEqual(me?["authenticated"] as? Bool, false, "the session ended through haproxy is gone on replica \(replica.name)")
        }
        XCTAssertEqual(servedBy, ["a", "b"], "haproxy sent writes to both replicas")
    }

    /// An `/api/events` stream held on one replica receives the changes made through the other
    /// (the change log is the database's; PostgreSQL wakes its readers with NOTIFY).
    func testAnEventMadeThroughOneReplicaReachesAStreamHeldOnTheOther() throws {
        try feeds.write("show.xml", Self.show(episodes: 2))
        try addUser("ann", password: "a long password")
        let a = try startReplica("a"), b = try startReplica("b")
        let login = try http("POST", a.base + "/api/auth/login", body: #"{"username": "ann", "password": "a long password"}"#)
        let token = try XCTUnwrap((login.json as? [String: Any])?["token"] as? String, login.text)
        XCTAssertEqual(try http("POST", b.base + "/api/subscriptions", body: #"{"url": "\#(feeds.url("/show.xml"))"}"#, token: token).status, 201)
        let page = try XCTUnwrap(try http("GET", b.base + "/api/feed", token: token).json as? [String: Any])
        let ids = (page["items"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? NSNumber)?.int64Value }
        XCTAssertEqual(ids.count, 2, "\(page)")
        guard let id = ids.first else { return }

        let events = dir.file("events.txt")
        let stream = try start("/usr/bin/curl", ["-sS", "-N", "--max-time", "60", "-o", events,
                                                 "-H", "Authorization: Bearer \(token)", a.base + "/api/events"])
        func received() -> String { (try? String(contentsOfFile: events, encoding: .utf8)) ?? "" }
        XCTAssertTrue(eventually(timeout: 15) { received().hasPrefix("id: ") }, "the stream on replica a opened: \(received()) \(stream.stderrSoFar)")

        XCTAssertEqual(try http("PATCH", b.base + "/api/feed/\(id)/watched", body: #"{"is_watched": true}"#, token: token).status, 200)
        var watch: [String: Any]?
        XCTAssertTrue(eventually(timeout: 15) {
            watch = Self.events(in: received(), kind: "watch").first { ($0["item_id"] as? NSNumber)?.int64Value == id }
            return watch != nil
        }, "the watch mark made through replica b reached the stream on replica a: \(received())")
        XCTAssertEqual(watch?["watched"] as? Bool, true)

        XCTAssertEqual(try http("POST", b.base + "/api/collections", body: #"{"name": "Elsewhere"}"#, token: token).status, 201)
        XCTAssertTrue(eventually(timeout: 15) { Self.events(in: received(), kind: "collection").contains { $0["action"] as? String == "created" } },
                      "the collection made through replica b reached the stream on replica a: \(received())")
        stream.signal(SIGTERM)
    }

    /// Single sign-on behind a balancer: a sign-in started on replica a (the provider's
    /// redirect names a's address) whose callback the balancer sends to replica b finishes
    /// there (the sign-ins under way are the library's), the session it opens is valid on both,
    /// and the same callback again is refused on either (the state was taken once). The
    /// provider is the real one (oidc-provider-mock, `OpenIDTestProvider`), reached with curl.
    func testASingleSignOnStartedOnOneReplicaFinishesOnTheOther() async throws {
        let provider = try OpenIDTestProvider(.real)
        let config = dir.file("oidc.toml")
        try """
            [oidc]
            issuer = "\(provider.issuer)"
            client_id = "feedctl-web"
            client_secret = "s3cret"
            provider_name = "Mock ID"
            allow_signup = true

            """.write(toFile: config, atomically: true, encoding: .utf8)
        var environment = self.environment
        environment["FEEDCTL_CONFIG"] = config
        let a = try startReplica("a", environment: environment), b = try startReplica("b", environment: environment)
        try await provider.setClaims(subject: "roamer-sub", ["preferred_username": "roamer"])

        let start = try await OpenIDTestHTTP.send("GET", a.base + "/api/auth/oidc/login?next=%2Fcollections")
        XCTAssertEqual(start.status, 303, start.text)
        let browser = "feedctl_sso=" + (try XCTUnwrap(start.cookie("feedctl_sso"), "\(start.cookies)"))
        let back = try await provider.authorize(try XCTUnwrap(start.headers["location"]), as: "roamer-sub")
        XCTAssertTrue(back.hasPrefix(a.base + "/api/auth/oidc/callback?"), back)
        let callback = String(back.dropFirst(a.base.count))
        let done = try await OpenIDTestHTTP.send("GET", b.base + callback, headers: ["Cookie": browser])
        XCTAssertEqual(done.status, 303, "replica b finishes what replica a started: \(done.text)")
        XCTAssertEqual(done.headers["location"], "/collections")
        let token = try XCTUnwrap(done.cookie("session_token"), "\(done.cookies)")
        for replica in [a, b] {
            let me = try http("GET", replica.base + "/api/auth/me", token: token).json as? [String: Any]
            XCTAssertEqual(me?["authenticated"] as? Bool, true, "the session is valid on replica \(replica.name)")
            XCTAssertEqual((me?["user"] as? [String: Any])?["username"] as? String, "roamer")
        }
        for replica in [a, b] {
            let replay = try await OpenIDTestHTTP.send("GET", replica.base + callback, headers: ["Cookie": browser])
            XCTAssertEqual(replay.status, 400, "the replayed state on replica \(replica.name): \(replay.text)")
            XCTAssertNil(replay.cookie("session_token"))
        }
        XCTAssertEqual(try sql("SELECT count(*) FROM sign_ins"), "0", "nothing left under way")
    }

    // MARK: Processes

    struct Replica {
        let name: String
        let base: String
    }

    /// The environment of every program started here: nothing of the tester's (config, data).
    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = dir.file("config")
        environment["XDG_DATA_HOME"] = dir.file("data")
        environment["FEEDCTL_MEDIA"] = dir.file("media")
        environment["FEEDCTL_DB"] = nil
        return environment
    }

    private func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessRunner.Running {
        let process = try ProcessRunner.start(executable, arguments, environment: environment ?? self.environment)
        running.append(process)
        return process
    }

    private func feedctlPath() throws -> String { try DaemonTestCase.feedctlBinary().path }

    /// `feedctl worker` on the database; its claims take `lease` seconds (`FEEDCTL_TEST_POLL_LEASE`).
    private func startWorker(_ options: [String], lease: Int) throws -> ProcessRunner.Running {
        var environment = self.environment
        environment["FEEDCTL_TEST_POLL_LEASE"] = String(lease)
        return try start(try feedctlPath(), ["worker", "--db", database.url] + options, environment: environment)
    }

    /// `feedctl serve` with logins on a free loopback port, once it says where it listens.
    private func startReplica(_ name: String, environment: [String: String]? = nil) throws -> Replica {
        let server = try start(try feedctlPath(), ["serve", "--listen", "127.0.0.1:0", "--db", database.url, "--allow-private-feeds",
                                                   "--socket", dir.file("player-\(name).sock")], environment: environment)
        var port: Int?
        let up = eventually(timeout: 30) {
            guard let range = server.stderrSoFar.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression) else { return false }
            port = Int(server.stderrSoFar[range].split(separator: ":").last ?? "")
            return port != nil
        }
        guard up, let port else { throw ProcessRunner.Failure(description: "replica \(name) did not start: \(server.stderrSoFar)") }
        return Replica(name: name, base: "http://127.0.0.1:\(port)")
    }

    /// haproxy in front of `replicas`, round robin, each answer naming its replica (`X-Replica`);
    /// its base URL once it answers `/health`.
    private func startHAProxy(_ replicas: [Replica]) throws -> String {
        let port = try Self.freePort()
        let config = dir.file("haproxy.cfg")
        try """
            global
              maxconn 256
            defaults
              mode http
              timeout connect 5s
              timeout client 60s
              timeout server 60s
            frontend api
              bind 127.0.0.1:\(port)
              default_backend replicas
            backend replicas
              balance roundrobin
              http-response set-header X-Replica %[srv_name]
            \(replicas.map { "  server \($0.name) \($0.base.dropFirst("http://".count))" }.joined(separator: "\n"))

            """.write(toFile: config, atomically: true, encoding: .utf8)
        // Debian installs it in /usr/sbin, which a user's PATH may lack.
        let haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "haproxy"
        let proxy = try start(haproxy, ["-db", "-f", config])
        let base = "http://127.0.0.1:\(port)"
        guard eventually(timeout: 20, { (try? http("GET", base + "/health").status) == 200 }) else {
            throw ProcessRunner.Failure(description: "haproxy did not answer on \(base): \(proxy.stderrSoFar)")
        }
        return base
    }

    /// `feedctl user add NAME --password-stdin` on the database.
    private func addUser(_ name: String, password: String) throws {
        let added = try ProcessRunner.capture("/bin/sh", ["-c", "printf '%s\\n' \"$PW\" | \"$0\" user add \"$1\" --password-stdin --db \"$2\"",
                                                          try feedctlPath(), name, database.url],
                                              environment: environment.merging(["PW": password]) { $1 }, timeout: 30)
        XCTAssertEqual(added.status, 0, added.stderr)
    }

    /// A free TCP port on 127.0.0.1 (bound and let go: nothing else here takes ports meanwhile).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProcessRunner.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ProcessRunner.Failure(description: "bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: HTTP and SQL

    struct Answer {
        let status: Int
        let text: String
        /// The replica haproxy sent the request to (`X-Replica`), when it went through haproxy.
        let replica: String?
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }
    }

    /// One request with the curl CLI: its status, body and `X-Replica`.
    private func http(_ method: String, _ url: String, body: String? = nil, token: String? = nil) throws -> Answer {
        var arguments = ["-sS", "--max-time", "30", "-i", "-X", method]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
        let result = try ProcessRunner.capture("/usr/bin/curl", arguments + [url], timeout: 40)
        guard result.status == 0, let split = result.stdout.range(of: "\r\n\r\n") else {
            throw ProcessRunner.Failure(description: "curl \(method) \(url): \(result.stderr)")
        }
        let head = result.stdout[..<split.lowerBound].split(separator: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        let replica = head.dropFirst().first { $0.lowercased().hasPrefix("x-replica:") }
            .map { $0.dropFirst("x-replica:".count).trimmingCharacters(in: .whitespaces) }
        return Answer(status: status, text: String(result.stdout[split.upperBound...]), replica: replica)
    }

    /// Runs `query` on the test's database; its output, trimmed.
    private func sql(_ query: String) throws -> String {
        try TestPostgres.psql(try TestPostgres.serverDirectory(), database.name, query).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until the feed server has `expected` requests for `path` in flight.
    private func waitForInflight(_ path: String, _ expected: Int, timeout: Double = 60) throws {
        var seen = -1
        let reached = eventually(timeout: timeout) {
            seen = (try? feeds.stats()).map { $0.inflight[path] ?? 0 } ?? -1
            return seen == expected
        }
        if !reached { throw ProcessRunner.Failure(description: "\(path): \(seen) requests in flight, waited for \(expected)") }
    }

    /// The `data` of each server-sent event of `kind` in `stream`, decoded.
    static func events(in stream: String, kind: String) -> [[String: Any]] {
        stream.components(separatedBy: "\n\n").compactMap { event in
            let lines = event.split(separator: "\n")
            guard lines.contains("event: \(kind)"), let data = lines.first(where: { $0.hasPrefix("data: ") }) else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(data.dropFirst("data: ".count).utf8)) as? [String: Any]
        }
    }

    // MARK: Feeds

    static func feed(_ n: Int) -> String {
        "<rss><channel><title>Feed \(n)</title><item><guid>g\(n)</guid><title>Episode \(n)</title></item></channel></rss>"
    }

    /// A podcast of `episodes` items, each with its page (`link`).
    static func show(episodes: Int) -> String {
        let items = (1...episodes).map { n in
            """
            <item><title>Episode \(n)</title><link>https://replicas.example.com/\(n)</link><guid>r\(n)</guid>
            <pubDate>Tue, 0\(n) Mar 2026 08:00:00 GMT</pubDate>
            <enclosure url="https://cdn.example.com/\(n).mp3" type="audio/mpeg" length="1000"/></item>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Replicated Show</title><link>https://replicas.example.com/</link>
            \(items.joined(separator: "\n"))
            </channel></rss>
            """
    }
}
