import Foundation

/// The sleep timer's setting, as a value: when to stop, or stop when the current item ends.
/// The fade is the last `fadeSeconds` before the deadline.
package struct SleepTimer: Sendable, Equatable {
    package enum Mode: Sendable, Equatable {
        case off
        /// Stop at this wall-clock time (Unix seconds, fractional).
        case at(Double)
        /// Stop when the current item ends instead of advancing the queue.
        case endOfItem
    }

    package static let fadeSeconds = 10.0
    package var mode: Mode = .off

    /// `status`'s `sleep_at`: the deadline, or for end-of-item the current item's expected end.
    package func sleepAt(now: Double, remaining: Double?) -> Int64? {
        switch mode {
        case .off: return nil
        case .at(let deadline): return Int64(deadline.rounded())
        case .endOfItem: return remaining.map { Int64((now + $0).rounded()) }
        }
    }

    /// The volume factor at `now` for a deadline timer: 1 until the fade starts, then down to 0.
    package static func fadeFactor(now: Double, deadline: Double) -> Double {
        let left = deadline - now
        if left >= fadeSeconds { return 1 }
        return max(0, left / fadeSeconds)
    }

    /// Parses `30m`, `90s`, `1h30m`, `45` (minutes), `1:30:00`.
    package static func parseDuration(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t.contains(":") { return DurationText.clock(t) }
        if let minutes = Double(t), minutes.isFinite, minutes > 0 { return minutes * 60 }
        var total = 0.0, number = "", sawUnit = false
        for ch in t {
            if ch.isNumber || ch == "." { number.append(ch); continue }
            guard let value = Double(number), value.isFinite else { return nil }
            switch ch {
            case "h": total += value * 3600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
            number = ""; sawUnit = true
        }
        guard number.isEmpty, sawUnit, total > 0 else { return nil }
        return total
    }

    package init(mode: Mode = .off) {
        self.mode = mode
    }
}

package enum DurationText {
    /// `H:MM:SS` or `MM:SS` in seconds.
    package static func clock(_ t: String) -> Double? {
        let parts = t.split(separator: ":").map { Double($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        let total = parts.compactMap { $0 }.reduce(0) { $0 * 60 + $1 }
        return total > 0 ? total : nil
    }
}

/// A speed as people read it: `1.0`, `1.5`, `1.25`.
package enum RateText {
    package static func format(_ rate: Double) -> String {
        rate == rate.rounded() ? String(format: "%.1f", rate) : String(format: "%g", rate)
    }
}
