/// Why a document could not be turned into a feed. `description` is the one line a person sees.
public enum FeedError: Error, Equatable, CustomStringConvertible, Sendable {
    /// 0 bytes.
    case empty
    /// Not a feed at all; the payload says what it is ("an HTML page without a feed", "a PNG image").
    case notAFeed(String)
    /// XML so broken that nothing usable could be recovered; the payload is libxml2's message.
    case malformed(String)
    /// Reading the file failed.
    case io(String)
    /// The document exceeds the size cap.
    case tooLarge(limit: Int)
    /// Parsing it would cost more than a feed may (`ParseLimits`): too deep, too many
    /// attributes or elements, too much CPU, entities expanding too far.
    case overLimit(ParseLimit)

    public var description: String {
        switch self {
        case .empty: return "empty document (0 bytes)"
        case .notAFeed(let what): return "not a feed: \(what)"
        case .malformed(let why): return "malformed feed: \(why)"
        case .io(let why): return why
        case .tooLarge(let limit): return "document larger than \(limit / 1_000_000) MB"
        case .overLimit(let limit): return limit.description
        }
    }
}
