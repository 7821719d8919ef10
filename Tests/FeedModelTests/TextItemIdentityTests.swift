import XCTest
@testable import FeedModel

final class TextItemIdentityTests: XCTestCase {
    func testFallbackOrder() {
        XCTAssertEqual(ItemIdentity.fallback(guid: " tag:x,2026:1 ", enclosureURL: "https://e/a.mp3", link: "https://e/1", title: "T", published: 1),
                       "tag:x,2026:1")
        XCTAssertEqual(ItemIdentity.fallback(guid: "  ", enclosureURL: "https://e/a.mp3", link: "https://e/1", title: "T", published: 1),
                       "https://e/a.mp3")
        XCTAssertEqual(ItemIdentity.fallback(guid: nil, enclosureURL: nil, link: "https://e/1", title: "T", published: 1), "https://e/1")
    }

    func testHashOfTitleAndDate() {
        // FNV-1a 64 of "Episode 1|1033563600" and "Untitled|", computed independently in Python.
        XCTAssertEqual(ItemIdentity.fallback(guid: nil, enclosureURL: "", link: nil, title: "Episode 1", published: 1_033_563_600),
                       "sha:b9d901b7e9d1bdf2")
        XCTAssertEqual(ItemIdentity.fallback(guid: nil, enclosureURL: nil, link: nil, title: "Untitled", published: nil),
                       "sha:b6dab9e6c7b0e0cc")
        XCTAssertEqual(ItemIdentity.fnv1a64(""), "cbf29ce484222325")
    }

    func testRumbleIDs() {
        let cases: [(String, String?)] = [
            ("https://rumble.com/v6abc12-some-slug.html", "v6abc12"),
            ("https://rumble.com/v6abc12-some-slug.html?e9s=src_v1_ucp", "v6abc12"),
            ("/v6abc12-some-slug.html", "v6abc12"),
            ("https://rumble.com/v6abc12.html", "v6abc12"),
            ("https://rumble.com/v6abc12-slug.html#comments", "v6abc12"),
            ("https://rumble.com/embed/v5xyz9/?pub=4", "v5xyz9"),
            ("https://rumble.com/c/CafeTalks/videos", nil),      // "videos" is not a video id
            ("https://rumble.com/videos", nil),
            ("https://rumble.com/c/CafeTalks", nil),
            ("https://rumble.com/", nil),
            ("https://rumble.com/v-slug.html", nil),
            ("https://rumble.com/v6ab$12-slug.html", nil),
            ("", nil),
        ]
        for (url, id) in cases { XCTAssertEqual(ItemIdentity.rumbleID(fromURL: url), id, url) }
    }
}
