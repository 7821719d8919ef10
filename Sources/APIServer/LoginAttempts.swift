import FeedModel

/// The login throttle's memory: the failed attempts of the last `LoginThrottle.windowSeconds`,
/// per user name and per peer address. A value (the state machine), kept by `LoginAttempts`.
///
/// An attempt is counted as a failure when it *starts* and forgiven when it succeeds, so that
/// parallel guesses cannot all pass the check before any of them is recorded.
struct LoginAttemptLog: Sendable {
    private var byUser: [String: [Int64]] = [:]
    private var byAddress: [String: [Int64]] = [:]
    /// Past this many keys, every key's expired attempts are dropped (a flood of made-up names
    /// from many addresses cannot grow the log without bound).
    static let pruneAbove = 10_000

    /// Starts an attempt for `user` from `address` at `now`: nil when it may go on (it is then
    /// counted), else the seconds until it may (Retry-After).
    mutating func begin(user: String, address: String, now: Int64) -> Int64? {
        prune(now: now)
        let userFailures = Self.recent(byUser[user], now: now)
        let addressFailures = Self.recent(byAddress[address], now: now)
        var waits: [Int64] = []
        if userFailures.count >= LoginThrottle.maxFailuresPerUser {
            waits.append(userFailures[userFailures.count - LoginThrottle.maxFailuresPerUser] + LoginThrottle.windowSeconds - now)
        }
        if addressFailures.count >= LoginThrottle.maxFailuresPerAddress {
            waits.append(addressFailures[addressFailures.count - LoginThrottle.maxFailuresPerAddress] + LoginThrottle.windowSeconds - now)
        }
        if let wait = waits.max() { return max(1, wait) }
        byUser[user] = userFailures + [now]
        byAddress[address] = addressFailures + [now]
        return nil
    }

    /// The attempt begun at `at` succeeded: it is not a failure, and the user's earlier failures
    /// are forgiven (the person got in); the address keeps its count.
    mutating func succeeded(user: String, address: String, at: Int64) {
        byUser[user] = nil
        if var times = byAddress[address], let index = times.lastIndex(of: at) {
            times.remove(at: index)
            byAddress[address] = times.isEmpty ? nil : times
        }
    }

    private static func recent(_ times: [Int64]?, now: Int64) -> [Int64] {
        (times ?? []).filter { $0 > now - LoginThrottle.windowSeconds }
    }

    private mutating func prune(now: Int64) {
        guard byUser.count + byAddress.count > Self.pruneAbove else { return }
        byUser = byUser.compactMapValues { let r = Self.recent($0, now: now); return r.isEmpty ? nil : r }
        byAddress = byAddress.compactMapValues { let r = Self.recent($0, now: now); return r.isEmpty ? nil : r }
    }
}

/// The server's one `LoginAttemptLog`, shared by every request.
actor LoginAttempts {
    private var log = LoginAttemptLog()

    func begin(user: String, address: String, now: Int64) -> Int64? { log.begin(user: user, address: address, now: now) }
    func succeeded(user: String, address: String, at: Int64) { log.succeeded(user: user, address: address, at: at) }
}
