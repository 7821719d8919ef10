import Foundation
import LibrarySQLite
import TestSupport
import XCTest

/// `feedctl discover` through the built binary on a real library. iTunes and Rumble are stood in
/// for by a server on 127.0.0.1 answering in their documented shapes (the services cannot be
/// reached from here); the feed a result names is the demo podcast, served there too.
final class DiscoverCommandTests: XCTestCase {
    private var dir: TempDir!
    private var server: TestHTTPServer!
    private var db: String { dir.file("library.sqlite") }

    override func setUp() async throws {
        dir = TempDir()
        server = try TestHTTPServer()
        try server.write("podcast.xml", Data(contentsOf: PackagePaths.fixture("demo/podcast.xml")))
        try server.write("itunes/search", """
            {"resultCount": 2, "results": [
             {"wrapperType": "track", "kind": "podcast", "collectionId": 11, "collectionName": "The Tone Show", "artistName": "Tones",
              "feedUrl": "\(server.url("/podcast.xml"))", "collectionViewUrl": "https://podcasts.apple.com/us/podcast/id11"},
             {"wrapperType": "track", "kind": "podcast", "collectionId": 12, "collectionName": "Tone Deaf", "artistName": "Someone",
              "feedUrl": "https://feeds.example.com/deaf.xml", "collectionViewUrl": "https://podcasts.apple.com/us/podcast/id12"}]}
            """)
        // An empty library: `discover` needs one, as every command but `channel add` does.
        _ = try SQLiteLibrary(path: db)
    }

    override func tearDown() { server.stop() }

    private func feedctl(_ arguments: [String], rumble: String? = nil, itunesFromEnvironment: Bool = true) throws -> ProcessRunner.Result {
        var environment = ProcessInfo.processInfo.environment
        // The test's own config file (none unless a test writes it), never the person's.
        environment["FEEDCTL_CONFIG"] = dir.file("config.toml")
        environment["FEEDCTL_DISCOVER_ITUNES_URL"] = itunesFromEnvironment ? server.url("/itunes") : nil
        environment["FEEDCTL_DISCOVER_RUMBLE_URL"] = rumble ?? server.url("/rumble")
        environment["FEEDCTL_DISCOVER_TOPLIST_URL"] = server.url("/apple")
        return try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db], environment: environment)
    }

    func testResultsAreNumberedAndSubscribingFromOneAddsTheChannel() throws {
        let found = try feedctl(["discover", "tone", "--channels", "--platform", "itunes"])
        XCTAssertEqual(found.status, 0, found.stderr)
        let lines = found.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, found.stdout)
        XCTAssertTrue(lines[0].hasPrefix("  1. [podcast]  The Tone Show — Tones  (channel)  <itunes>"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("  2. [podcast]  Tone Deaf — Someone"), lines[1])
        XCTAssertTrue(found.stderr.contains("itunes: 2 results in "), found.stderr)

        let subscribed = try feedctl(["discover", "tone", "--channels", "--platform", "itunes", "--subscribe", "1"])
        XCTAssertEqual(subscribed.status, 0, subscribed.stderr)
        XCTAssertTrue(subscribed.stdout.hasPrefix("added "), subscribed.stdout)
        XCTAssertTrue(subscribed.stdout.contains("The Tone Show [podcast] — 3 new items"), subscribed.stdout)
        let list = try feedctl(["channel", "list", "--json"])
        let channels = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(channels.compactMap { $0["feed_url"] as? String }, [server.url("/podcast.xml")])

        // Now it is marked, in text and JSON, and the library finds its episodes too.
        let again = try feedctl(["discover", "tone", "--channels", "--platform", "itunes"])
        XCTAssertTrue(again.stdout.split(separator: "\n")[0].contains("✓ subscribed"), again.stdout)
        let json = try feedctl(["discover", "tone", "--channels", "--platform", "itunes", "--json"])
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let results = try XCTUnwrap(document["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["subscribed"] as? Bool }, [true, false])
        XCTAssertEqual(results.first?["subscribe_url"] as? String, server.url("/podcast.xml"))
        XCTAssertEqual(results.first?["number"] as? Int, 1)
        XCTAssertEqual((document["providers"] as? [[String: Any]])?.map { $0["name"] as? String }, ["itunes"])

        let episodes = try feedctl(["discover", "tones", "--platform", "library"])
        XCTAssertEqual(episodes.status, 0, episodes.stderr)
        XCTAssertTrue(episodes.stdout.contains("Episode 3: Four tones"), episodes.stdout)
    }

    func testAFailingProviderIsNamedAndTheOthersShown() throws {
        let found = try feedctl(["discover", "--platform", "itunes,rumble", "--channels", "tone"], rumble: server.url("/missing"))
        XCTAssertEqual(found.status, 2, found.stderr)
        XCTAssertEqual(found.stdout.split(separator: "\n").count, 2, found.stdout)
        XCTAssertTrue(found.stderr.contains("feedctl: rumble failed after "), found.stderr)
        XCTAssertTrue(found.stderr.contains("\(server.url("/missing/search/channel")): HTTP 404 Not Found"), found.stderr)
        XCTAssertTrue(found.stderr.hasSuffix("feedctl: 1 of 2 providers failed\n"), found.stderr)

        let bad = try feedctl(["discover", "tone", "--platform", "vimeo"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.stderr, "feedctl: \"vimeo\" is not a discovery platform (podcast, youtube, rumble, library, itunes, podcastindex)\n")
        let noSuch = try feedctl(["discover", "tone", "--channels", "--platform", "itunes", "--save", "9"])
        XCTAssertEqual(noSuch.status, 1)
        XCTAssertTrue(noSuch.stderr.hasSuffix("feedctl: no result 9: the search found 2 results\n"), noSuch.stderr)
        let aChannel = try feedctl(["discover", "tone", "--channels", "--platform", "itunes", "--save", "2"])
        XCTAssertEqual(aChannel.status, 1)
        XCTAssertTrue(aChannel.stderr.contains("result 2 (Tone Deaf) is a channel: --subscribe 2 follows it"), aChannel.stderr)
    }

    /// Stands in for Rumble's `/search/video` and `/search/channel` pages (their markup today, one
    /// card each): a video the library does not hold is saved as its page, a channel is not.
    func testSavingAVideoTheLibraryDoesNotHoldSavesItsPage() throws {
        try server.write("rumble/search/video", """
            <!DOCTYPE html><html><body><main><div class="videostream__list">
            <div class="videostream thumbnail__grid--item" data-video-id="1">
              <a class="videostream__link link" href="/v5abc12-sourdough-at-home.html?e9s=src_v1_s"></a>
              <div class="thumbnail__thumb"><img class="thumbnail__image" src="https://1a-1791.com/video/s8/1/a.jpg" alt="">
                <div class="videostream__status videostream__status--duration">12:34</div></div>
              <div class="videostream__footer"><h3 class="thumbnail__title" title="Sourdough at home">Sourdough at home</h3>
                <a class="channel__link link" href="/c/BreadTV"><span class="channel__name" title="BreadTV">BreadTV</span></a></div>
            </div></div></main></body></html>
            """)
        try server.write("rumble/search/channel", """
            <!DOCTYPE html><html><body><main><ol class="videostream__list">
            <li class="video-listing-entry"><article class="channel-item">
              <a class="channel-item--a" href="/c/BreadTV"><h3 class="channel-item--title">BreadTV</h3></a>
            </article></li></ol></main></body></html>
            """)
        let saved = try feedctl(["discover", "sourdough", "--platform", "rumble", "--save", "1"])
        XCTAssertEqual(saved.status, 0, saved.stderr)
        XCTAssertEqual(saved.stdout, "saved: page 1, Sourdough at home (not in your library)\n")
        let again = try feedctl(["discover", "sourdough", "--platform", "rumble", "--save", "1"])
        XCTAssertEqual(again.stdout, "already saved: page 1, Sourdough at home (not in your library)\n", again.stderr)

        let list = try feedctl(["saved"])
        XCTAssertEqual(list.stdout, "  page 1  [rumble] Sourdough at home — BreadTV  https://rumble.com/v5abc12-sourdough-at-home.html\n", list.stderr)
        let json = try feedctl(["saved", "--pages", "--json"])
        let pages = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(pages.count, 1)
        XCTAssertEqual(pages.first?["video_id"] as? String, "v5abc12")
        XCTAssertEqual(pages.first?["url"] as? String, "https://rumble.com/v5abc12-sourdough-at-home.html")
        XCTAssertEqual(pages.first?["channel"] as? String, "BreadTV")
        XCTAssertEqual(try feedctl(["saved", "--json"]).stdout, "[]\n", "--json alone: library items, as before")

        let channel = try feedctl(["discover", "sourdough", "--platform", "rumble", "--channels", "--save", "1"])
        XCTAssertEqual(channel.status, 1)
        XCTAssertTrue(channel.stderr.hasSuffix("feedctl: result 1 (BreadTV) is a channel: --subscribe 1 follows it\n"), channel.stderr)
    }

    /// The config file's `[discover]` places the providers (`feedctl config set`); the
    /// environment's variable wins over it.
    func testTheConfigFilePlacesAProviderAndTheEnvironmentWins() throws {
        func config(_ arguments: String...) throws -> ProcessRunner.Result {
            try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, ["config"] + arguments,
                                      environment: ProcessInfo.processInfo.environment.merging(["FEEDCTL_CONFIG": dir.file("config.toml")]) { $1 })
        }
        let set = try config("set", "discover.itunes_url", server.url("/itunes"))
        XCTAssertEqual(set.status, 0, set.stderr)
        let found = try feedctl(["discover", "tone", "--channels", "--platform", "itunes"], itunesFromEnvironment: false)
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertEqual(found.stdout.split(separator: "\n").count, 2, found.stdout)
        let listed = try config("list")
        XCTAssertTrue(listed.stdout.contains("discover.itunes_url = \"\(server.url("/itunes"))\""), listed.stdout)
        XCTAssertTrue(listed.stdout.contains("discover.rumble_url = (built-in)"), listed.stdout)

        var environment = ProcessInfo.processInfo.environment
        environment["FEEDCTL_CONFIG"] = dir.file("config.toml")
        environment["FEEDCTL_DISCOVER_ITUNES_URL"] = server.url("/missing")
        let overridden = try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path,
                                                   ["discover", "tone", "--channels", "--platform", "itunes", "--db", db], environment: environment)
        XCTAssertEqual(overridden.status, 1, overridden.stderr)
        XCTAssertTrue(overridden.stderr.contains("\(server.url("/missing/search"))"), overridden.stderr)

        try "[discover]\nitunes_timeout = 0\n".write(toFile: dir.file("config.toml"), atomically: true, encoding: .utf8)
        let broken = try feedctl(["discover", "tone"], itunesFromEnvironment: false)
        XCTAssertEqual(broken.status, 1)
        XCTAssertEqual(broken.stderr, "feedctl: \(dir.file("config.toml")): discover.itunes_timeout must be a number from 0.001 to 600 (seconds), not 0\n")
    }

    /// Stands in for Apple's chart (the iTunes RSS generator's JSON) and the iTunes lookup.
    func testTopListsTheChartWithFeedsAndSubscribes() throws {
        try server.write("apple/us/rss/toppodcasts/limit=3/genre=1489/json", """
            {"feed": {"author": {"name": {"label": "iTunes Store"}}, "entry": [
             {"im:name": {"label": "Tone Deaf"}, "im:image": [{"label": "https://is1-ssl.mzstatic.com/55.png", "attributes": {"height": "55"}}],
              "im:artist": {"label": "Someone"}, "id": {"label": "https://podcasts.apple.com/us/podcast/id12", "attributes": {"im:id": "12"}},
              "category": {"attributes": {"im:id": "1489", "term": "News", "label": "News"}}},
             {"im:name": {"label": "The Tone Show"}, "id": {"label": "https://podcasts.apple.com/us/podcast/id11", "attributes": {"im:id": "11"}},
              "category": {"attributes": {"im:id": "1489", "term": "News", "label": "News"}}},
             {"im:name": {"label": "No Feed"}, "id": {"attributes": {"im:id": "13"}}}]}}
            """)
        try server.write("apple/lookup", """
            {"resultCount": 2, "results": [
             {"wrapperType": "track", "kind": "podcast", "collectionId": 11, "collectionName": "The Tone Show", "artistName": "Tones",
              "feedUrl": "\(server.url("/podcast.xml"))"},
             {"wrapperType": "track", "kind": "podcast", "collectionId": 12, "collectionName": "Tone Deaf", "artistName": "Someone",
              "feedUrl": "https://feeds.example.com/deaf.xml"}]}
            """)
        let top = try feedctl(["discover", "top", "--genre", "news", "--limit", "3"])
        XCTAssertEqual(top.status, 0, top.stderr)
        let lines = top.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, top.stdout)
        XCTAssertTrue(lines[0].hasPrefix("  1. [podcast]  Tone Deaf — Someone  (channel)"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("  2. [podcast]  The Tone Show — Tones  (channel)"), lines[1])
        let lookup = try XCTUnwrap(server.stats().log.first { $0.path == "/apple/lookup" }?.query)
        XCTAssertEqual(lookup, "id=12%2C11%2C13&entity=podcast")

        let subscribed = try feedctl(["discover", "top", "--genre", "1489", "--limit", "3", "--subscribe", "2"])
        XCTAssertEqual(subscribed.status, 0, subscribed.stderr)
        XCTAssertTrue(subscribed.stdout.contains("The Tone Show [podcast] — 3 new items"), subscribed.stdout)
        let json = try feedctl(["discover", "top", "--genre", "news", "--limit", "3", "--json"])
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(results.map { $0["subscribed"] as? Bool }, [false, true])
        XCTAssertEqual(results.map { $0["description"] as? String }, ["News", "News"])

        let bad = try feedctl(["discover", "top", "--genre", "cooking"])
        XCTAssertEqual(bad.status, 64)
    }
}
