/// What the player can be asked to play and the library can remember: a library item, an
/// http(s) URL, or a local file the user named.
public enum MediaTarget: Sendable, Equatable, Hashable {
    case item(Int64)
    case url(String)
    case file(String)
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
