import XCTest
final class feedctlPlaceholderTests: XCTestCase { func testBuilds() {} }
