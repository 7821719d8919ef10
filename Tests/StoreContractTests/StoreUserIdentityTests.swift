import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Single sign-on's identities (issue 29): (issuer, subject) linked to one user at most, found
/// again at each sign-in, made together with a new user, gone with their user.
final class StoreUserIdentityTests: XCTestCase {
    private let issuer = "https://id.example.com/"

    func testLinkFindAndList() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            let bob = try await owner.addUser(name: "bob", isAdmin: false, passwordHash: "$2b$12$x", now: 1)
            await assertNil(try await owner.user(issuer: issuer, subject: "auth0|bob", now: 5))
            try await owner.link(issuer: issuer, subject: "auth0|bob", email: "bob@example.com", to: bob.id, now: 10)
            // Linking the same identity to the same user again changes nothing.
            try await owner.link(issuer: issuer, subject: "auth0|bob", email: nil, to: bob.id, now: 11)
            await assertEqual(try await owner.identities(of: bob.id),
                              [UserIdentity(userID: bob.id, issuer: issuer, subject: "auth0|bob", email: "bob@example.com", createdAt: 10, lastUsedAt: nil)])
            await assertEqual(try await owner.user(issuer: issuer, subject: "auth0|bob", now: 20)?.id, bob.id)
            await assertEqual(try await owner.identities(of: nil).map(\.lastUsedAt), [20])
            // The subject is the provider's: another issuer's same subject is someone else (nobody here).
            await assertNil(try await owner.user(issuer: "https://other.example.com", subject: "auth0|bob", now: 21))
            await assertEqual(try await owner.identities(of: .owner), [])
        }
    }

    func testAnIdentityBelongsToOneUser() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            let bob = try await owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            try await owner.link(issuer: issuer, subject: "s1", email: nil, to: bob.id, now: 10)
            await assertThrows(LibraryError.identityTaken(issuer: issuer, subject: "s1")) {
                try await owner.link(issuer: self.issuer, subject: "s1", email: nil, to: .owner, now: 11)
            }
            await assertThrows(LibraryError.noUser("999")) {
                try await owner.link(issuer: self.issuer, subject: "s2", email: nil, to: UserID(999), now: 11)
            }
            await assertThrows(LibraryError.identityTaken(issuer: issuer, subject: "s1")) {
                try await owner.addUser(names: ["carol"], issuer: self.issuer, subject: "s1", email: nil, now: 12)
            }
            // Nothing was made by the refused sign-up.
            await assertEqual(try await owner.users().map(\.name).sorted(), [try await owner.user(id: .owner).name, "bob"].sorted())
            await assertEqual(try await owner.identities(of: nil).map(\.userID), [bob.id])
        }
    }

    func testANewUserTakesTheFirstFreeName() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            _ = try await owner.addUser(name: "alice", isAdmin: false, passwordHash: nil, now: 1)
            let made = try await owner.addUser(names: ["bad\nname", "alice", "alice-2"], issuer: issuer, subject: "a", email: "alice@example.com", now: 5)
            XCTAssertEqual(made.name, "alice-2")
            XCTAssertFalse(made.isAdmin)
            XCTAssertFalse(made.hasPassword)
            await assertEqual(try await owner.user(issuer: issuer, subject: "a", now: 6)?.id, made.id)
            await assertThrows(LibraryError.userExists("alice")) {
                try await owner.addUser(names: ["alice", "alice-2"], issuer: self.issuer, subject: "b", email: nil, now: 7)
            }
            await assertNil(try await owner.user(issuer: issuer, subject: "b", now: 8))
        }
    }

    func testIdentitiesGoWithTheirUserAndCanBeUnlinked() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            let bob = try await owner.addUser(names: ["bob"], issuer: issuer, subject: "b", email: nil, now: 5)
            try await owner.link(issuer: issuer, subject: "o", email: nil, to: .owner, now: 6)
            try await owner.removeUser(named: bob.name)
            await assertNil(try await owner.user(issuer: issuer, subject: "b", now: 7))
            try await owner.unlink(issuer: issuer, subject: "o")
            await assertNil(try await owner.user(issuer: issuer, subject: "o", now: 8))
            await assertThrows(LibraryError.noIdentity(issuer: issuer, subject: "o")) {
                try await owner.unlink(issuer: self.issuer, subject: "o")
            }
            await assertEqual(try await owner.identities(of: nil), [])
        }
    }
}
