import XCTest
final class NowPlayingPlaceholderTests: XCTestCase { func testBuilds() {} }
