import Foundation
import TestSupport
import XCTest

/// The library commands through the built `feedctl` binary, against a real HTTP server on
/// 127.0.0.1 and a library in a temp dir: the JSON contract of docs/cli.md, exit statuses and
/// one-line errors.
final class LibraryCLITests: XCTestCase {
    static let channelKeys: Set<String> = ["id", "platform", "name", "url", "feed_url", "items", "unwatched",
                                           "last_synced", "last_error", "next_poll", "warnings", "self_url", "next_page",
                                           "funding"]
    /// `show ID --json`: the item, and what only `show` has.
    static let itemDetailKeys: Set<String> = itemKeys.union(["explicit", "episode_type", "live_status", "persons", "funding", "notes_html"])
    static let itemKeys: Set<String> = ["id", "item_id", "channel_id", "channel", "platform", "title", "url", "published",
                                        "duration", "is_short", "watched", "progress", "enclosure_url", "thumbnail"]

    private var server: TestHTTPServer!
    private var db = ""

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        db = server.root.appendingPathComponent("library.sqlite").path
        try server.write("show.xml", Self.feed(episodes: 3))
    }

    override func tearDown() {
        server.stop()
    }

    /// An RSS feed of `episodes` weekly episodes, the newest first.
    static func feed(episodes: Int) -> String {
        let dates = ["Tue, 03 Mar 2026 08:00:00 GMT", "Tue, 10 Mar 2026 08:00:00 GMT",
                     "Tue, 17 Mar 2026 08:00:00 GMT", "Tue, 24 Mar 2026 08:00:00 GMT"]
        let items = (1...episodes).reversed().map { n in
            """
            <item><title>Episode \(n) &amp; friends</title><link>https://cli.example.com/\(n)</link>
            <guid isPermaLink="false">cli-\(n)</guid><pubDate>\(dates[n - 1])</pubDate>
            <itunes:duration>\(n * 10):00</itunes:duration>
            <enclosure url="https://cdn.example.com/\(n).mp3" type="audio/mpeg" length="\(n * 1000)"/></item>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>CLI Show</title><link>https://cli.example.com/</link>
            \(items.joined(separator: "\n"))
            </channel></rss>
            """
    }

    func testAddSyncFeedWatchShowRoundTrip() throws {
        let feedURL = server.url("/show.xml")

        let add = try feedctl(["channel", "add", feedURL, "--json"])
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stderr, "feedctl: created the library at \(db)\n", "said beside the JSON, not in it")
        let added = try XCTUnwrap(try add.json() as? [[String: Any]])
        XCTAssertEqual(added.count, 1)
        XCTAssertEqual(Set(added[0].keys), Self.channelKeys.union(["new_items", "already_subscribed"]))
        XCTAssertEqual(added[0]["already_subscribed"] as? Bool, false)
        XCTAssertEqual(added[0]["id"] as? Int, 1)
        XCTAssertEqual(added[0]["platform"] as? String, "podcast")
        XCTAssertEqual(added[0]["name"] as? String, "CLI Show")
        XCTAssertEqual(added[0]["url"] as? String, feedURL)
        XCTAssertEqual(added[0]["feed_url"] as? String, feedURL)
        XCTAssertEqual(added[0]["items"] as? Int, 3)
        XCTAssertEqual(added[0]["unwatched"] as? Int, 3)
        XCTAssertEqual(added[0]["new_items"] as? Int, 3)
        XCTAssertTrue(added[0]["last_error"] is NSNull)
        let synced = try XCTUnwrap(added[0]["last_synced"] as? Int)
        XCTAssertEqual(added[0]["next_poll"] as? Int, synced + 3600)

        // Nothing changed: one 304.
        let unchanged = try feedctl(["sync", "1", "--json"])
        XCTAssertEqual(unchanged.status, 0, unchanged.stderr)
        let report = try XCTUnwrap(try unchanged.json() as? [String: Any])
        XCTAssertEqual(Set(report.keys), ["channels", "new_items", "errors"])
        XCTAssertEqual(report["new_items"] as? Int, 0)
        XCTAssertEqual(report["errors"] as? Int, 0)
        let results = try XCTUnwrap(report["channels"] as? [[String: Any]])
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(Set(results[0].keys), ["id", "status", "new_items", "error", "seconds"])
        XCTAssertEqual(results[0]["id"] as? Int, 1)
        XCTAssertEqual(results[0]["status"] as? String, "unchanged")
        XCTAssertEqual(results[0]["new_items"] as? Int, 0)
        XCTAssertTrue(results[0]["error"] is NSNull)
        XCTAssertNotNil(results[0]["seconds"] as? Double)
        XCTAssertEqual(try server.stats().statuses("/show.xml"), [200, 304])

        // A new episode.
        try server.write("show.xml", Self.feed(episodes: 4))
        let updated = try feedctl(["sync", "--all", "--json"])
        XCTAssertEqual(updated.status, 0, updated.stderr)
        let second = try XCTUnwrap(try updated.json() as? [String: Any])
        XCTAssertEqual(second["new_items"] as? Int, 1)
        XCTAssertEqual((second["channels"] as? [[String: Any]])?.first?["status"] as? String, "updated")

        let feed = try feedctl(["feed", "--json"])
        XCTAssertEqual(feed.status, 0, feed.stderr)
        let items = try XCTUnwrap(try feed.json() as? [[String: Any]])
        XCTAssertEqual(items.map { $0["item_id"] as? String }, ["cli-4", "cli-3", "cli-2", "cli-1"], "newest first")
        XCTAssertEqual(Set(items[2].keys), Self.itemKeys)
        let episode2 = items[2]
        let id = try XCTUnwrap(episode2["id"] as? Int)
        XCTAssertEqual(episode2["channel_id"] as? Int, 1)
        XCTAssertEqual(episode2["channel"] as? String, "CLI Show")
        XCTAssertEqual(episode2["platform"] as? String, "podcast")
        XCTAssertEqual(episode2["title"] as? String, "Episode 2 & friends")
        XCTAssertEqual(episode2["url"] as? String, "https://cli.example.com/2")
        XCTAssertEqual(episode2["published"] as? Int, 1_773_129_600)
        XCTAssertEqual(episode2["duration"] as? Int, 1200)
        XCTAssertEqual(episode2["is_short"] as? Bool, false)
        XCTAssertEqual(episode2["watched"] as? Bool, false)
        XCTAssertEqual(episode2["progress"] as? Int, 0)
        XCTAssertEqual(episode2["enclosure_url"] as? String, "https://cdn.example.com/2.mp3")
        XCTAssertTrue(episode2["thumbnail"] is NSNull)

        let watched = try feedctl(["watched", String(id)])
        XCTAssertEqual(watched.status, 0, watched.stderr)
        XCTAssertEqual(watched.text, "marked 1 item watched: \(id)\n")

        let show = try feedctl(["show", String(id), "--json"])
        XCTAssertEqual(show.status, 0, show.stderr)
        let shown = try XCTUnwrap(try show.json() as? [String: Any])
        XCTAssertEqual(Set(shown.keys), Self.itemDetailKeys)
        XCTAssertTrue(shown["explicit"] is NSNull)
        XCTAssertEqual(shown["persons"] as? [String], [])
        XCTAssertEqual(shown["id"] as? Int, id)
        XCTAssertEqual(shown["item_id"] as? String, "cli-2")
        XCTAssertEqual(shown["watched"] as? Bool, true)

        let list = try feedctl(["channel", "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let channels = try XCTUnwrap(try list.json() as? [[String: Any]])
        XCTAssertEqual(channels.count, 1)
        XCTAssertEqual(Set(channels[0].keys), Self.channelKeys)
        XCTAssertEqual(channels[0]["items"] as? Int, 4)
        XCTAssertEqual(channels[0]["unwatched"] as? Int, 3)
        XCTAssertTrue(channels[0]["last_error"] is NSNull)
        XCTAssertEqual(channels[0]["warnings"] as? [String], [])
        XCTAssertTrue(channels[0]["next_page"] is NSNull)

        let unwatched = try feedctl(["feed", "--unwatched", "--json"])
        XCTAssertEqual(try XCTUnwrap(try unwatched.json() as? [[String: Any]]).map { $0["item_id"] as? String },
                       ["cli-4", "cli-3", "cli-1"])
    }

    func testErrorsExitNonZeroWithOneLineOnStderr() throws {
        let missing = server.url("/status/404")
        let cases: [([String], String)] = [
            // The first command makes the library (and says so), as a subscription does.
            (["channel", "add", missing], "feedctl: created the library at \(db)\nfeedctl: \(missing): HTTP 404 Not Found\n"),
            (["channel", "add", "not a url"], "feedctl: not a url: not an http(s) URL\n"),
            (["show", "999"], "feedctl: no item 999\n"),
            (["channel", "show", "7"], "feedctl: no channel 7\n"),
            (["feed", "--channel", "999"], "feedctl: no channel 999\n"),
            (["search", "episode", "--channel", "999"], "feedctl: no channel 999\n"),
            (["channel", "export", "/no/such/dir/x.opml"], "feedctl: cannot write /no/such/dir/x.opml: No such file or directory\n"),
            (["channel", "export", server.root.path], "feedctl: cannot write \(server.root.path): it is a directory\n"),
        ]
        for (arguments, message) in cases {
            let run = try feedctl(arguments)
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(run.stderr, message, "\(arguments)")
            XCTAssertEqual(run.text, "", "\(arguments)")
        }
        // A position past the item's end is refused (it was stored as given).
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0)
        let item = try XCTUnwrap(try feedctl(["show", "1", "--json"]).json() as? [String: Any])
        let length = try XCTUnwrap(item["duration"] as? Int)
        let past = try feedctl(["progress", "1", String(length + 1)])
        XCTAssertEqual(past.status, 1)
        XCTAssertEqual(past.stderr, "feedctl: item 1 is \(length / 60):00 long: \(length + 1) is past its end\n")
        XCTAssertEqual(try feedctl(["progress", "1", String(length)]).status, 0, "the end itself is fine")
    }

    func testReAddingSaysAlreadySubscribed() throws {
        let url = server.url("/show.xml")
        XCTAssertEqual(try feedctl(["channel", "add", url]).text, "added 1: CLI Show [podcast] — 3 new items\n")
        try server.write("show.xml", Self.feed(episodes: 4))
        let again = try feedctl(["channel", "add", url])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.text, "already subscribed 1: CLI Show [podcast] — 1 new item\n")
    }

    /// Shell completion: the scripts are generated for bash, zsh and fish, and the shell's call
    /// back for ids reads the library named on the command line (never creating one).
    func testCompletionOfIDsAndScripts() throws {
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0)
        let binary = try DaemonTestCase.feedctlBinary().path
        func complete(_ words: [String], prefix: String) throws -> String {
            let line = ["feedctl"] + words + [prefix]
            return try ProcessRunner.capture(binary, ["---completion"] + words.prefix(2) + ["--", "positional@0", String(line.count - 1), String(prefix.count)] + line).stdout
        }
        XCTAssertEqual(try complete(["channel", "show", "--db", db], prefix: ""), "1\n")
        let items = try ProcessRunner.capture(binary, ["---completion", "show", "--", "positional@0", "4", "0",
                                                       "feedctl", "show", "--db", db, ""]).stdout
        XCTAssertEqual(Set(items.split(separator: "\n")), ["1", "2", "3"], "item ids, newest first")
        XCTAssertEqual(try complete(["channel", "show", "--db", db], prefix: "2"), "\n")
        let missing = server.root.appendingPathComponent("none.sqlite").path
        XCTAssertEqual(try complete(["channel", "show", "--db", missing], prefix: ""), "\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "completion created a library")

        for shell in ["bash", "zsh", "fish"] {
            let script = try ProcessRunner.capture(binary, ["--generate-completion-script", shell])
            XCTAssertEqual(script.status, 0, script.stderr)
            XCTAssertTrue(script.stdout.contains("---completion channel show"), "\(shell): no id completion")
        }
        let bash = server.root.appendingPathComponent("feedctl.bash")
        try ProcessRunner.capture(binary, ["--generate-completion-script", "bash"]).stdout.write(to: bash, atomically: true, encoding: .utf8)
        XCTAssertEqual(try ProcessRunner.capture("bash", ["-n", bash.path]).status, 0, "the bash script parses")
        let version = try ProcessRunner.capture(binary, ["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, version.stdout)
    }

    /// On a terminal, list lines are cut to its width (here a pseudo-terminal 40 columns wide);
    /// piped, they are whole.
    func testListsFitTheTerminalWidth() throws {
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0)
        let command = "stty cols 40; " + ([try DaemonTestCase.feedctlBinary().path, "channel", "list", "--db", db])
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let tty = try ProcessRunner.capture("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
        XCTAssertEqual(tty.status, 0, tty.stderr)
        let whole = "   1  podcast      3 items     3 unwatched  CLI Show"
        XCTAssertTrue(tty.stdout.contains(String(whole.prefix(39)) + "…"), tty.stdout.debugDescription)
        XCTAssertEqual(try feedctl(["channel", "list"]).text, whole + "\n")
    }

    /// A feed's text reaches the terminal without its control characters (a C1 CSI, an OSC that
    /// would retitle the terminal, DEL) in every listing that prints it: the feed, channel list
    /// and show, show, search (issue 14 item 8; XML forbids C0 ones, the parser drops those).
    func testTerminalEscapesInAFeedAreNotPrinted() throws {
        try server.write("hostile.xml", """
            <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>
            <title>Evil\u{9D}0;owned\u{9C} Show</title><link>https://evil.example.com/\u{9B}2J</link>
            <item><title>Loud\u{9B}31m episode\u{7F}</title><guid>e1</guid><link>https://evil.example.com/1</link>
            <description>notes\u{9B}2J here</description>
            <enclosure url="https://evil.example.com/1.mp3" type="audio/mpeg" length="1"/></item>
            </channel></rss>
            """)
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/hostile.xml")]).status, 0)
        let id = try XCTUnwrap((try feedctl(["feed", "--json"]).json() as? [[String: Any]])?.first?["id"] as? Int)
        for command in [["feed"], ["channel", "list"], ["channel", "show", "1"], ["show", String(id)], ["search", "episode"]] {
            let run = try feedctl(command)
            XCTAssertEqual(run.status, 0, "\(command): \(run.stderr)")
            let controls = run.text.unicodeScalars.filter { (0x7F...0x9F).contains($0.value) || ($0.value < 0x20 && $0 != "\n") }
            XCTAssertEqual(controls.map(\.value), [], "\(command) printed control characters: \(run.text.debugDescription)")
            XCTAssertTrue(run.text.contains("\u{FFFD}"), "\(command) shows where they were: \(run.text.debugDescription)")
        }
        let json = try XCTUnwrap(try feedctl(["show", String(id), "--json"]).json() as? [String: Any])
        XCTAssertEqual(json["title"] as? String, "Loud\u{9B}31m episode\u{7F}", "the JSON keeps the text as it is")
    }

    /// A writer waits for another process's long write transaction (here 12 s, over the old
    /// 10 s busy timeout) instead of failing with "database is locked" (issue 14 item 10).
    func testAWriterWaitsForALongTransaction() throws {
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0)
        let holder = try ProcessRunner.start("python3", ["-c", """
            import sqlite3, sys, time
            con = sqlite3.connect(sys.argv[1], isolation_level=None)
            con.execute("BEGIN IMMEDIATE")
            con.execute("UPDATE channels SET name = name")
            print("locked", flush=True)
            sys.stderr.write("locked\\n"); sys.stderr.flush()
            time.sleep(12)
            con.execute("COMMIT")
            """, db])
        XCTAssertTrue(eventually(timeout: 10) { holder.stderrSoFar.contains("locked") }, holder.stderrSoFar)
        let run = try feedctl(["progress", "1", "30"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.text, "item 1 at 0:30\n")
        XCTAssertEqual(try holder.wait(timeout: 30).status, 0)
    }

    /// `progress` near an item's end counts it as heard (`WatchRule`, applied by the store's one
    /// watch-state writer for every route that writes a position): the item is marked watched,
    /// and the line says so. Before, it stayed "in progress" at 99 %.
    func testAProgressNearTheEndMarksTheItemWatched() throws {
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0)
        func shown(_ id: String) throws -> (watched: Bool?, progress: Int?, duration: Int?) {
            let item = try XCTUnwrap(try feedctl(["show", id, "--json"]).json() as? [String: Any])
            return (item["watched"] as? Bool, item["progress"] as? Int, item["duration"] as? Int)
        }
        let length = try XCTUnwrap(try shown("1").duration)
        let heard = try feedctl(["progress", "1", String(length - 10)])
        XCTAssertEqual(heard.status, 0, heard.stderr)
        XCTAssertEqual(heard.text, "item 1 at \(length / 60 - 1):50 (near enough its end to count as heard: marked watched)\n")
        XCTAssertEqual(try shown("1").watched, true)
        XCTAssertEqual(try shown("1").progress, 0)
        let partway = try feedctl(["progress", "2", "60"])
        XCTAssertEqual(partway.text, "item 2 at 1:00\n")
        XCTAssertEqual(try shown("2").watched, false)
        XCTAssertEqual(try shown("2").progress, 60)
    }

    /// A mistyped `--db` is an error for every command but the ones that subscribe: before, each
    /// read command created an empty library there and showed nothing, as if the real one were
    /// empty.
    func testAMissingLibraryIsAnErrorForReadCommands() throws {
        let message = "feedctl: no library at \(db) (`feedctl channel add URL` or `feedctl channel import FILE` creates it)\n"
        for arguments in [["feed"], ["channel", "list"], ["sync"], ["show", "1"], ["channel", "export"], ["history"]] {
            let run = try feedctl(arguments)
            XCTAssertEqual(run.status, 1, "\(arguments)")
            XCTAssertEqual(run.stderr, message, "\(arguments)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: db), "\(arguments) created a library")
        }
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0, "channel add creates it")
        XCTAssertEqual(try feedctl(["feed"]).status, 0)
    }

    /// `--db` and `FEEDCTL_DB` take a PostgreSQL URL in libpq's form: a malformed one is one line
    /// before anything runs, and no message shows its password. This build has no PostgreSQL
    /// store yet: every command, the server and the daemon refuse the URL in one line and make
    /// nothing. (The one test of that refusal: it changes when LibraryPostgres is wired in.)
    func testAPostgreSQLURLIsReadAndOpened() throws {
        let binary = try DaemonTestCase.feedctlBinary().path
        let home = TempDir()
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.file("config")   // the tester's config file is not read
        environment["XDG_DATA_HOME"] = home.file("data")
        environment["FEEDCTL_MEDIA"] = nil
        func run(_ arguments: [String], db: String? = nil) throws -> ProcessRunner.Result {
            var env = environment
            env["FEEDCTL_DB"] = db
            return try ProcessRunner.capture(binary, arguments, environment: env, timeout: 30)
        }
        let url = "postgresql://feedctl:hunter2@localhost/lib?host=/run/dir"
        // No server there: every command says so in one line, the password masked.
        let noServer = "feedctl: library postgresql://feedctl:***@localhost/lib?host=/run/dir: can't connect:"
        let socket = home.file("run/player.sock")
        var results: [([String], ProcessRunner.Result)] = []
        for arguments in [["feed"], ["channel", "add", server.url("/show.xml")], ["user", "add", "ann"], ["download", "list"],
                          ["serve", "--open", "--listen", "127.0.0.1:0"], ["daemon", "--sync-every", "0", "--socket", socket]] {
            results.append((arguments, try run(arguments + ["--db", url])))
        }
        results.append((["channel", "list", "(FEEDCTL_DB)"], try run(["channel", "list"], db: url)))
        for (arguments, result) in results {
            XCTAssertEqual(result.status, 1, "\(arguments)")
            XCTAssertTrue(result.stderr.hasPrefix(noServer), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, "one line: \(result.stderr)")
        }

        // A real server's database: made on first use, then the CLI works on it as on a file.
        let database = try TestPostgres.createEmptyDatabase()
        defer { TestPostgres.drop(database.name) }
        let added = try run(["user", "add", "ann", "--db", database.url])
        XCTAssertEqual(added.status, 0, added.stderr)
        let users = try run(["user", "list"], db: database.url)
        XCTAssertEqual(users.status, 0, users.stderr)
        XCTAssertTrue(users.stdout.contains("ann"), users.stdout)
        let subscribed = try run(["channel", "add", server.url("/show.xml"), "--db", database.url])
        XCTAssertEqual(subscribed.status, 0, subscribed.stderr)
        let feed = try run(["feed", "--db", database.url])
        XCTAssertEqual(feed.status, 0, feed.stderr)
        XCTAssertFalse(feed.stdout.isEmpty, "the channel's items are in the PostgreSQL library's feed")

        let badPort = try run(["feed", "--db", "postgresql://feedctl:hunter2@localhost:99999/lib"])
        XCTAssertEqual(badPort.status, 1)
        XCTAssertEqual(badPort.stderr, "feedctl: --db postgresql://feedctl:***@localhost:99999/lib: a port is a number from 1 to 65535\n")
        let badVariable = try run(["feed"], db: "postgres://feedctl:hunter2@[::1/lib")
        XCTAssertEqual(badVariable.stderr, "feedctl: FEEDCTL_DB postgres://feedctl:***@[::1/lib: an IPv6 address has no closing ]\n")
        let otherScheme = try run(["feed", "--db", "sqlite:///tmp/x.sqlite"])
        XCTAssertEqual(otherScheme.stderr, "feedctl: --db sqlite:///tmp/x.sqlite: a sqlite:// URL is no library; give a file path or a postgresql:// URL\n")

        for result in results.map(\.1) + [badPort, badVariable] {
            XCTAssertFalse((result.stdout + result.stderr).contains("hunter2"), "the password was printed: \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.file("data")), "nothing was made")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "nothing was made")
    }

    /// A channel that fails is reported in the JSON; when every channel failed the command
    /// also fails, with one line on stderr.
    func testSyncReportsAFailingChannel() throws {
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0)
        try FileManager.default.removeItem(at: server.root.appendingPathComponent("show.xml"))

        let run = try feedctl(["sync", "--all", "--json"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "feedctl: 1 of 1 channel failed to sync\n")
        let report = try XCTUnwrap(try run.json() as? [String: Any])
        XCTAssertEqual(report["errors"] as? Int, 1)
        let result = try XCTUnwrap((report["channels"] as? [[String: Any]])?.first)
        XCTAssertEqual(result["status"] as? String, "error")
        XCTAssertEqual(result["error"] as? String, "\(server.url("/show.xml")): HTTP 404 Not Found")

        let list = try feedctl(["channel", "list", "--json"])
        let channel = try XCTUnwrap((try list.json() as? [[String: Any]])?.first)
        XCTAssertEqual(channel["items"] as? Int, 3, "a failed sync keeps the items")
        XCTAssertEqual(channel["last_error"] as? String, "\(server.url("/show.xml")): HTTP 404 Not Found")
    }

    /// Some channels failing is a partial failure: exit status 2 (docs/cli.md's exit statuses),
    /// one line on stderr after the summary, the others synced.
    func testSyncWithSomeFailuresExitsTwo() throws {
        try server.write("other.xml", Self.feed(episodes: 2).replacingOccurrences(of: "CLI Show", with: "Other Show"))
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0)
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/other.xml")]).status, 0)
        try FileManager.default.removeItem(at: server.root.appendingPathComponent("show.xml"))

        let run = try feedctl(["sync", "--all"])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertEqual(run.stderr, "feedctl: 1 of 2 channels failed to sync\n")
        XCTAssertEqual(run.text, """
            error    1 CLI Show: \(server.url("/show.xml")): HTTP 404 Not Found
            synced 2 channels: 0 updated, 1 unchanged, 1 failed; 0 new items

            """)
    }

    /// Ctrl-C during a sync: the feeds that finished are in the library before the process
    /// exits, the one still fetching is left as it was (no error, no backoff), and the exit
    /// status is 130 with one line saying so. Before the fix the finished fetches waited for a
    /// batch of 16 and died with the process.
    func testInterruptedSyncKeepsWhatFinished() throws {
        try server.write("other.xml", Self.feed(episodes: 2).replacingOccurrences(of: "CLI Show", with: "Other Show"))
        let opml = server.root.appendingPathComponent("subscriptions.opml").path
        try """
            <?xml version="1.0"?><opml version="2.0"><body>
            <outline text="Show" xmlUrl="\(server.url("/show.xml"))"/>
            <outline text="Other" xmlUrl="\(server.url("/other.xml"))"/>
            <outline text="Slow" xmlUrl="\(server.url("/hang?seconds=60"))"/>
            </body></opml>
            """.write(toFile: opml, atomically: true, encoding: .utf8)
        XCTAssertEqual(try feedctl(["channel", "import", "--no-sync", opml]).status, 0)

        let sync = try ProcessRunner.start(try DaemonTestCase.feedctlBinary().path, ["sync", "--all", "--db", db])
        func synced() throws -> [String: [String: Any]] {
            let list = try feedctl(["channel", "list", "--json"]).json() as? [[String: Any]] ?? []
            return Dictionary(list.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }
        // The two fast feeds reach the library while the slow one is still being fetched.
        XCTAssertTrue(eventually(timeout: 15) { ((try? synced()) ?? [:]).keys.sorted() == ["CLI Show", "Other Show", "Slow"] },
                      "the finished feeds were not stored while the sync ran: \(sync.stderrSoFar)")
        sync.signal(SIGINT)
        let run = try sync.wait(timeout: 20)

        XCTAssertEqual(run.status, 130, run.stderr)
        XCTAssertEqual(run.stderr, "feedctl: interrupted: 2 of 3 channels synced and stored; the others were left as they were\n")
        let lines = run.stdout.split(separator: "\n")
        XCTAssertEqual(lines.first, "synced 2 channels: 2 updated, 0 unchanged, 0 failed; 5 new items")
        XCTAssertEqual(lines.count, 6, "each new item named: \(run.stdout)")
        let channels = try synced()
        XCTAssertEqual(channels["CLI Show"]?["items"] as? Int, 3)
        XCTAssertEqual(channels["Other Show"]?["items"] as? Int, 2)
        XCTAssertTrue(channels["Slow"]?["last_error"] is NSNull, "an interrupted fetch is not the feed's failure")
        XCTAssertTrue(channels["Slow"]?["last_synced"] is NSNull)
    }

    /// `channel import` goes through the same pipeline as `channel add` and `sync`: each new
    /// feed is fetched, parsed and stored with its channel's bookkeeping; a feed that cannot be
    /// fetched is subscribed anyway, with its error, for later syncs; a known feed is skipped.
    /// With --no-sync only the subscriptions are recorded.
    func testImportSubscribesThroughThePipeline() throws {
        try server.write("other.xml", Self.feed(episodes: 2).replacingOccurrences(of: "CLI Show", with: "Other Show"))
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0)
        let opml = server.root.appendingPathComponent("subscriptions.opml").path
        try """
            <?xml version="1.0"?><opml version="2.0"><body>
            <outline text="Known" xmlUrl="\(server.url("/show.xml"))"/>
            <outline text="Outline title" xmlUrl="\(server.url("/other.xml"))" htmlUrl="https://other.example.com/"/>
            <outline text="Gone" xmlUrl="\(server.url("/status/404"))"/>
            </body></opml>
            """.write(toFile: opml, atomically: true, encoding: .utf8)

        let run = try feedctl(["channel", "import", opml])
        XCTAssertEqual(run.status, 2, "a feed that could not be fetched is a partial failure: \(run.stderr)")
        XCTAssertEqual(run.stderr, "feedctl: 1 of 2 feeds could not be fetched; they stay subscribed and are retried by sync\n")
        XCTAssertEqual(run.text, """
            imported 2 channels from \(opml) (1 already subscribed)
            error    3 Gone: \(server.url("/status/404")): HTTP 404 Not Found
            synced 2 channels: 2 new items, 1 failed

            """)
        let list = try XCTUnwrap(try feedctl(["channel", "list", "--json"]).json() as? [[String: Any]])
        let byName = Dictionary(list.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(Set(byName.keys), ["CLI Show", "Other Show", "Gone"], "the feed's title replaces the outline's")
        XCTAssertEqual(byName["Other Show"]?["items"] as? Int, 2)
        XCTAssertEqual(byName["Other Show"]?["url"] as? String, "https://other.example.com/")
        XCTAssertTrue(byName["Other Show"]?["last_error"] is NSNull)
        XCTAssertNotNil(byName["Other Show"]?["last_synced"] as? Int, "stored with its bookkeeping")
        XCTAssertEqual(byName["Gone"]?["items"] as? Int, 0)
        XCTAssertEqual(byName["Gone"]?["last_error"] as? String, "\(server.url("/status/404")): HTTP 404 Not Found")

        // --no-sync: recorded under the outline's title, nothing fetched.
        let before = try server.stats().log.count
        try """
            <?xml version="1.0"?><opml version="2.0"><body>
            <outline text="Later" xmlUrl="\(server.url("/later.xml"))"/></body></opml>
            """.write(toFile: opml, atomically: true, encoding: .utf8)
        let recorded = try feedctl(["channel", "import", "--no-sync", "--json", opml])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        let channels = try XCTUnwrap(try recorded.json() as? [[String: Any]])
        XCTAssertEqual(channels.map { $0["name"] as? String }, ["Later"])
        XCTAssertTrue(channels[0]["last_synced"] is NSNull)
        XCTAssertEqual(try server.stats().log.count, before, "--no-sync fetches nothing")
    }

    /// On a terminal (util-linux `script` gives the command a pseudo-terminal) sync draws a
    /// progress bar on stderr, clears it, then prints the summary; piped, there is no bar.
    func testSyncDrawsAProgressBarOnlyOnATerminal() throws {
        XCTAssertEqual(try feedctl(["channel", "add", server.url("/show.xml")]).status, 0)
        let command = ([try DaemonTestCase.feedctlBinary().path, "sync", "--all", "--db", db])
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let tty = try ProcessRunner.capture("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
        XCTAssertEqual(tty.status, 0, tty.stderr)
        let bar = "\r[" + String(repeating: "#", count: 30) + "] 1/1 "
        let clear = "\r\u{1B}[K"
        let summary = "synced 1 channel: 0 updated, 1 unchanged, 0 failed; 0 new items"
        let barAt = try XCTUnwrap(tty.stdout.range(of: bar), "no full bar in \(tty.stdout.debugDescription)")
        let clearAt = try XCTUnwrap(tty.stdout.range(of: clear, range: barAt.upperBound..<tty.stdout.endIndex),
                                    "the bar is not cleared: \(tty.stdout.debugDescription)")
        XCTAssertNotNil(tty.stdout.range(of: summary, range: clearAt.upperBound..<tty.stdout.endIndex),
                        "no summary after the bar: \(tty.stdout.debugDescription)")

        let piped = try feedctl(["sync", "--all"])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stderr, "")
        XCTAssertEqual(piped.text, summary + "\n")
    }

    // MARK: running the binary

    struct Run {
        var status: Int32
        var stdout: Data
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
        func json() throws -> Any { try JSONSerialization.jsonObject(with: stdout) }
    }

    /// Runs `feedctl ARGUMENTS --db <temp library>`.
    func feedctl(_ arguments: [String]) throws -> Run {
        let result = try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db])
        return Run(status: result.status, stdout: Data(result.stdout.utf8), stderr: result.stderr)
    }
}
