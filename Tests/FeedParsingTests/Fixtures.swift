import FeedModel
@testable import FeedParsing
import Foundation
import TestSupport
import XCTest

/// The package root and its `fixtures/feeds/` folder, found from this file's path.
enum Fixtures {
    static func path(_ name: String) -> String { PackagePaths.fixture("feeds/\(name)").path }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// Parses a fixture both ways (in memory and streamed from the file) and checks they agree.
    static func parse(_ name: String, options: ParseOptions = .init(), file: StaticString = #filePath,
                      line: UInt = #line) throws -> Feed {
        let feed = try FeedParser.parse(try bytes(name), options: options)
        var streamed: [Item] = []
        var fromFile = try FeedParser.parseFile(atPath: path(name), options: options) { streamed.append($0) }
        XCTAssertEqual(fromFile.items, [], "parseFile(onItem:) must not keep items", file: file, line: line)
        fromFile.items = streamed
        XCTAssertEqual(fromFile, feed, "streamed and in-memory parses differ for \(name)", file: file, line: line)
        return feed
    }
}
