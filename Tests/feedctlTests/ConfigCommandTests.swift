import Foundation
import TestSupport
import XCTest

/// `feedctl config` against a real file in the test's XDG_CONFIG_HOME, and the daemon reading it
/// (options given to the daemon win).
final class ConfigCommandTests: DaemonTestCase {
    var configFile: String { world.directory.appendingPathComponent("config/feedctl/config.toml").path }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try? FileManager.default.removeItem(atPath: configFile)   // the world (and its files) is per class
    }

    func testSetGetListAndTheDaemonReadsIt() throws {
        XCTAssertEqual(try succeed("config", "path"), configFile + "\n")
        XCTAssertEqual(try succeed("config", "get", "player.seek_step"), "15\n", "the default")

        XCTAssertEqual(try succeed("config", "set", "player.seek_step", "5"),
                       "player.seek_step = 5 (in \(configFile); a running daemon applies it when restarted)\n")
        XCTAssertEqual(try succeed("config", "set", "downloads.auto_download", "2"),
                       "downloads.auto_download = 2 (in \(configFile); a running daemon applies it when restarted)\n")
        XCTAssertEqual(try String(contentsOfFile: configFile, encoding: .utf8),
                       "[player]\nseek_step = 5\n\n[downloads]\nauto_download = 2\n")
        XCTAssertEqual(try succeed("config", "get", "player.seek_step"), "5\n")
        let list = try succeed("config", "list")
        XCTAssertTrue(list.contains("player.seek_step = 5 "), list)
        XCTAssertTrue(list.contains("(default 15)"), list)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try succeed("config", "list", "--json").utf8)) as? [String: Any])
        XCTAssertEqual(json["player.seek_step"] as? Int, 5)
        XCTAssertEqual(json["player.speed"] as? Int, 1)

        // startDaemon passes --sync-every 0, which wins over the file; the file's seek step is used.
        try succeed("config", "set", "sync.every", "45")
        try startDaemon()
        waitForLog("settings: player.seek_step = 5, player.speed = 1, sync.every = 0")
    }

    /// Smart resume as the config file sets it: after a pause of at least
    /// `player.smart_resume_after` seconds, `resume` goes back `player.smart_resume_rewind`.
    /// With the defaults (a 5-minute threshold) the same 3 s pause does not rewind.
    func testTheDaemonAppliesSmartResumeFromTheConfig() throws {
        func pauseThreeSecondsAndResume() throws -> (paused: Double, resumed: Double) {
            try succeed("play", media.segments.path)
            try succeed("seek", "30")
            try succeed("pause")
            let paused = try XCTUnwrap(try waitForStatus("paused") { $0.string("status") == "paused" }.double("position"))
            Thread.sleep(forTimeInterval: 3)
            try succeed("resume")
            let resumed = try XCTUnwrap(try waitForStatus("playing") { $0.string("status") == "playing" }.double("position"))
            return (paused, resumed)
        }
        try startDaemon()
        let plain = try pauseThreeSecondsAndResume()
        XCTAssertEqual(plain.resumed, plain.paused, accuracy: 1, "the default threshold is longer than 3 s")
        try succeed("quit")
        XCTAssertTrue(eventually(timeout: 10) { !(self.daemon?.isRunning ?? false) }, "the daemon did not quit")

        try succeed("config", "set", "player.smart_resume_after", "2")
        try succeed("config", "set", "player.smart_resume_rewind", "10")
        try startDaemon()
        let rewound = try pauseThreeSecondsAndResume()
        XCTAssertEqual(rewound.resumed, rewound.paused - 10, accuracy: 1, "went back the configured 10 s")
    }

    /// `downloads.auto_download = 1`: after its first sync round the daemon has downloaded the
    /// newest episode of the podcast channel (served from 127.0.0.1), and only that one, into
    /// the media directory it was given (`FEEDCTL_MEDIA`, then `--media-dir`), not beside the
    /// library.
    func testTheDaemonKeepsTheAutomaticDownloads() throws {
        let mediaDirectory = world.directory.appendingPathComponent("episodes").path
        let besideTheLibrary = world.directory.appendingPathComponent("media").path
        let server = try TestHTTPServer()
        defer { server.stop() }
        let audio = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try audio.write(to: server.root.appendingPathComponent("new.mp3"))
        try audio.write(to: server.root.appendingPathComponent("old.mp3"))
        try server.write("show.xml", """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Auto Show</title>
            <item><title>New</title><guid>new</guid><pubDate>Tue, 10 Mar 2026 08:00:00 GMT</pubDate>
            <enclosure url="\(server.url("/new.mp3"))" type="audio/mpeg" length="50000"/></item>
            <item><title>Old</title><guid>old</guid><pubDate>Tue, 03 Mar 2026 08:00:00 GMT</pubDate>
            <enclosure url="\(server.url("/old.mp3"))" type="audio/mpeg" length="50000"/></item>
            </channel></rss>
            """)
        try succeed("channel", "add", server.url("/show.xml"))
        try succeed("config", "set", "downloads.auto_download", "1")

        try startDaemon(environment: ["FEEDCTL_MEDIA": mediaDirectory], options: ["--sync-every", "60"])
        waitForLog("auto-download: newest 1 per podcast channel: 1 downloaded, 0 failed")
        let listing = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(try succeed("download", "list", "--json", "--media-dir", mediaDirectory).utf8)) as? [[String: Any]])
        XCTAssertEqual(listing.map { $0["title"] as? String }, ["New"])
        XCTAssertEqual(listing.first?["complete"] as? Bool, true)
        XCTAssertEqual((listing.first?["path"] as? String).map { ($0 as NSString).deletingLastPathComponent }, mediaDirectory)
        XCTAssertFalse(FileManager.default.fileExists(atPath: besideTheLibrary), "nothing beside the library")
        XCTAssertEqual(try server.stats().statuses("/old.mp3"), [], "only the newest is fetched")

        // downloads.delete_played_after = 2: an item watched three days ago loses its download.
        let id = try XCTUnwrap((listing.first?["id"] as? NSNumber)?.int64Value)
        try succeed("watched", String(id))
        try ProcessRunner.run("python3", ["-c", """
            import sqlite3, sys, time
            con = sqlite3.connect(sys.argv[1])
            con.execute("UPDATE watch_state SET watched_at = ? WHERE item = ?", (int(time.time()) - 3 * 86400, int(sys.argv[2])))
            con.commit()
            """, world.db, String(id)])
        try succeed("config", "set", "downloads.auto_download", "0")
        try succeed("config", "set", "downloads.delete_played_after", "2")
        try succeed("quit")
        XCTAssertTrue(eventually(timeout: 10) { !(self.daemon?.isRunning ?? false) })
        try startDaemon(options: ["--sync-every", "60", "--media-dir", mediaDirectory])
        waitForLog("auto-download: deleted the downloads of 1 item(s) watched over 2 days ago")
        let after = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(try succeed("download", "list", "--json", "--media-dir", mediaDirectory).utf8)) as? [[String: Any]])
        XCTAssertEqual(after.count, 0, "\(after)")
    }

    /// `[oidc]` through the CLI: a flag, a list (comma-separated), a secret never shown; `list
    /// --json` gives them as a boolean, an array and "(set)".
    func testSingleSignOnKeys() throws {
        XCTAssertEqual(try succeed("config", "set", "oidc.allow_signup", "true"),
                       "oidc.allow_signup = true (in \(configFile); feedctl serve applies it when restarted)\n")
        try succeed("config", "set", "oidc.mobile_redirect_uris", "viewvault://auth, sora://signed-in")
        func mode() throws -> Int { try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: configFile)[.posixPermissions] as? Int) }
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: configFile)
        try succeed("config", "set", "oidc.allow_signup", "false")
        XCTAssertEqual(try mode(), 0o640, "a file without a secret keeps its mode")
        XCTAssertEqual(try succeed("config", "set", "oidc.client_secret", "s3cret"),
                       "oidc.client_secret = (set) (in \(configFile); feedctl serve applies it when restarted)\n")
        XCTAssertEqual(try mode(), 0o600, "the secret is for the owner's eyes only")
        try succeed("config", "set", "oidc.allow_signup", "true")
        XCTAssertEqual(try mode(), 0o600)
        XCTAssertEqual(try succeed("config", "get", "oidc.mobile_redirect_uris"), "viewvault://auth, sora://signed-in\n")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try succeed("config", "list", "--json").utf8)) as? [String: Any])
        XCTAssertEqual(json["oidc.allow_signup"] as? Bool, true)
        XCTAssertEqual(json["oidc.link_verified_email"] as? Bool, false)
        XCTAssertEqual(json["oidc.mobile_redirect_uris"] as? [String], ["viewvault://auth", "sora://signed-in"])
        XCTAssertEqual(json["oidc.client_secret"] as? String, "(set)")
        XCTAssertTrue(json["oidc.issuer"] is NSNull)
        XCTAssertFalse(try succeed("config", "list").contains("s3cret"))
        let bad = try feedctl("config", "set", "oidc.mobile_redirect_uris", "javascript:alert(1)")
        XCTAssertEqual(bad.stderr, "feedctl: oidc.mobile_redirect_uris takes absolute URIs without # (e.g. viewvault://auth), comma-separated; not javascript:alert(1)\n")
    }

    func testBadInputIsOneLineAndLeavesTheFileAlone() throws {
        let bad = try feedctl("config", "set", "player.speed", "9")
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.stderr, "feedctl: player.speed must be a number from 0.5 to 3 (×), not 9\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: configFile), "nothing written")

        let unknown = try feedctl("config", "get", "player.volume")
        XCTAssertEqual(unknown.stderr, "feedctl: unknown key player.volume (`feedctl config list` shows the keys)\n")

        // A broken file: every reader names it and the key; the daemon refuses to start with it.
        try FileManager.default.createDirectory(atPath: (configFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "[player]\nseek_step = -1\n".write(toFile: configFile, atomically: true, encoding: .utf8)
        let list = try feedctl("config", "list")
        XCTAssertEqual(list.status, 1)
        XCTAssertEqual(list.stderr, "feedctl: \(configFile): player.seek_step must be a number from 0.1 to 3600 (seconds), not -1\n")
        let set = try feedctl("config", "set", "player.speed", "2")
        XCTAssertEqual(set.stderr, list.stderr, "a broken file is not edited")
        XCTAssertEqual(try String(contentsOfFile: configFile, encoding: .utf8), "[player]\nseek_step = -1\n")
        let daemon = try feedctl("daemon", "--sync-every", "0", timeout: 10)
        XCTAssertEqual(daemon.status, 1)
        XCTAssertEqual(daemon.stderr, list.stderr)
    }
}
