/// One thing a listener did with an episode, as the gpodder.net API carries it: what a phone
/// uploads, and what the library gives back (its own watch state included).
public struct EpisodeAction: Sendable, Equatable {
    /// The podcast's feed URL, as the client knows it.
    public var podcast: String
    /// The episode's media URL.
    public var episode: String
    /// The episode's guid, when the client sent one (AntennaPod and Kasts do): with it, episodes
    /// sharing a media URL stay apart.
    public var guid: String?
    public var kind: EpisodeActionKind
    /// The device that uploaded it; nil for the library's own state.
    public var device: String?
    /// When it happened (Unix seconds, UTC), by the client's clock: the last one wins.
    public var timestamp: Int64
    /// `play` only: where playing started, where it stopped, and the episode's length (seconds).
    /// A position of -1 is "none" (kept, but it moves no progress).
    public var started: Int?
    public var position: Int?
    public var total: Int?

    public init(podcast: String, episode: String, guid: String? = nil, kind: EpisodeActionKind, device: String? = nil,
                timestamp: Int64, started: Int? = nil, position: Int? = nil, total: Int? = nil) {
        self.podcast = podcast; self.episode = episode; self.guid = guid; self.kind = kind; self.device = device
        self.timestamp = timestamp; self.started = started; self.position = position; self.total = total
    }
}

/// gpodder.net's actions.
public enum EpisodeActionKind: String, Sendable, CaseIterable {
    case download, play, delete, new, flattr
}

/// Which actions to read back.
public struct EpisodeActionQuery: Sendable, Equatable {
    /// Sync clock reading (see `SyncDeviceStore`); 0: all.
    public var since: Int64
    /// Only this podcast's (feed URL).
    public var podcast: String?
    /// Only those uploaded by this device (the library's own state is then left out).
    public var device: String?
    /// Only the latest action of each episode (by its timestamp).
    public var aggregated: Bool

    public init(since: Int64 = 0, podcast: String? = nil, device: String? = nil, aggregated: Bool = false) {
        self.since = since; self.podcast = podcast; self.device = device; self.aggregated = aggregated
    }
}
