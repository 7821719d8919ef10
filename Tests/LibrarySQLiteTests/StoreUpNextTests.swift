import FeedModel
import Foundation
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The up-next queue and the player's state live in the library (issue 13: they survive restarts).
@Suite struct StoreUpNextTests {
    let t: TestLibrary
    let channel: Int64
    let a: Int64, b: Int64

    init() async throws {
        t = try TestLibrary()
        channel = try await t.library.addTestChannel("show")
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "show", items: [item("a"), item("b")]), channelID: channel, now: 1)
        a = try await t.library.id(of: "a")
        b = try await t.library.id(of: "b")
    }

    func targets(_ library: SQLiteLibrary? = nil) async throws -> [MediaTarget] {
        try await (library ?? t.library).upNext().map(\.target)
    }

    @Test func addListMoveRemoveInsertNextPopClear() async throws {
        let added = try await t.library.appendToUpNext([(.item(a), "A"), (.url("https://x/e.mp3"), "e.mp3")], now: 1)
        #expect(added.added.map(\.position) == [1, 2])
        try await t.library.appendToUpNext([(.file("/tmp/f.ogg"), "f.ogg")], now: 2)
        #expect(try await targets() == [.item(a), .url("https://x/e.mp3"), .file("/tmp/f.ogg")])
        try await t.library.moveInUpNext(from: 3, to: 1)
        #expect(try await targets() == [.file("/tmp/f.ogg"), .item(a), .url("https://x/e.mp3")])
        let next = try await t.library.insertNextInUpNext([(.item(b), "B")], now: 3)
        #expect(next.added.map(\.position) == [1])
        #expect(try await t.library.upNext().map(\.position) == [1, 2, 3, 4])
        #expect(try await t.library.removeFromUpNext(at: 3).target == .item(a))
        #expect(try await targets() == [.item(b), .file("/tmp/f.ogg"), .url("https://x/e.mp3")])
        #expect(try await t.library.popUpNext()?.title == "B")
        await #expect(throws: LibraryError.invalid("no queue entry 5 (the queue has 2)")) { try await t.library.moveInUpNext(from: 1, to: 5) }
        await #expect(throws: LibraryError.invalid("no queue entry 0 (the queue has 2)")) { try await t.library.removeFromUpNext(at: 0) }

        // It survives a restart: another process opening the same file sees it.
        let reopened = try SQLiteLibrary(path: t.library.path)
        #expect(try await targets(reopened) == [.file("/tmp/f.ogg"), .url("https://x/e.mp3")])
        #expect(try await reopened.clearUpNext() == 2)
        #expect(try await reopened.popUpNext() == nil)
        await #expect(throws: LibraryError.invalid("the queue is empty")) { try await reopened.removeFromUpNext(at: 1) }
    }

    /// `UpNextChange`'s rule: a target is queued once. `next` moves one already queued to the
    /// front (it played twice before: once from each copy); `add` leaves it where it is; a target
    /// named twice in one request is queued once.
    @Test func aTargetIsQueuedOnceNextMovesItAndAddLeavesIt() async throws {
        let e = MediaTarget.url("https://x/e.mp3"), f = MediaTarget.file("/tmp/f.ogg")
        try await t.library.appendToUpNext([(.item(a), "A"), (e, "e"), (f, "f")], now: 1)

        let moved = try await t.library.insertNextInUpNext([(f, "f")], now: 2)
        #expect(moved.added.isEmpty)
        #expect(moved.alreadyQueued.map(\.target) == [f])
        #expect(moved.alreadyQueued.map(\.position) == [1])
        #expect(try await targets() == [f, .item(a), e])

        let kept = try await t.library.appendToUpNext([(e, "e"), (.item(b), "B")], now: 3)
        #expect(kept.added.map(\.target) == [.item(b)])
        #expect(kept.alreadyQueued.map(\.target) == [e])
        #expect(kept.alreadyQueued.map(\.position) == [3], "left where it was")
        #expect(try await targets() == [f, .item(a), e, .item(b)])

        // Several at once, old and new mixed, one named twice: in the order given, each once.
        let mixed = try await t.library.insertNextInUpNext([(.item(b), "B"), (.url("https://x/n.mp3"), "n"), (.item(b), "B")], now: 4)
        #expect(mixed.added.map(\.target) == [.url("https://x/n.mp3")])
        #expect(mixed.alreadyQueued.map(\.target) == [.item(b)])
        #expect(try await targets() == [.item(b), .url("https://x/n.mp3"), f, .item(a), e])
        #expect(try await t.library.upNext().map(\.position) == [1, 2, 3, 4, 5])
        let twice = try await t.library.appendToUpNext([(.url("https://x/z.mp3"), "z"), (.url("https://x/z.mp3"), "z")], now: 5)
        #expect(twice.added.count == 1)
        #expect(try await targets().count == 6)
    }

    @Test func itemsAreCheckedAllOrNoneAndLeaveWithTheirChannel() async throws {
        await #expect(throws: LibraryError.noItem(9999)) {
            try await t.library.appendToUpNext([(.item(a), "A"), (.item(9999), "?")], now: 1)
        }
        #expect(try await t.library.upNext().isEmpty)
        try await t.library.appendToUpNext([(.item(a), "A"), (.url("https://x/e.mp3"), "e"), (.item(b), "B")], now: 1)
        try await t.library.removeChannel(id: channel)
        let left = try await t.library.upNext()
        #expect(left.map(\.target) == [.url("https://x/e.mp3")])
        #expect(left.map(\.position) == [1])
    }

    @Test func volumeAndLastPlayedSurviveARestart() async throws {
        #expect(try await t.library.savedVolume() == nil)
        #expect(try await t.library.lastPlayed() == nil)
        try await t.library.saveVolume(0.35, now: 1)
        try await t.library.saveLastPlayed(LastPlayed(target: .item(a), title: "A", position: 61.5), now: 2)
        await #expect(throws: LibraryError.self) { try await t.library.saveVolume(1.5, now: 3) }
        await #expect(throws: LibraryError.noItem(9999)) {
            try await t.library.saveLastPlayed(LastPlayed(target: .item(9999), title: "?", position: 0), now: 3)
        }

        let reopened = try SQLiteLibrary(path: t.library.path)
        #expect(try await reopened.savedVolume() == 0.35)
        #expect(try await reopened.lastPlayed() == LastPlayed(target: .item(a), title: "A", position: 61.5))
        try await reopened.saveLastPlayed(LastPlayed(target: .url("https://x/e.mp3"), title: "e", position: 5), now: 4)
        #expect(try await reopened.lastPlayed()?.target == .url("https://x/e.mp3"))
        #expect(try await reopened.savedVolume() == 0.35, "saving what played keeps the volume")
        try await reopened.saveLastPlayed(LastPlayed(target: .item(b), title: "B", position: 7), now: 5)
        try await reopened.removeChannel(id: channel)
        #expect(try await reopened.lastPlayed() == nil, "a removed item is not continued")
        try await reopened.saveLastPlayed(nil, now: 6)
        #expect(try await reopened.lastPlayed() == nil)
    }

    @Test func theVolumeCheckIsTheRule() async throws {
        let sql = try await t.library.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'player_state'")
        }
        #expect(sql?.contains("CHECK (\(Schema.volumeCheck))") == true)
        #expect(Schema.volumeCheck == "volume >= \(PlayerVolume.range.lowerBound) AND volume <= \(PlayerVolume.range.upperBound)")
    }
}
