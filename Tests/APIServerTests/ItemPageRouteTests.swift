import APIServer
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Issue 27: `GET /api/feed/items/{id}` gives what the item page shows beyond a list's row: the
/// item's podcast chapters (fetched from the feed's chapters URL on the test HTTP server, then
/// kept in the library's cache, as the daemon's player gets them), its transcript link and
/// whether the server has downloaded it (the media directory beside the library).
final class ItemPageRouteTests: XCTestCase {
    private func harness() async throws -> APIHarness {
        let dir = TempDir()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: true, version: "test")
        configuration.mediaDirectory = dir.file("media")
        return try await APIHarness(configuration: configuration, dir: dir)
    }

    private func addItem(_ h: APIHarness, chapters: String?, transcript: String?) async throws -> Int64 {
        let store = h.owner
        let feed = "https://example.com/page-\(UUID().uuidString).xml"
        let channel = try await store.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "Show", reach: .anyAddress,
                                                 now: APIHarness.now)
        let guid = "\(feed)#1"
        _ = try await store.ingest(items: [Item(id: guid, title: "Episode", published: APIHarness.now - 60,
                                                enclosure: Enclosure(url: h.feeds.url("/ep.mp3"), type: "audio/mpeg"),
                                                chaptersURL: chapters, transcriptURL: transcript)],
                                   channelID: channel.id, now: APIHarness.now)
        return try await store.id(of: guid)
    }

    /// "state bytes" ("nil" for a null), failing when either key is missing.
    private func download(_ page: [String: Any]) throws -> String {
        let download = try XCTUnwrap(page["download"] as? [String: Any], "\(page)")
        XCTAssertEqual(Set(download.keys), ["state", "bytes"])
        return "\(download["state"] as? String ?? "?") \((download["bytes"] as? Int).map(String.init) ?? "nil")"
    }

    func testTheItemPageHasChaptersTranscriptAndDownloadState() async throws {
        let h = try await harness()
        try h.feeds.write("chapters.json", Data("""
            {"version":"1.2.0","chapters":[{"startTime":90,"title":"News","url":"https://example.com/news"},
             {"startTime":0,"title":"Intro"},{"startTime":5,"title":"link","url":"javascript:alert(1)"}]}
            """.utf8))
        let id = try await addItem(h, chapters: h.feeds.url("/chapters.json"), transcript: "https://example.com/ep1.vtt")

        let page = try await h.object("GET", "/api/feed/items/\(id)")
        XCTAssertEqual(page["title"] as? String, "Episode")
        let chapters = try XCTUnwrap(page["chapters"] as? [[String: Any]], "\(page)")
        XCTAssertEqual(chapters.map { $0["start_seconds"] as? Double }, [0, 5, 90])
        XCTAssertEqual(chapters.map { $0["title"] as? String }, ["Intro", "link", "News"])
        XCTAssertEqual(chapters.map { $0["url"] as? String }, [nil, nil, "https://example.com/news"])
        XCTAssertTrue(chapters.allSatisfy { $0.keys.contains("url") })
        XCTAssertEqual(page["transcript_url"] as? String, "https://example.com/ep1.vtt")
        XCTAssertEqual(try download(page), "none nil")

        // Kept in the library's cache: the chapters file gone from its host, the page still has them.
        try FileManager.default.removeItem(at: h.feeds.root.appendingPathComponent("chapters.json"))
        let again = try await h.object("GET", "/api/feed/items/\(id)")
        XCTAssertEqual((again["chapters"] as? [[String: Any]])?.count, 3)

        let media = h.dir.file("media")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        try Data(count: 1000).write(to: URL(fileURLWithPath: media + "/\(id)_Episode.mp3.part"))
        let partial = try await h.object("GET", "/api/feed/items/\(id)")
        XCTAssertEqual(try download(partial), "partial 1000")
        try FileManager.default.moveItem(atPath: media + "/\(id)_Episode.mp3.part", toPath: media + "/\(id)_Episode.mp3")
        let done = try await h.object("GET", "/api/feed/items/\(id)")
        XCTAssertEqual(try download(done), "downloaded 1000")
    }

    func testWithoutChaptersOrWithABrokenChaptersFileThePageStillAnswers() async throws {
        let h = try await harness()
        let plain = try await addItem(h, chapters: nil, transcript: nil)
        let page = try await h.object("GET", "/api/feed/items/\(plain)")
        XCTAssertTrue(page["chapters"] is NSNull, "\(page)")
        XCTAssertTrue(page["transcript_url"] is NSNull, "\(page)")

        try h.feeds.write("junk.json", Data("<html>not chapters</html>".utf8))
        let broken = try await addItem(h, chapters: h.feeds.url("/junk.json"), transcript: nil)
        let answered = try await h.object("GET", "/api/feed/items/\(broken)")
        XCTAssertTrue(answered["chapters"] is NSNull, "\(answered)")
        XCTAssertEqual(answered["title"] as? String, "Episode")
    }
}
