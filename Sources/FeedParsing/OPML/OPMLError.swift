/// Why an OPML file could not be read. `description` is the one line a person sees.
public enum OPMLError: Error, Equatable, CustomStringConvertible, Sendable {
    case empty(file: String)
    case notOPML(file: String, what: String)
    case malformed(file: String, why: String)
    case io(file: String, why: String)
    case tooLarge(file: String, limit: Int)
    /// Not XML but `count` feed URLs, one a line.
    case urlList(file: String, count: Int)

    public var description: String {
        switch self {
        case .empty(let file): return "can't import \(file): empty file"
        case .notOPML(let file, let what): return "can't import \(file): not an OPML document (\(what))"
        case .malformed(let file, let why): return "can't import \(file): malformed XML: \(why)"
        case .io(let file, let why): return "can't read \(file): \(why)"
        case .tooLarge(let file, let limit): return "can't import \(file): larger than \(limit / 1_000_000) MB"
        case .urlList(let file, let count):
            return "can't import \(file): not an OPML document but a list of \(count == 1 ? "1 URL" : "\(count) URLs"):"
                + " subscribe to them with `feedctl channel add URL…` (it takes several)"
        }
    }
}
