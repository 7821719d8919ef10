@testable import APIServer
import LibraryStore
import XCTest

/// `GET /api/feed`'s `mode` and `sort_by`, every spelling the backend, the iOS guide and feedctl
/// use (docs/server.md, "Modes"), mapped onto feedctl's modes and orders; anything else is unknown (422).
final class FeedSelectionTests: XCTestCase {
    func testEveryModeNameMaps() {
        let names: [(String, FeedSelection.Mode)] = [
            // The backend's
            ("newest", .newest), ("oldest", .ordered(.oldest)), ("most_viewed", .ordered(.mostViewed)),
            ("shortest", .ordered(.shortest)), ("longest", .ordered(.longest)), ("random", .ordered(.random)),
            ("catch_up", .catchUp), ("quick_watch", .quickWatch), ("deep_dive", .deepDive),
            // The guide's
            ("Newest", .newest), ("Catch Up", .catchUp), ("Short Form", .shortForm), ("Discovery", .discovery),
            // feedctl's
            ("catch-up", .catchUp), ("short-form", .shortForm), ("discovery", .discovery), ("short_form", .shortForm),
        ]
        for (name, mode) in names { XCTAssertEqual(FeedSelection.mode(named: name), mode, name) }
        for unknown in ["", "mood_chill", "new est", "catch up later", "trending"] {
            XCTAssertNil(FeedSelection.mode(named: unknown), unknown)
        }
    }

    func testEverySortByMaps() {
        let names: [(String, ItemOrder)] = [("newest", .newest), ("oldest", .oldest), ("views", .mostViewed),
                                            ("duration_asc", .shortest), ("duration_desc", .longest), ("random", .random)]
        for (name, order) in names { XCTAssertEqual(FeedSelection.order(named: name), order, name) }
        XCTAssertNil(FeedSelection.order(named: "Newest"))
        XCTAssertNil(FeedSelection.order(named: "title"))
    }
}
