import FeedModel
@testable import LibraryPostgres
import LibraryStore
import TestSupport
import XCTest

/// What only a server with several writers needs of watch state and saving (the rules, errors
/// and order are PostgresListeningParityTests'): writers of one item's state take turns as
/// SQLite's one writer would have them, and what two writers save at once is saved once.
final class PostgresListeningConcurrencyTests: XCTestCase {
    private var fixture: PostgresLibraryFixture!

    override func setUp() async throws {
        fixture = try await PostgresLibraryFixture(connections: 8)
    }

    override func tearDown() {
        fixture?.drop()
    }

    private static let writers = 6

    /// The player's checkpoints (and the API's progress routes) of one play, several at once
    /// past the end: the play is in the history once, as it is when they come one by one. The
    /// first play has no stored state yet (no row to lock), the others have one.
    func testCheckpointsOfOnePlayAtOnceRecordItOnce() async throws {
        let (library, item) = (fixture.owner, fixture.a)
        for round in 1...8 {
            let now = Int64(round * 100)
            if round > 1 { try await library.updateWatchState(item, .mark(watched: false, progress: 100), now: now) }
            let states = try await withThrowingTaskGroup(of: WatchState.self) { group in
                for writer in 1...Self.writers {
                    group.addTask { try await library.updateWatchState(item, .position(seconds: 600, length: 600), now: now + Int64(writer)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(states, Array(repeating: .watched, count: Self.writers))
            await assertEqual(try await fixture.numbers("SELECT count(*) FROM play_history WHERE item = $1", [item]), [Int64(round)],
                              "round \(round)")
        }
    }

    /// The same item or page saved by several requests at once: one saved video, one of them
    /// created it, all answer it.
    func testSavingOneVideoAtOnceSavesItOnce() async throws {
        let (library, b) = (fixture.owner, fixture.b)
        let items = try await withThrowingTaskGroup(of: (video: SavedVideo, created: Bool).self) { group in
            for writer in 1...Self.writers {
                group.addTask { try await library.saveVideo(item: b, notes: "n\(writer)", now: Int64(writer)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(items.filter(\.created).count, 1)
        XCTAssertEqual(Set(items.map(\.video.id)).count, 1)
        XCTAssertEqual(Set(items.map(\.video.notes)).count, 1, "every one answers the first save")

        let page = SavedPage(platform: "youtube", videoID: "abc", videoURL: "https://www.youtube.com/watch?v=abc", title: "A")
        let pages = try await withThrowingTaskGroup(of: (video: SavedVideo, created: Bool).self) { group in
            for writer in 1...Self.writers {
                group.addTask { try await library.saveVideo(page: page, notes: nil, now: Int64(writer)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(pages.filter(\.created).count, 1)
        XCTAssertEqual(Set(pages.map(\.video.id)).count, 1)

        let (a, c) = (fixture.a, fixture.c)
        let saves = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for writer in 1...Self.writers {
                let ids = writer.isMultiple(of: 2) ? [a, c] : [c, a]
                group.addTask { try await library.save(ids, now: 10) }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        XCTAssertEqual(saves.sorted(), [a, c], "each item newly saved by one request")
        await assertEqual(try await fixture.numbers("SELECT count(*) FROM saved_items"), [4])
    }

    /// Marks of the same items in opposite orders at once all succeed (a deadlock between two is
    /// run again) and leave every item as the last one to commit said.
    func testMarksOfTheSameItemsInOppositeOrdersAllSucceed() async throws {
        let library = fixture.owner
        let ids = [fixture.a, fixture.b, fixture.c]
        for round in 1...5 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 1...Self.writers {
                    let order = writer.isMultiple(of: 2) ? ids : ids.reversed()
                    group.addTask { try await library.setWatched(order, watched: round.isMultiple(of: 2), now: Int64(round)) }
                }
                try await group.waitForAll()
            }
            await assertEqual(try await fixture.numbers("SELECT watched FROM watch_state WHERE user_id = 1 ORDER BY item"),
                              Array(repeating: round.isMultiple(of: 2) ? 1 : 0, count: 3), "round \(round)")
        }
    }
}
