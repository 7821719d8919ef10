import FeedModel
import Synchronization

/// Failed logins per user name (`SyncRule.maxFailedLogins` within `failedLoginWindow`): past
/// that the name is refused before its password is checked, so a guesser cannot keep bcrypt
/// busy or try passwords faster than the limit. Per name only: the request context does not
/// carry the client's address (the bearer authenticator's limiter is to add the per-address one).
final class GPodderLoginThrottle: Sendable {
    private let failures = Mutex<[String: [Int64]]>([:])

    /// Seconds until `name` may try again, nil when it may now.
    func retryAfter(_ name: String, now: Int64) -> Int64? {
        failures.withLock { table in
            let recent = (table[name] ?? []).filter { $0 > now - SyncRule.failedLoginWindow }
            guard recent.count >= SyncRule.maxFailedLogins, let oldest = recent.first else { return nil }
            return max(1, oldest + SyncRule.failedLoginWindow - now)
        }
    }

    func failed(_ name: String, now: Int64) {
        failures.withLock { table in
            // Names nobody tries any more are forgotten, so the table cannot grow without bound.
            if table.count > 10_000 { table = table.filter { $0.value.contains { $0 > now - SyncRule.failedLoginWindow } } }
            var recent = (table[name] ?? []).filter { $0 > now - SyncRule.failedLoginWindow }
            recent.append(now)
            table[name] = Array(recent.suffix(SyncRule.maxFailedLogins))
        }
    }

    func succeeded(_ name: String) {
        _ = failures.withLock { $0.removeValue(forKey: name) }
    }
}
