import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// Issue 26, item 9: FFmpeg follows no redirect; the daemon follows a media URL's redirects
/// itself, each address checked where it connects, and gives FFmpeg the final URL.
final class MediaRedirectTests: DaemonTestCase {
    /// A URL the owner plays that redirects on the same machine still plays: its own host is
    /// local, so its redirects may be too; FFmpeg gets the final URL.
    func testARedirectedURLPlaysThroughTheDaemon() throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try server.write("short.mp3", Data(contentsOf: media.short))
        try startDaemon()
        let url = server.url("/redirect/302?to=" + server.url("/short.mp3"))
        try succeed("play", url)
        XCTAssertEqual(try status().string("status"), "playing")
        assertTone(try record(0.6), 550, "played through its redirect")
        XCTAssertEqual(try status().string("url"), url, "the status names the URL asked for")
        try succeed("stop")
    }

    /// An episode of a feed a server user follows (public addresses only) is not played from a
    /// name that resolves to loopback (`media.localhost`: libcurl resolves it itself), by the URL
    /// itself or through a redirect; nothing reaches the media server.
    func testAnEpisodeOfAServerUsersFeedIsNotPlayedFromAPrivateAddress() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try server.write("short.mp3", Data(contentsOf: media.short))
        let direct = "http://media.localhost:\(server.port)/short.mp3"
        let redirected = server.url("/redirect/302?to=") + direct
        var ids: [String] = []
        do {
            let library = try SQLiteLibrary(path: world.db)
            let feed = "https://example.com/shared-\(UUID().uuidString).xml"
            let channel = try await library.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Shared", now: 1)
            let bobName = "bob\(UUID().uuidString.prefix(6))"
            let bob = library.acting(as: try await library.addUser(name: bobName, isAdmin: false, passwordHash: nil, now: 1).id)
            _ = try await bob.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Shared", reach: .publicOnly, now: 1)
            for (index, url) in [direct, redirected].enumerated() {
                let guid = "\(feed)-\(index)"
                _ = try await library.ingest(items: [Item(id: guid, title: "Episode \(index)", published: 100,
                                                          enclosure: Enclosure(url: url, type: "audio/mpeg"))],
                                             channelID: channel.id, now: Clock.now())
                ids.append(String(try await library.id(of: guid)))
            }
        }
        try startDaemon()
        for id in ids {
            let result = try feedctl("play", id)
            XCTAssertEqual(result.status, 1, result.stdout)
            XCTAssertTrue(result.stderr.contains(": refused: ") && result.stderr.contains(" is a local address"), result.stderr)
        }
        XCTAssertEqual(try server.stats().hits["/short.mp3"] ?? 0, 0, "the media server got no request for it")
        XCTAssertEqual(try status().string("status"), "stopped")
    }

    /// The chapters file of such an episode is fetched within the same reach: the episode plays
    /// (from a download), but its chapters URL on a name that resolves to loopback is not asked.
    func testTheChaptersOfAServerUsersFeedAreNotFetchedFromAPrivateAddress() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try server.write("chap.json", Data(#"{"version":"1.2.0","chapters":[{"startTime":0,"title":"Intro"}]}"#.utf8))
        let id: Int64
        do {
            let library = try SQLiteLibrary(path: world.db)
            let feed = "https://example.com/chapters-\(UUID().uuidString).xml"
            let channel = try await library.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Shared", now: 1)
            let bob = library.acting(as: try await library.addUser(name: "bob\(UUID().uuidString.prefix(6))", isAdmin: false,
                                                                   passwordHash: nil, now: 1).id)
            _ = try await bob.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Shared", reach: .publicOnly, now: 1)
            let guid = "\(feed)-chapters"
            _ = try await library.ingest(items: [Item(id: guid, title: "Chaptered", published: 100,
                                                      enclosure: Enclosure(url: "https://example.com/chaptered.mp3", type: "audio/mpeg"),
                                                      chaptersURL: "http://media.localhost:\(server.port)/chap.json")],
                                         channelID: channel.id, now: Clock.now())
            id = try await library.id(of: guid)
        }
        // Downloaded earlier: the one way a library item plays a file (media/ID_TITLE.mp3 beside the library).
        let downloads = URL(fileURLWithPath: world.db).deletingLastPathComponent().appendingPathComponent("media")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: media.short, to: downloads.appendingPathComponent("\(id)_Chaptered.mp3"))
        try startDaemon()
        try succeed("play", String(id))
        assertTone(try record(0.6), 550, "the downloaded episode plays")
        let chapters = try feedctl("chapters", "--json")
        XCTAssertEqual(chapters.status, 0, chapters.stderr)
        XCTAssertFalse(chapters.stdout.contains("Intro"), chapters.stdout)
        XCTAssertEqual(try server.stats().hits["/chap.json"] ?? 0, 0, "the chapters file was not asked for")
        try succeed("stop")
    }
}
