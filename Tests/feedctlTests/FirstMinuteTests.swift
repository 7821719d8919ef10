import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// Issue 26's first minute on a fresh machine, through the built `feedctl`: the commands a server
/// admin starts with make the library, a plain `sync` says when something is due and what was
/// new, a typo gets the nearest command, and the smaller messages that said too little.
final class FirstMinuteTests: XCTestCase {
    private var server: TestHTTPServer!
    private var dir: TempDir!
    /// Not created by setUp: the tests start where a new machine does.
    private var db: String { dir.file("data/feedctl/library.sqlite") }

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        dir = TempDir()
        try server.write("show.xml", Self.feed(episodes: 3))
    }

    override func tearDown() { server.stop() }

    /// An RSS feed of `episodes` episodes a day apart, the newest first; `title` names episode N.
    static func feed(episodes: Int, title: (Int) -> String = { "Episode \($0)" }) -> String {
        let items = (1...episodes).reversed().map { n in
            """
            <item><title>\(title(n))</title><guid isPermaLink="false">first-\(n)</guid>
            <pubDate>\(String(format: "%02d", n)) Mar 2026 08:00:00 GMT</pubDate>
            <enclosure url="https://cdn.example.com/\(n).mp3" type="audio/mpeg" length="1000"/></item>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>First Show</title><link>https://first.example.com/</link>
            \(items.joined(separator: "\n"))
            </channel></rss>
            """
    }

    private func feedctl(_ arguments: String...) throws -> ProcessRunner.Result {
        try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db])
    }

    /// `feedctl ARGS` with `input` as one line of standard input (a pipe, never a terminal).
    private func feedctl(input: String, _ arguments: String...) throws -> ProcessRunner.Result {
        let command = ([try DaemonTestCase.feedctlBinary().path] + arguments + ["--db", db]).map(Self.quoted).joined(separator: " ")
        return try ProcessRunner.capture("/bin/sh", ["-c", "printf '%s\\n' \"$PW\" | \(command)"],
                                         environment: ProcessInfo.processInfo.environment.merging(["PW": input]) { $1 })
    }

    /// `feedctl ARGS` on a terminal (util-linux `script` gives it a pseudo-terminal); its output
    /// with the terminal's line ends made plain.
    private func onTerminal(_ arguments: String...) throws -> String {
        let command = ([try DaemonTestCase.feedctlBinary().path] + arguments + ["--db", db]).map(Self.quoted).joined(separator: " ")
        let run = try ProcessRunner.capture("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"],
                                            environment: ProcessInfo.processInfo.environment.merging(["COLUMNS": "200"]) { $1 })
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        return run.stdout.replacingOccurrences(of: "\r\n", with: "\n")
    }

    private static func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    private func itemIDs() throws -> [Int64] {
        let run = try feedctl("feed", "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        return items.compactMap { ($0["id"] as? NSNumber)?.int64Value }
    }

    // MARK: the library

    /// Making the admin is a server's first command: it makes the library (before, it answered
    /// `no library at …` until something was subscribed) and says where, once. Setting the
    /// owner's password does too. Reading commands still refuse a missing library.
    func testUserAddAndPasswdMakeTheLibraryAndSaySo() throws {
        var run = try feedctl(input: "a long password", "user", "add", "admin", "--admin", "--password-stdin")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "feedctl: created the library at \(db)\n")
        XCTAssertEqual(run.stdout, "added user 2: admin (admin)\n")
        run = try feedctl("user", "add", "bob")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "", "said once, when it was made")

        let owner = try XCTUnwrap(try feedctl("user", "list").stdout.split(separator: ":").dropFirst().first?
            .split(separator: " ").first.map(String.init))
        try FileManager.default.removeItem(atPath: db)
        run = try feedctl(input: "the owner's password", "user", "passwd", owner, "--password-stdin")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "feedctl: created the library at \(db)\n")
        XCTAssertEqual(run.stdout, "password set for \(owner)\n")

        try FileManager.default.removeItem(atPath: db)
        run = try feedctl("user", "list")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "feedctl: no library at \(db) (`feedctl channel add URL` or `feedctl channel import FILE` creates it)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "a read never makes one")

        // `channel add` says so too, on stderr: its --json stays one document on stdout.
        run = try feedctl("channel", "add", server.url("/show.xml"), "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "feedctl: created the library at \(db)\n")
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [Any])
    }

    // MARK: sync

    /// A plain `sync` with nothing due said `synced 0 channels: 0 updated…` and nothing more.
    func testSyncWithNothingDueSaysWhenTheNextIsAndHowToPollNow() throws {
        XCTAssertEqual(try feedctl(input: "a long password", "user", "add", "admin", "--password-stdin").status, 0)
        var run = try feedctl("sync")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "no channels to sync yet: feedctl channel add URL\n")

        XCTAssertEqual(try feedctl("channel", "add", server.url("/show.xml")).status, 0)
        run = try feedctl("sync")
        XCTAssertEqual(run.status, 0, run.stderr)
        // Polled at subscription, next in an hour (SyncPolicy's interval).
        XCTAssertNotNil(run.stdout.range(of: #"^no channel is due: the next at \d{4}-\d\d-\d\d \d\d:\d\d \(in (1 h|59 min|60 min)\); "#
                                         + #"feedctl sync --all polls every channel now\n$"#, options: .regularExpression), run.stdout)
        let json = try feedctl("sync", "--json")
        XCTAssertEqual(json.stdout, #"{"channels":[],"errors":0,"new_items":0}"# + "\n", "the JSON contract is unchanged")
    }

    /// A sync that found new items names a few, newest first, then how many more; their titles are
    /// feed text, shown without control characters.
    func testSyncNamesTheNewItems() throws {
        XCTAssertEqual(try feedctl("channel", "add", server.url("/show.xml")).status, 0)
        // U+009B (CSI) is allowed in XML 1.0 and drives a terminal as ESC [ does.
        try server.write("show.xml", Self.feed(episodes: 4) { $0 == 4 ? "Four \u{9B}2J&amp; more" : "Episode \($0)" })
        var run = try feedctl("sync", "--all")
        XCTAssertEqual(run.status, 0, run.stderr)
        var lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "synced 1 channel: 1 updated, 0 unchanged, 0 failed; 1 new item")
        XCTAssertEqual(lines.count, 2, run.stdout)
        let named = lines.dropFirst().first ?? ""
        XCTAssertTrue(named.hasSuffix("First Show — Four \u{FFFD}2J& more"), named)
        XCTAssertFalse(run.stdout.contains("\u{9B}"))

        try server.write("show.xml", Self.feed(episodes: 11))
        run = try feedctl("sync", "--all")
        XCTAssertEqual(run.status, 0, run.stderr)
        lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "synced 1 channel: 1 updated, 0 unchanged, 0 failed; 7 new items")
        XCTAssertEqual(lines.dropFirst().dropLast().map { String($0.suffix(10)) },
                       ["Episode 11", "Episode 10", " Episode 9", " Episode 8", " Episode 7"], run.stdout)
        XCTAssertEqual(lines.last, "and 2 more: feedctl feed")
    }

    // MARK: smaller messages

    /// A typo names the nearest command, at every level; usage errors stay status 64.
    func testAMistypedCommandGetsTheNearestOne() throws {
        let cases: [([String], String)] = [
            (["fed"], "feedctl: no command \"fed\": did you mean feed?\n"),
            (["sycn"], "feedctl: no command \"sycn\": did you mean sync?\n"),
            (["channel", "lst"], "feedctl: no command \"channel lst\": did you mean channel list?\n"),
            (["user", "ad", "bob"], "feedctl: no command \"user ad\": did you mean user add?\n"),
            (["queue", "remvoe", "1"], "feedctl: no command \"queue remvoe\": did you mean queue remove?\n"),
            (["xyzzy"], "feedctl: no command \"xyzzy\" (feedctl --help lists them)\n"),
        ]
        for (arguments, message) in cases {
            let run = try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments)
            XCTAssertEqual(run.status, 64, "\(arguments)")
            XCTAssertEqual(run.stderr, message, "\(arguments)")
        }
        // Other usage errors are ArgumentParser's own.
        let option = try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, ["feed", "--bogus"])
        XCTAssertEqual(option.status, 64)
        XCTAssertEqual(option.stderr, "feedctl: Unknown option '--bogus'\n")
    }

    /// `watched` says which items were watched already, as `save` says which were saved.
    func testWatchedSaysWhichWereAlreadyWatched() throws {
        XCTAssertEqual(try feedctl("channel", "add", server.url("/show.xml")).status, 0)
        let ids = try itemIDs()
        XCTAssertEqual(ids.count, 3)
        let (a, b, c) = (ids[0], ids[1], ids[2])
        XCTAssertEqual(try feedctl("watched", "\(a)").stdout, "marked 1 item watched: \(a)\n")
        XCTAssertEqual(try feedctl("watched", "\(a)").stdout, "marked 0 items watched (already watched: \(a))\n")
        XCTAssertEqual(try feedctl("watched", "\(a)", "\(b)").stdout, "marked 1 item watched: \(b) (already watched: \(a))\n")
        XCTAssertEqual(try feedctl("watched", "--undo", "\(a)", "\(c)").stdout, "marked 1 item unwatched: \(a) (already unwatched: \(c))\n")
        XCTAssertEqual(try feedctl("save", "\(a)", "\(a)").stdout, "saved 1 item: \(a)\n")
        XCTAssertEqual(try feedctl("save", "\(a)").stdout, "saved 0 items (already saved: \(a))\n", "the form watched follows")
    }

    /// On a terminal a full page says there are more; a script gets exactly the page it asked for.
    func testFeedOnATerminalSaysWhereTheNextPageIs() throws {
        XCTAssertEqual(try feedctl("channel", "add", server.url("/show.xml")).status, 0)
        var shown = try onTerminal("feed", "--limit", "2")
        XCTAssertEqual(shown.split(separator: "\n").count, 3, shown)
        XCTAssertTrue(shown.hasSuffix("page 1 of 2: --page 2 for more\n"), shown)
        shown = try onTerminal("feed", "--limit", "2", "--page", "2")
        XCTAssertFalse(shown.contains("for more"), shown)
        shown = try onTerminal("feed", "--limit", "3")
        XCTAssertFalse(shown.contains("for more"), "a full page with nothing after it: \(shown)")
        // Discovery is computed, not counted: its pages are counted too.
        shown = try onTerminal("feed", "--mode", "discovery", "--limit", "1")
        XCTAssertTrue(shown.hasSuffix("page 1 of 3: --page 2 for more\n"), shown)
        shown = try onTerminal("feed", "--limit", "2", "--json")
        XCTAssertFalse(shown.contains("for more"), shown)

        let piped = try feedctl("feed", "--limit", "2")
        XCTAssertEqual(piped.stdout.split(separator: "\n").count, 2, piped.stdout)
        XCTAssertFalse(piped.stdout.contains("for more"))
    }

    /// A list of URLs is not OPML: the import says so and how to add them, instead of
    /// `malformed XML: no root element`; other text is named as not OPML too.
    func testImportingAListOfURLsSaysHowToAddThem() throws {
        let urls = dir.file("urls.txt")
        try "# my feeds\n\(server.url("/show.xml"))\nhttps://feeds.example.com/b.xml \"news\"\n".write(toFile: urls, atomically: true, encoding: .utf8)
        var run = try feedctl("channel", "import", urls)
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "feedctl: can't import \(urls): not an OPML document but a list of 2 URLs:"
                       + " subscribe to them with `feedctl channel add URL…` (it takes several)\n")
        let text = dir.file("notes.txt")
        try "just some notes\n".write(toFile: text, atomically: true, encoding: .utf8)
        run = try feedctl("channel", "import", text)
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "feedctl: can't import \(text): not an OPML document (no XML in it)\n")
    }

    /// `channel export FILE` says what it wrote (to stdout it writes only the document).
    func testExportToAFileSaysHowMany() throws {
        XCTAssertEqual(try feedctl("channel", "add", server.url("/show.xml")).status, 0)
        let file = dir.file("subscriptions.opml")
        var run = try feedctl("channel", "export", file)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "exported 1 channel to \(file)\n")
        XCTAssertTrue(try String(contentsOfFile: file, encoding: .utf8).contains(server.url("/show.xml")))
        run = try feedctl("channel", "export")
        XCTAssertTrue(run.stdout.hasPrefix("<?xml"), run.stdout)
        XCTAssertFalse(run.stdout.contains("exported"))
    }

    /// Export, then import into a new library: every platform comes back as it was, for feeds on
    /// a test server (whose URLs say nothing of YouTube or Rumble) as for the real URL forms.
    func testAnOPMLRoundTripKeepsEveryPlatform() async throws {
        let library = try SQLiteLibrary(path: db)
        let channels: [(Platform, String)] = [
            (.podcast, server.url("/show.xml")),
            (.youtube, server.url("/feeds/videos.xml?channel_id=UCloopback")),
            (.rumble, server.url("/c/LoopbackChannel")),
            (.youtube, "https://www.youtube.com/feeds/videos.xml?channel_id=UCuAXFkgsw1L7xaCfnd5JJOw"),
            (.youtube, "https://www.youtube.com/feeds/videos.xml?playlist_id=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf"),
            (.rumble, "https://rumble.com/c/NAME"),
            (.podcast, "https://feeds.example.com/show.xml"),
        ]
        for (index, (platform, url)) in channels.enumerated() {
            _ = try await library.addChannel(platform: platform, sourceURL: url, feedURL: url, name: "channel \(index)", now: 1)
        }
        let file = dir.file("export.opml")
        XCTAssertEqual(try feedctl("channel", "export", file).status, 0)
        let other = dir.file("other/library.sqlite")
        let run = try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, ["channel", "import", file, "--no-sync", "--db", other])
        XCTAssertEqual(run.status, 0, run.stderr)
        let imported = try await SQLiteLibrary(path: other).allChannels().sorted { $0.id < $1.id }
        XCTAssertEqual(imported.map(\.feedURL), channels.map(\.1))
        XCTAssertEqual(imported.map(\.platform), channels.map(\.0))
    }
}
