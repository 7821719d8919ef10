import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Copying and moving items between collections (`CollectionTransfer`), one and in bulk, and the
/// targets a collection's items may go to: the same on every engine.
final class StoreCollectionTransferTests: XCTestCase {
    /// The owner follows `show` (s1…s4, published in that order) and `other` (o1, o2, o2 undated);
    /// Bob follows `bobs` (b1) and has his own collection. The owner's "A" holds s1, s2, s3
    /// (added at 11, 12, 13), "B" holds s4.
    private struct Fixture {
        let owner: any UserLibrary, bob: any UserLibrary
        let show: Int64, other: Int64, bobs: Int64
        let s1: Int64, s2: Int64, s3: Int64, s4: Int64, o1: Int64, o2: Int64, b1: Int64
        let a: CollectionDetails, b: CollectionDetails, bobsCollection: CollectionDetails

        init(_ db: TestDatabase) async throws {
            owner = db.owner
            let bobUser = try await owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            bob = db.store(for: bobUser.id)
            show = try await owner.addTestChannel("show")
            other = try await owner.addTestChannel("other")
            bobs = try await bob.addTestChannel("bobs")
            try await owner.ingest(items: (1...4).map { item("s\($0)", published: 1_000 + Int64($0)) }, channelID: show, now: 2)
            try await owner.ingest(items: [item("o2"), item("o1", published: 500)], channelID: other, now: 2)
            try await bob.ingest(items: [item("b1", published: 9)], channelID: bobs, now: 2)
            s1 = try await owner.id(of: "s1"); s2 = try await owner.id(of: "s2"); s3 = try await owner.id(of: "s3")
            s4 = try await owner.id(of: "s4"); o1 = try await owner.id(of: "o1"); o2 = try await owner.id(of: "o2")
            b1 = try await bob.id(of: "b1")
            a = try await owner.createCollection("A", description: nil, now: 10)
            b = try await owner.createCollection("B", description: nil, now: 10)
            for (n, item) in [s1, s2, s3].enumerated() { _ = try await owner.addToCollection(id: a.id, item: item, now: 11 + Int64(n)) }
            _ = try await owner.addToCollection(id: b.id, item: s4, now: 14)
            bobsCollection = try await bob.createCollection("Bob's", description: nil, now: 10)
            _ = try await bob.addToCollection(id: bobsCollection.id, item: b1, now: 11)
        }

        func items(_ id: Int64) async throws -> [Int64] { try await owner.collectionEntries(id: id).map(\.item.id) }
    }

    func testOneItemCopiedAndMovedAndADuplicateRefused() async throws {
        try await forEachEngine { db in
            let f = try await Fixture(db)
            let copied = try await f.owner.transfer(item: f.s2, .copy, from: f.a.id, to: f.b.id, now: 50)
            XCTAssertEqual(copied.affected, [f.s2])
            XCTAssertEqual(copied.target.itemCount, 2)
            XCTAssertEqual(copied.source.itemCount, 3)
            await assertEqual(try await f.items(f.a.id), [f.s1, f.s2, f.s3], "a copy leaves the source as it was")
            await assertEqual(try await f.items(f.b.id), [f.s4, f.s2], "appended")
            let entry = try await unwrap(try await f.owner.collectionEntries(id: f.b.id).last)
            XCTAssertEqual(entry.addedAt, 50, "added now")
            XCTAssertEqual(entry.position, 2)

            // Again: a duplicate, and nothing changes.
            await assertThrows(LibraryError.alreadyInCollection(item: f.s2, collection: "B")) {
                try await f.owner.transfer(item: f.s2, .copy, from: f.a.id, to: f.b.id, now: 51)
            }
            await assertThrows(LibraryError.alreadyInCollection(item: f.s2, collection: "B")) {
                try await f.owner.transfer(item: f.s2, .move, from: f.a.id, to: f.b.id, now: 51)
            }
            await assertEqual(try await f.items(f.a.id), [f.s1, f.s2, f.s3], "a refused move leaves the item in the source")

            let moved = try await f.owner.transfer(item: f.s1, .move, from: f.a.id, to: f.b.id, now: 52)
            XCTAssertEqual(moved.affected, [f.s1])
            XCTAssertEqual(moved.source.itemCount, 2)
            let source = try await f.owner.collectionEntries(id: f.a.id)
            XCTAssertEqual(source.map(\.item.id), [f.s2, f.s3])
            XCTAssertEqual(source.map(\.position), [1, 2], "the source closes up")
            await assertEqual(try await f.items(f.b.id), [f.s4, f.s2, f.s1])

            // What cannot be copied or moved, each in one line.
            await assertThrows(LibraryError.notInCollection(item: f.s4, collection: "A")) {
                try await f.owner.transfer(item: f.s4, .copy, from: f.a.id, to: f.b.id, now: 53)
            }
            await assertThrows(LibraryError.notInCollection(item: 99_999, collection: "A")) {
                try await f.owner.transfer(item: 99_999, .move, from: f.a.id, to: f.b.id, now: 53)
            }
            await assertThrows(LibraryError.notInCollection(item: f.b1, collection: "A"), "another user's item") {
                try await f.owner.transfer(item: f.b1, .copy, from: f.a.id, to: f.b.id, now: 53)
            }
            await assertThrows(LibraryError.self, "the same collection") {
                try await f.owner.transfer(item: f.s2, .copy, from: f.a.id, to: f.a.id, now: 53)
            }
            await assertThrows(LibraryError.noCollectionID(f.bobsCollection.id), "another user's target") {
                try await f.owner.transfer(item: f.s2, .copy, from: f.a.id, to: f.bobsCollection.id, now: 53)
            }
            await assertThrows(LibraryError.noCollectionID(f.bobsCollection.id), "another user's source") {
                try await f.owner.transfer(item: f.b1, .move, from: f.bobsCollection.id, to: f.a.id, now: 53)
            }
            await assertEqual(try await f.bob.collectionEntries(id: f.bobsCollection.id).map(\.item.id), [f.b1])
            await assertEqual(try await f.items(f.b.id), [f.s4, f.s2, f.s1], "none of it changed anything")
        }
    }

    func testPreservedMetadataKeepsThePlaceAndTheTimeAdded() async throws {
        try await forEachEngine { db in
            let f = try await Fixture(db)
            let c = try await f.owner.createCollection("C", description: nil, now: 20)
            for item in [f.o1, f.o2] { _ = try await f.owner.addToCollection(id: c.id, item: item, now: 21) }
            // s1 was first in A and s3 third: they keep those places in C; o1 and o2 follow.
            let moved = try await f.owner.transfer(try CollectionTransfer(.move, from: f.a.id, to: c.id, subjects: [.item(f.s3), .item(f.s1)],
                                                                          preserveMetadata: true), now: 60)
            XCTAssertEqual(moved.affected, [f.s3, f.s1], "in the order named")
            let entries = try await f.owner.collectionEntries(id: c.id)
            XCTAssertEqual(entries.map(\.item.id), [f.s1, f.o1, f.s3, f.o2])
            XCTAssertEqual(entries.map(\.position), [1, 2, 3, 4])
            XCTAssertEqual(entries.map(\.addedAt), [11, 21, 13, 21], "when they were added to A")
            await assertEqual(try await f.items(f.a.id), [f.s2])

            // Into a shorter target: an item from the source goes to its place or the end; one not
            // from the source (a channel's) is appended, added now.
            let copied = try await f.owner.transfer(try CollectionTransfer(.copy, from: c.id, to: f.b.id,
                                                                           subjects: [.item(f.s3), TransferSubject(.channel, f.show)],
                                                                           preserveMetadata: true), now: 61)
            XCTAssertEqual(copied.affected, [f.s3, f.s1, f.s2])
            XCTAssertEqual(copied.duplicates, [f.s4])
            let b = try await f.owner.collectionEntries(id: f.b.id)
            XCTAssertEqual(b.map(\.item.id), [f.s1, f.s4, f.s3, f.s2], "s1 was first in C; s3 third: the end, then; s2 was not in C")
            XCTAssertEqual(b.map(\.addedAt), [11, 14, 13, 61])
        }
    }

    func testABulkTransferExpandsChannelsAndCollectionsCountsDuplicatesAndListsFailures() async throws {
        try await forEachEngine { db in
            let f = try await Fixture(db)
            let c = try await f.owner.createCollection("C", description: nil, now: 20)
            _ = try await f.owner.addToCollection(id: c.id, item: f.o2, now: 21)
            let subjects = [
                TransferSubject.item(f.s1),
                TransferSubject.item(f.s4),                       // not in A
                TransferSubject(.channel, f.other),               // o1 (dated), then o2 (undated)
                TransferSubject(.collection, c.id),               // o2 again: counted once
                TransferSubject(.channel, f.bobs),                // Bob's
                TransferSubject(.collection, f.bobsCollection.id),
                TransferSubject(.channel, f.show),                // s1 already named; s2, s3 from A; s4 is in B
                TransferSubject(.collection, 99_999),
                TransferSubject.item(f.s1),                       // a repeat
            ]
            let result = try await f.owner.transfer(try CollectionTransfer(.move, from: f.a.id, to: f.b.id, subjects: subjects), now: 70)
            XCTAssertEqual(result.affected, [f.s1, f.o1, f.o2, f.s2, f.s3])
            XCTAssertEqual(result.duplicates, [f.s4])
            XCTAssertEqual(result.failures, [
                TransferFailure(.item(f.s4), .notInCollection(item: f.s4, collection: "A")),
                TransferFailure(TransferSubject(.channel, f.bobs), .noChannel(f.bobs)),
                TransferFailure(TransferSubject(.collection, f.bobsCollection.id), .noCollectionID(f.bobsCollection.id)),
                TransferFailure(TransferSubject(.collection, 99_999), .noCollectionID(99_999)),
            ])
            await assertEqual(try await f.items(f.b.id), [f.s4, f.s1, f.o1, f.o2, f.s2, f.s3])
            await assertEqual(try await f.items(f.a.id), [], "moved out of the source")
            await assertEqual(try await f.items(c.id), [f.o2], "a collection named as items is left as it was")
            XCTAssertEqual(result.target.itemCount, 6)
            XCTAssertEqual(result.source.itemCount, 0)
            await assertEqual(try await f.owner.collectionDetails(id: f.b.id).coverURL, nil, "no item has a picture")

            // Too many to name is refused before anything is read.
            await assertThrows(LibraryError.self) {
                try CollectionTransfer(.copy, from: f.a.id, to: f.b.id,
                                       subjects: (1...Int64(CollectionRule.maxTransferSubjects + 1)).map(TransferSubject.item))
            }
            await assertThrows(LibraryError.self) { try CollectionTransfer(.copy, from: f.a.id, to: f.b.id, subjects: []) }
        }
    }

    /// One transaction: a transfer the plan refuses (more items than one may take) writes nothing,
    /// though its subjects were read.
    func testATransferRefusedWholeChangesNothing() async throws {
        let expansion = (1...CollectionRule.maxTransferItems).map { Int64($0) }
        let transfer = try CollectionTransfer(.copy, from: 1, to: 2, subjects: [.item(50_000), TransferSubject(.channel, 7)])
        let source = [TransferPlan.SourceEntry(item: 50_000, position: 1, addedAt: 1)]
        XCTAssertThrowsError(try TransferPlan(transfer, sourceName: "A", source: source, target: [], expanded: [TransferSubject(.channel, 7): expansion], now: 2))
        XCTAssertNoThrow(try TransferPlan(transfer, sourceName: "A", source: source, target: [],
                                          expanded: [TransferSubject(.channel, 7): Array(expansion.dropLast())], now: 2))

        try await forEachEngine { db in
            let f = try await Fixture(db)
            let big = try await f.owner.addTestChannel("big")
            let items = (1...CollectionRule.maxTransferItems).map { item("big\($0)") }
            try await f.owner.ingest(items: items, channelID: big, now: 3)
            let before = try await db.database.changes.latestChange()
            await assertThrows(LibraryError.self) {
                try await f.owner.transfer(try CollectionTransfer(.move, from: f.a.id, to: f.b.id,
                                                                  subjects: [.item(f.s1), TransferSubject(.channel, big)]), now: 80)
            }
            await assertEqual(try await f.items(f.a.id), [f.s1, f.s2, f.s3])
            await assertEqual(try await f.items(f.b.id), [f.s4])
            await assertEqual(try await db.database.changes.latestChange(), before, "nothing was logged either")
        }
    }

    func testTransfersReachTheChangeLog() async throws {
        try await forEachEngine { db in
            let f = try await Fixture(db)
            let start = try await db.database.changes.latestChange()
            try await f.owner.transfer(item: f.s1, .copy, from: f.a.id, to: f.b.id, now: 90)
            try await f.owner.transfer(item: f.s2, .move, from: f.a.id, to: f.b.id, now: 91)
            guard case .changes(let changes) = try await db.database.changes.changes(after: start, limit: 100) else {
                return XCTFail("the log lost its changes")
            }
            let touched = changes.filter { $0.kind == .collection && $0.user == .owner }.map(\.payload)
            XCTAssertTrue(touched.contains(#"{"collection_id":\#(f.b.id),"action":"items"}"#), "\(touched)")
            XCTAssertTrue(touched.contains(#"{"collection_id":\#(f.a.id),"action":"items"}"#), "the move's source too: \(touched)")
            XCTAssertFalse(changes.contains { $0.user != .owner }, "nobody else's stream hears of it")
        }
    }

    func testAvailableTargetsAreTheOtherCollectionsSayingWhetherTheyHoldAnyOfTheItems() async throws {
        try await forEachEngine { db in
            let f = try await Fixture(db)
            let c = try await f.owner.createCollection("C", description: nil, now: 20)
            _ = try await f.owner.addToCollection(id: c.id, item: f.s2, now: 21)
            let targets = try await f.owner.collectionTargets(of: f.a.id)
            XCTAssertEqual(targets.map(\.collection.name), ["B", "C"])
            XCTAssertEqual(targets.map(\.collection.itemCount), [1, 1])
            XCTAssertEqual(targets.map(\.hasItems), [false, true])
            await assertEqual(try await f.owner.collectionTargets(of: c.id).map(\.hasItems), [true, false], "A holds s2; B does not")
            await assertThrows(LibraryError.noCollectionID(f.bobsCollection.id)) { try await f.owner.collectionTargets(of: f.bobsCollection.id) }
            await assertEqual(try await f.bob.collectionTargets(of: f.bobsCollection.id), [], "Bob has no other")
        }
    }
}
