import Discovery
import FeedModel
import Foundation
import HTTPFetch
import TestSupport
import XCTest

/// Each provider against a server on 127.0.0.1 that stands in for its service (iTunes, Podcast
/// Index, Rumble cannot be reached from here), answering in the service's documented shape; and
/// yt-dlp through a stand-in executable that prints what `yt-dlp -J --flat-playlist` prints.
final class ProviderTests: XCTestCase {
    let fetcher = Fetcher()

    func testITunesPodcastSearch() async throws {
        // Stands in for https://itunes.apple.com/search.
        let server = try TestHTTPServer()
        try server.write("itunes/search", ServiceShapes.itunesPodcasts(feeds: [("Sourdough Weekly", "https://feeds.example.com/sourdough.xml"),
                                                                              ("Crumb & Co", "https://feeds.example.com/crumb.xml")]))
        let provider = ITunesProvider(baseURL: server.url("/itunes"), fetcher: fetcher)
        let results = try await provider.search(DiscoveryRequest(query: "sour dough&co", kind: .channels, limit: 5))
        XCTAssertEqual(results.map(\.title), ["Sourdough Weekly", "Crumb & Co"])
        XCTAssertEqual(results.first?.feedURL, "https://feeds.example.com/sourdough.xml")
        XCTAssertEqual(results.first?.subscribeURL, "https://feeds.example.com/sourdough.xml")
        XCTAssertEqual(results.first?.kind, .channel)
        XCTAssertEqual(results.first?.platform, .podcast)
        XCTAssertEqual(results.first?.thumbnail, "https://is1-ssl.mzstatic.com/0/600x600bb.jpg")
        let query = try XCTUnwrap(server.stats().log.first { $0.path == "/itunes/search" }?.query)
        XCTAssertEqual(query, "term=sour%20dough%26co&media=podcast&entity=podcast&limit=5")
    }

    func testITunesEpisodeSearchPlaysTheEnclosure() async throws {
        // Stands in for https://itunes.apple.com/search?entity=podcastEpisode.
        let server = try TestHTTPServer()
        try server.write("itunes/search", ServiceShapes.itunesEpisodes)
        let results = try await ITunesProvider(baseURL: server.url("/itunes"), fetcher: fetcher)
            .search(DiscoveryRequest(query: "starter", kind: .videos, limit: 5))
        let episode = try XCTUnwrap(results.first)
        XCTAssertEqual(episode.kind, .video)
        XCTAssertEqual(episode.title, "Starter from scratch")
        XCTAssertEqual(episode.audioURL, "https://media.example.com/ep1.mp3")
        XCTAssertEqual(episode.playTarget, "https://media.example.com/ep1.mp3")
        XCTAssertEqual(episode.subscribeURL, "https://feeds.example.com/sourdough.xml")
        XCTAssertEqual(episode.duration, 1815)
        XCTAssertEqual(episode.published, 1_794_290_400)
        XCTAssertTrue(try XCTUnwrap(server.stats().log.first?.query).contains("entity=podcastEpisode"))
    }

    /// The signature is checked against SHA-1 computed by another implementation (coreutils'
    /// `sha1sum`) over key + secret + date, and the headers the server received are exactly those.
    func testPodcastIndexSignsEveryRequest() async throws {
        // Stands in for https://api.podcastindex.org/api/1.0/search/byterm.
        let server = try TestHTTPServer()
        try server.write("pi/api/1.0/search/byterm", ServiceShapes.podcastIndexFeeds(feeds: [("Bread Talk", "https://feeds.example.com/bread.xml")]))
        let key = "UXKCGDSYGUUEVQJSYDZH", secret = "yzJe2eE7XV-3eY576dyRZ6wXyAbndh6LUrCZ8KN|", date: Int64 = 1_795_132_800
        let sha1sum = try ProcessRunner.capture("/bin/sh", ["-c", "printf '%s' \"$1\" | sha1sum", "sh", key + secret + String(date)])
        let expected = try XCTUnwrap(sha1sum.stdout.split(separator: " ").first.map(String.init))
        XCTAssertEqual(expected.count, 40)

        let auth = PodcastIndexAuth(key: key, secret: secret)
        XCTAssertEqual(try auth.headers(now: date), ["X-Auth-Key": key, "X-Auth-Date": "1795132800", "Authorization": expected])

        let provider = PodcastIndexProvider(auth: auth, baseURL: server.url("/pi"), fetcher: fetcher, clock: { date })
        let results = try await provider.search(DiscoveryRequest(query: "bread", kind: .channels, limit: 3))
        XCTAssertEqual(results.map(\.title), ["Bread Talk"])
        XCTAssertEqual(results.first?.feedURL, "https://feeds.example.com/bread.xml")
        let entry = try XCTUnwrap(server.stats().log.first { $0.path == "/pi/api/1.0/search/byterm" })
        XCTAssertEqual(entry.query, "q=bread&max=3")
        let headers = Dictionary(uniqueKeysWithValues: (entry.headers ?? [:]).map { ($0.key.lowercased(), $0.value) })
        XCTAssertEqual(headers["x-auth-key"], key)
        XCTAssertEqual(headers["x-auth-date"], "1795132800")
        XCTAssertEqual(headers["authorization"], expected)
        XCTAssertNotNil(headers["user-agent"], "Podcast Index refuses requests without a User-Agent")
        XCTAssertFalse(provider.answers(.videos), "Podcast Index finds feeds, not episodes")
    }

    func testYouTubeThroughYtdlpStandIn() async throws {
        // A stand-in for yt-dlp (not installed here, and YouTube unreachable): prints what
        // `yt-dlp -J --flat-playlist` prints and records its arguments.
        let dir = try PackagePaths.temporaryDirectory(self)
        let ytdlp = try StandInYtdlp(dir: dir)
        let provider = YouTubeProvider(executable: ytdlp.path)
        let videos = try await provider.search(DiscoveryRequest(query: "sourdough", kind: .videos, limit: 3))
        XCTAssertEqual(videos.map(\.id), ["dQw4w9WgXcQ", "9bZkp7q19f0"])
        XCTAssertEqual(videos.first?.url, "https://www.youtube.com/watch?v=dQw4w9WgXcQ")
        XCTAssertEqual(videos.first?.channelURL, "https://www.youtube.com/channel/UCaaaaaaaaaaaaaaaaaaaaaa")
        XCTAssertEqual(videos.first?.duration, 754)
        XCTAssertEqual(videos.first?.views, 120_345)
        XCTAssertEqual(videos.first?.thumbnail, "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg")
        XCTAssertEqual(try ytdlp.arguments().last, "ytsearch3:sourdough")
        XCTAssertTrue(try ytdlp.arguments().contains("--flat-playlist"))

        let channels = try await provider.search(DiscoveryRequest(query: "sourdough", kind: .channels, limit: 3))
        XCTAssertEqual(channels.map(\.title), ["Bake Club"])
        XCTAssertEqual(channels.first?.subscribeURL, "https://www.youtube.com/channel/UCaaaaaaaaaaaaaaaaaaaaaa")
        XCTAssertEqual(try ytdlp.arguments().last, "https://www.youtube.com/results?search_query=sourdough&sp=EgIQAg%3D%3D")
    }

    func testYouTubeWithoutYtdlpSaysHowToGetIt() async throws {
        let provider = YouTubeProvider(executable: "/nonexistent/yt-dlp")
        do throws(DiscoveryError) {
            _ = try await provider.search(DiscoveryRequest(query: "x"))
            XCTFail("searched without yt-dlp")
        } catch {
            XCTAssertEqual(error.message, "searching YouTube needs yt-dlp, which is not installed (pip install yt-dlp)")
        }
    }

    func testRumbleSearchPages() async throws {
        // Stands in for https://rumble.com/search/video?q= and /search/channel?q=.
        let server = try TestHTTPServer()
        try server.write("rumble/search/video", ServiceShapes.rumbleVideoSearch)
        try server.write("rumble/search/channel", ServiceShapes.rumbleChannelSearch)
        let provider = RumbleProvider(baseURL: server.url("/rumble"), fetcher: fetcher)
        let videos = try await provider.search(DiscoveryRequest(query: "sour dough", kind: .videos, limit: 10))
        XCTAssertEqual(videos.map(\.title), ["Sourdough at home", "Rye loaf"])
        XCTAssertEqual(videos.first?.url, "https://rumble.com/v5abc12-sourdough-at-home.html")
        XCTAssertEqual(videos.first?.id, "v5abc12")
        XCTAssertEqual(videos.first?.duration, 754)
        XCTAssertEqual(videos.first?.views, 1234)
        XCTAssertEqual(videos.first?.channelURL, "https://rumble.com/c/BreadTV")
        XCTAssertEqual(videos.last?.channelURL, "https://rumble.com/user/ryeguy")
        XCTAssertEqual(try server.stats().log.first?.query, "q=sour%20dough")

        let channels = try await provider.search(DiscoveryRequest(query: "bread", kind: .channels, limit: 10))
        XCTAssertEqual(channels.map(\.title), ["BreadTV", "ryeguy"])
        XCTAssertEqual(channels.map(\.url), ["https://rumble.com/c/BreadTV", "https://rumble.com/user/ryeguy"])
        XCTAssertEqual(channels.first?.thumbnail, "https://sp.rmbl.ws/z0/b.jpg")
        XCTAssertEqual(channels.first?.description, "12.3K subscribers")
    }
}

/// An executable standing in for yt-dlp: writes its arguments to a file, then prints the
/// channel-search document when asked for the search page, else the video-search one.
struct StandInYtdlp {
    let path: String
    let argumentsFile: URL

    init(dir: URL, delay: Double = 0) throws {
        let videos = dir.appendingPathComponent("videos.json"), channels = dir.appendingPathComponent("channels.json")
        try ServiceShapes.ytdlpVideos.write(to: videos, atomically: true, encoding: .utf8)
        try ServiceShapes.ytdlpChannels.write(to: channels, atomically: true, encoding: .utf8)
        argumentsFile = dir.appendingPathComponent("arguments")
        path = try StandInExecutable(dir: dir, script: """
            printf '%s\\n' "$@" > '\(argumentsFile.path)'
            sleep \(delay)
            for last; do :; done
            case "$last" in
              https://*) cat '\(channels.path)' ;;
              *) cat '\(videos.path)' ;;
            esac
            """).path
    }

    func arguments() throws -> [String] {
        try String(contentsOf: argumentsFile, encoding: .utf8).split(separator: "\n").map(String.init)
    }
}
