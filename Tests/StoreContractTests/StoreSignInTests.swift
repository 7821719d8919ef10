import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Single sign-ons under way and re-authentications (issue 29), kept in the library so every
/// replica of a server sees them: each sign-in taken once whichever connection takes it, none
/// after `SignInRule.lifetime`, at most a capacity kept; a re-authentication goes with its session.
final class StoreSignInTests: XCTestCase {
    private let now: Int64 = 1_800_000_000

    private func signIn(_ state: String, _ destination: PendingSignIn.Destination, started: Int64) -> PendingSignIn {
        PendingSignIn(stateHash: "hash-" + state, nonce: "nonce-" + state, verifier: "verifier-" + state,
                      callback: "https://feeds.example/api/auth/oidc/callback", destination: destination, started: started)
    }

    func testASignInIsTakenWholeAndOnceWhicheverConnectionTakesIt() async throws {
        try await forEachEngine { db in
            // Another connection to the same library: another replica of the server.
            let other = try await db.reopen().owner
            let session = try await db.owner.createSession(user: .owner, tokenHash: "token-hash", deviceName: nil, now: now)
            let kept = [
                signIn("web", .web(next: "/collections", browser: "browser-hash"), started: now),
                signIn("app", .mobile(redirectURI: "viewvault://auth"), started: now + 1),
                signIn("again", .reauthentication(session: session.id, next: "/settings", browser: "browser-2"), started: now + 2),
            ]
            for signIn in kept { try await db.owner.keepSignIn(signIn) }
            for signIn in kept {
                await assertEqual(try await other.takeSignIn(stateHash: signIn.stateHash, now: now + 60), signIn)
                // Replayed, on either connection: nothing.
                await assertNil(try await other.takeSignIn(stateHash: signIn.stateHash, now: now + 61))
                await assertNil(try await db.owner.takeSignIn(stateHash: signIn.stateHash, now: now + 61))
            }
            await assertNil(try await db.owner.takeSignIn(stateHash: "hash-never-kept", now: now))
        }
    }

    /// Replicas taking one state at the same moment: exactly one of them gets it.
    func testConcurrentTakesGetItOnce() async throws {
        try await forEachEngine { db in
            let other = try await db.reopen().owner
            try await db.owner.keepSignIn(signIn("raced", .mobile(redirectURI: "sora://signed-in"), started: now))
            let stores = [db.owner, other]
            let got = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<8 {
                    let store = stores[n % 2], now = self.now
                    group.addTask { try await store.takeSignIn(stateHash: "hash-raced", now: now + 1) != nil }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            XCTAssertEqual(got, 1)
        }
    }

    func testExpiredSignInsAreRefusedAndPurged() async throws {
        try await forEachEngine { db in
            let store = db.owner
            try await store.keepSignIn(signIn("late", .web(next: "/feed", browser: "b"), started: now))
            await assertNil(try await store.takeSignIn(stateHash: "hash-late", now: now + SignInRule.lifetime), "taken too late")
            await assertNil(try await store.takeSignIn(stateHash: "hash-late", now: now + 1), "and gone with it")

            // Dated further ahead than replicas' clocks differ: not taken.
            try await store.keepSignIn(signIn("ahead", .web(next: "/feed", browser: "b"), started: now + SignInRule.clockLeeway + 1))
            await assertNil(try await store.takeSignIn(stateHash: "hash-ahead", now: now))
            try await store.keepSignIn(signIn("slightly-ahead", .web(next: "/feed", browser: "b"), started: now + SignInRule.clockLeeway))
            let slightlyAhead = try await store.takeSignIn(stateHash: "hash-slightly-ahead", now: now)
            XCTAssertNotNil(slightlyAhead)

            // Keeping a new one purges those that can no longer finish.
            try await store.keepSignIn(signIn("old", .web(next: "/feed", browser: "b"), started: now))
            try await store.keepSignIn(signIn("young", .web(next: "/feed", browser: "b"), started: now + 100))
            try await store.keepSignIn(signIn("new", .web(next: "/feed", browser: "b"), started: now + SignInRule.lifetime))
            let left = try db.strings("SELECT state_hash FROM sign_ins ORDER BY state_hash")
            XCTAssertEqual(left, ["hash-new", "hash-young"])
        }
    }

    /// The start route needs no login: however many are started, at most the capacity are
    /// kept, the newest, the one just started among them.
    func testAtMostTheCapacityIsKeptTheNewest() async throws {
        try await forEachEngine { db in
            let store = db.owner
            for n in 0..<5 {
                try await store.keepSignIn(signIn("s\(n)", .mobile(redirectURI: "app://x"), started: now + Int64(n)), capacity: 3)
            }
            XCTAssertEqual(try db.strings("SELECT state_hash FROM sign_ins ORDER BY state_hash"), ["hash-s2", "hash-s3", "hash-s4"])
            // Started in the same second as those kept: still the one kept.
            try await store.keepSignIn(signIn("s5", .mobile(redirectURI: "app://x"), started: now + 4), capacity: 3)
            XCTAssertEqual(try db.strings("SELECT count(*) FROM sign_ins"), ["3"])
            let newest = try await store.takeSignIn(stateHash: "hash-s5", now: now + 5)
            XCTAssertNotNil(newest)
        }
    }

    func testASignInWithAnEmptyFieldIsRefused() async throws {
        try await forEachEngine { db in
            var empty = signIn("e", .web(next: "/feed", browser: "b"), started: now)
            empty.nonce = ""
            await assertThrows(LibraryError.invalid("a sign-in needs its state, nonce, verifier, callback and destination")) {
                try await db.owner.keepSignIn(empty)
            }
            await assertThrows(LibraryError.invalid("a sign-in needs its state, nonce, verifier, callback and destination")) {
                try await db.owner.keepSignIn(self.signIn("e", .mobile(redirectURI: ""), started: self.now))
            }
            XCTAssertEqual(try db.strings("SELECT count(*) FROM sign_ins"), ["0"])
        }
    }

    func testAReauthenticationIsTheSessionsAndGoesWithIt() async throws {
        try await forEachEngine { db in
            let store = db.owner, other = try await db.reopen().owner
            let bob = try await store.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: now)
            let session = try await store.createSession(user: bob.id, tokenHash: "bob-1", deviceName: nil, now: now)
            let second = try await store.createSession(user: bob.id, tokenHash: "bob-2", deviceName: nil, now: now)
            await assertNil(try await store.reauthentication(session: session.id))
            try await store.recordReauthentication(session: session.id, authenticated: now + 10)
            await assertEqual(try await other.reauthentication(session: session.id), now + 10, "another connection reads it")
            await assertNil(try await store.reauthentication(session: second.id), "only that session's")
            try await other.recordReauthentication(session: session.id, authenticated: now + 20)
            await assertEqual(try await store.reauthentication(session: session.id), now + 20, "the newest replaces it")
            await assertThrows(LibraryError.noSession(999_999)) {
                try await store.recordReauthentication(session: 999_999, authenticated: self.now)
            }
            // A re-authentication under way goes with its session too.
            try await store.keepSignIn(signIn("r", .reauthentication(session: session.id, next: "/settings", browser: "b"), started: now))
            try await store.revokeSession(id: session.id)
            await assertNil(try await store.reauthentication(session: session.id))
            await assertNil(try await store.takeSignIn(stateHash: "hash-r", now: now + 1))
            // And everything of a removed user's sessions goes with them.
            try await store.recordReauthentication(session: second.id, authenticated: now + 30)
            _ = try await store.removeUser(named: "bob")
            XCTAssertEqual(try db.strings("SELECT count(*) FROM session_reauthentications"), ["0"])
        }
    }
}
