@testable import LibraryPostgres
import LibraryStore
import TestSupport
import XCTest

/// PostgreSQL's collections (by name and by id) on a real server: the SQLite library's rules,
/// errors, order and change log (the conformance suite states them for every engine once its
/// setup calls run on PostgreSQL), and what only a server with several writers needs: writers
/// of one collection take turns, so positions stay 1…count and a name is taken once.
final class PostgresCollectionsTests: XCTestCase {
    private var fixture: PostgresLibraryFixture!

    override func setUp() async throws {
        fixture = try await PostgresLibraryFixture(connections: 8)
    }

    override func tearDown() {
        fixture?.drop()
    }

    func testByNameAddMoveRemoveAllOrNoneAndDelete() async throws {
        let (library, one, two, three) = (fixture.owner, fixture.a, fixture.b, fixture.c)
        try await library.createCollection("Later", now: 1)
        try await library.createCollection("Best", now: 2)
        await assertThrows(LibraryError.collectionExists("Later")) { try await library.createCollection("  Later\n", now: 3) }
        await assertThrows(LibraryError.invalid("a collection needs a name")) { try await library.createCollection(" ", now: 3) }
        try await library.addToCollection(item: three, collection: "Later", now: 4)
        try await library.addToCollection(item: one, collection: "Later", now: 5)
        try await library.addToCollection(item: two, collection: "Later", now: 6)
        await assertEqual(try await library.collection("Later").map(\.id), [three, one, two])
        let first = try await library.collection("Later")[0]
        XCTAssertEqual(first.title, "Title c")
        XCTAssertEqual(first.channel, "show")
        XCTAssertEqual(first.url, "https://example.com/c")
        XCTAssertFalse(first.watched)
        await assertThrows(LibraryError.alreadyInCollection(item: one, collection: "Later")) {
            try await library.addToCollection(item: one, collection: "Later", now: 7)
        }

        let id = Dictionary(try await library.collectionDetails().map { ($0.name, $0.id) }, uniquingKeysWith: { a, _ in a })
        let (later, best) = (try await unwrap(id["Later"]), try await unwrap(id["Best"]))
        try await library.transfer(item: one, .move, from: later, to: best, now: 8)
        await assertEqual(try await library.collection("Later").map(\.id), [three, two])
        await assertEqual(try await library.collection("Best").map(\.id), [one])
        await assertThrows(LibraryError.notInCollection(item: one, collection: "Later")) {
            try await library.transfer(item: one, .move, from: later, to: best, now: 9)
        }
        await assertThrows(LibraryError.noCollectionID(999)) { try await library.transfer(item: one, .move, from: 999, to: best, now: 9) }
        await assertThrows(LibraryError.noCollectionID(999)) { try await library.transfer(item: three, .move, from: later, to: 999, now: 9) }
        try await library.addToCollection(item: three, collection: "Best", now: 9)
        await assertThrows(LibraryError.alreadyInCollection(item: three, collection: "Best")) {
            try await library.transfer(item: three, .move, from: later, to: best, now: 9)
        }
        await assertEqual(try await library.collection("Later").map(\.id), [three, two], "the failed move changed nothing")

        try await library.removeFromCollection(item: three, collection: "Later")
        try await library.addToCollection(item: three, collection: "Later", now: 10)
        await assertEqual(try await library.collection("Later").map(\.id), [two, three])
        await assertEqual(try await library.collections().map { "\($0.name):\($0.items)" }, ["Best:2", "Later:2"])

        // Several at once: all or none.
        try await library.createCollection("Many", now: 11)
        await assertThrows(LibraryError.noItem(9999)) { try await library.addToCollection(items: [one, 9999], collection: "Many", now: 12) }
        await assertThrows(LibraryError.noItems([9998, 9999])) {
            try await library.addToCollection(items: [9998, one, 9999], collection: "Many", now: 12)
        }
        await assertTrue(try await library.collection("Many").isEmpty)
        try await library.addToCollection(items: [two, one, two], collection: "Many", now: 13)
        await assertThrows(LibraryError.alreadyInCollection(item: one, collection: "Many")) {
            try await library.addToCollection(items: [three, one], collection: "Many", now: 14)
        }
        await assertEqual(try await library.collection("Many").map(\.id), [two, one])
        await assertThrows(LibraryError.notInCollection(item: three, collection: "Many")) {
            try await library.removeFromCollection(items: [one, three], collection: "Many")
        }
        await assertEqual(try await library.collection("Many").map(\.id), [two, one], "the first removal was rolled back")
        try await library.removeFromCollection(items: [one, two], collection: "Many")
        await assertTrue(try await library.collection("Many").isEmpty)

        try await library.deleteCollection("Best")
        await assertThrows(LibraryError.noCollection("Best")) { try await library.collection("Best") }
        await assertThrows(LibraryError.noCollection("Best")) { try await library.deleteCollection("Best") }
        await assertEqual(try await fixture.numbers("SELECT count(*) FROM items"), [4], "a deleted collection's items stay")
    }

    /// Names are listed as SQLite's `COLLATE NOCASE` lists them (ASCII folded, then bytes), and
    /// by sort order first for the API; ties by id.
    func testOrderOfCollections() async throws {
        let library = fixture.owner
        for name in ["b", "A", "a", "Été", "C", "_x"] { try await library.createCollection(name, now: 1) }
        await assertEqual(try await library.collections().map(\.name), ["_x", "A", "a", "b", "C", "Été"])
        let c = try await library.collectionDetails().first { $0.name == "C" }!
        _ = try await library.updateCollection(id: c.id, CollectionChange(sortOrder: 0), now: 2)
        for name in ["_x", "A", "a", "b", "Été"] {
            let id = try await library.collectionDetails().first { $0.name == name }!.id
            _ = try await library.updateCollection(id: id, CollectionChange(sortOrder: 1), now: 2)
        }
        await assertEqual(try await library.collectionDetails().map(\.name), ["C", "_x", "A", "a", "b", "Été"])
    }

    func testByIDDetailsEntriesCoverRenumberingAndReorder() async throws {
        let (library, a, b, c) = (fixture.owner, fixture.a, fixture.b, fixture.c)
        let mix = try await library.createCollection(" Mix ", description: "songs", now: 10)
        XCTAssertEqual(mix, CollectionDetails(id: mix.id, name: "Mix", description: "songs", coverURL: nil, sortOrder: 0, itemCount: 0,
                                              createdAt: 10, updatedAt: 10))
        await assertThrows(LibraryError.collectionExists("Mix")) { try await library.createCollection("Mix", description: nil, now: 11) }

        let first = try await library.addToCollection(id: mix.id, item: a, now: 12)
        XCTAssertEqual(first.item.id, a)
        XCTAssertEqual(first.position, 1)
        XCTAssertEqual(first.addedAt, 12)
        XCTAssertNil(first.watchedAt)
        await assertNil(try await library.collectionDetails(id: mix.id).coverURL, "a has no picture")
        _ = try await library.addToCollection(id: mix.id, item: b, now: 13)
        await assertEqual(try await library.collectionDetails(id: mix.id).coverURL, "https://example.com/b.jpg", "the first picture")
        _ = try await library.addToCollection(id: mix.id, item: c, now: 14)
        await assertThrows(LibraryError.alreadyInCollection(item: c, collection: "Mix")) {
            try await library.addToCollection(id: mix.id, item: c, now: 15)
        }
        await assertThrows(LibraryError.noItem(fixture.m)) { try await library.addToCollection(id: mix.id, item: fixture.m, now: 15) }
        await assertEqual(try await library.collectionEntries(id: mix.id).map { "\($0.position):\($0.item.id)" }, ["1:\(a)", "2:\(b)", "3:\(c)"])
        let details = try await library.collectionDetails(id: mix.id)
        XCTAssertEqual(details.itemCount, 3)
        XCTAssertEqual(details.updatedAt, 13, "the cover's update")

        // Watched: the entry says when.
        try await library.write { db throws(LibraryError) in
            _ = try db.query("INSERT INTO watch_state (user_id, item, watched, watched_at, updated_at) VALUES (1, $1, 1, 77, 77)", [b])
        }
        await assertEqual(try await library.collectionEntries(id: mix.id).map(\.watchedAt), [nil, 77, nil])
        await assertEqual(try await library.collectionEntries(id: mix.id).map(\.item.watched), [false, true, false])

        // Removing closes the gap; reordering puts the named first, the rest as they were.
        try await library.removeFromCollection(id: mix.id, item: a, now: 16)
        await assertEqual(try await library.collectionEntries(id: mix.id).map { "\($0.position):\($0.item.id)" }, ["1:\(b)", "2:\(c)"])
        await assertThrows(LibraryError.notInCollection(item: a, collection: "Mix")) { try await library.removeFromCollection(id: mix.id, item: a, now: 17) }
        _ = try await library.addToCollection(id: mix.id, item: a, now: 18)
        try await library.reorderCollection(id: mix.id, items: [a, c, a], now: 19)
        await assertEqual(try await library.collectionEntries(id: mix.id).map { "\($0.position):\($0.item.id)" }, ["1:\(a)", "2:\(c)", "3:\(b)"])
        await assertThrows(LibraryError.notInCollection(item: 9999, collection: "Mix")) {
            try await library.reorderCollection(id: mix.id, items: [b, 9999], now: 20)
        }
        await assertEqual(try await fixture.numbers("SELECT position FROM collection_items WHERE collection = $1 ORDER BY position", [mix.id]),
                          [1, 2, 3], "stored positions are 1…count")
        await assertEqual(try await library.collectionDetails(id: mix.id).updatedAt, 19)

        // Rename, describe, re-sort: each field given is set, the others stay.
        let other = try await library.createCollection("Other", description: nil, now: 21)
        await assertThrows(LibraryError.collectionExists("Other")) {
            try await library.updateCollection(id: mix.id, CollectionChange(name: "Other"), now: 22)
        }
        await assertThrows(LibraryError.invalid("a collection needs a name")) {
            try await library.updateCollection(id: mix.id, CollectionChange(name: " "), now: 22)
        }
        await assertThrows(LibraryError.invalid("sort_order must not be negative")) {
            try await library.updateCollection(id: mix.id, CollectionChange(sortOrder: -1), now: 22)
        }
        let renamed = try await library.updateCollection(id: mix.id, CollectionChange(name: "Mixed", sortOrder: 3), now: 23)
        XCTAssertEqual(renamed.name, "Mixed")
        XCTAssertEqual(renamed.description, "songs")
        XCTAssertEqual(renamed.sortOrder, 3)
        XCTAssertEqual(renamed.updatedAt, 23)
        let cleared = try await library.updateCollection(id: mix.id, CollectionChange(name: "Mixed", description: .some(nil)), now: 24)
        XCTAssertNil(cleared.description)
        await assertEqual(try await library.collectionDetails().map(\.name), ["Other", "Mixed"])
        await assertEqual(try await library.collection("Mixed").map(\.id), [a, c, b], "by name and by id are the same rows")

        try await library.deleteCollection(id: other.id)
        await assertThrows(LibraryError.noCollectionID(other.id)) { try await library.collectionDetails(id: other.id) }
        await assertThrows(LibraryError.noCollectionID(other.id)) { try await library.deleteCollection(id: other.id) }
        await assertThrows(LibraryError.noCollectionID(other.id)) { try await library.collectionEntries(id: other.id) }
    }

    /// Another user's collection id is one that never was; names are per user; a user's items
    /// are those of channels they follow.
    func testEachUsersCollectionsAreTheirOwn() async throws {
        let (owner, bob) = (fixture.owner, fixture.bob)
        try await owner.createCollection("Later", now: 1)
        try await bob.createCollection("Later", now: 1)
        await assertThrows(LibraryError.collectionExists("Later")) { try await bob.createCollection("Later", now: 2) }
        let bobs = try await bob.createCollection("Bob's", description: nil, now: 1)
        try await bob.addToCollection(items: [fixture.m], collection: "Later", now: 2)
        await assertTrue(try await owner.collection("Later").isEmpty)
        await assertEqual(try await bob.collection("Later").map(\.id), [fixture.m])
        await assertEqual(try await owner.collections().map(\.name), ["Later"])
        await assertThrows(LibraryError.noCollection("Bob's")) { try await owner.collection("Bob's") }
        await assertThrows(LibraryError.noCollection("Bob's")) { try await owner.deleteCollection("Bob's") }
        await assertThrows(LibraryError.noCollection("Bob's")) { try await owner.addToCollection(item: fixture.a, collection: "Bob's", now: 3) }
        await assertThrows(LibraryError.noItem(fixture.a)) { try await bob.addToCollection(item: fixture.a, collection: "Later", now: 3) }

        await assertThrows(LibraryError.noCollectionID(bobs.id)) { try await owner.collectionDetails(id: bobs.id) }
        await assertThrows(LibraryError.noCollectionID(bobs.id)) { try await owner.collectionEntries(id: bobs.id) }
        await assertThrows(LibraryError.noCollectionID(bobs.id)) { try await owner.updateCollection(id: bobs.id, CollectionChange(name: "Mine"), now: 3) }
        await assertThrows(LibraryError.noCollectionID(bobs.id)) { try await owner.addToCollection(id: bobs.id, item: fixture.a, now: 3) }
        await assertThrows(LibraryError.noCollectionID(bobs.id)) { try await owner.removeFromCollection(id: bobs.id, item: fixture.a, now: 3) }
        await assertThrows(LibraryError.noCollectionID(bobs.id)) { try await owner.reorderCollection(id: bobs.id, items: [], now: 3) }
        await assertThrows(LibraryError.noCollectionID(bobs.id)) { try await owner.deleteCollection(id: bobs.id) }
        await assertEqual(try await bob.collectionDetails().map(\.name), ["Bob's", "Later"])

        try await owner.deleteCollection("Later")
        await assertEqual(try await bob.collection("Later").map(\.id), [fixture.m])
        // An item whose channel went leaves its collections.
        try await fixture.removeChannel(fixture.bobs)
        await assertTrue(try await bob.collection("Later").isEmpty)
        await assertEqual(try await bob.collections().map(\.items), [0, 0])
    }

    /// The change log's rows, as SQLite's triggers write them: created; one `items` per item
    /// added, per removal and per renumbering; one `updated` per field changed; deleted, without
    /// a row per item that went with it.
    func testChangeLog() async throws {
        let (library, a, b, c) = (fixture.owner, fixture.a, fixture.b, fixture.c)
        let start = try await library.latestChange()
        let mix = try await library.createCollection("Mix", description: nil, now: 90)
        _ = try await library.addToCollection(id: mix.id, item: a, now: 91)
        _ = try await library.addToCollection(id: mix.id, item: b, now: 92)         // and its cover
        try await library.reorderCollection(id: mix.id, items: [b, a], now: 93)
        try await library.removeFromCollection(id: mix.id, item: b, now: 94)         // removed, then renumbered
        _ = try await library.updateCollection(id: mix.id, CollectionChange(name: "Mixed", description: "d"), now: 95)
        _ = try await library.updateCollection(id: mix.id, CollectionChange(name: "Mixed"), now: 96)   // nothing changed
        try await library.addToCollection(items: [b, c], collection: "Mixed", now: 97)
        try await library.deleteCollection(id: mix.id)
        let row = { (action: String) in #"1 collection {"collection_id":\#(mix.id),"action":"\#(action)"}"# }
        await assertEqual(try await fixture.changes(after: start),
                          ["created", "items", "items", "updated", "items", "items", "items", "updated", "updated", "items", "items", "deleted"].map(row))
    }

    /// Writers of one collection take turns (its row is locked): appends made at once all land,
    /// at distinct places 1…count, with no failed write.
    func testConcurrentAppendsToOneCollectionAllLand() async throws {
        let library = fixture.owner
        let ids = try await PostgresLibraryFixture.items(library, channel: fixture.show, (1...24).map { "n\($0)" })
        let mix = try await library.createCollection("Mix", description: nil, now: 1)
        try await library.createCollection("Named", now: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, id) in ids.enumerated() {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        _ = try await library.addToCollection(id: mix.id, item: id, now: 2)
                    } else {
                        try await library.addToCollection(item: id, collection: "Named", now: 2)
                    }
                }
            }
            try await group.waitForAll()
        }
        for collection in [mix.id, try await library.collectionDetails().first { $0.name == "Named" }!.id] {
            let positions = try await fixture.numbers("SELECT position FROM collection_items WHERE collection = $1 ORDER BY position", [collection])
            XCTAssertEqual(positions, Array(1...12))
        }
    }

    /// Renumbering under concurrent removals, reorders and appends to one collection: every
    /// write lands and the stored positions are 1…count after it.
    func testConcurrentRenumberingKeepsPositionsOneToCount() async throws {
        let library = fixture.owner
        let ids = try await PostgresLibraryFixture.items(library, channel: fixture.show, (1...30).map { "n\($0)" })
        let mix = try await library.createCollection("Mix", description: nil, now: 1)
        try await library.addToCollection(items: Array(ids[..<20]), collection: "Mix", now: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids[..<10] { group.addTask { try await library.removeFromCollection(id: mix.id, item: id, now: 2) } }
            for id in ids[20...] { group.addTask { _ = try await library.addToCollection(id: mix.id, item: id, now: 2) } }
            for round in 0..<6 {
                group.addTask { try await library.reorderCollection(id: mix.id, items: [ids[19 - round], ids[10 + round]], now: 2) }
            }
            try await group.waitForAll()
        }
        await assertEqual(try await fixture.numbers("SELECT position FROM collection_items WHERE collection = $1 ORDER BY position", [mix.id]),
                          Array(1...20))
        await assertEqual(Set(try await library.collectionEntries(id: mix.id).map(\.item.id)), Set(ids[10...]))
    }

    /// Two moves between the same two collections in opposite directions at once: each locks both
    /// in the same order, so neither waits for the other for ever and both land.
    func testOppositeMovesAtOnceBothLand() async throws {
        let (library, a, b) = (fixture.owner, fixture.a, fixture.b)
        let one = try await library.createCollection("One", description: nil, now: 1).id
        let two = try await library.createCollection("Two", description: nil, now: 1).id
        for round in 0..<10 {
            try await library.addToCollection(item: a, collection: "One", now: 1)
            try await library.addToCollection(item: b, collection: "Two", now: 1)
            async let there = library.transfer(item: a, .move, from: one, to: two, now: 2)
            async let back = library.transfer(item: b, .move, from: two, to: one, now: 2)
            _ = try await (there, back)
            await assertEqual(try await library.collection("One").map(\.id), [b], "round \(round)")
            await assertEqual(try await library.collection("Two").map(\.id), [a], "round \(round)")
            try await library.removeFromCollection(item: b, collection: "One")
            try await library.removeFromCollection(item: a, collection: "Two")
        }
    }

    /// A name is taken once, whoever asks at the same moment: one create wins, the others are
    /// told it exists; one rename to a name wins.
    func testANameIsTakenOnceUnderConcurrentCreatesAndRenames() async throws {
        let library = fixture.owner
        let results = await withTaskGroup(of: Result<Void, LibraryError>.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do throws(LibraryError) { try await library.createCollection("Same", now: 1); return .success(()) }
                    catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(results.filter { if case .success = $0 { true } else { false } }.count, 1)
        XCTAssertEqual(results.compactMap { (result: Result<Void, LibraryError>) -> LibraryError? in if case .failure(let error) = result { error } else { nil } },
                       Array(repeating: LibraryError.collectionExists("Same"), count: 7))

        var ids: [Int64] = []
        for index in 0..<8 { ids.append(try await library.createCollection("C\(index)", description: nil, now: 1).id) }
        let renames = await withTaskGroup(of: Result<Void, LibraryError>.self) { group in
            for id in ids {
                group.addTask {
                    do throws(LibraryError) { _ = try await library.updateCollection(id: id, CollectionChange(name: "Renamed"), now: 2); return .success(()) }
                    catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(renames.filter { if case .success = $0 { true } else { false } }.count, 1)
        XCTAssertEqual(renames.compactMap { (result: Result<Void, LibraryError>) -> LibraryError? in if case .failure(let error) = result { error } else { nil } },
                       Array(repeating: LibraryError.collectionExists("Renamed"), count: 7))
    }
}
