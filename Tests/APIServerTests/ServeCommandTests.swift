import Accounts
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// `feedctl serve`, the real executables: the CLI finds feedctl-serve beside itself and execs
/// it; what must not start says so in one line.
final class ServeCommandTests: XCTestCase {
    private func binary(_ name: String) throws -> String {
        try XCTUnwrap(PackagePaths.builtProgram(name)?.path, "\(name) not built")
    }

    private func feedctl(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.capture(try binary("feedctl"), arguments, timeout: 30)
    }

    /// `feedctl ARGUMENTS` started, and the port it says it listens on (at `host`).
    private func serve(_ arguments: [String], environment: [String: String]? = nil, scheme: String = "http", host: String = #"127\.0\.0\.1"#,
                       until: @escaping (String) -> Bool = { _ in true }) throws -> (ProcessRunner.Running, Int) {
        let server = try ProcessRunner.start(try binary("feedctl"), arguments, environment: environment)
        var port: Int?
        XCTAssertTrue(eventually(timeout: 20) {
            guard let range = server.stderrSoFar.range(of: "listening on \(scheme)://" + host + #":(\d+)"#, options: .regularExpression) else { return false }
            port = Int(server.stderrSoFar[range].split(separator: ":").last ?? "")
            return port != nil && until(server.stderrSoFar)
        }, server.stderrSoFar)
        return (server, try XCTUnwrap(port, server.stderrSoFar))
    }

    func testWhatMustNotStartSaysWhyInOneLine() async throws {
        let database = try await TestDatabase.make()
        let db = database.dbSetting
        let refusals: [([String], Int32, String)] = [
            (["serve", "--open", "--listen", "0.0.0.0:0", "--db", db], 1,
             "feedctl: --open serves the library without login, so only on loopback (127.0.0.1, ::1, localhost), not 0.0.0.0\n"),
            (["serve", "--open", "--listen", "127.0.0.1", "--db", db], 64,
             "feedctl: --listen takes HOST:PORT (e.g. 127.0.0.1:8000), not \"127.0.0.1\"\n"),
        ]
        for (arguments, status, message) in refusals {
            let result = try feedctl(arguments)
            XCTAssertEqual(result.status, status, arguments.joined(separator: " "))
            XCTAssertEqual(result.stderr, message)
        }
    }

    /// A new server's first start: with no library yet it makes one and says where (it used to
    /// refuse, so an admin had to subscribe to something first), then runs; the admin made next
    /// can log in. On PostgreSQL the library is a database an administrator made (`createdb`),
    /// empty: the first start makes its tables (a database is never made by a typo, so there is
    /// no "created" line to say).
    func testServeMakesAMissingLibraryAndSaysSo() async throws {
        let dir = TempDir()
        let engine = try StoreEngine.underTest()
        let db: String
        switch engine {
        case .sqlite:
            db = dir.file("new/library.sqlite")
        case .postgresql:
            let empty = try TestPostgres.createEmptyDatabase()
            addTeardownBlock { TestPostgres.drop(empty.name) }
            db = empty.url
        }
        let (server, port) = try serve(["serve", "--listen", "127.0.0.1:0", "--db", db], until: { $0.contains("no user can log in yet") })
        if engine == .sqlite {
            XCTAssertNotNil(server.stderrSoFar.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ created the library at "#
                                                     + NSRegularExpression.escapedPattern(for: db) + "\n", options: .regularExpression),
                            server.stderrSoFar)
        }
        let added = try ProcessRunner.capture("/bin/sh", ["-c", "printf 'a long password\\n' | \"$0\" user add admin --admin --password-stdin --db \"$1\"",
                                                          try binary("feedctl"), db], timeout: 30)
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(added.stderr, "", "the library is there")
        let login = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "20", "-H", "Content-Type: application/json",
                                                                "--data", #"{"username": "admin", "password": "a long password"}"#,
                                                                "http://127.0.0.1:\(port)/api/auth/login"], timeout: 30)
        XCTAssertTrue(login.stdout.contains(#""success":true"#), login.stdout)
        server.signal(SIGTERM)
        XCTAssertEqual(try server.wait(timeout: 20).status, 0)
    }

    /// A port another program holds: which address, and how to pick another, in one line (NIO
    /// said `bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`).
    func testATakenPortSaysWhichAddressAndHowToPickAnother() async throws {
        let database = try await TestDatabase.make()
        let (first, port) = try serve(["serve", "--open", "--listen", "127.0.0.1:0", "--db", database.dbSetting])
        let second = try feedctl(["serve", "--open", "--listen", "127.0.0.1:\(port)", "--db", database.dbSetting])
        XCTAssertEqual(second.status, 1)
        XCTAssertEqual(second.stderr, "feedctl: can't listen on 127.0.0.1:\(port): the address is in use (another feedctl serve, or another server);"
                       + " pick another address with --listen HOST:PORT\n")
        first.signal(SIGTERM)
        XCTAssertEqual(try first.wait(timeout: 20).status, 0)
    }

    /// `serve --help` gives each default once (ArgumentParser adds `(default: …)` itself; the
    /// help text said it again).
    func testServeHelpSaysEachDefaultOnce() throws {
        let help = try feedctl(["serve", "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertEqual(help.stdout.components(separatedBy: "127.0.0.1:8000").count - 1, 1, help.stdout)
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(words.contains("--listen <host:port> Address to listen on. (default: 127.0.0.1:8000)"), words)
    }

    /// Without `--open` the server takes logins, on any address, and says so; with no user who
    /// has a password it says how to make one.
    func testServeWithoutOpenTakesLoginsAndSaysHowToMakeAUser() async throws {
        let database = try await TestDatabase.make()
        let (server, port) = try serve(["serve", "--listen", "0.0.0.0:0", "--db", database.dbSetting], host: #"0\.0\.0\.0"#,
                                       until: { $0.contains("no user can log in yet") })
        XCTAssertTrue(server.stderrSoFar.contains(
            "(logins: every request but /health and /api/auth/* needs a token from POST /api/auth/login)"), server.stderrSoFar)
        // Every log line is whole and stamped in UTC, second precision.
        for line in server.stderrSoFar.split(separator: "\n") {
            XCTAssertNotNil(line.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z \S"#, options: .regularExpression), String(line))
        }
        XCTAssertTrue(server.stderrSoFar.contains(
            "no user can log in yet (none has a password): make one with `feedctl user add NAME --admin --password-stdin`"
            + ", or set one with `feedctl user passwd NAME`"), server.stderrSoFar)
        let base = "http://127.0.0.1:\(port)"
        let mode = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "10", base + "/api/auth/mode"], timeout: 15)
        let modeObject = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(mode.stdout.utf8)) as? [String: Any], mode.stdout)
        XCTAssertEqual(modeObject["mode"] as? String, "protected")
        let feed = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", base + "/api/feed"],
                                             timeout: 15)
        XCTAssertEqual(feed.stdout, "401")
        server.signal(SIGTERM)
        let result = try server.wait(timeout: 20)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// `/api/items/{id}/audio` serves a downloaded episode from the media directory the server
    /// was given, `--media-dir` or else `FEEDCTL_MEDIA`, not from beside the library (the
    /// default, beside a SQLite library, is AudioRouteTests'). The enclosure is on a port nothing
    /// listens on, and private to an open server: only the file can answer 200.
    func testServeServesDownloadsFromTheMediaDirectoryItWasGiven() async throws {
        let database = try await TestDatabase.make()
        let store = database.owner
        let channel = try await store.addChannel(platform: .podcast, sourceURL: "https://example.com/media-dir.xml",
                                                 feedURL: "https://example.com/media-dir.xml", name: "Audio", now: 1)
        _ = try await store.ingest(items: [Item(id: "ep", title: "Episode", published: 1,
                                                enclosure: Enclosure(url: "http://127.0.0.1:9/ep.mp3", type: "audio/mpeg"))],
                                   channelID: channel.id, now: 1)
        let id = try await store.id(of: "ep")
        let bytes = Data((0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let dir = TempDir()
        for (name, arguments, variable) in [("option", ["--media-dir", dir.file("option")], dir.file("elsewhere")),
                                            ("variable", [], dir.file("variable"))] {
            let media = dir.file(name)
            try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
            try bytes.write(to: URL(fileURLWithPath: media + "/\(id)_Episode.mp3"))
            var environment = ProcessInfo.processInfo.environment
            environment["FEEDCTL_MEDIA"] = variable
            let (server, port) = try serve(["serve", "--open", "--listen", "127.0.0.1:0", "--db", database.dbSetting] + arguments,
                                           environment: environment)
            let out = dir.file("\(name).mp3")
            let got = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "20", "-o", out, "-w", "%{http_code}",
                                                                  "http://127.0.0.1:\(port)/api/items/\(id)/audio"], timeout: 30)
            XCTAssertEqual(got.stdout, "200", "\(name): \(got.stderr)")
            XCTAssertEqual(try? Data(contentsOf: URL(fileURLWithPath: out)), bytes, name)
            server.signal(SIGTERM)
            XCTAssertEqual(try server.wait(timeout: 20).status, 0)
            try FileManager.default.removeItem(atPath: media)   // the next server must not find it
        }
    }

    func testServeRunsTheServerAndSaysItIsOpen() async throws {
        let database = try await TestDatabase.make()
        let (server, port) = try serve(["serve", "--open", "--listen", "127.0.0.1:0", "--db", database.dbSetting])
        XCTAssertTrue(server.stderrSoFar.contains("open mode: no login, every request acts for the library's owner; loopback only"))
        let health = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "10", "http://127.0.0.1:\(port)/health"], timeout: 15)
        XCTAssertEqual(health.status, 0, health.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(health.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["status"] as? String, "healthy")
        server.signal(SIGTERM)
        let result = try server.wait(timeout: 20)
        XCTAssertEqual(result.status, 0, "SIGTERM shuts the server down gracefully: \(result.stderr)")
    }

    /// `--cors ORIGIN` and `--allow-private-feeds` as given to `feedctl serve` (the other tests
    /// set them in the server's configuration): CORS answers only with the flag, and a feed on a
    /// loopback address is refused without the other (with it, the server tries to fetch it:
    /// nothing listens there, so that fails differently).
    func testCorsAndPrivateFeedsFromTheCommandLine() async throws {
        let database = try await TestDatabase.make()
        func curl(_ port: Int, _ arguments: [String]) throws -> ProcessRunner.Result {
            try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "20", "-D", "-"] + arguments.map {
                $0.replacingOccurrences(of: "BASE", with: "http://127.0.0.1:\(port)")
            }, timeout: 30)
        }
        let preflight = ["-X", "OPTIONS", "-H", "Origin: https://app.example", "-H", "Access-Control-Request-Method: GET", "BASE/api/feed"]
        let subscribe = ["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"url": "http://127.0.0.1:9/feed.xml"}"#, "BASE/api/subscriptions"]

        var (server, port) = try serve(["serve", "--open", "--listen", "127.0.0.1:0", "--db", database.dbSetting])
        XCTAssertFalse(try curl(port, preflight).stdout.lowercased().contains("access-control-allow-origin"), "no CORS without --cors")
        let refused = try curl(port, subscribe).stdout
        XCTAssertTrue(refused.contains("is a local address") && refused.contains("--allow-private-feeds"), refused)
        server.signal(SIGTERM)
        _ = try server.wait(timeout: 20)

        (server, port) = try serve(["serve", "--open", "--listen", "127.0.0.1:0", "--cors", "https://app.example", "--allow-private-feeds",
                                    "--db", database.dbSetting])
        let allowed = try curl(port, preflight).stdout.lowercased()
        XCTAssertTrue(allowed.contains("access-control-allow-origin: https://app.example"), allowed)
        let fetched = try curl(port, subscribe).stdout
        XCTAssertFalse(fetched.contains("is a local address"), fetched)
        XCTAssertTrue(fetched.contains("127.0.0.1:9"), "the fetch's own failure, naming the URL: \(fetched)")
        server.signal(SIGTERM)
        XCTAssertEqual(try server.wait(timeout: 20).status, 0)
    }

    /// `feedctl serve` places discovery's providers as the config file's `[discover]` says (an
    /// iTunes stand-in on 127.0.0.1 here); a broken file is a start error in one line.
    func testServeReadsDiscoverySettingsFromTheConfigFile() async throws {
        let database = try await TestDatabase.make()
        let dir = TempDir()
        let itunes = try TestHTTPServer()
        defer { itunes.stop() }
        try itunes.write("search", """
            {"resultCount": 1, "results": [{"wrapperType": "track", "kind": "podcast", "collectionId": 11,
             "collectionName": "The Tone Show", "artistName": "Tones", "feedUrl": "https://feeds.example.com/tone.xml"}]}
            """)
        let config = dir.file("config.toml")
        try "[discover]\nitunes_url = \"\(itunes.base)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["FEEDCTL_CONFIG"] = config
        environment["FEEDCTL_DISCOVER_ITUNES_URL"] = nil
        let (server, port) = try serve(["serve", "--open", "--listen", "127.0.0.1:0", "--db", database.dbSetting], environment: environment)
        let found = try ProcessRunner.capture("/usr/bin/curl", [
            "-sS", "--max-time", "20", "-H", "Content-Type: application/json",
            "-d", #"{"query": "tone", "platforms": ["itunes"], "type": "channels"}"#,
            "http://127.0.0.1:\(port)/api/discover/search",
        ], timeout: 30)
        let answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [String: Any], found.stdout)
        XCTAssertEqual((answer["results"] as? [[String: Any]])?.map { $0["name"] as? String }, ["The Tone Show"], found.stdout)
        XCTAssertEqual(answer["platforms_failed"] as? [String], [])
        server.signal(SIGTERM)
        _ = try server.wait(timeout: 20)

        try "[discover]\nitunes_url = \"gopher://x\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let refused = try ProcessRunner.capture(try binary("feedctl"), ["serve", "--open", "--listen", "127.0.0.1:0", "--db", database.dbSetting],
                                                environment: environment, timeout: 30)
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr, "feedctl: \(config): discover.itunes_url must be an http(s) URL, not \"gopher://x\"\n")
    }

    /// `[oidc]` from the config file: the real provider's button on `/api/auth/mode` and its
    /// sign-in route; a half-made configuration is one line before anything starts.
    func testServeReadsSingleSignOnFromTheConfigFile() async throws {
        let database = try await TestDatabase.make()
        let dir = TempDir()
        let provider = try OpenIDTestProvider(.real)
        let config = dir.file("config.toml")
        try "[oidc]\nissuer = \"\(provider.issuer)\"\nclient_id = \"feedctl-web\"\nprovider_name = \"Mock ID\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["FEEDCTL_CONFIG"] = config
        let (server, port) = try serve(["serve", "--listen", "127.0.0.1:0", "--db", database.dbSetting], environment: environment)
        XCTAssertTrue(server.stderrSoFar.contains("single sign-on through Mock ID (\(provider.issuer))"), server.stderrSoFar)
        let mode = try await OpenIDTestHTTP.send("GET", "http://127.0.0.1:\(port)/api/auth/mode")
        // Compared as JSON: an encoder's key order is not part of the contract (it differs between runs).
        let signOn = (try JSONSerialization.jsonObject(with: Data(mode.text.utf8)) as? [String: Any])?["single_sign_on"] as? [String: String]
        XCTAssertEqual(signOn, ["provider": "Mock ID", "login_url": "/api/auth/oidc/login"], mode.text)
        let login = try await OpenIDTestHTTP.send("GET", "http://127.0.0.1:\(port)/api/auth/oidc/login")
        XCTAssertEqual(login.status, 303)
        XCTAssertTrue(login.headers["location"]?.hasPrefix(provider.issuer + "/oauth2/authorize?") == true, login.headers["location"] ?? "")
        server.signal(SIGTERM)
        _ = try server.wait(timeout: 20)

        for (text, message) in [
            ("[oidc]\nissuer = \"\(provider.issuer)\"\n", "feedctl: oidc.issuer is set without oidc.client_id: set both for single sign-on (feedctl config set oidc.client_id ID)\n"),
            ("[oidc]\nallow_signup = true\n", "feedctl: oidc.allow_signup is set but single sign-on is off: set oidc.issuer and oidc.client_id too\n"),
        ] {
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            let refused = try ProcessRunner.capture(try binary("feedctl"), ["serve", "--listen", "127.0.0.1:0", "--db", database.dbSetting],
                                                    environment: environment, timeout: 30)
            XCTAssertEqual(refused.status, 1, text)
            XCTAssertEqual(refused.stderr, message)
        }
    }

    /// `--tls-cert`/`--tls-key`: HTTPS with the given PEM files (a self-signed certificate made
    /// with openssl, which curl is told to trust); plain HTTP on that port gets no answer; files
    /// that cannot serve are a start error in one line.
    func testServeSpeaksHTTPSWithTheGivenCertificate() async throws {
        let dir = TempDir()
        let (cert, key, otherKey) = (dir.file("cert.pem"), dir.file("key.pem"), dir.file("other.pem"))
        for (certificate, privateKey) in [(cert, key), (dir.file("other-cert.pem"), otherKey)] {
            let made = try ProcessRunner.capture("/usr/bin/openssl", [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", privateKey, "-out", certificate,
            ], timeout: 30)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        let database = try await TestDatabase.make()
        let db = database.dbSetting
        // With logins, so the session cookie's flags are seen: the owner gets a password.
        let users = try await database.owner.users()
        let owner = try XCTUnwrap(users.first { $0.id == .owner })
        try await database.owner.setPasswordHash(try Password.hash("tls test password", cost: 4), for: owner.name)
        let (server, port) = try serve(["serve", "--listen", "127.0.0.1:0", "--db", db, "--tls-cert", cert, "--tls-key", key], scheme: "https")
        let base = "127.0.0.1:\(port)"
        let health = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", cert, "https://\(base)/health"], timeout: 15)
        XCTAssertEqual(health.status, 0, health.stderr)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(health.stdout.utf8)) as? [String: Any])?["status"] as? String, "healthy")
        let untrusted = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "10", "https://\(base)/health"], timeout: 15)
        XCTAssertNotEqual(untrusted.status, 0, "a client that does not trust the certificate refuses it")
        let plain = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "10", "http://\(base)/health"], timeout: 15)
        XCTAssertNotEqual(plain.status, 0, "plain HTTP gets no answer: \(plain.stdout)")
        let login = try ProcessRunner.capture("/usr/bin/curl", [
            "-sS", "-i", "--max-time", "20", "--cacert", cert, "-H", "Content-Type: application/json",
            "--data", #"{"username": "\#(owner.name)", "password": "tls test password"}"#, "https://\(base)/api/auth/login",
        ], timeout: 30)
        XCTAssertEqual(login.status, 0, login.stderr)
        let cookie = login.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: session_token=") }
        XCTAssertTrue(cookie?.hasSuffix("; HttpOnly; SameSite=Lax; Secure") == true, "over TLS the cookie is Secure: \(login.stdout)")
        server.signal(SIGTERM)
        XCTAssertEqual(try server.wait(timeout: 20).status, 0)

        let refusals: [([String], Int32, String)] = [
            (["--tls-cert", cert], 64, "feedctl: --tls-cert and --tls-key go together\n"),
            (["--tls-cert", dir.file("missing.pem"), "--tls-key", key], 1, "feedctl: --tls-cert \(dir.file("missing.pem")): not a readable PEM certificate"),
            (["--tls-cert", cert, "--tls-key", cert], 1, "feedctl: --tls-key \(cert): not a readable PEM private key"),
            (["--tls-cert", cert, "--tls-key", otherKey], 1, "feedctl: --tls-key \(otherKey) does not go with --tls-cert \(cert)"),
        ]
        for (arguments, status, message) in refusals {
            let result = try feedctl(["serve", "--open", "--listen", "127.0.0.1:0", "--db", db] + arguments)
            XCTAssertEqual(result.status, status, arguments.joined(separator: " "))
            XCTAssertTrue(result.stderr.hasPrefix(message), result.stderr)
            XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr)
        }
    }

    /// After a storm of connections (`ConnectionLimits.stormConnections`, from several client
    /// addresses each under its cap) the real server gives their memory back to the system and
    /// says so (issue 26: RSS stayed at 280 MB after a storm).
    func testMemoryIsGivenBackAfterAStormOfConnections() async throws {
        let database = try await TestDatabase.make()
        let (server, port) = try serve(["serve", "--open", "--listen", "127.0.0.1:0", "--db", database.dbSetting])
        let perAddress = ConnectionLimits.maxPerAddress - 4
        let addresses = (ConnectionLimits.stormConnections + 10 + perAddress - 1) / perAddress
        var storm: [RawConnection] = []
        for address in 0..<addresses {
            for _ in 0..<perAddress {
                let connection = try RawConnection(port: port, from: "127.0.1.\(address + 10)")
                // Half a head each, with a long field: memory the server holds until it closes.
                connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Part: \(String(repeating: "x", count: 8_000))\r\n")
                storm.append(connection)
            }
        }
        XCTAssertGreaterThanOrEqual(storm.count, ConnectionLimits.stormConnections)
        // Answered once the server has taken every connection made before it (the accept queue is in order).
        let health = try RawConnection(port: port, from: "127.0.1.9").exchange("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(health?.hasPrefix("HTTP/1.1 200") == true, health ?? "no answer")
        XCTAssertFalse(server.stderrSoFar.contains("connection storm over"), "not while it lasts")
        storm.removeAll()
        XCTAssertTrue(eventually(timeout: 30) { server.stderrSoFar.contains("connection storm over: memory given back") }, server.stderrSoFar)
        let line = try XCTUnwrap(server.stderrSoFar.split(separator: "\n").first { $0.contains("connection storm over") })
        let numbers = line.split(whereSeparator: { !$0.isNumber }).suffix(2).compactMap { Int($0) }
        XCTAssertEqual(numbers.count, 2, String(line))
        XCTAssertLessThanOrEqual(numbers.last ?? .max, numbers.first ?? 0, "resident memory after the trim: \(line)")
        server.signal(SIGTERM)
        XCTAssertEqual(try server.wait(timeout: 20).status, 0)
    }
}
