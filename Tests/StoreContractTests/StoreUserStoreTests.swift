import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// `UserStore`: users and login sessions, kept as hashes only.
final class StoreUserStoreTests: XCTestCase {
    func testAFreshLibraryHasItsOwner() async throws {
        try await forEachEngine { db in
            let owner = try await db.owner.user(id: .owner)
            XCTAssertTrue(owner.isAdmin)
            XCTAssertFalse(owner.hasPassword)
            await assertEqual(try await db.owner.users().map(\.id), [.owner])
            await assertThrows(LibraryError.userKept(owner.name, .owner)) {
                try await db.owner.removeUser(named: owner.name)
            }
        }
    }

    func testAddListRemoveAndPasswords() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let ann = try await library.addUser(name: " ann ", isAdmin: true, passwordHash: "$2b$12$hash", now: 5)
            XCTAssertEqual(ann.name, "ann")
            XCTAssertTrue(ann.isAdmin)
            XCTAssertTrue(ann.hasPassword)
            XCTAssertEqual(ann.createdAt, 5)
            await assertThrows(LibraryError.userExists("ann")) { try await library.addUser(name: "ann", isAdmin: false, passwordHash: nil, now: 6) }
            for bad in ["", "  ", "a\u{1B}[2J", String(repeating: "x", count: 65)] {
                await assertThrows(LibraryError.self, bad) { try await library.addUser(name: bad, isAdmin: false, passwordHash: nil, now: 6) }
            }
            let bob = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 7)
            await assertEqual(Array(try await library.users().map(\.name).dropFirst()), ["ann", "bob"])
            await assertEqual(try await library.users().first?.id, .owner)
            await assertEqual(try await library.user(named: "bob"), bob)
            await assertEqual(try await library.user(id: bob.id), bob)
            await assertThrows(LibraryError.noUser("carol")) { try await library.user(named: "carol") }
            await assertNil(try await library.passwordHash(of: "bob"))
            try await library.setPasswordHash("$2b$12$other", for: "bob")
            await assertEqual(try await library.passwordHash(of: "bob"), "$2b$12$other")
            await assertTrue(try await library.user(named: "bob").hasPassword)
            await assertThrows(LibraryError.noUser("carol")) { try await library.setPasswordHash("x", for: "carol") }
            try await library.removeUser(named: "ann")
            await assertThrows(LibraryError.noUser("ann")) { try await library.removeUser(named: "ann") }
            await assertEqual(try await library.users().count, 2)
        }
    }

    func testRemovingAUserRemovesTheirStateAndSessionsAndChannelsOnlyTheyFollowed() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let bob = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let asBob = db.store(for: bob.id)
            let both = try await library.addTestChannel("both")
            let his = try await asBob.addTestChannel("his")
            await assertEqual(try await asBob.addTestChannel("both"), both)
            _ = try await library.ingest(Feed(kind: .podcast, title: "Both", items: [item("b1")]), channelID: both, now: 2)
            _ = try await library.ingest(Feed(kind: .podcast, title: "His", items: [item("h1")]), channelID: his, now: 2)
            let b1 = try await library.id(of: "b1"), h1 = try await asBob.id(of: "h1")
            try await library.setWatched([b1], now: 3)
            try await asBob.setWatched([b1, h1], now: 3)
            try await asBob.save([b1], now: 3)
            try await asBob.createCollection("Later", now: 3)
            try await asBob.addToCollection(item: b1, collection: "Later", now: 3)
            try await asBob.appendHistory(item: h1, now: 3)
            try await asBob.appendToUpNext([(.item(h1), "h1")], now: 3)
            try await asBob.saveVolume(0.5, now: 3)
            try await asBob.createSession(user: bob.id, tokenHash: "h-bob", deviceName: "phone", now: 3)
            try await asBob.saveSyncDevice(id: "phone", caption: nil, type: nil, now: 3)

            try await library.removeUser(named: "bob")
            // Whatever acts for his id now finds nothing of his.
            let gone = db.store(for: bob.id)
            await assertEqual(try await gone.allChannels(), [])
            await assertEqual(try await gone.saved(), [])
            await assertEqual(try await gone.collections(), [])
            await assertEqual(try await gone.history(), [])
            await assertEqual(try await gone.upNext(), [])
            await assertNil(try await gone.savedVolume())
            await assertEqual(try await gone.syncDevices(), [])
            await assertEqual(try await gone.subscriptionChanges(since: 0).added, [])
            await assertEqual(try await library.sessions(of: nil).map(\.userID), [])
            await assertNil(try await library.session(tokenHash: "h-bob", now: 4))
            await assertThrows(LibraryError.noItem(b1)) { try await gone.item(id: b1) }
            await assertTrue(try await library.item(id: b1).watched, "the owner's state stays")
            await assertEqual(try await library.allChannels().map(\.id), [both])
            await assertNil(try await library.polling.addressReach(feedURL: "https://example.com/his.xml"), "a channel nobody follows any more goes")
        }
    }

    func testSessionsByHashExpireTouchAndRevoke() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let bob = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let s1 = try await library.createSession(user: bob.id, tokenHash: "hash-1", deviceName: "phone", now: 100)
            XCTAssertEqual(s1.expiresAt, 100 + SessionRule.lifetime)
            XCTAssertNil(s1.lastUsedAt)
            XCTAssertEqual(s1.deviceName, "phone")
            XCTAssertEqual(s1.userID, bob.id)
            let s2 = try await library.createSession(user: bob.id, tokenHash: "hash-2", deviceName: nil, now: 200)
            let s3 = try await library.createSession(user: .owner, tokenHash: "hash-3", deviceName: "laptop", now: 300)
            await assertThrows(LibraryError.noUser("99")) { try await library.createSession(user: UserID(99), tokenHash: "h", deviceName: nil, now: 1) }
            await assertThrows(LibraryError.self, "token hashes are unique") {
                try await library.createSession(user: .owner, tokenHash: "hash-1", deviceName: nil, now: 1)
            }

            // Looking a session up touches it; an unknown or expired hash finds none.
            let found = try await library.session(tokenHash: "hash-1", now: 150)
            XCTAssertEqual(found?.session.id, s1.id)
            XCTAssertEqual(found?.session.lastUsedAt, 150)
            XCTAssertEqual(found?.user, bob)
            await assertNil(try await library.session(tokenHash: "nope", now: 150))
            await assertNil(try await library.session(tokenHash: "hash-1", now: s1.expiresAt))
            await assertEqual(try await library.sessions(of: bob.id).first { $0.id == s1.id }?.lastUsedAt, 150,
                              "an expired lookup does not touch it")
            // "Last used" moves at most once per `SessionRule.lastUsedResolution`: most lookups only read.
            let soon = try await library.session(tokenHash: "hash-1", now: 150 + SessionRule.lastUsedResolution - 1)
            XCTAssertEqual(soon?.session.lastUsedAt, 150)
            await assertEqual(try await library.sessions(of: bob.id).first { $0.id == s1.id }?.lastUsedAt, 150)
            let later = try await library.session(tokenHash: "hash-1", now: 150 + SessionRule.lastUsedResolution)
            XCTAssertEqual(later?.session.lastUsedAt, 150 + SessionRule.lastUsedResolution)
            await assertEqual(try await library.sessions(of: bob.id).first { $0.id == s1.id }?.lastUsedAt,
                              150 + SessionRule.lastUsedResolution)

            await assertEqual(try await library.sessions(of: bob.id).map(\.id), [s2.id, s1.id])
            await assertEqual(try await library.sessions(of: nil).map(\.id), [s3.id, s2.id, s1.id])
            try await library.revokeSession(id: s2.id)
            await assertThrows(LibraryError.noSession(s2.id)) { try await library.revokeSession(id: s2.id) }
            await assertNil(try await library.session(tokenHash: "hash-2", now: 250))
            await assertEqual(try await library.revokeSessions(of: bob.id), 1)
            await assertEqual(try await library.sessions(of: nil).map(\.id), [s3.id])
            await assertEqual(try await library.session(tokenHash: "hash-3", now: 400)?.user.id, .owner)
        }
    }
}
