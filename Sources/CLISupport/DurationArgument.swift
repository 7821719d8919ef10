import FeedModel
import FeedText
import Foundation

/// The one parser for the durations and positions people type on the command line: `90`,
/// `1:30`, `1:02:03.5`, `30m`, `90s`, `1h30m`, `1.5h`, ISO 8601 (`PT1M30S`). A bare number counts
/// `bare` units (seek and progress take seconds, the sleep timer minutes). Nil for anything
/// else, and for what no clock can mean: negative, NaN, or past `PlayerLimits.positions` (a
/// billion seconds, about 31 years: past it, arithmetic on it could overflow).
public enum DurationArgument {
    public enum Unit: Sendable { case seconds, minutes }

    public static func seconds(_ text: String, bare: Unit = .seconds) -> Double? {
        guard let value = unbounded(text, bare: bare), PlayerLimits.positions.contains(value) else { return nil }
        return value
    }

    /// The duration `text` spells, however long (nil when it spells none), for a caller whose own
    /// type checks the bound and says it (`SeekTarget`).
    public static func unbounded(_ text: String, bare: Unit = .seconds) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let value = parse(t, bare: bare), value.isFinite, value >= 0 else { return nil }
        return value
    }

    private static func parse(_ t: String, bare: Unit) -> Double? {
        guard let first = t.first else { return nil }
        if first == "p" { return DurationParser.parse(t).map(Double.init) }
        if t.contains(":") { return clock(t) }
        if let number = Double(t), t.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            return bare == .minutes ? number * 60 : number
        }
        var total = 0.0, number = "", sawUnit = false
        for ch in t {
            if ch.isASCII && (ch.isNumber || ch == ".") { number.append(ch); continue }
            guard let value = Double(number) else { return nil }
            switch ch {
            case "h": total += value * 3600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        return number.isEmpty && sawUnit ? total : nil
    }

    /// `H:MM:SS` or `MM:SS`: whole fields, the last may have a fraction; after the first, each
    /// below 60 (the first may overflow: `75:30`).
    private static func clock(_ t: String) -> Double? {
        let fields = t.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count) else { return nil }
        var total = 0.0
        for (index, field) in fields.enumerated() {
            let isLast = index == fields.count - 1
            guard !field.isEmpty, field.allSatisfy({ $0.isASCII && ($0.isNumber || (isLast && $0 == ".")) }),
                  let value = Double(field), index == 0 || value < 60 else { return nil }
            total = total * 60 + value
        }
        return total
    }
}
