import XCTest
final class PlayerCorePlaceholderTests: XCTestCase { func testBuilds() {} }
