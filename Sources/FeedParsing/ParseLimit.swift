import FeedModel

/// Which bound of `ParseLimits` a document broke; `description` is the one line a person sees.
public enum ParseLimit: Sendable, Equatable, CustomStringConvertible {
    case depth(Int)
    case attributes(Int)
    case elements(Int)
    /// CPU seconds.
    case time(Double)
    /// Bytes the internal entities may expand to.
    case entityExpansion(Int)

    public var description: String {
        switch self {
        case .depth(let n): return "too deeply nested (more than \(n) levels)"
        case .attributes(let n): return "an element has more than \(n) attributes"
        case .elements(let n): return "more than \(n) elements"
        case .time(let s): return "took more than \(s == s.rounded() ? String(Int(s)) : String(s)) s to parse"
        case .entityExpansion(let n): return "entities expand to more than \(Self.size(n)) (an entity-amplification document)"
        }
    }

    private static func size(_ n: Int) -> String {
        n >= 1_000_000 ? "\(n / 1_000_000) MB" : n >= 1_000 ? "\(n / 1_000) KB" : "\(n) bytes"
    }
}
