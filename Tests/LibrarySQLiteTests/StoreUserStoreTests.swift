import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// `UserStore`: users and login sessions, kept as hashes only.
@Suite struct StoreUserStoreTests {
    let t = try! TestLibrary()

    @Test func addListRemoveAndPasswords() async throws {
        let ann = try await t.library.addUser(name: " ann ", isAdmin: true, passwordHash: "$2b$12$hash", now: 5)
        #expect(ann.name == "ann" && ann.isAdmin && ann.hasPassword && ann.createdAt == 5)
        await #expect(throws: LibraryError.userExists("ann")) { try await t.library.addUser(name: "ann", isAdmin: false, passwordHash: nil, now: 6) }
        for bad in ["", "  ", "a\u{1B}[2J", String(repeating: "x", count: 65)] {
            await #expect(throws: LibraryError.self) { try await t.library.addUser(name: bad, isAdmin: false, passwordHash: nil, now: 6) }
        }
        let bob = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 7)
        #expect(try await t.library.users().map(\.name).dropFirst() == ["ann", "bob"])
        #expect(try await t.library.users().first?.id == .owner)
        #expect(try await t.library.user(named: "bob") == bob)
        #expect(try await t.library.user(id: bob.id) == bob)
        await #expect(throws: LibraryError.noUser("carol")) { try await t.library.user(named: "carol") }
        #expect(try await t.library.passwordHash(of: "bob") == nil)
        try await t.library.setPasswordHash("$2b$12$other", for: "bob")
        #expect(try await t.library.passwordHash(of: "bob") == "$2b$12$other")
        #expect(try await t.library.user(named: "bob").hasPassword)
        await #expect(throws: LibraryError.noUser("carol")) { try await t.library.setPasswordHash("x", for: "carol") }
        try await t.library.removeUser(named: "ann")
        await #expect(throws: LibraryError.noUser("ann")) { try await t.library.removeUser(named: "ann") }
        #expect(try await t.library.users().count == 2)
    }

    @Test func removingAUserRemovesTheirStateAndSessionsAndChannelsOnlyTheyFollowed() async throws {
        let bob = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let asBob = t.library.acting(as: bob.id)
        let both = try await t.library.addTestChannel("both")
        let his = try await asBob.addTestChannel("his")
        #expect(try await asBob.addTestChannel("both") == both)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Both", items: [item("b1")]), channelID: both, now: 2)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "His", items: [item("h1")]), channelID: his, now: 2)
        let b1 = try await t.library.id(of: "b1"), h1 = try await t.library.id(of: "h1")
        try await t.library.setWatched([b1], now: 3)
        try await asBob.setWatched([b1, h1], now: 3)
        try await asBob.save([b1], now: 3)
        try await asBob.createCollection("Later", now: 3)
        try await asBob.addToCollection(item: b1, collection: "Later", now: 3)
        try await asBob.appendHistory(item: h1, now: 3)
        try await asBob.appendToUpNext([(.item(h1), "h1")], now: 3)
        try await asBob.saveVolume(0.5, now: 3)
        try await asBob.createSession(user: bob.id, tokenHash: "h-bob", deviceName: "phone", now: 3)

        try await t.library.removeUser(named: "bob")
        let left = try await t.library.read { db in
            try ["subscriptions", "watch_state", "saved_items", "collections", "collection_items", "play_history", "up_next",
                 "player_state", "sessions"].map { table in
                "\(table):\(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(table == "collection_items" ? "1" : "user_id <> 1")") ?? -1)"
            }
        }
        #expect(left == ["subscriptions:0", "watch_state:0", "saved_items:0", "collections:0", "collection_items:0", "play_history:0",
                         "up_next:0", "player_state:0", "sessions:0"])
        #expect(try await t.library.item(id: b1).watched, "the owner's state stays")
        #expect(try await t.library.allChannels().map(\.id) == [both])
        let hisItems = try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM channels WHERE id = ?", arguments: [his]) }
        #expect(hisItems == 0, "a channel nobody follows any more goes")
    }

    @Test func sessionsByHashExpireTouchAndRevoke() async throws {
        let bob = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let s1 = try await t.library.createSession(user: bob.id, tokenHash: "hash-1", deviceName: "phone", now: 100)
        #expect(s1.expiresAt == 100 + SessionRule.lifetime && s1.lastUsedAt == nil && s1.deviceName == "phone" && s1.userID == bob.id)
        let s2 = try await t.library.createSession(user: bob.id, tokenHash: "hash-2", deviceName: nil, now: 200)
        let s3 = try await t.library.createSession(user: .owner, tokenHash: "hash-3", deviceName: "laptop", now: 300)
        await #expect(throws: LibraryError.noUser("99")) { try await t.library.createSession(user: UserID(99), tokenHash: "h", deviceName: nil, now: 1) }
        await #expect(throws: LibraryError.self, "token hashes are unique") {
            try await t.library.write { db in
                try db.execute(sql: "INSERT INTO sessions (user_id, token_hash, created_at, expires_at) VALUES (1, 'hash-1', 1, 2)")
            }
        }

        // Looking a session up touches it; an unknown or expired hash finds none.
        let found = try await t.library.session(tokenHash: "hash-1", now: 150)
        #expect(found?.session.id == s1.id && found?.session.lastUsedAt == 150)
        #expect(found?.user == bob)
        #expect(try await t.library.session(tokenHash: "nope", now: 150) == nil)
        #expect(try await t.library.session(tokenHash: "hash-1", now: s1.expiresAt) == nil)
        #expect(try await t.library.sessions(of: bob.id).first { $0.id == s1.id }?.lastUsedAt == 150, "an expired lookup does not touch it")
        // "Last used" moves at most once per `SessionRule.lastUsedResolution`: most lookups only read.
        let soon = try await t.library.session(tokenHash: "hash-1", now: 150 + SessionRule.lastUsedResolution - 1)
        #expect(soon?.session.lastUsedAt == 150)
        #expect(try await t.library.sessions(of: bob.id).first { $0.id == s1.id }?.lastUsedAt == 150)
        let later = try await t.library.session(tokenHash: "hash-1", now: 150 + SessionRule.lastUsedResolution)
        #expect(later?.session.lastUsedAt == 150 + SessionRule.lastUsedResolution)
        #expect(try await t.library.sessions(of: bob.id).first { $0.id == s1.id }?.lastUsedAt == 150 + SessionRule.lastUsedResolution)

        #expect(try await t.library.sessions(of: bob.id).map(\.id) == [s2.id, s1.id])
        #expect(try await t.library.sessions(of: nil).map(\.id) == [s3.id, s2.id, s1.id])
        try await t.library.revokeSession(id: s2.id)
        await #expect(throws: LibraryError.noSession(s2.id)) { try await t.library.revokeSession(id: s2.id) }
        #expect(try await t.library.session(tokenHash: "hash-2", now: 250) == nil)
        #expect(try await t.library.revokeSessions(of: bob.id) == 1)
        #expect(try await t.library.sessions(of: nil).map(\.id) == [s3.id])
        #expect(try await t.library.session(tokenHash: "hash-3", now: 400)?.user.id == .owner)
    }
}
