/// What the player can be asked to play and the library can remember: a library item, an
/// http(s) URL, or a local file the user named.
public enum MediaTarget: Sendable, Equatable, Hashable {
    case item(Int64)
    case url(String)
    case file(String)

    /// As a person named it: the item id, the URL or the path.
    public var text: String {
        switch self {
        case .item(let id): String(id)
        case .url(let text), .file(let text): text
        }
    }

    public var itemID: Int64? {
        if case .item(let id) = self { return id }
        return nil
    }
}

/// One entry of the up-next queue, as the library keeps it.
public struct UpNextEntry: Sendable, Equatable {
    /// The entry's own id: stable while it waits, whatever moves around it.
    public var id: Int64
    /// 1-based place in the queue (what `queue remove N` and `queue move` take).
    public var position: Int
    public var target: MediaTarget
    public var title: String

    public init(id: Int64, position: Int, target: MediaTarget, title: String) {
        self.id = id; self.position = position; self.target = target; self.title = title
    }
}

/// What adding to the up-next queue did. The rule, for every way in (CLI, API, MPRIS, the
/// daemon): a target waits in the queue at most once, as in AntennaPod. Adding one already
/// queued leaves it where it is; putting one "next" that is already queued moves it to the
/// front. So nothing plays twice because it was queued twice.
public struct UpNextChange: Sendable, Equatable {
    /// The entries new to the queue, as stored.
    public var added: [UpNextEntry]
    /// The entries that were queued already, as they are now (moved to the front by
    /// `insertNextInUpNext`, where they were for `appendToUpNext`).
    public var alreadyQueued: [UpNextEntry]

    public init(added: [UpNextEntry], alreadyQueued: [UpNextEntry]) {
        self.added = added; self.alreadyQueued = alreadyQueued
    }
}

/// What was playing last, to continue after a stop or a restart (`play` with no argument).
public struct LastPlayed: Sendable, Equatable {
    public var target: MediaTarget
    public var title: String
    /// Seconds into the media.
    public var position: Double

    public init(target: MediaTarget, title: String, position: Double) {
        self.target = target; self.title = title; self.position = position
    }
}
