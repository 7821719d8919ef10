import NowPlaying

/// Where listening progress goes (the daemon implements it against the library). PlayerCore
/// reports facts; what they mean (when an item counts as heard) is the receiver's rule.
/// Calls arrive on one serial queue, in order, never on the audio thread.
public protocol ProgressSink: Sendable {
    /// Where a playback is: a `.tick` each second while playing (every fifth one a `.checkpoint`
    /// instead), a `.checkpoint` on pause, stop, seek, errors and shutdown, and `.end` once it
    /// played to its end.
    func progress(_ report: ProgressReport)
    /// Playback of the item ended on its own: at its end (`error` nil) or with an error. Not called
    /// for `stop` or for a new `play` replacing it. A queue advances on this.
    func playbackEnded(key: TrackKey, error: PlayerError?)
}

extension ProgressSink {
    public func playbackEnded(key: TrackKey, error: PlayerError?) {}
}

/// One playback of one item: each `play` that starts gets a new one, so a receiver can tell a
/// replay of the same item from the same playback going on.
public struct PlaybackID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "playback \(rawValue)" }
}

/// Where a playback is, in media seconds.
public struct ProgressReport: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The 1 Hz report while playing.
        case tick
        /// Worth saving as the resume position: every 5 s while playing, and on pause, stop,
        /// seek, errors and shutdown.
        case checkpoint
        /// Played to its end; `position` is the item's duration (or where it ended, if unknown).
        case end
    }

    public var kind: Kind
    public var key: TrackKey
    public var playback: PlaybackID
    public var position: Double
    public var duration: Double?

    public init(_ kind: Kind, key: TrackKey, playback: PlaybackID, position: Double, duration: Double?) {
        self.kind = kind
        self.key = key
        self.playback = playback
        self.position = position
        self.duration = duration
    }
}
