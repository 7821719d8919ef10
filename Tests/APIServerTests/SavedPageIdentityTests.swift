@testable import APIServer
import XCTest

/// How a URL is named when it is saved, and whether quick-save takes it for a video (saved) or
/// something else (followed as a channel or feed).
final class SavedPageIdentityTests: XCTestCase {
    func testVideoPagesAreNamedByTheirIDsAndEverythingElseIsNot() {
        let videos = [
            ("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42", "youtube", "dQw4w9WgXcQ"),
            ("https://youtu.be/dQw4w9WgXcQ", "youtube", "dQw4w9WgXcQ"),
            ("https://www.youtube.com/shorts/abcDEF12345", "youtube", "abcDEF12345"),
            ("https://rumble.com/v4abcde-a-title.html", "rumble", "v4abcde"),
        ]
        for (url, platform, id) in videos {
            let identity = SavedPageIdentity(url: url)
            XCTAssertEqual(identity.platform, platform, url)
            XCTAssertEqual(identity.videoID, id, url)
            XCTAssertTrue(identity.namesAVideo(url), url)
        }
        for url in ["https://www.youtube.com/@SomeChannel", "https://www.youtube.com/channel/UC1234567890123456789012",
                    "https://rumble.com/c/SomeChannel", "https://rumble.com/user/someone", "https://feeds.example.com/show.xml",
                    "https://example.com/article"] {
            XCTAssertFalse(SavedPageIdentity(url: url).namesAVideo(url), url)
        }
    }
}
