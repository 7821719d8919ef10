import FeedModel
import LibraryStore
import Synchronization

/// Sessions opened while the library's disk was full (issue 26: nobody could log in, since a
/// login writes its session). The login succeeds all the same: its session is kept here, in
/// memory, and written to the library at a later use once a write succeeds again (tried at most
/// every `SessionRule.lastUsedResolution` seconds). It ends as a stored session does: at
/// logout, when it expires, and when its user's password changes or the user is removed
/// (checked at each use: `feedctl user passwd` ends only stored sessions). A restart of the
/// server before it is written forgets it, and its user logs in again. At most
/// `SessionRule.maxKeptWhileDiskFull` are kept; past that a login answers 507 like any write.
final class PendingSessions: Sendable {
    private struct Pending: Sendable {
        let user: UserID
        let deviceName: String?
        let createdAt: Int64
        /// The user's password hash at login: a changed password ends the session.
        let passwordHash: String
        var lastTry: Int64
    }

    /// By token hash.
    private let sessions = Mutex<[String: Pending]>([:])

    /// Keeps a session the library could not store; false when the rule's number are kept already.
    func keep(tokenHash: String, user: UserID, deviceName: String?, passwordHash: String, now: Int64) -> Bool {
        sessions.withLock { sessions in
            guard sessions.count < SessionRule.maxKeptWhileDiskFull else { return false }
            sessions[tokenHash] = Pending(user: user, deviceName: deviceName, createdAt: now, passwordHash: passwordHash, lastTry: now)
            return true
        }
    }

    func forget(tokenHash: String) {
        _ = sessions.withLock { $0.removeValue(forKey: tokenHash) }
    }

    /// The user whose pending session `tokenHash` is, while it is good; with its id in the
    /// library once it could be written there (it is then no longer pending).
    func user(tokenHash: String, now: Int64, store: any UserStore) async throws(LibraryError) -> (user: User, sessionID: Int64?)? {
        guard let pending = sessions.withLock({ $0[tokenHash] }) else { return nil }
        guard now < pending.createdAt + SessionRule.lifetime else { forget(tokenHash: tokenHash); return nil }
        let user: User
        do {
            user = try await store.user(id: pending.user)
        } catch .noUser {
            forget(tokenHash: tokenHash)
            return nil
        }
        guard try await store.passwordHash(of: user.name) == pending.passwordHash else {
            forget(tokenHash: tokenHash)
            return nil
        }
        let due = sessions.withLock { sessions in
            guard let entry = sessions[tokenHash], now - entry.lastTry >= SessionRule.lastUsedResolution else { return false }
            sessions[tokenHash]?.lastTry = now
            return true
        }
        guard due else { return (user, nil) }
        do {
            let stored = try await store.createSession(user: pending.user, tokenHash: tokenHash, deviceName: pending.deviceName,
                                                       now: pending.createdAt)
            forget(tokenHash: tokenHash)
            return (user, stored.id)
        } catch where error.isDiskFull {
            return (user, nil)   // still full: kept for the next try
        }
    }

    /// Sessions waiting to be written (tests).
    var count: Int { sessions.withLock { $0.count } }
}
