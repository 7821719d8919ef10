/// The sleep timer's setting, as a value: when to stop, or stop when the current item ends.
/// The fade is the last `fadeSeconds` before the deadline.
struct SleepTimer: Sendable, Equatable {
    enum Mode: Sendable, Equatable {
        case off
        /// Stop at this wall-clock time (Unix seconds, fractional).
        case at(Double)
        /// Stop when the current item ends instead of advancing the queue.
        case endOfItem
    }

    static let fadeSeconds = 10.0
    var mode: Mode = .off

    /// `status`'s `sleep_at`: the deadline, or for end-of-item the current item's expected end.
    func sleepAt(now: Double, remaining: Double?) -> Int64? {
        switch mode {
        case .off: return nil
        case .at(let deadline): return Int64(deadline.rounded())
        case .endOfItem: return remaining.map { Int64((now + $0).rounded()) }
        }
    }

    /// The volume factor at `now` for a deadline timer: 1 until the fade starts, then down to 0.
    static func fadeFactor(now: Double, deadline: Double) -> Double {
        let left = deadline - now
        if left >= fadeSeconds { return 1 }
        return max(0, left / fadeSeconds)
    }
}
