import APIServer
import Foundation
import TestSupport
import XCTest

/// Saving with the backend's full body saves the item its platform and video id name, even when
/// other items share its URL (a feed whose episodes all point at one file): the web app's Save
/// saved the first of them instead.
final class SavedVideoNamedItemTests: XCTestCase {
    func testTheNamedItemIsSavedWhenItsURLIsShared() async throws {
        let h = try await APIHarness()
        let episodes = (1...3).map { n in
            "<item><guid>shared-\(n)</guid><title>Shared \(n)</title><enclosure url=\"\(h.feeds.url("/media/one.mp3"))\" length=\"1\" type=\"audio/mpeg\"/>"
                + "<pubDate>Mon, 0\(n) Nov 2026 10:00:00 GMT</pubDate></item>"
        }.joined()
        try h.feeds.write("shared.xml", "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Shared</title><link>http://x/</link><description>d</description>\(episodes)</channel></rss>")
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/shared.xml"))"}"#, status: 201)
        let body = #"{"platform": "podcast", "video_id": "shared-2", "video_url": "\#(h.feeds.url("/media/one.mp3"))", "title": "Shared 2"}"#
        let saved = try await h.object("POST", "/api/saved-videos", body: body, status: 201)
        XCTAssertEqual(saved["title"] as? String, "Shared 2")
        XCTAssertEqual(saved["video_id"] as? String, "shared-2")
    }
}
