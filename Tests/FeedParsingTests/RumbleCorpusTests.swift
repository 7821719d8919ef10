@testable import FeedParsing
import Foundation
import TestSupport
import XCTest

/// Every Rumble page of a generated corpus against the generator's ground truth (manifest.json).
final class RumbleCorpusTests: XCTestCase {
    func testEveryItemAgreesWithTheManifest() throws {
        let dir = try PackagePaths.temporaryDirectory(self)
        try Corpus.generate(into: dir, ["--feeds", "0", "--youtube", "0", "--rumble", "40"])

        let manifestData = try Data(contentsOf: dir.appendingPathComponent("manifest.json"))
        let manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        let files = try XCTUnwrap(manifest["files"] as? [[String: Any]]).filter { $0["kind"] as? String == "rumble" }
        XCTAssertEqual(files.count, 40)

        var checkedItems = 0, layouts = Set<String>(), liveStatuses = Set<String>(), featured = 0, lastPages = 0
        for file in files {
            let path = try XCTUnwrap(file["path"] as? String)
            let channel = try XCTUnwrap(file["channel"] as? [String: Any])
            let listingURL = try XCTUnwrap(channel["listing_url"] as? String)
            let bytes = Array(try Data(contentsOf: dir.appendingPathComponent(path)))
            let feed = try RumbleParser.parse(bytes, documentURL: listingURL)

            XCTAssertEqual(feed.kind, .rumble, path)
            XCTAssertEqual(feed.title, channel["title"] as? String, path)
            XCTAssertEqual(feed.link, channel["url"] as? String, path)
            XCTAssertEqual(feed.channelID, channel["name"] as? String, path)
            XCTAssertEqual(feed.nextPage, channel["next_page"] as? String, path)
            if channel["next_page"] is NSNull { lastPages += 1 }
            if !(channel["featured_id"] is NSNull) { featured += 1 }
            layouts.insert(try XCTUnwrap(channel["layout"] as? String))

            let expected = try XCTUnwrap(file["items"] as? [[String: Any]])
            XCTAssertEqual(feed.items.count, expected.count, path)
            for (item, truth) in zip(feed.items, expected) {
                let at = "\(path) \(truth["id"] ?? "?")"
                XCTAssertEqual(item.id, truth["id"] as? String, at)
                XCTAssertEqual(item.title, truth["title"] as? String, at)
                XCTAssertEqual(item.url, truth["url"] as? String, at)
                XCTAssertEqual(item.published, (truth["published"] as? NSNumber)?.int64Value, at)
                XCTAssertEqual(item.duration, (truth["duration"] as? NSNumber)?.intValue, at)
                XCTAssertEqual(item.isShort, truth["is_short"] as? Bool, at)
                XCTAssertEqual(item.views, (truth["views"] as? NSNumber)?.int64Value, at)
                XCTAssertEqual(item.thumbnail, truth["thumbnail"] as? String, at)
                XCTAssertEqual(item.liveStatus, truth["live_status"] as? String, at)
                XCTAssertEqual(item.author, channel["title"] as? String, at)
                if let status = item.liveStatus { liveStatuses.insert(status) }
                checkedItems += 1
            }
        }
        // The corpus must have exercised what this test claims to check.
        XCTAssertEqual(layouts, ["cards", "grid-json"])
        XCTAssertGreaterThan(checkedItems, 500)
        XCTAssertGreaterThan(featured, 0)
        XCTAssertGreaterThan(lastPages, 0)
        XCTAssertFalse(liveStatuses.isEmpty)
    }
}
