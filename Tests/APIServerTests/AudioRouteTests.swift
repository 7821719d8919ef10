import APIServer
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Issue 27: `GET /api/items/{id}/audio`, what the web app's `<audio>` plays. Real MP3s made by
/// ffmpeg, served by the test HTTP server on 127.0.0.1 (the feeds' media host), proxied by the
/// real server; a downloaded episode served from the media directory beside the library.
final class AudioRouteTests: XCTestCase {
    /// 4 s of a 440 Hz tone as a 96 kb/s MP3 (about 48 KB), the same bytes every run.
    private func episode() throws -> Data {
        let file = try PackagePaths.temporaryDirectory(self).appendingPathComponent("episode.mp3")
        try ToneMedia.encode(ToneMedia.sine(440, seconds: 4), ["-c:a", "libmp3lame", "-b:a", "96k"], to: file)
        return try Data(contentsOf: file)
    }

    /// A server over a library whose downloads it serves (from `mediaDirectory`), `configure`d further.
    private func harness(allowPrivateFeeds: Bool = true, logins: Bool = false,
                         configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> APIHarness {
        let dir = TempDir()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: allowPrivateFeeds, version: "test")
        configuration.mediaDirectory = dir.file("media")
        configure(&configuration)
        return try await APIHarness(configuration: configuration, logins: logins, dir: dir)
    }

    /// An item of a channel `user` follows (the owner's unless given), with `enclosure` or, for
    /// YouTube, a watch page; the channel may reach what `reach` says.
    private func addItem(_ h: APIHarness, enclosure: String?, platform: Platform = .podcast, page: String? = nil,
                         reach: AddressReach = .anyAddress, user: UserID = .owner) async throws -> Int64 {
        let store = h.database.store(for: user)
        let feed = "https://example.com/audio-\(UUID().uuidString).xml"
        let channel = try await store.addChannel(platform: platform, sourceURL: feed, feedURL: feed, name: "Audio",
                                                 reach: reach, now: APIHarness.now)
        let guid = "\(feed)#1"
        _ = try await store.ingest(items: [Item(id: guid, title: "Episode", url: page, published: APIHarness.now - 60,
                                                enclosure: enclosure.map { Enclosure(url: $0, type: "audio/mpeg") })],
                                   channelID: channel.id, now: APIHarness.now)
        return try await store.id(of: guid)
    }

    func testADownloadedEpisodeIsServedFromItsFileWithRanges() async throws {
        let h = try await harness()
        let bytes = try episode()
        let id = try await addItem(h, enclosure: h.feeds.url("/not-fetched.mp3"))
        let media = h.dir.file("media")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: media + "/\(id)_Episode.mp3"))
        let path = "/api/items/\(id)/audio"
        let size = bytes.count

        let whole = try await h.call("GET", path)
        XCTAssertEqual(whole.status, 200, whole.text)
        XCTAssertEqual(whole.body, bytes)
        XCTAssertEqual(whole.headers["content-type"], "audio/mpeg")
        XCTAssertEqual(whole.headers["accept-ranges"], "bytes")
        XCTAssertEqual(whole.headers["content-length"], String(size))

        for (range, expected) in [("bytes=0-99", 0...99), ("bytes=1000-1999", 1000...1999), ("bytes=-500", (size - 500)...(size - 1)),
                                  ("bytes=\(size - 10)-", (size - 10)...(size - 1)), ("bytes=\(size - 10)-\(size + 100)", (size - 10)...(size - 1))] {
            let part = try await h.call("GET", path, headers: ["Range": range])
            XCTAssertEqual(part.status, 206, "\(range): \(part.text)")
            XCTAssertEqual(part.headers["content-range"], "bytes \(expected.lowerBound)-\(expected.upperBound)/\(size)", range)
            XCTAssertEqual(part.body, bytes[expected], range)
        }
        let past = try await h.call("GET", path, headers: ["Range": "bytes=\(size)-"])
        XCTAssertEqual(past.status, 416, past.text)
        XCTAssertEqual(past.headers["content-range"], "bytes */\(size)")
        XCTAssertTrue(try past.object()["detail"] is String, past.text)
        // Several ranges, or garbage: the whole file, as RFC 9110 allows.
        let several = try await h.call("GET", path, headers: ["Range": "bytes=0-1,5-6"])
        XCTAssertEqual(several.status, 200)
        XCTAssertEqual(several.body, bytes)

        let head = try await h.call("HEAD", path, headers: ["Range": "bytes=-100"])
        XCTAssertEqual(head.status, 206)
        XCTAssertEqual(head.headers["content-length"], "100")
        XCTAssertEqual(head.headers["content-range"], "bytes \(size - 100)-\(size - 1)/\(size)")
        XCTAssertTrue(head.body.isEmpty)

        XCTAssertEqual(try h.feeds.stats().hits["/not-fetched.mp3"] ?? 0, 0, "served from the file, not the feed's host")
    }

    func testAnEnclosureIsProxiedWithTheClientsRangePassedThrough() async throws {
        let h = try await harness()
        let bytes = try episode()
        try h.feeds.write("episode.mp3", bytes)
        let id = try await addItem(h, enclosure: h.feeds.url("/episode.mp3"))
        let path = "/api/items/\(id)/audio"

        let whole = try await h.call("GET", path)
        XCTAssertEqual(whole.status, 200, whole.text)
        XCTAssertEqual(whole.body, bytes, "the origin's bytes")
        XCTAssertEqual(whole.headers["content-length"], String(bytes.count))

        let part = try await h.call("GET", path, headers: ["Range": "bytes=100-1099"])
        XCTAssertEqual(part.status, 206, part.text)
        XCTAssertEqual(part.body, bytes[100...1099])
        XCTAssertEqual(part.headers["content-range"], "bytes 100-1099/\(bytes.count)")
        XCTAssertEqual(part.headers["accept-ranges"], "bytes")
        let asked = try h.feeds.stats().log.filter { $0.path == "/episode.mp3" }.compactMap { $0.headers?["Range"] }
        XCTAssertEqual(asked, ["bytes=100-1099"], "the client's range reached the origin")

        let past = try await h.call("GET", path, headers: ["Range": "bytes=\(bytes.count + 10)-"])
        XCTAssertEqual(past.status, 416, past.text)

        // Through the origin's redirect (the server follows it, checking each hop).
        let redirected = try await addItem(h, enclosure: h.feeds.url("/redirect/302?to=/episode.mp3"))
        let followed = try await h.call("GET", "/api/items/\(redirected)/audio", headers: ["Range": "bytes=-200"])
        XCTAssertEqual(followed.status, 206, followed.text)
        XCTAssertEqual(followed.body, bytes.suffix(200))
    }

    /// Without --allow-private-feeds, a server user's channel reaches public addresses only: its
    /// enclosure on a name that resolves to loopback (`media.localhost`: libcurl resolves it
    /// itself), directly or behind a redirect, is refused where it would connect; the media host
    /// gets no request for it. (Here the redirecting host is on loopback too, and refused first:
    /// tests have no public address; `FetchStreamTests` refuses the redirect's hop alone.)
    func testAPrivateAddressIsNotProxiedWithoutPrivateFeeds() async throws {
        let h = try await harness(allowPrivateFeeds: false)
        try h.feeds.write("episode.mp3", try episode())
        let direct = "http://media.localhost:\(h.feeds.port)/episode.mp3"
        for enclosure in [direct, h.feeds.url("/redirect/302?to=") + direct] {
            let id = try await addItem(h, enclosure: enclosure, reach: .publicOnly)
            let reply = try await h.call("GET", "/api/items/\(id)/audio")
            XCTAssertEqual(reply.status, 502, reply.text)
            let detail = try XCTUnwrap(try reply.object()["detail"] as? String)
            XCTAssertTrue(detail.contains("refused: ") && detail.contains(" is a local address"), detail)
        }
        let hits = try h.feeds.stats().hits
        XCTAssertEqual(hits["/episode.mp3"] ?? 0, 0, "\(hits)")
        XCTAssertEqual(hits["/redirect/302"] ?? 0, 0, "\(hits)")
    }

    /// YouTube cannot be reached from tests: `yt-dlp` is a stand-in on PATH that answers a
    /// loopback URL on the test's media host (allowed: the server runs with
    /// --allow-private-feeds and the channel is the owner's) and notes each run.
    func testAYouTubeItemIsResolvedWithYtdlpOnceAndProxied() async throws {
        let h = try await harness()
        let bytes = try episode()
        try h.feeds.write("yt-audio.mp3", bytes)
        let dir = try PackagePaths.temporaryDirectory(self)
        let runs = dir.appendingPathComponent("runs").path
        _ = try StandInExecutable(dir: dir, script: """
            echo "$@" >> '\(runs)'
            sleep 0.5
            echo '\(h.feeds.url("/yt-audio.mp3"))'
            """)
        // The tests of this target run one at a time; PATH is put back before the next.
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        setenv("PATH", dir.path + ":" + path, 1)
        defer { setenv("PATH", path, 1) }
        let page = "https://www.youtube.com/watch?v=abcdefghijk"
        let id = try await addItem(h, enclosure: nil, platform: .youtube, page: page)

        // A player's first two requests at once share one run.
        async let one = h.call("GET", "/api/items/\(id)/audio")
        async let two = h.call("GET", "/api/items/\(id)/audio")
        for first in try await [one, two] {
            XCTAssertEqual(first.status, 200, first.text)
            XCTAssertEqual(first.body, bytes)
        }
        let part = try await h.call("GET", "/api/items/\(id)/audio", headers: ["Range": "bytes=10-19"])
        XCTAssertEqual(part.status, 206, part.text)
        XCTAssertEqual(part.body, bytes[10...19])
        let lines = try String(contentsOfFile: runs, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines, ["-f bestaudio/best -g --no-playlist -- \(page)"], "resolved once, as the daemon resolves it")
    }

    func testProxiedStreamsAreCappedPerUser() async throws {
        let h = try await harness { $0.audioStreams = AudioStreamLimits(perUser: 1, total: 4) }
        let id = try await addItem(h, enclosure: h.feeds.url("/big?mb=1000"))
        let port = try XCTUnwrap(URL(string: h.base)?.port)
        var listener: RawConnection? = try RawConnection(port: port)
        listener?.send("GET /api/items/\(id)/audio HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        XCTAssertEqual(listener?.receive(atLeast: 100_000, within: 20), true, "the first stream plays")

        let second = try await h.call("GET", "/api/items/\(id)/audio")
        XCTAssertEqual(second.status, 429, second.text)
        XCTAssertTrue(second.text.contains("already playing 1 streams"), second.text)
        XCTAssertNotNil(second.headers["retry-after"])

        listener = nil  // it leaves: its place is free again
        let deadline = Date().addingTimeInterval(20)
        var status = 0
        while Date() < deadline {
            status = try await h.call("HEAD", "/api/items/\(id)/audio").status
            if status == 200 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        XCTAssertEqual(status, 200, "the stream's place was given back")
    }

    /// A listener that leaves mid-episode: the server stops fetching it (the origin's transfer
    /// ends long before its 1 GB), instead of reading on for nobody or holding it paused.
    func testAClientThatLeavesStopsTheUpstreamTransfer() async throws {
        let h = try await harness()
        let id = try await addItem(h, enclosure: h.feeds.url("/big?mb=1000"))
        let port = try XCTUnwrap(URL(string: h.base)?.port)
        do {
            let listener = try RawConnection(port: port)
            listener.send("GET /api/items/\(id)/audio HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            XCTAssertTrue(listener.receive(atLeast: 1_000_000, within: 20), "it plays")
        }
        let deadline = Date().addingTimeInterval(20)
        var sent: [Int] = []
        while sent.isEmpty, Date() < deadline {
            sent = try h.feeds.stats().log.filter { $0.path == "/big" }.map(\.sent)
            if sent.isEmpty { try await Task.sleep(for: .milliseconds(200)) }
        }
        XCTAssertEqual(sent.count, 1, "the origin's transfer ended")
        XCTAssertLessThan(sent.first ?? .max, 100_000_000, "long before its end")
    }

    func testAnotherUsersItemIsNotFound() async throws {
        let h = try await harness(logins: true)
        let alice = try await h.addUser("alice", password: "correct horse", admin: false)
        _ = try await h.addUser("bob", password: "bobs password", admin: false)
        let (aliceToken, bobToken) = (try await h.login("alice", "correct horse"), try await h.login("bob", "bobs password"))
        let bytes = try episode()
        try h.feeds.write("episode.mp3", bytes)
        let id = try await addItem(h, enclosure: h.feeds.url("/episode.mp3"), user: alice.id)

        let hers = try await h.call("GET", "/api/items/\(id)/audio", token: aliceToken)
        XCTAssertEqual(hers.status, 200, hers.text)
        XCTAssertEqual(hers.body, bytes)
        let his = try await h.call("GET", "/api/items/\(id)/audio", token: bobToken)
        XCTAssertEqual(his.status, 404, his.text)
        let unknown = try await h.call("GET", "/api/items/999999/audio", token: aliceToken)
        XCTAssertEqual(unknown.status, 404)
        // A browser's <audio> sends the session cookie.
        let cookie = try await h.call("GET", "/api/items/\(id)/audio", headers: ["Cookie": "session_token=\(aliceToken)"])
        XCTAssertEqual(cookie.status, 200, cookie.text)
        let anonymous = try await h.curl("GET", "/api/items/\(id)/audio")
        XCTAssertEqual(anonymous.status, 401)
        XCTAssertEqual(try h.feeds.stats().hits["/episode.mp3"], 2, "bob's request fetched nothing")
    }
}

extension AudioRouteTests {
    /// A listener that stays connected but takes nothing (a paused player) loses its stream
    /// after `listenerIdleSeconds`: the origin's transfer ends and the user's place is free.
    func testAListenerThatStopsReadingGivesItsPlaceBack() async throws {
        let h = try await harness { $0.audioStreams = AudioStreamLimits(perUser: 1, total: 4, listenerIdleSeconds: 1) }
        let id = try await addItem(h, enclosure: h.feeds.url("/big?mb=1000"))
        let port = try XCTUnwrap(URL(string: h.base)?.port)
        let listener = try RawConnection(port: port)
        listener.send("GET /api/items/\(id)/audio HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        XCTAssertTrue(listener.receive(atLeast: 100_000, within: 20), "it plays")
        // ... and then reads no more, connected.
        let deadline = Date().addingTimeInterval(20)
        var sent: [Int] = []
        while sent.isEmpty, Date() < deadline {
            sent = try h.feeds.stats().log.filter { $0.path == "/big" }.map(\.sent)
            if sent.isEmpty { try await Task.sleep(for: .milliseconds(200)) }
        }
        XCTAssertEqual(sent.count, 1, "the origin's transfer ended")
        XCTAssertLessThan(sent.first ?? .max, 100_000_000)
        let next = try await h.call("HEAD", "/api/items/\(id)/audio")
        XCTAssertEqual(next.status, 200, "its place was given back")
        withExtendedLifetime(listener) {}
    }
}

extension AudioRouteTests {
    /// `feedctl serve` itself (the built programs) serves a downloaded episode from its default
    /// media directory: beside its `--db` file (SQLite), or `$XDG_DATA_HOME/feedctl/media`
    /// (PostgreSQL, whose library is in no directory).
    func testFeedctlServeServesDownloadsBesideItsLibrary() async throws {
        let program = try XCTUnwrap(PackagePaths.builtProgram("feedctl")?.path, "feedctl not built")
        let database = try await TestDatabase.make()
        let dir = TempDir()
        let bytes = try episode()
        let feed = "https://example.com/served-\(UUID().uuidString).xml"
        let channel = try await database.owner.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Served", now: 1)
        _ = try await database.owner.ingest(items: [Item(id: "\(feed)#1", title: "Episode", published: 100,
                                                         enclosure: Enclosure(url: "http://127.0.0.1:9/never.mp3", type: "audio/mpeg"))],
                                            channelID: channel.id, now: 1)
        let id = try await database.owner.id(of: "\(feed)#1")
        var environment = ProcessInfo.processInfo.environment
        environment["FEEDCTL_MEDIA"] = nil
        let media: String
        switch database.engine {
        case .sqlite:
            media = ((database.dbSetting as NSString).deletingLastPathComponent as NSString).appendingPathComponent("media")
        case .postgresql:
            environment["XDG_DATA_HOME"] = dir.file("data")
            media = dir.file("data/feedctl/media")
        }
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: media + "/\(id)_Episode.mp3"))

        let server = try ProcessRunner.start(program, ["serve", "--open", "--listen", "127.0.0.1:0", "--db", database.dbSetting],
                                             environment: environment)
        defer {
            server.signal(SIGTERM)
            _ = try? server.wait(timeout: 20)
        }
        var port: Int?
        XCTAssertTrue(eventually(timeout: 20) {
            guard let range = server.stderrSoFar.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return false }
            port = Int(server.stderrSoFar[range].split(separator: ":").last ?? "")
            return port != nil
        }, server.stderrSoFar)
        let out = dir.file("part.bin")
        let fetched = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "20", "-o", out, "-w", "%{http_code}",
                                                                  "-H", "Range: bytes=100-199",
                                                                  "http://127.0.0.1:\(try XCTUnwrap(port))/api/items/\(id)/audio"], timeout: 30)
        XCTAssertEqual(fetched.stdout, "206", fetched.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), bytes[100...199])
    }
}

extension AudioRouteTests {
    /// A kept URL that its host stops taking (expired before its time, or bound elsewhere) is
    /// resolved again at once, and the listener gets the audio, not an error. The stand-in
    /// yt-dlp (YouTube cannot be reached from tests) answers a URL on the test's media host,
    /// another on each run.
    func testAKeptURLItsHostRefusesIsResolvedAgain() async throws {
        let h = try await harness()
        let bytes = try episode()
        try h.feeds.write("first.mp3", bytes)
        try h.feeds.write("second.mp3", bytes)
        let dir = try PackagePaths.temporaryDirectory(self)
        let runs = dir.appendingPathComponent("runs").path
        _ = try StandInExecutable(dir: dir, script: """
            echo run >> '\(runs)'
            if [ "$(wc -l < '\(runs)')" -eq 1 ]; then echo '\(h.feeds.url("/first.mp3"))'; else echo '\(h.feeds.url("/second.mp3"))'; fi
            """)
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        setenv("PATH", dir.path + ":" + path, 1)
        defer { setenv("PATH", path, 1) }
        let id = try await addItem(h, enclosure: nil, platform: .rumble, page: "https://rumble.com/v1abcde-episode.html")

        let first = try await h.call("GET", "/api/items/\(id)/audio")
        XCTAssertEqual(first.status, 200, first.text)
        try FileManager.default.removeItem(at: h.feeds.root.appendingPathComponent("first.mp3"))  // its host now answers 404
        let again = try await h.call("GET", "/api/items/\(id)/audio", headers: ["Range": "bytes=0-9"])
        XCTAssertEqual(again.status, 206, again.text)
        XCTAssertEqual(again.body, bytes[0...9])
        XCTAssertEqual(try String(contentsOfFile: runs, encoding: .utf8).split(separator: "\n").count, 2)
        XCTAssertEqual(try h.feeds.stats().statuses("/first.mp3"), [200, 404])
    }
}

extension AudioRouteTests {
    /// An enclosure whose host calls it a page with a script: served from the app's own origin,
    /// it must not run there. Only media types are passed on, and the answer is sandboxed; a
    /// download named .html (its URL's extension) is answered the same way.
    func testAMediaHostsPageIsNotServedAsAPage() async throws {
        let h = try await harness()
        let page = "<html><body><script>fetch('/api/users')</script></body></html>"
        try h.feeds.write("episode.html", page)
        let id = try await addItem(h, enclosure: h.feeds.url("/episode.html?type=text/html;%20charset=utf-8"))
        let proxied = try await h.call("GET", "/api/items/\(id)/audio")
        XCTAssertEqual(proxied.status, 200, proxied.text)
        XCTAssertEqual(try h.feeds.stats().log.last?.path, "/episode.html")
        XCTAssertEqual(proxied.text, page)
        XCTAssertEqual(proxied.headers["content-type"], "application/octet-stream")
        XCTAssertEqual(proxied.headers["content-security-policy"], "default-src 'none'; sandbox")

        let downloaded = try await addItem(h, enclosure: h.feeds.url("/not-fetched.html"))
        let media = h.dir.file("media")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        try Data(page.utf8).write(to: URL(fileURLWithPath: media + "/\(downloaded)_Episode.html"))
        let file = try await h.call("GET", "/api/items/\(downloaded)/audio")
        XCTAssertEqual(file.status, 200, file.text)
        XCTAssertEqual(file.headers["content-type"], "application/octet-stream")
        XCTAssertEqual(file.headers["content-security-policy"], "default-src 'none'; sandbox")

        let mp3 = try await addItem(h, enclosure: h.feeds.url("/episode.mp3?type=audio/mpeg"))
        try h.feeds.write("episode.mp3", try episode())
        let audio = try await h.call("GET", "/api/items/\(mp3)/audio")
        XCTAssertEqual(audio.headers["content-type"], "audio/mpeg", "a media type is passed on")
    }
}
