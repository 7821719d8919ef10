@testable import LibraryPostgres
import LibraryStore
import TestSupport
import XCTest

/// PostgreSQL's up-next queue and player state on a real server: the SQLite library's rules
/// (the conformance suite's StoreUpNextTests, here with SQL-made channels), and what only a
/// server with several writers needs: writers of one user's queue take turns, so stored
/// positions stay 1…count and nothing is popped twice.
final class PostgresUpNextTests: XCTestCase {
    private var fixture: PostgresLibraryFixture!

    override func setUp() async throws {
        fixture = try await PostgresLibraryFixture(connections: 8)
    }

    override func tearDown() {
        fixture?.drop()
    }

    private func targets(_ library: PostgresLibrary) async throws -> [MediaTarget] {
        try await library.upNext().map(\.target)
    }

    /// The stored positions of `user`'s queue, in order.
    private func storedPositions(_ user: UserID = .owner) async throws -> [Int64] {
        try await fixture.numbers("SELECT position FROM up_next WHERE user_id = $1 ORDER BY position, id", [user.rawValue])
    }

    func testAddListMoveRemoveInsertNextPopClear() async throws {
        let (library, a, b) = (fixture.owner, fixture.a, fixture.b)
        let added = try await library.appendToUpNext([(.item(a), "A"), (.url("https://x/e.mp3"), "e.mp3")], now: 1)
        XCTAssertEqual(added.added.map(\.position), [1, 2])
        XCTAssertEqual(added.added.map(\.title), ["A", "e.mp3"])
        try await library.appendToUpNext([(.file("/tmp/f.ogg"), "f.ogg")], now: 2)
        await assertEqual(try await targets(library), [.item(a), .url("https://x/e.mp3"), .file("/tmp/f.ogg")])
        try await library.moveInUpNext(from: 3, to: 1)
        await assertEqual(try await targets(library), [.file("/tmp/f.ogg"), .item(a), .url("https://x/e.mp3")])
        let next = try await library.insertNextInUpNext([(.item(b), "B")], now: 3)
        XCTAssertEqual(next.added.map(\.position), [1])
        await assertEqual(try await library.upNext().map(\.position), [1, 2, 3, 4])
        await assertEqual(try await storedPositions(), [1, 2, 3, 4])
        await assertEqual(try await library.removeFromUpNext(at: 3).target, .item(a))
        await assertEqual(try await targets(library), [.item(b), .file("/tmp/f.ogg"), .url("https://x/e.mp3")])
        await assertEqual(try await library.popUpNext()?.title, "B")
        await assertEqual(try await storedPositions(), [1, 2])
        await assertThrows(LibraryError.invalid("no queue entry 5 (the queue has 2)")) { try await library.moveInUpNext(from: 1, to: 5) }
        await assertThrows(LibraryError.invalid("no queue entry 0 (the queue has 2)")) { try await library.removeFromUpNext(at: 0) }
        await assertThrows(LibraryError.invalid("a queue entry needs a URL or a file path")) {
            try await library.appendToUpNext([(.url(""), "nothing")], now: 4)
        }

        // It survives a restart: another process opening the same library sees it.
        let reopened = try await PostgresLibrary(url: fixture.database.url, location: "test")
        await assertEqual(try await targets(reopened), [.file("/tmp/f.ogg"), .url("https://x/e.mp3")])
        await assertEqual(try await reopened.clearUpNext(), 2)
        await assertNil(try await reopened.popUpNext())
        await assertThrows(LibraryError.invalid("the queue is empty")) { try await reopened.removeFromUpNext(at: 1) }
        await assertThrows(LibraryError.invalid("the queue is empty")) { try await reopened.moveInUpNext(from: 1, to: 1) }
    }

    /// `UpNextChange`'s rule: a target is queued once. `next` moves one already queued to the
    /// front; `add` leaves it where it is; a target named twice in one request is queued once.
    func testATargetIsQueuedOnceNextMovesItAndAddLeavesIt() async throws {
        let (library, a, b) = (fixture.owner, fixture.a, fixture.b)
        let e = MediaTarget.url("https://x/e.mp3"), f = MediaTarget.file("/tmp/f.ogg")
        try await library.appendToUpNext([(.item(a), "A"), (e, "e"), (f, "f")], now: 1)

        let moved = try await library.insertNextInUpNext([(f, "f")], now: 2)
        XCTAssertTrue(moved.added.isEmpty)
        XCTAssertEqual(moved.alreadyQueued.map(\.target), [f])
        XCTAssertEqual(moved.alreadyQueued.map(\.position), [1])
        await assertEqual(try await targets(library), [f, .item(a), e])

        let kept = try await library.appendToUpNext([(e, "e"), (.item(b), "B")], now: 3)
        XCTAssertEqual(kept.added.map(\.target), [.item(b)])
        XCTAssertEqual(kept.added.map(\.position), [4])
        XCTAssertEqual(kept.alreadyQueued.map(\.target), [e])
        XCTAssertEqual(kept.alreadyQueued.map(\.position), [3], "left where it was")
        await assertEqual(try await targets(library), [f, .item(a), e, .item(b)])

        let mixed = try await library.insertNextInUpNext([(.item(b), "B"), (.url("https://x/n.mp3"), "n"), (.item(b), "B")], now: 4)
        XCTAssertEqual(mixed.added.map(\.target), [.url("https://x/n.mp3")])
        XCTAssertEqual(mixed.added.map(\.position), [2])
        XCTAssertEqual(mixed.alreadyQueued.map(\.target), [.item(b)])
        await assertEqual(try await targets(library), [.item(b), .url("https://x/n.mp3"), f, .item(a), e])
        await assertEqual(try await storedPositions(), [1, 2, 3, 4, 5])
        let twice = try await library.appendToUpNext([(.url("https://x/z.mp3"), "z"), (.url("https://x/z.mp3"), "z")], now: 5)
        XCTAssertEqual(twice.added.count, 1)
        await assertEqual(try await targets(library).count, 6)
    }

    func testItemsAreCheckedAllOrNoneAndLeaveWithTheirChannel() async throws {
        let (library, a, b) = (fixture.owner, fixture.a, fixture.b)
        await assertThrows(LibraryError.noItem(9999)) { try await library.appendToUpNext([(.item(a), "A"), (.item(9999), "?")], now: 1) }
        await assertThrows(LibraryError.noItem(fixture.m), "bob's channel is not the owner's") {
            try await library.insertNextInUpNext([(.item(fixture.m), "M")], now: 1)
        }
        await assertTrue(try await library.upNext().isEmpty)
        try await library.appendToUpNext([(.item(a), "A"), (.url("https://x/e.mp3"), "e"), (.item(b), "B")], now: 1)
        try await fixture.removeChannel(fixture.show)
        let left = try await library.upNext()
        XCTAssertEqual(left.map(\.target), [.url("https://x/e.mp3")])
        XCTAssertEqual(left.map(\.position), [1], "numbered 1…count even with gaps stored")
    }

    func testEachUsersQueueAndPlayerStateAreTheirOwn() async throws {
        let (owner, bob) = (fixture.owner, fixture.bob)
        try await bob.appendToUpNext([(.item(fixture.m), "m"), (.url("https://x/e.mp3"), "e")], now: 6)
        try await owner.appendToUpNext([(.item(fixture.a), "a")], now: 6)
        await assertEqual(try await owner.upNext().map(\.target), [.item(fixture.a)])
        await assertEqual(try await bob.upNext().map { "\($0.position):\($0.target)" }, ["1:item(\(fixture.m))", "2:url(\"https://x/e.mp3\")"])
        await assertEqual(try await owner.clearUpNext(), 1)
        await assertEqual(try await bob.popUpNext()?.target, .item(fixture.m))
        await assertThrows(LibraryError.invalid("the queue is empty")) { try await owner.removeFromUpNext(at: 1) }
        await assertEqual(try await bob.upNext().count, 1)

        try await bob.saveVolume(0.3, now: 7)
        try await bob.saveLastPlayed(LastPlayed(target: .item(fixture.m), title: "m", position: 4), now: 7)
        await assertThrows(LibraryError.noItem(fixture.a)) {
            try await bob.saveLastPlayed(LastPlayed(target: .item(fixture.a), title: "a", position: 4), now: 7)
        }
        await assertNil(try await owner.savedVolume())
        await assertNil(try await owner.lastPlayed())
        await assertEqual(try await bob.savedVolume(), 0.3)
        await assertEqual(try await bob.lastPlayed()?.target, .item(fixture.m))
    }

    func testVolumeAndLastPlayedSurviveARestart() async throws {
        let (library, a, b) = (fixture.owner, fixture.a, fixture.b)
        await assertNil(try await library.savedVolume())
        await assertNil(try await library.lastPlayed())
        try await library.saveVolume(0.35, now: 1)
        try await library.saveLastPlayed(LastPlayed(target: .item(a), title: "A", position: 61.5), now: 2)
        await assertThrows(LibraryError.invalid("volume 1.5 is outside 0.0…1.0")) { try await library.saveVolume(1.5, now: 3) }
        await assertThrows(LibraryError.self) { try await library.saveVolume(.nan, now: 3) }
        await assertThrows(LibraryError.noItem(9999)) {
            try await library.saveLastPlayed(LastPlayed(target: .item(9999), title: "?", position: 0), now: 3)
        }

        let reopened = try await PostgresLibrary(url: fixture.database.url, location: "test")
        await assertEqual(try await reopened.savedVolume(), 0.35)
        await assertEqual(try await reopened.lastPlayed(), LastPlayed(target: .item(a), title: "A", position: 61.5))
        try await reopened.saveLastPlayed(LastPlayed(target: .url("https://x/e.mp3"), title: "e", position: -5), now: 4)
        await assertEqual(try await reopened.lastPlayed(), LastPlayed(target: .url("https://x/e.mp3"), title: "e", position: 0))
        try await reopened.saveLastPlayed(LastPlayed(target: .file("/tmp/f.ogg"), title: "f", position: .infinity), now: 4)
        await assertEqual(try await reopened.lastPlayed(), LastPlayed(target: .file("/tmp/f.ogg"), title: "f", position: 0))
        await assertEqual(try await reopened.savedVolume(), 0.35, "saving what played keeps the volume")
        try await reopened.saveVolume(0, now: 5)
        await assertEqual(try await reopened.savedVolume(), 0)
        await assertEqual(try await reopened.lastPlayed()?.target, .file("/tmp/f.ogg"), "saving the volume keeps what played")
        try await reopened.saveLastPlayed(LastPlayed(target: .item(b), title: "B", position: 7), now: 5)
        try await fixture.removeChannel(fixture.show)
        await assertNil(try await reopened.lastPlayed(), "a removed item is not continued")
        try await reopened.saveLastPlayed(nil, now: 6)
        await assertNil(try await reopened.lastPlayed())
    }

    /// Pops made at once each take a different entry (the queue is locked while one is read and
    /// removed): every entry is popped exactly once.
    func testConcurrentPopsTakeEachEntryOnce() async throws {
        let library = fixture.owner
        let urls = (1...16).map { MediaTarget.url("https://x/\($0).mp3") }
        try await library.appendToUpNext(urls.map { ($0, $0.text) }, now: 1)
        let popped = try await withThrowingTaskGroup(of: UpNextEntry?.self) { group in
            for _ in 0..<20 { group.addTask { try await library.popUpNext() } }
            return try await group.reduce(into: [UpNextEntry]()) { if let entry = $1 { $0.append(entry) } }
        }
        XCTAssertEqual(popped.count, 16)
        XCTAssertEqual(Set(popped.map(\.target)), Set(urls))
        await assertTrue(try await library.upNext().isEmpty)
    }

    /// Appends, next-inserts, moves and removals at once: every write lands, every target once,
    /// and the stored positions are 1…count after them.
    func testConcurrentWritesKeepStoredPositionsOneToCount() async throws {
        let (library, bob) = (fixture.owner, fixture.bob)
        try await library.appendToUpNext((1...10).map { (MediaTarget.url("https://x/old\($0).mp3"), "old") }, now: 1)
        try await bob.appendToUpNext([(.url("https://x/bob.mp3"), "bob")], now: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 1...12 {
                group.addTask {
                    let target = MediaTarget.url("https://x/new\(index).mp3")
                    if index.isMultiple(of: 2) { try await library.appendToUpNext([(target, "new")], now: 2) }
                    else { try await library.insertNextInUpNext([(target, "new")], now: 2) }
                }
            }
            for _ in 0..<4 { group.addTask { _ = try await library.removeFromUpNext(at: 2) } }
            for _ in 0..<6 { group.addTask { try await library.moveInUpNext(from: 1, to: 3) } }
            try await group.waitForAll()
        }
        let queue = try await library.upNext()
        XCTAssertEqual(queue.count, 18)
        XCTAssertEqual(Set(queue.map(\.target)).count, 18)
        await assertEqual(try await storedPositions(), Array(1...18))
        await assertEqual(try await bob.upNext().map(\.target), [.url("https://x/bob.mp3")], "another user's queue is untouched")
    }
}
