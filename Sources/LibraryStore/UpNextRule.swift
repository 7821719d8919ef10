/// What both stores check of the up-next queue and the player's last played target (the
/// queue's once-only rule is `UpNextChange`'s).
public enum UpNextRule {
    /// Throws unless every target names something: an item, or a URL or a path that is not empty.
    public static func checkTargets(_ targets: some Sequence<MediaTarget>) throws(LibraryError) {
        for target in targets {
            switch target {
            case .url(let text), .file(let text):
                if text.isEmpty { throw .invalid("a queue entry needs a URL or a file path") }
            case .item: break
            }
        }
    }

    /// Throws unless `position` (1-based, as `queue remove N` and `queue move` take it) is an
    /// entry of a queue of `count`.
    public static func checkPosition(_ position: Int, count: Int) throws(LibraryError) {
        guard count > 0 else { throw .invalid("the queue is empty") }
        guard (1...count).contains(position) else { throw .invalid("no queue entry \(position) (the queue has \(count))") }
    }
}

extension MediaTarget {
    /// How the library keeps a target: three columns, one of them set (`up_next`; the
    /// `last_*` columns of `player_state`).
    public var columns: (item: Int64?, url: String?, file: String?) {
        switch self {
        case .item(let id): (id, nil, nil)
        case .url(let text): (nil, text, nil)
        case .file(let text): (nil, nil, text)
        }
    }

    /// The target such columns hold; nil when none is set.
    public init?(item: Int64?, url: String?, file: String?) {
        if let item { self = .item(item) }
        else if let url { self = .url(url) }
        else if let file { self = .file(file) }
        else { return nil }
    }
}

extension LastPlayed {
    /// What the library stores of `last` (nil: forget it): its target's columns (an empty URL or
    /// path as none), its title, and its position in seconds from 0 (one that is no number as 0).
    public static func stored(_ last: LastPlayed?) -> (item: Int64?, url: String?, file: String?, title: String?, position: Double) {
        let columns = last?.target.columns
        let position = last.map { $0.position.isFinite ? max(0, $0.position) : 0 } ?? 0
        return (columns?.item, columns?.url.flatMap { $0.isEmpty ? nil : $0 }, columns?.file.flatMap { $0.isEmpty ? nil : $0 },
                last?.title, position)
    }
}
