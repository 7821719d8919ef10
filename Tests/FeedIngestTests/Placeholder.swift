import XCTest
final class FeedIngestPlaceholderTests: XCTestCase { func testBuilds() {} }
