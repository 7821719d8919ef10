import FeedModel
@testable import FeedParsing
import Foundation
import TestSupport
import XCTest

/// Generates a small corpus with `scripts/gen_corpus.py` and compares every podcast
/// and YouTube item with the ground truth in its manifest.json: 100 % must agree.
final class CorpusTests: XCTestCase {
    func testEveryItemMatchesTheManifest() throws {
        let dir = try PackagePaths.temporaryDirectory(self).appendingPathComponent("corpus")
        try Corpus.generate(into: dir, ["--feeds", "12", "--episodes", "20", "--youtube", "6", "--rumble", "0"])

        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("manifest.json")))
        let files = try XCTUnwrap((manifest as? [String: Any])?["files"] as? [[String: Any]])
        var compared = 0, podcastFiles = 0, youtubeFiles = 0
        for file in files {
            let path = try XCTUnwrap(file["path"] as? String)
            let kind = try XCTUnwrap(file["kind"] as? String)
            guard kind == "podcast" || kind == "youtube" else { continue }
            var items: [Item] = []
            let feed = try FeedParser.parseFile(atPath: dir.appendingPathComponent(path).path) { items.append($0) }
            let expected = try XCTUnwrap(file["items"] as? [[String: Any]])
            XCTAssertEqual(items.count, expected.count, path)
            XCTAssertEqual(feed.kind.rawValue, kind, path)
            let channel = try XCTUnwrap(file["channel"] as? [String: Any])
            XCTAssertEqual(feed.title, channel["title"] as? String, path)
            if kind == "podcast" {
                podcastFiles += 1
                XCTAssertEqual(feed.link, channel["link"] as? String, path)
                XCTAssertEqual(feed.language, channel["language"] as? String, path)
                XCTAssertEqual(feed.author, channel["author"] as? String, path)
                XCTAssertEqual(feed.image, channel["image"] as? String, path)
                XCTAssertEqual(feed.selfURL, channel["self_url"] as? String, path)
            } else {
                youtubeFiles += 1
                XCTAssertEqual(feed.channelID, channel["channel_id"] as? String, path)
                XCTAssertEqual(feed.link, channel["url"] as? String, path)
            }
            for (got, want) in zip(items, expected) {
                compare(got, want, kind: kind, at: "\(path) \(want["id"] ?? "?")")
                compared += 1
            }
        }
        XCTAssertEqual(podcastFiles, 12)
        XCTAssertEqual(youtubeFiles, 6)
        XCTAssertGreaterThan(compared, 5000)   // feed 7 alone has 5,000 items
    }

    private func compare(_ got: Item, _ want: [String: Any], kind: String, at place: String) {
        func string(_ key: String) -> String? { want[key] as? String }
        func int(_ key: String) -> Int64? { (want[key] as? NSNumber)?.int64Value }
        XCTAssertEqual(got.title, string("title"), place)
        XCTAssertEqual(got.url, string("url"), place)
        XCTAssertEqual(got.published, int("published"), place)
        XCTAssertEqual(got.duration.map(Int64.init), int("duration"), place)
        if kind == "youtube" {
            XCTAssertEqual(got.id, string("video_id"), place)
            XCTAssertEqual(got.guid, string("id"), place)   // yt:video:ID
            XCTAssertEqual(got.isShort, want["is_short"] as? Bool, place)
            XCTAssertEqual(got.thumbnail, string("thumbnail"), place)
            XCTAssertEqual(got.views, int("views"), place)
            XCTAssertEqual(got.updated, int("updated"), place)
            XCTAssertNil(got.enclosure, place)
            return
        }
        XCTAssertEqual(got.guid, string("guid"), place)
        // The manifest's podcast `id` is the guid, else the link. Our identity rule is guid,
        // else enclosure URL, else link: equal when there is a guid; otherwise ours must be
        // the enclosure URL (or the link when there is no enclosure).
        if let guid = string("guid") {
            XCTAssertEqual(got.id, guid, place)
            XCTAssertEqual(got.id, string("id"), place)
        } else {
            XCTAssertEqual(got.id, string("enclosure_url") ?? string("url"), place)
        }
        XCTAssertEqual(got.enclosure?.url, string("enclosure_url"), place)
        XCTAssertEqual(got.enclosure?.type, string("enclosure_type"), place)
        XCTAssertEqual(got.enclosure?.length, int("enclosure_length"), place)
        XCTAssertEqual(got.season.map(Int64.init), int("season"), place)
        XCTAssertEqual(got.episode.map(Int64.init), int("episode"), place)
        XCTAssertFalse(got.isShort, place)
    }
}
