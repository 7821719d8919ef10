import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// The up-next queue and the player's state live in the library (issue 13: they survive restarts).
final class StoreUpNextTests: XCTestCase {
    private struct Show {
        let library: any UserLibrary
        let channel: Int64
        let a: Int64, b: Int64

        init(_ db: TestDatabase) async throws {
            library = db.owner
            channel = try await library.addTestChannel("show")
            _ = try await library.ingest(Feed(kind: .podcast, title: "show", items: [item("a"), item("b")]), channelID: channel, now: 1)
            a = try await library.id(of: "a")
            b = try await library.id(of: "b")
        }
    }

    private func targets(_ library: any UserLibrary) async throws -> [MediaTarget] {
        try await library.upNext().map(\.target)
    }

    func testAddListMoveRemoveInsertNextPopClear() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            let added = try await library.appendToUpNext([(.item(s.a), "A"), (.url("https://x/e.mp3"), "e.mp3")], now: 1)
            XCTAssertEqual(added.added.map(\.position), [1, 2])
            try await library.appendToUpNext([(.file("/tmp/f.ogg"), "f.ogg")], now: 2)
            await assertEqual(try await targets(library), [.item(s.a), .url("https://x/e.mp3"), .file("/tmp/f.ogg")])
            try await library.moveInUpNext(from: 3, to: 1)
            await assertEqual(try await targets(library), [.file("/tmp/f.ogg"), .item(s.a), .url("https://x/e.mp3")])
            let next = try await library.insertNextInUpNext([(.item(s.b), "B")], now: 3)
            XCTAssertEqual(next.added.map(\.position), [1])
            await assertEqual(try await library.upNext().map(\.position), [1, 2, 3, 4])
            await assertEqual(try await library.removeFromUpNext(at: 3).target, .item(s.a))
            await assertEqual(try await targets(library), [.item(s.b), .file("/tmp/f.ogg"), .url("https://x/e.mp3")])
            await assertEqual(try await library.popUpNext()?.title, "B")
            await assertThrows(LibraryError.invalid("no queue entry 5 (the queue has 2)")) { try await library.moveInUpNext(from: 1, to: 5) }
            await assertThrows(LibraryError.invalid("no queue entry 0 (the queue has 2)")) { try await library.removeFromUpNext(at: 0) }

            // It survives a restart: another process opening the same library sees it.
            let reopened = try await db.reopen().owner
            await assertEqual(try await targets(reopened), [.file("/tmp/f.ogg"), .url("https://x/e.mp3")])
            await assertEqual(try await reopened.clearUpNext(), 2)
            await assertNil(try await reopened.popUpNext())
            await assertThrows(LibraryError.invalid("the queue is empty")) { try await reopened.removeFromUpNext(at: 1) }
        }
    }

    /// `UpNextChange`'s rule: a target is queued once. `next` moves one already queued to the
    /// front (it played twice before: once from each copy); `add` leaves it where it is; a target
    /// named twice in one request is queued once.
    func testATargetIsQueuedOnceNextMovesItAndAddLeavesIt() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            let e = MediaTarget.url("https://x/e.mp3"), f = MediaTarget.file("/tmp/f.ogg")
            try await library.appendToUpNext([(.item(s.a), "A"), (e, "e"), (f, "f")], now: 1)

            let moved = try await library.insertNextInUpNext([(f, "f")], now: 2)
            XCTAssertTrue(moved.added.isEmpty)
            XCTAssertEqual(moved.alreadyQueued.map(\.target), [f])
            XCTAssertEqual(moved.alreadyQueued.map(\.position), [1])
            await assertEqual(try await targets(library), [f, .item(s.a), e])

            let kept = try await library.appendToUpNext([(e, "e"), (.item(s.b), "B")], now: 3)
            XCTAssertEqual(kept.added.map(\.target), [.item(s.b)])
            XCTAssertEqual(kept.alreadyQueued.map(\.target), [e])
            XCTAssertEqual(kept.alreadyQueued.map(\.position), [3], "left where it was")
            await assertEqual(try await targets(library), [f, .item(s.a), e, .item(s.b)])

            // Several at once, old and new mixed, one named twice: in the order given, each once.
            let mixed = try await library.insertNextInUpNext([(.item(s.b), "B"), (.url("https://x/n.mp3"), "n"), (.item(s.b), "B")], now: 4)
            XCTAssertEqual(mixed.added.map(\.target), [.url("https://x/n.mp3")])
            XCTAssertEqual(mixed.alreadyQueued.map(\.target), [.item(s.b)])
            await assertEqual(try await targets(library), [.item(s.b), .url("https://x/n.mp3"), f, .item(s.a), e])
            await assertEqual(try await library.upNext().map(\.position), [1, 2, 3, 4, 5])
            let twice = try await library.appendToUpNext([(.url("https://x/z.mp3"), "z"), (.url("https://x/z.mp3"), "z")], now: 5)
            XCTAssertEqual(twice.added.count, 1)
            await assertEqual(try await targets(library).count, 6)
        }
    }

    func testItemsAreCheckedAllOrNoneAndLeaveWithTheirChannel() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            await assertThrows(LibraryError.noItem(9999)) {
                try await library.appendToUpNext([(.item(s.a), "A"), (.item(9999), "?")], now: 1)
            }
            await assertTrue(try await library.upNext().isEmpty)
            try await library.appendToUpNext([(.item(s.a), "A"), (.url("https://x/e.mp3"), "e"), (.item(s.b), "B")], now: 1)
            try await library.removeChannel(id: s.channel)
            let left = try await library.upNext()
            XCTAssertEqual(left.map(\.target), [.url("https://x/e.mp3")])
            XCTAssertEqual(left.map(\.position), [1])
        }
    }

    func testVolumeAndLastPlayedSurviveARestart() async throws {
        try await forEachEngine { db in
            let s = try await Show(db)
            let library = s.library
            await assertNil(try await library.savedVolume())
            await assertNil(try await library.lastPlayed())
            try await library.saveVolume(0.35, now: 1)
            try await library.saveLastPlayed(LastPlayed(target: .item(s.a), title: "A", position: 61.5), now: 2)
            await assertThrows(LibraryError.self) { try await library.saveVolume(1.5, now: 3) }
            await assertThrows(LibraryError.noItem(9999)) {
                try await library.saveLastPlayed(LastPlayed(target: .item(9999), title: "?", position: 0), now: 3)
            }

            let reopened = try await db.reopen().owner
            await assertEqual(try await reopened.savedVolume(), 0.35)
            await assertEqual(try await reopened.lastPlayed(), LastPlayed(target: .item(s.a), title: "A", position: 61.5))
            try await reopened.saveLastPlayed(LastPlayed(target: .url("https://x/e.mp3"), title: "e", position: 5), now: 4)
            await assertEqual(try await reopened.lastPlayed()?.target, .url("https://x/e.mp3"))
            await assertEqual(try await reopened.savedVolume(), 0.35, "saving what played keeps the volume")
            try await reopened.saveLastPlayed(LastPlayed(target: .item(s.b), title: "B", position: 7), now: 5)
            try await reopened.removeChannel(id: s.channel)
            await assertNil(try await reopened.lastPlayed(), "a removed item is not continued")
            try await reopened.saveLastPlayed(nil, now: 6)
            await assertNil(try await reopened.lastPlayed())
        }
    }
}
