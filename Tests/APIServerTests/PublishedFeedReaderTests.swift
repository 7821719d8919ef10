import APIServer
import FeedModel
import Foundation
import TestSupport
import XCTest

/// A published collection's RSS read by real readers over HTTP from the running server: feedctl's
/// own parser (`feedctl parse --json`, as any feedctl subscribes to it) and Debian's newsboat
/// (headless: `-x reload` fetches it into its cache, which is read back). Both find every episode
/// with its enclosure, the collection's name, and the escaped title as it was written.
final class PublishedFeedReaderTests: XCTestCase {
    /// Alice's collection, published with a title that needs escaping: (server, its RSS URL,
    /// its items as the JSON has them).
    private func publishedFeed() async throws -> (APIHarness, String, [[String: Any]]) {
        let (h, alice, collection, _) = try await PublishedCollectionTests.aliceWithACollection(name: "Trips & <tones> “東京”")
        let published = try await h.object("POST", "/api/collections/\(collection)/publish", token: alice)
        let rss = h.base + (try XCTUnwrap(published["rss_url"] as? String))
        let json = try await PublishedCollectionTests.anonymous(h, try XCTUnwrap(published["json_url"] as? String)).object()
        return (h, rss, try XCTUnwrap(json["items"] as? [[String: Any]]))
    }

    /// A program run off the test's task (the server answers it meanwhile), bounded.
    private func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> ProcessRunner.Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ProcessRunner.capture(executable, arguments, environment: environment, timeout: 60) })
            }
        }
    }

    func testFeedctlParsesThePublishedFeed() async throws {
        let (h, rss, items) = try await publishedFeed()
        defer { withExtendedLifetime(h) {} }   // the server answers until the end
        let feedctl = try XCTUnwrap(PackagePaths.builtProgram("feedctl"), "build feedctl first")
        let result = try await run(feedctl.path, ["parse", "--json", rss])
        XCTAssertEqual(result.status, 0, result.stderr)
        let feed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(feed["kind"] as? String, "podcast")
        // feedctl's parser drops what reads as a tag from a title (feeds put HTML in titles):
        // `&lt;tones&gt;` arrived as text, which newsboat shows whole (below).
        XCTAssertEqual(feed["title"] as? String, "Trips & “東京”")
        XCTAssertEqual(feed["author"] as? String, "alice")
        XCTAssertEqual(feed["warnings"] as? [String], [], "a clean document")
        let parsed = try XCTUnwrap(feed["items"] as? [[String: Any]])
        XCTAssertEqual(parsed.map { $0["title"] as? String }, items.map { $0["title"] as? String })
        XCTAssertEqual(parsed.map { ($0["enclosure"] as? [String: Any])?["url"] as? String }, items.map { $0["audio_url"] as? String })
        XCTAssertEqual(parsed.map { $0["duration"] as? Int }, items.map { $0["duration_seconds"] as? Int })
        XCTAssertEqual(parsed.map { $0["published"] as? Int }, items.map { ($0["published_at"] as? String).flatMap(DateParserProbe.parse) })
        XCTAssertEqual(parsed.map { $0["guid"] as? String }, items.map { $0["guid"] as? String })
    }

    func testNewsboatReadsThePublishedFeed() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/newsboat") else {
            return XCTFail("newsboat is not installed (apt-get install newsboat; scripts/install-deps.sh)")
        }
        let (h, rss, items) = try await publishedFeed()
        let dir = h.dir
        try (rss + "\n").write(toFile: dir.file("urls"), atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: dir.file("config"), contents: Data())
        let reload = try await run("/usr/bin/newsboat", ["-u", dir.file("urls"), "-c", dir.file("cache.db"), "-C", dir.file("config"), "-x", "reload"],
                                   environment: ["HOME": dir.path, "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(reload.status, 0, reload.stderr)
        // newsboat's cache is SQLite: what it stored of the feed and its items.
        let script = """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            feeds = db.execute("SELECT title FROM rss_feed").fetchall()
            items = db.execute("SELECT title, enclosure_url, enclosure_type, guid FROM rss_item ORDER BY id").fetchall()
            print(json.dumps({"feeds": [f[0] for f in feeds], "items": [list(i) for i in items]}))
            """
        let read = try await run("/usr/bin/python3", ["-c", script, dir.file("cache.db")])
        XCTAssertEqual(read.status, 0, read.stderr)
        let cache = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(cache["feeds"] as? [String], ["Trips & <tones> “東京”"])
        let stored = try XCTUnwrap(cache["items"] as? [[Any]])
        XCTAssertEqual(Set(stored.compactMap { $0[0] as? String }), Set(items.compactMap { $0["title"] as? String }))
        XCTAssertEqual(Set(stored.compactMap { $0[1] as? String }), Set(items.compactMap { $0["audio_url"] as? String }),
                       "every episode with its enclosure")
        XCTAssertTrue(stored.allSatisfy { ($0[2] as? String)?.hasPrefix("audio/") == true }, "\(stored)")
    }
}

/// The JSON's ISO dates as Unix seconds (what `parse --json` prints).
enum DateParserProbe {
    static func parse(_ text: String) -> Int? {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text).map { Int($0.timeIntervalSince1970) }
    }
}
