import Accounts
import APIServer
import FeedIngest
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// gpodder.net sync driven by gPodder's own client library, mygpoclient (Debian's
/// python3-mygpoclient, for /usr/bin/python3), against the real server, with the real CLI
/// reading the same library.
final class GPodderTests: XCTestCase {
    static let password = "owner-password-1"
    static let bobPassword = "bob-password-22"

    private func binary(_ name: String) throws -> String {
        try XCTUnwrap(PackagePaths.builtProgram(name)?.path, "\(name) not built")
    }

    /// The harness, with the owner given a password (the CLI acts for the owner, so what the
    /// phone uploads as them shows in `feedctl show`) and a second user, bob.
    private func harness() async throws -> (APIHarness, owner: String) {
        let h = try await APIHarness()
        let owner = try await h.owner.user(id: .owner).name
        // bcrypt's lowest cost keeps the tests quick; the check is the same.
        try await h.owner.setPasswordHash(try Password.hash(Self.password, cost: 4), for: owner)
        try await h.owner.addUser(name: "bob", isAdmin: false, passwordHash: try Password.hash(Self.bobPassword, cost: 4), now: 1)
        return (h, owner)
    }

    /// Runs mygpoclient through `fixtures/gpodder/mygpo_steps.py`; one result per step.
    private func mygpo(_ h: APIHarness, _ user: String, _ password: String, _ steps: [[String: Any]],
                       file: StaticString = #filePath, line: UInt = #line) async throws -> [Any] {
        let script = PackagePaths.fixture("gpodder/mygpo_steps.py").path
        let json = String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
        let base = h.base
        // Blocking waits stay off the cooperative pool, which the server in this process uses.
        let result = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ProcessRunner.capture("/usr/bin/python3", [script, base, user, password, json], timeout: 120) })
            }
        }
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any], result.stdout, file: file, line: line)
    }

    private func feedctl(_ h: APIHarness, _ arguments: [String], db: String? = nil) async throws -> ProcessRunner.Result {
        let path = try binary("feedctl"), db = db ?? h.database.dbSetting
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ProcessRunner.capture(path, arguments + ["--db", db], timeout: 60) })
            }
        }
    }

    private func showProgress(_ h: APIHarness, _ id: Int64) async throws -> (progress: Int, watched: Bool) {
        let shown = try await feedctl(h, ["show", String(id), "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        return (try XCTUnwrap(object["progress"] as? Int), try XCTUnwrap(object["watched"] as? Bool))
    }

    func testSubscriptionsRoundTripAndAreTheUsersWhateverTheDevice() async throws {
        let (h, owner) = try await harness()
        let podcast = h.feeds.url("/podcast.xml"), atom = h.feeds.url("/atom.xml")
        var results = try await mygpo(h, owner, Self.password, [
            ["op": "update_device", "device": "phone", "caption": "My phone", "type": "mobile"],
            ["op": "update_subscriptions", "device": "phone", "add": [podcast, "ftp://example.com/nope.xml"]],
            ["op": "pull_subscriptions", "device": "laptop", "since": 0],
            ["op": "devices"],
        ])
        XCTAssertEqual(results[0] as? Bool, true)
        let uploaded = try XCTUnwrap(results[1] as? [String: Any])
        XCTAssertEqual(uploaded["update_urls"] as? [[String]], [["ftp://example.com/nope.xml", ""]], "refused: drop it")
        let since = try XCTUnwrap(uploaded["since"] as? Int)
        // A new device's first pull gets every subscription; the phone's add is in the library.
        let laptop = try XCTUnwrap(results[2] as? [String: Any])
        XCTAssertEqual(laptop["add"] as? [String], [podcast])
        XCTAssertEqual(laptop["remove"] as? [String], [])
        let channels = try await h.owner.allChannels().map(\.feedURL)
        XCTAssertEqual(channels, [podcast])
        let items = try await h.owner.channelSummaries().first?.items ?? 0
        XCTAssertGreaterThan(items, 0, "the feed was fetched")
        let devices = try XCTUnwrap(results[3] as? [[Any]])
        XCTAssertEqual(devices.map { $0[0] as? String }, ["laptop", "phone"])
        XCTAssertEqual(devices.last?[1] as? String, "My phone")
        XCTAssertEqual(devices.last?[2] as? String, "mobile")
        XCTAssertEqual(devices.last?[3] as? Int, 1)

        // A subscription made in feedctl itself is in the next pull; a removal on the phone
        // unsubscribes, and the other device hears of it.
        let added = try await Subscriber(syncer: Syncer(store: h.owner, reach: .anyAddress)).add(atom, now: APIHarness.now)
        XCTAssertEqual(added.first?.alreadySubscribed, false)
        results = try await mygpo(h, owner, Self.password, [
            ["op": "pull_subscriptions", "device": "phone", "since": since],
            ["op": "update_subscriptions", "device": "phone", "remove": [atom]],
            ["op": "pull_subscriptions", "device": "laptop", "since": laptop["since"] as? Int ?? 0],
        ])
        let phone = try XCTUnwrap(results[0] as? [String: Any])
        XCTAssertEqual(phone["add"] as? [String], [atom])
        XCTAssertEqual(phone["remove"] as? [String], [])
        let later = try XCTUnwrap(results[2] as? [String: Any])
        XCTAssertEqual(later["add"] as? [String], [], "the atom feed came and went")
        XCTAssertEqual(later["remove"] as? [String], [atom])
        let channelsAfter = try await h.owner.allChannels().map(\.feedURL)
        XCTAssertEqual(channelsAfter, [podcast])

        // bob's subscriptions are his own.
        results = try await mygpo(h, "bob", Self.bobPassword, [["op": "pull_subscriptions", "device": "phone", "since": 0]])
        XCTAssertEqual((results[0] as? [String: Any])?["add"] as? [String], [])
    }

    /// A podcast added on a phone whose feed answers 404 stays subscribed with its error, backing
    /// off, as `channel import` keeps one (it was kept as if it had never been tried: no error, no
    /// next poll); the next sync retries it, and a feed that comes back heals it.
    func testAnUploadedFeedThatFailsKeepsItsErrorAsAnImportDoes() async throws {
        let (h, owner) = try await harness()
        let missing = h.feeds.url("/gone/podcast.xml")
        let results = try await mygpo(h, owner, Self.password, [["op": "update_subscriptions", "device": "phone", "add": [missing]]])
        XCTAssertEqual((results[0] as? [String: Any])?["update_urls"] as? [[String]], [], "kept under the URL the phone sent")
        let channels = try await h.owner.allChannels()
        let channel = try XCTUnwrap(channels.first)
        XCTAssertEqual(channel.feedURL, missing)
        XCTAssertEqual(channel.lastError, "\(missing): HTTP 404 Not Found")
        XCTAssertEqual(channel.consecutiveErrors, 1)
        let nextPoll = try XCTUnwrap(channel.nextPoll, "a failed feed backs off")
        XCTAssertGreaterThan(nextPoll, APIHarness.now)
        let summaries = try await h.owner.channelSummaries()
        XCTAssertEqual(summaries.first?.lastError, channel.lastError)

        // The same as `channel import` of that URL into another library (on the same engine).
        let opml = h.dir.file("one.opml")
        try #"<opml version="2.0"><body><outline type="rss" text="x" xmlUrl="\#(missing)"/></body></opml>"#
            .write(toFile: opml, atomically: true, encoding: .utf8)
        let other = try await TestDatabase.make(h.database.engine)
        let imported = try await feedctl(h, ["channel", "import", opml], db: other.dbSetting)
        XCTAssertEqual(imported.status, 2, imported.stderr)
        let importedChannels = try await other.owner.allChannels()
        let importedChannel = try XCTUnwrap(importedChannels.first)
        XCTAssertEqual(importedChannel.lastError, channel.lastError)
        XCTAssertEqual(importedChannel.consecutiveErrors, channel.consecutiveErrors)

        // Retried by sync: the feed is back.
        try h.feeds.write("gone/podcast.xml", Data(contentsOf: PackagePaths.fixture("demo/podcast.xml")))
        let synced = try await feedctl(h, ["sync", "--all"])
        XCTAssertEqual(synced.status, 0, synced.stderr)
        let after = try await h.owner.allChannels()
        let healed = try XCTUnwrap(after.first)
        XCTAssertNil(healed.lastError)
        XCTAssertEqual(healed.consecutiveErrors, 0)
    }

    func testEpisodeActionsRoundTripIntoTheLibraryAndBack() async throws {
        let (h, owner) = try await harness()
        let podcast = h.feeds.url("/podcast.xml")
        _ = try await mygpo(h, owner, Self.password, [["op": "update_subscriptions", "device": "phone", "add": [podcast]]])
        let ep3 = h.feeds.url("/media/tones-60s.mp3"), ep2 = h.feeds.url("/media/a440-60s.ogg")
        let id3 = try await h.owner.id(of: "tone-show-3"), id2 = try await h.owner.id(of: "tone-show-2")

        // A position uploaded by mygpoclient shows in `feedctl show`; a play to the end marks watched.
        var results = try await mygpo(h, owner, Self.password, [
            ["op": "upload_actions", "actions": [
                ["podcast": podcast, "episode": ep3, "action": "play", "device": "phone", "timestamp": "2026-11-21T10:00:00",
                 "started": 0, "position": 42, "total": 60],
                ["podcast": podcast, "episode": ep2, "action": "play", "device": "phone", "timestamp": "2026-11-21T10:05:00",
                 "started": 0, "position": 60, "total": 60],
                ["podcast": podcast, "episode": ep2, "action": "download", "device": "phone", "timestamp": "2026-11-21T09:00:00"],
            ]],
        ])
        let uploaded = try XCTUnwrap(results[0] as? Int)
        var shown = try await showProgress(h, id3)
        XCTAssertEqual(shown.progress, 42)
        XCTAssertFalse(shown.watched)
        let heard = try await showProgress(h, id2).watched
        XCTAssertTrue(heard)

        // since=0 is everything, positions kept; since the upload, nothing new.
        results = try await mygpo(h, owner, Self.password, [
            ["op": "download_actions", "since": 0],
            ["op": "download_actions", "since": uploaded],
        ])
        let all = try XCTUnwrap((results[0] as? [String: Any])?["actions"] as? [[String: Any]])
        XCTAssertEqual(all.count, 3)
        XCTAssertTrue(all.contains { $0["episode"] as? String == ep3 && $0["position"] as? Int == 42 && $0["total"] as? Int == 60
                                     && $0["timestamp"] as? String == "2026-11-21T10:00:00" && $0["device"] as? String == "phone" })
        XCTAssertEqual(((results[1] as? [String: Any])?["actions"] as? [Any])?.count, 0)

        // Progress set in feedctl (the real CLI) is a play action in the next pull.
        let progressed = try await feedctl(h, ["progress", String(id3), "0:50"])
        XCTAssertEqual(progressed.status, 0, progressed.stderr)
        results = try await mygpo(h, owner, Self.password, [["op": "download_actions", "since": uploaded]])
        let local = try XCTUnwrap((results[0] as? [String: Any])?["actions"] as? [[String: Any]])
        XCTAssertEqual(local.count, 1)
        XCTAssertEqual(local.first?["episode"] as? String, ep3)
        XCTAssertEqual(local.first?["action"] as? String, "play")
        XCTAssertEqual(local.first?["position"] as? Int, 50)

        // Last writer wins by the action's timestamp: an older action uploaded later loses.
        results = try await mygpo(h, owner, Self.password, [
            ["op": "upload_raw", "actions": [
                ["podcast": podcast, "episode": ep3, "guid": "tone-show-3", "action": "play", "device": "laptop",
                 "timestamp": "2026-11-21T09:59:00", "position": 7, "total": 60]]],
            ["op": "upload_raw", "actions": [
                ["podcast": podcast, "episode": ep3, "guid": "tone-show-3", "action": "play", "device": "laptop",
                 "timestamp": "2099-01-01T00:00:00", "position": 30, "total": 60]]],
        ])
        XCTAssertNotNil((results[0] as? [String: Any])?["timestamp"] as? Int)
        XCTAssertEqual((results[1] as? [String: Any])?["update_urls"] as? [[String]], [])
        shown = try await showProgress(h, id3)
        XCTAssertEqual(shown.progress, 30)
    }

    /// Malformed uploads are 400 or 422 with a line saying what is wrong, and nothing of them is kept.
    /// Then every kind of action over HTTP: a play to the end marks the episode heard, `new`
    /// unheard again, a play at `position: -1` moves nothing, `delete` is recorded; and actions
    /// years old come back with since=0 (AntennaPod's complaint: servers that answer since=0
    /// with the last week only).
    func testMalformedUploadsAreRefusedAndEveryKindOfActionIsKept() async throws {
        let (h, owner) = try await harness()
        let podcast = h.feeds.url("/podcast.xml"), ep3 = h.feeds.url("/media/tones-60s.mp3")
        _ = try await mygpo(h, owner, Self.password, [["op": "update_subscriptions", "device": "phone", "add": [podcast]]])
        let id3 = try await h.owner.id(of: "tone-show-3")
        let basic = ["Authorization": "Basic " + Data("\(owner):\(Self.password)".utf8).base64EncodedString()]
        let path = "/api/2/episodes/\(owner).json"
        func action(_ fields: String) -> String { #"{"podcast": "\#(podcast)", "episode": "\#(ep3)", \#(fields)}"# }
        // Not JSON: 400; JSON of the wrong shape: 422 (as the rest of the API); an action feedctl
        // cannot take: 400 naming it.
        let malformed: [(String, Int)] = [
            ("not json", 400), ("{}", 422), (#"[{"podcast": 1}]"#, 422), ("[" + action(#""action": "play", "position": "ten""#) + "]", 422),
            ("[" + action(#""action": "bogus""#) + "]", 400), ("[" + action(#""action": "play", "position": -2""#) + "]", 400),
            ("[" + action(#""action": "play", "device": "no spaces allowed""#) + "]", 400),
            ("[" + action(#""action": "play", "position": 5"#) + ", " + action(#""action": "nope""#) + "]", 400),
        ]
        for (body, status) in malformed {
            let reply = try await h.call("POST", path, body: body, headers: basic)
            XCTAssertEqual(reply.status, status, "\(body) -> \(reply.text)")
            XCTAssertFalse(((try? reply.object())?["detail"] as? String ?? "").isEmpty, "a message says why: \(reply.text)")
        }
        var pulled = try await h.call("GET", path + "?since=0", headers: basic)
        XCTAssertEqual((try pulled.object()["actions"] as? [Any])?.count, 0, "nothing of a refused upload is kept: \(pulled.text)")

        let upload = "[" + [
            action(#""action": "play", "timestamp": "2019-05-01T10:00:00", "started": 0, "position": 60, "total": 60"#),
            action(#""action": "new", "timestamp": "2019-05-02T10:00:00""#),
            action(#""action": "play", "timestamp": "2019-05-03T10:00:00", "position": -1"#),
            action(#""action": "delete", "timestamp": "2019-05-04T10:00:00""#),
        ].joined(separator: ", ") + "]"
        let uploaded = try await h.call("POST", path, body: upload, headers: basic)
        XCTAssertEqual(uploaded.status, 200, uploaded.text)
        let shown = try await showProgress(h, id3)
        XCTAssertFalse(shown.watched, "`new` after the play to the end: unheard again")
        XCTAssertEqual(shown.progress, 0, "and the play at -1 moved nothing")
        pulled = try await h.call("GET", path + "?since=0", headers: basic)
        let actions = try XCTUnwrap(try pulled.object()["actions"] as? [[String: Any]], pulled.text)
        XCTAssertEqual(actions.map { $0["action"] as? String }, ["play", "new", "play", "delete"], "all kept, years old as they are")
        XCTAssertEqual(actions.map { $0["timestamp"] as? String },
                       ["2019-05-01T10:00:00", "2019-05-02T10:00:00", "2019-05-03T10:00:00", "2019-05-04T10:00:00"])
        XCTAssertEqual(actions[2]["position"] as? Int, -1)
    }

    func testSameURLDifferentGuidsStayApartAndUnknownEpisodesAreKept() async throws {
        let (h, owner) = try await harness()
        let feed = "https://elsewhere.example/feed.xml", media = "https://elsewhere.example/same.mp3"
        let results = try await mygpo(h, owner, Self.password, [
            ["op": "upload_raw", "actions": [
                ["podcast": feed, "episode": media, "guid": "one", "action": "play", "timestamp": "2026-11-21T10:00:00", "position": 11, "total": 100],
                ["podcast": feed, "episode": media, "guid": "two", "action": "play", "timestamp": "2026-11-21T10:01:00", "position": 22, "total": 100],
                ["podcast": feed, "episode": media, "guid": "one", "action": "play", "timestamp": "2026-11-21T09:00:00", "position": 5, "total": 100],
            ]],
            ["op": "get_raw", "path": "/api/2/episodes/\(owner).json?since=0&aggregated=true"],
            ["op": "get_raw", "path": "/api/2/episodes/\(owner).json?since=0&podcast=https%3A//elsewhere.example/feed.xml"],
        ])
        let aggregated = try XCTUnwrap((results[1] as? [String: Any])?["actions"] as? [[String: Any]])
        XCTAssertEqual(aggregated.count, 2, "two guids, two episodes")
        XCTAssertEqual(aggregated.first { $0["guid"] as? String == "one" }?["position"] as? Int, 11, "the latest by timestamp")
        XCTAssertEqual(aggregated.first { $0["guid"] as? String == "two" }?["position"] as? Int, 22)
        let everything = try XCTUnwrap((results[2] as? [String: Any])?["actions"] as? [[String: Any]])
        XCTAssertEqual(everything.map { $0["position"] as? Int }, [5, 11, 22], "every action kept (within an upload, oldest first)")
    }

    func testCredentialsAndUsersAreChecked() async throws {
        let (h, owner) = try await harness()
        _ = try await mygpo(h, "bob", Self.bobPassword, [["op": "upload_raw", "actions": [
            ["podcast": "https://b.example/f", "episode": "https://b.example/e.mp3", "action": "download"]]]])
        let results = try await mygpo(h, owner, "not-the-password", [["op": "pull_subscriptions", "device": "phone", "since": 0]])
        XCTAssertEqual((results[0] as? [String: Any])?["error"] as? String, "Unauthorized")
        // Signed in as the owner, bob's routes are not theirs; and the owner never sees bob's actions.
        let crossed = try await mygpo(h, owner, Self.password, [
            ["op": "download_actions", "since": 0],
            ["op": "get_raw", "path": "/api/2/devices/bob.json"],
            ["op": "get_raw", "path": "/api/2/episodes/bob.json?since=0"],
        ])
        XCTAssertEqual(((crossed[0] as? [String: Any])?["actions"] as? [Any])?.count, 0, "\(crossed)")
        XCTAssertEqual((crossed[1] as? [String: Any])?["error"] as? String, "Unauthorized")
        XCTAssertEqual((crossed[2] as? [String: Any])?["error"] as? String, "Unauthorized")
        // No credentials: 401 with a Basic challenge (what makes urllib send them).
        let bare = try await h.curl("GET", "/api/2/devices/\(owner).json")
        XCTAssertEqual(bare.status, 401)
        XCTAssertEqual(bare.headers["www-authenticate"], "Basic realm=\"feedctl\"")
        // A user without a password (the owner before `user passwd`) cannot sync.
        try await h.owner.setPasswordHash(nil, for: owner)
        let none = try await mygpo(h, owner, Self.password, [["op": "devices"]])
        XCTAssertEqual((none[0] as? [String: Any])?["error"] as? String, "Unauthorized")
    }

    /// Failed Basic sign-ins count against the server's login throttle (`LoginThrottle`), which
    /// the token logins share: past it, either door answers 429 with Retry-After, the right
    /// password included.
    func testFailedSignInsAreThrottledWithTheServersLogins() async throws {
        let h = try await APIHarness(logins: true)
        try await h.addUser("bob", password: Self.bobPassword, admin: false)
        let wrong = "Basic " + Data("bob:not-the-password".utf8).base64EncodedString()
        for _ in 0..<LoginThrottle.maxFailuresPerUser {
            let refused = try await h.curl("GET", "/api/2/devices/bob.json", headers: ["Authorization": wrong])
            XCTAssertEqual(refused.status, 401, refused.text)
        }
        let right = "Basic " + Data("bob:\(Self.bobPassword)".utf8).base64EncodedString()
        let throttled = try await h.curl("GET", "/api/2/devices/bob.json", headers: ["Authorization": right])
        XCTAssertEqual(throttled.status, 429, throttled.text)
        XCTAssertNotNil(throttled.headers["retry-after"])
        let login = try await h.call("POST", "/api/auth/login", body: #"{"username": "bob", "password": "\#(Self.bobPassword)"}"#)
        XCTAssertEqual(login.status, 429, "the same throttle: \(login.text)")
    }

    func testLoginGivesASessionCookieAndLogoutEndsIt() async throws {
        let (h, _) = try await harness()
        let jar = h.dir.file("cookies.txt")
        func curl(_ arguments: [String]) async throws -> String {
            let result = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { try ProcessRunner.capture("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}",
                                                                                                     "--max-time", "20"] + arguments, timeout: 30) })
                }
            }
            return result.stdout
        }
        let base = h.base
        let login = try await curl(["-X", "POST", "-u", "bob:\(Self.bobPassword)", "-c", jar, "\(base)/api/2/auth/bob/login.json"])
        XCTAssertEqual(login, "200")
        XCTAssertTrue(try String(contentsOfFile: jar, encoding: .utf8).contains("sessionid"))
        let withCookie = try await curl(["-b", jar, "\(base)/api/2/devices/bob.json"])
        XCTAssertEqual(withCookie, "200", "the cookie alone signs in")
        let otherUser = try await curl(["-b", jar, "\(base)/api/2/devices/other.json"])
        XCTAssertEqual(otherUser, "401")
        let sessions = try await h.owner.sessions(of: nil).count
        XCTAssertEqual(sessions, 1)
        let logout = try await curl(["-X", "POST", "-b", jar, "\(base)/api/2/auth/bob/logout.json"])
        XCTAssertEqual(logout, "200")
        let afterLogout = try await curl(["-b", jar, "\(base)/api/2/devices/bob.json"])
        XCTAssertEqual(afterLogout, "401", "the session has ended")
        let wrongLogin = try await curl(["-X", "POST", "-u", "bob:wrong-password", "\(base)/api/2/auth/bob/login.json"])
        XCTAssertEqual(wrongLogin, "401")
        // The cookie as the API's own: HttpOnly, SameSite=Lax, for the whole site; and neither the
        // password nor the session ever reaches the log.
        let basic = "Basic " + Data("bob:\(Self.bobPassword)".utf8).base64EncodedString()
        let again = try await h.curl("POST", "/api/2/auth/bob/login.json", headers: ["Authorization": basic])
        XCTAssertEqual(again.status, 200, again.text)
        let cookie = try XCTUnwrap(again.headers["set-cookie"])
        let attributes = cookie.components(separatedBy: "; ")
        let session = try XCTUnwrap(attributes.first?.split(separator: "=", maxSplits: 1).last.map(String.init))
        XCTAssertTrue(cookie.hasPrefix("sessionid=") && session.count >= 43, cookie)
        XCTAssertTrue(attributes.contains("HttpOnly") && attributes.contains("SameSite=Lax") && attributes.contains("Path=/"), cookie)
        XCTAssertFalse(attributes.contains("Secure"), "not over plain HTTP")
        h.assertLogHolds(noneOf: [Self.bobPassword, "wrong-password", session, String(basic.dropFirst(6))])
    }
}
