import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Published collections and following them (`SharingStore`, `SharedCollectionStore`, issue 29):
/// a link until it is withdrawn, then a new one; what anyone with the link reads, and nothing
/// else of its owner; withdrawal as one rule (unpublished, collection deleted, owner removed);
/// following a collection of this library (live) and of another server (as its last refresh
/// read it); what followers hear in their change log.
final class StoreSharingTests: XCTestCase {
    /// A user with a podcast channel of two episodes and a collection "Mix" holding both,
    /// second first.
    private struct Owner {
        let store: any UserLibrary
        let collection: Int64
        let items: [Int64]
    }

    private func owner(_ db: TestDatabase, named name: String = "alice") async throws -> Owner {
        let user = try await db.owner.addUser(name: name, isAdmin: false, passwordHash: nil, now: 1)
        let store = db.store(for: user.id)
        let channel = try await store.addChannel(platform: .podcast, sourceURL: "https://example.com/\(name)",
                                                 feedURL: "https://example.com/\(name).xml", name: "Show of \(name)",
                                                 image: "https://example.com/\(name).jpg", now: 10)
        try await store.ingest(items: [
            Item(id: "\(name)-1", guid: "guid-\(name)-1", title: "One", url: "https://example.com/\(name)/1", published: 1_000, duration: 61,
                 enclosure: Enclosure(url: "https://cdn.example.com/\(name)-1.mp3", type: "audio/mpeg", length: 1234),
                 thumbnail: "https://example.com/\(name)-1.jpg", description: "notes of one"),
            Item(id: "\(name)-2", title: "Two", published: 2_000, enclosure: Enclosure(url: "https://cdn.example.com/\(name)-2.mp3")),
        ], channelID: channel.id, now: 20)
        let ids = try await store.itemIDs(channelID: channel.id)
        let collection = try await store.createCollection("Mix", description: "the best", now: 30)
        _ = try await store.addToCollection(id: collection.id, item: ids[1], now: 31)
        _ = try await store.addToCollection(id: collection.id, item: ids[0], now: 32)
        return Owner(store: store, collection: collection.id, items: ids)
    }

    private func live(_ lookup: SharedLookup?, file: StaticString = #filePath, line: UInt = #line) throws -> SharedCollection {
        guard case .live(let collection) = lookup else {
            XCTFail("not live: \(String(describing: lookup))", file: file, line: line)
            throw XCTSkip("not live")
        }
        return collection
    }

    func testALinkStaysUntilWithdrawnAndPublishingAgainMakesANewOne() async throws {
        try await forEachEngine { db in
            let alice = try await owner(db)
            let shared = db.owner.sharedCollections
            await assertNil(try await alice.store.publishedLink(collectionID: alice.collection))

            let first = try await alice.store.publishCollection(id: alice.collection, token: .random(), now: 100)
            XCTAssertEqual(first.collectionID, alice.collection)
            XCTAssertEqual(first.publishedAt, 100)
            // Publishing a published collection keeps its link.
            let again = try await alice.store.publishCollection(id: alice.collection, token: .random(), now: 101)
            XCTAssertEqual(again, first)
            await assertEqual(try await alice.store.publishedLink(collectionID: alice.collection), first)

            let collection = try live(try await shared.sharedCollection(token: first.token))
            XCTAssertEqual(collection.name, "Mix")
            XCTAssertEqual(collection.description, "the best")
            XCTAssertEqual(collection.ownerName, "alice")
            XCTAssertEqual(collection.items.map(\.title), ["Two", "One"], "in the collection's order")

            try await alice.store.unpublishCollection(id: alice.collection, now: 200)
            await assertEqual(try await shared.sharedCollection(token: first.token), .withdrawn)
            await assertNil(try await alice.store.publishedLink(collectionID: alice.collection))
            await assertThrows(LibraryError.notPublished(alice.collection)) { try await alice.store.unpublishCollection(id: alice.collection, now: 201) }

            let second = try await alice.store.publishCollection(id: alice.collection, token: .random(), now: 300)
            XCTAssertNotEqual(second.token, first.token)
            await assertEqual(try await shared.sharedCollection(token: first.token), .withdrawn, "the old link stays withdrawn")
            _ = try live(try await shared.sharedCollection(token: second.token))
            await assertNil(try await shared.sharedCollection(token: .random()), "a token never published is unknown")

            // Another user's collection is not found, as one that never was.
            let bob = try await db.owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let bobStore = db.store(for: bob.id)
            await assertThrows(LibraryError.noCollectionID(alice.collection)) { try await bobStore.publishCollection(id: alice.collection, token: .random(), now: 400) }
            await assertThrows(LibraryError.noCollectionID(alice.collection)) { try await bobStore.unpublishCollection(id: alice.collection, now: 400) }
            await assertThrows(LibraryError.noCollectionID(alice.collection)) { try await bobStore.publishedLink(collectionID: alice.collection) }
            _ = try live(try await shared.sharedCollection(token: second.token))
        }
    }

    /// The items as their feed published them (the item's picture, else its channel's; its guid,
    /// else its id) and when they were added: nothing of the owner's watch state, saved items,
    /// notes or history is in the value a link reads.
    func testALinkReadsWhatTheFeedsPublishedAndNothingOfItsOwner() async throws {
        try await forEachEngine { db in
            let alice = try await owner(db)
            try await alice.store.setWatched([alice.items[0]], watched: true, now: 40)
            try await alice.store.setProgress(alice.items[1], seconds: 33, now: 41)
            _ = try await alice.store.saveVideo(item: alice.items[0], notes: "private note", now: 42)
            _ = try await alice.store.appendHistory(item: alice.items[0], position: 12, now: 43)
            let link = try await alice.store.publishCollection(id: alice.collection, token: .random(), now: 100)
            let collection = try live(try await db.owner.sharedCollections.sharedCollection(token: link.token))
            XCTAssertEqual(collection.items, [
                SharedItem(title: "Two", channelName: "Show of alice", platform: .podcast, published: 2_000, duration: nil,
                           enclosureURL: "https://cdn.example.com/alice-2.mp3", enclosureType: nil, enclosureLength: nil,
                           thumbnail: "https://example.com/alice.jpg", url: nil, guid: "alice-2", addedAt: 31),
                SharedItem(title: "One", channelName: "Show of alice", platform: .podcast, published: 1_000, duration: 61,
                           enclosureURL: "https://cdn.example.com/alice-1.mp3", enclosureType: "audio/mpeg", enclosureLength: 1234,
                           thumbnail: "https://example.com/alice-1.jpg", url: "https://example.com/alice/1", guid: "guid-alice-1", addedAt: 32),
            ])
        }
    }

    /// Unpublished, its collection deleted, or its owner removed: the link is withdrawn for good
    /// (never unknown), and whoever follows it sees it withdrawn, without its items.
    func testWithdrawalIsOneRuleWhateverWithdrewIt() async throws {
        try await forEachEngine { db in
            let shared = db.owner.sharedCollections
            let bob = db.store(for: try await db.owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1).id)
            for way in ["unpublished", "collection deleted", "owner removed"] {
                let name = "owner-\(way.split(separator: " ")[0])"
                let publisher = try await owner(db, named: name)
                let link = try await publisher.store.publishCollection(id: publisher.collection, token: .random(), now: 100)
                let followed = try await bob.follow(token: link.token, url: "/shared/\(link.token)", now: 110)
                XCTAssertNil(followed.withdrawnAt, way)
                XCTAssertEqual(followed.itemCount, 2, way)
                switch way {
                case "unpublished": try await publisher.store.unpublishCollection(id: publisher.collection, now: 120)
                case "collection deleted": try await publisher.store.deleteCollection(id: publisher.collection)
                default: try await db.owner.removeUser(named: name)
                }
                await assertEqual(try await shared.sharedCollection(token: link.token), .withdrawn, way)
                let (seen, items) = try await bob.followedCollection(id: followed.id)
                XCTAssertNotNil(seen.withdrawnAt, way)
                XCTAssertEqual(seen.name, "Mix", "\(way): still shown by name")
                XCTAssertEqual(seen.ownerName, name, way)
                XCTAssertEqual(seen.itemCount, 0, way)
                XCTAssertEqual(items, [], way)
                await assertThrows(LibraryError.withdrawnCollection) { try await db.store(for: .owner).follow(token: link.token, url: "x", now: 130) }
            }
        }
    }

    func testFollowingACollectionOfThisLibrary() async throws {
        try await forEachEngine { db in
            let alice = try await owner(db)
            let link = try await alice.store.publishCollection(id: alice.collection, token: .random(), now: 100)
            let bobUser = try await db.owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let bob = db.store(for: bobUser.id)
            await assertThrows(LibraryError.noSharedCollection) { try await bob.follow(token: .random(), url: "x", now: 110) }
            await assertThrows(LibraryError.invalid("that collection is your own: it is among your collections already")) { try await alice.store.follow(token: link.token, url: "x", now: 110) }

            let followed = try await bob.follow(token: link.token, url: "https://feeds.example/shared/\(link.token)", now: 110)
            XCTAssertEqual(followed.url, "https://feeds.example/shared/\(link.token)")
            XCTAssertNil(followed.sourceURL)
            XCTAssertFalse(followed.isRemote)
            XCTAssertEqual(followed.name, "Mix")
            XCTAssertEqual(followed.description, "the best")
            XCTAssertEqual(followed.ownerName, "alice")
            XCTAssertEqual(followed.itemCount, 2)
            XCTAssertEqual(followed.followedAt, 110)
            await assertThrows(LibraryError.alreadyFollowing(followed.id)) { try await bob.follow(token: link.token, url: "another spelling", now: 111) }
            await assertEqual(try await bob.followedCollections(), [followed])
            await assertEqual(try await bob.remoteFollows(), [], "nothing of this library is refreshed")
            await assertEqual(try await alice.store.followedCollections(), [], "following is the follower's")

            // Read live: the owner's changes are the follower's at once.
            _ = try await alice.store.updateCollection(id: alice.collection, CollectionChange(name: "Mixtape", description: .some(nil)), now: 120)
            try await alice.store.removeFromCollection(id: alice.collection, item: alice.items[1], now: 121)
            let (seen, items) = try await bob.followedCollection(id: followed.id)
            XCTAssertEqual(seen.name, "Mixtape")
            XCTAssertNil(seen.description)
            XCTAssertEqual(seen.itemCount, 1)
            XCTAssertEqual(items.map(\.title), ["One"])
            let shared = try live(try await db.owner.sharedCollections.sharedCollection(token: link.token))
            XCTAssertEqual(items, shared.items, "the follower reads what the link reads")

            // Another user's followed collection is not found.
            let carol = db.store(for: try await db.owner.addUser(name: "carol", isAdmin: false, passwordHash: nil, now: 1).id)
            await assertThrows(LibraryError.noFollowedCollection(followed.id)) { try await carol.followedCollection(id: followed.id) }
            await assertThrows(LibraryError.noFollowedCollection(followed.id)) { try await carol.unfollow(id: followed.id) }
            try await bob.unfollow(id: followed.id)
            await assertEqual(try await bob.followedCollections(), [])
            await assertThrows(LibraryError.noFollowedCollection(followed.id)) { try await bob.unfollow(id: followed.id) }
        }
    }

    /// Whatever a follower sees change is a `followed` row of their log: their following it, its
    /// owner's changes (name, items), its withdrawal, their unfollowing; the owner's own rows are
    /// as before.
    func testFollowersHearOfWhatTheyFollowInTheirChangeLog() async throws {
        try await forEachEngine { db in
            let alice = try await owner(db)
            let aliceID = try await db.owner.user(named: "alice").id
            let link = try await alice.store.publishCollection(id: alice.collection, token: .random(), now: 100)
            let bobUser = try await db.owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let bob = db.store(for: bobUser.id)
            let log = db.database.changes
            var seen = try await log.latestChange()
            func next() async throws -> [(user: UserID, kind: Change.Kind, data: String)] {
                guard case .changes(let changes) = try await log.changes(after: seen, limit: 1_000) else { return [] }
                seen = changes.last?.seq ?? seen
                return changes.map { ($0.user, $0.kind, $0.payload) }
            }
            let followed = try await bob.follow(token: link.token, url: "u", now: 110)
            func followedRow(_ action: String) -> String { #"{"followed_id":\#(followed.id),"action":"\#(action)"}"# }
            var found = try await next()
            XCTAssertEqual(found.map(\.user), [bobUser.id])
            XCTAssertEqual(found.map(\.kind), [.followed])
            XCTAssertEqual(found.map(\.data), [followedRow("added")])

            _ = try await alice.store.updateCollection(id: alice.collection, CollectionChange(name: "Mixtape"), now: 120)
            found = try await next()
            XCTAssertEqual(found.filter { $0.user == bobUser.id }.map(\.data), [followedRow("updated")])
            XCTAssertEqual(found.filter { $0.user == aliceID }.map(\.kind), [.collection], "the owner's row as before")
            _ = try await alice.store.updateCollection(id: alice.collection, CollectionChange(sortOrder: 3), now: 121)
            found = try await next()
            XCTAssertEqual(found.filter { $0.user == bobUser.id }.count, 0, "a sort order is the owner's own")

            try await alice.store.reorderCollection(id: alice.collection, items: [alice.items[0]], now: 122)
            found = try await next()
            XCTAssertEqual(found.filter { $0.user == bobUser.id }.map(\.data), [followedRow("updated")])

            try await alice.store.unpublishCollection(id: alice.collection, now: 130)
            found = try await next()
            XCTAssertEqual(found.map(\.user), [bobUser.id])
            XCTAssertEqual(found.map(\.data), [followedRow("withdrawn")])
            // A withdrawn collection's changes are nobody's but its owner's.
            _ = try await alice.store.updateCollection(id: alice.collection, CollectionChange(name: "Private again"), now: 131)
            found = try await next()
            XCTAssertEqual(found.map(\.user), [aliceID])
            await assertEqual(try await bob.followedCollection(id: followed.id).collection.name, "Mixtape", "as it was when withdrawn")

            try await bob.unfollow(id: followed.id)
            found = try await next()
            XCTAssertEqual(found.map(\.data), [followedRow("removed")])
        }
    }

    func testFollowingACollectionOfAnotherServerAndRefreshingIt() async throws {
        try await forEachEngine { db in
            let bobUser = try await db.owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let bob = db.store(for: bobUser.id)
            let shared = db.owner.sharedCollections
            let item = SharedItem(title: "Far", channelName: "Far show", platform: nil, published: 5, duration: 60,
                                  enclosureURL: "https://far.example/1.mp3", enclosureType: "audio/mpeg", enclosureLength: 10,
                                  thumbnail: nil, url: "https://far.example/1", guid: "far-1", addedAt: 6)
            let remote = SharedCollection(name: "Far away", description: nil, coverURL: nil, ownerName: "dora", updatedAt: 7, items: [item])
            let source = "https://far.example/api/shared/\(ShareToken.random())"
            let new = NewRemoteFollow(url: "https://far.example/shared/x", sourceURL: source, reach: .publicOnly, collection: remote)
            let followed = try await bob.follow(remote: new, now: 1_000)
            XCTAssertEqual(followed.sourceURL, source)
            XCTAssertTrue(followed.isRemote)
            XCTAssertEqual(followed.ownerName, "dora")
            XCTAssertEqual(followed.itemCount, 1)
            XCTAssertEqual(followed.refreshedAt, 1_000)
            await assertThrows(LibraryError.alreadyFollowing(followed.id)) { try await bob.follow(remote: new, now: 1_001) }
            await assertEqual(try await bob.followedCollection(id: followed.id).items, [item])
            await assertEqual(try await bob.remoteFollows(), [RemoteFollow(id: followed.id, sourceURL: source, reach: .publicOnly)])

            // Due a refresh interval after it was read; a claim holds it from other refreshers.
            await assertEqual(try await shared.claimDueRemoteFollows(now: 1_000, limit: 10, lease: .standard), [])
            let due = 1_000 + SharingRule.refreshInterval
            await assertEqual(try await shared.claimDueRemoteFollows(now: due, limit: 10, lease: .standard).map(\.id), [followed.id])
            await assertEqual(try await shared.claimDueRemoteFollows(now: due, limit: 10, lease: .standard), [], "held by the first claim")

            let log = db.database.changes
            var seen = try await log.latestChange()
            func actions() async throws -> [String] {
                guard case .changes(let changes) = try await log.changes(after: seen, limit: 1_000) else { return [] }
                seen = changes.last?.seq ?? seen
                XCTAssertTrue(changes.allSatisfy { $0.user == bobUser.id && $0.kind == .followed })
                return changes.map(\.payload)
            }
            // The same answer changes nothing; a new one is the follower's change.
            try await shared.apply(RemoteFollowRefresh(followID: followed.id, outcome: .collection(remote)), now: due)
            await assertEqual(try await actions(), [])
            var changed = remote
            changed.name = "Far, far away"
            changed.items.append(SharedItem(title: "Farther", channelName: "Far show", platform: .podcast, published: nil, duration: nil,
                                            enclosureURL: nil, enclosureType: nil, enclosureLength: nil, thumbnail: nil, url: nil,
                                            guid: "far-2", addedAt: 8))
            try await shared.apply(RemoteFollowRefresh(followID: followed.id, outcome: .collection(changed)), now: due + 1)
            await assertEqual(try await actions(), [#"{"followed_id":\#(followed.id),"action":"updated"}"#])
            var (seenNow, items) = try await bob.followedCollection(id: followed.id)
            XCTAssertEqual(seenNow.name, "Far, far away")
            XCTAssertEqual(seenNow.refreshedAt, due + 1)
            XCTAssertEqual(items, changed.items)

            // A failure is kept, and cleared by the next answer; the follow stays as it was.
            try await shared.apply(RemoteFollowRefresh(followID: followed.id, outcome: .failed("\(source): timed out")), now: due + 2)
            (seenNow, items) = try await bob.followedCollection(id: followed.id)
            XCTAssertEqual(seenNow.lastError, "\(source): timed out")
            XCTAssertEqual(items, changed.items)
            await assertEqual(try await actions(), [])
            await assertEqual(try await shared.claimDueRemoteFollows(now: due + 3, limit: 10, lease: .standard), [], "due an interval after")

            // Withdrawn: for good, its items let go, never refreshed again.
            try await shared.apply(RemoteFollowRefresh(followID: followed.id, outcome: .withdrawn), now: due + 4)
            await assertEqual(try await actions(), [#"{"followed_id":\#(followed.id),"action":"withdrawn"}"#])
            (seenNow, items) = try await bob.followedCollection(id: followed.id)
            XCTAssertEqual(seenNow.withdrawnAt, due + 4)
            XCTAssertNil(seenNow.lastError)
            XCTAssertEqual(seenNow.itemCount, 0)
            XCTAssertEqual(items, [])
            try await shared.apply(RemoteFollowRefresh(followID: followed.id, outcome: .collection(remote)), now: due + 5)
            await assertEqual(try await bob.followedCollection(id: followed.id).collection.withdrawnAt, due + 4, "withdrawn for good")
            await assertEqual(try await shared.claimDueRemoteFollows(now: due * 10, limit: 10, lease: .standard), [])
            await assertEqual(try await bob.remoteFollows(), [])
            // A refresh of a follow that is gone is nothing.
            try await bob.unfollow(id: followed.id)
            try await shared.apply(RemoteFollowRefresh(followID: followed.id, outcome: .collection(remote)), now: due + 6)
        }
    }
}
