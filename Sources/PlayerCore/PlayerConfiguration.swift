import NowPlaying

/// How a `Player` is set up.
public struct PlayerConfiguration: Sendable {
    public enum Output: Sendable, Equatable {
        /// PulseAudio; `server` nil means libpulse's default lookup (PULSE_SERVER, then the runtime dir).
        case pulse(server: String?)
        /// Discard audio as fast as it is decoded (benchmarks).
        case discard
    }

    public var output: Output
    /// Step of `seekForward`/`seekBackward`, seconds.
    public var seekStep: Double
    /// Bound on opening a URL and on any single network read, seconds.
    public var networkTimeout: Double
    /// Shown by PulseAudio (pactl list sink-inputs).
    public var applicationName: String
    /// Audio buffered in PulseAudio, seconds (0.02–2). Pause and seek are immediate regardless;
    /// it bounds volume-change lag and sets how often the server wakes the player.
    public var bufferDuration: Double
    /// Bytes of a URL whose server cannot seek (no byte ranges) kept for seeking back without
    /// downloading it again (`RewindableStream`); allocated only for such sources, as they are read.
    public var rewindCacheBytes: Int
    /// ~4 min of a 128 kbps MP3: every "-15 s" is served from memory.
    public static let defaultRewindCacheBytes = 4 << 20
    /// Where the playing file's cover art is written for MPRIS (`mpris:artUrl`); nil: not written.
    public var artDirectory: String?

    public init(output: Output = .pulse(server: nil), seekStep: Double = 15, networkTimeout: Double = 15,
                applicationName: String = "feedctl", bufferDuration: Double = 0.3,
                rewindCacheBytes: Int = PlayerConfiguration.defaultRewindCacheBytes, artDirectory: String? = nil) {
        self.artDirectory = artDirectory
        self.rewindCacheBytes = rewindCacheBytes
        self.output = output
        self.bufferDuration = bufferDuration
        self.seekStep = seekStep
        self.networkTimeout = networkTimeout
        self.applicationName = applicationName
    }
}

/// One thing to play.
public struct PlayRequest: Sendable, Equatable {
    /// The track it is: the key progress is saved under (e.g. the library item).
    public var key: TrackKey
    public var source: MediaSource
    public var metadata: TrackMetadata
    /// Seconds to start at (a saved resume position); clamped to the item.
    public var startAt: Double
    /// Speed for this item (e.g. its channel's); nil keeps the player's current speed.
    public var rate: Double?

    public init(key: TrackKey, source: MediaSource, metadata: TrackMetadata? = nil, startAt: Double = 0,
                rate: Double? = nil) {
        self.key = key
        self.rate = rate
        self.source = source
        self.metadata = metadata ?? TrackMetadata(key: key, url: source.description)
        self.startAt = startAt
    }
}

/// A consistent view of the player at one moment.
public struct PlayerSnapshot: Sendable, Equatable {
    public var status: PlaybackStatus
    /// The track playing or paused; nil when stopped.
    public var key: TrackKey?
    public var position: Double
    public var duration: Double?
    public var volume: Double
    /// Playback speed (1 = normal).
    public var rate: Double
    /// The last error; cleared when a new item starts.
    public var error: PlayerError?
}
