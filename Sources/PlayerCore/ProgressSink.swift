import NowPlaying

/// Where listening progress goes (the daemon implements it against the library).
/// Calls arrive on one serial queue, in order, never on the audio thread.
public protocol ProgressSink: Sendable {
    /// Saves the resume position; called at least every 5 s while playing and on pause, stop, seek,
    /// errors and shutdown.
    func saveProgress(key: TrackKey, position: Double, duration: Double?)
    /// The item counts as heard (its end, or ≥ 95 % with under 2 min left); called once per playback.
    func itemFinished(key: TrackKey)
    /// Playback of the item ended on its own: at its end (`error` nil) or with an error. Not called
    /// for `stop` or for a new `play` replacing it. A queue advances on this.
    func playbackEnded(key: TrackKey, error: PlayerError?)
}

extension ProgressSink {
    public func playbackEnded(key: TrackKey, error: PlayerError?) {}
}

/// The "heard it" rule: at the end, or ≥ 95 % with less than 2 minutes left.
public enum CompletionRule {
    public static func isFinished(position: Double, duration: Double?) -> Bool {
        guard let duration, duration > 0 else { return false }
        return position >= duration - 0.5 || (position >= 0.95 * duration && duration - position < 120)
    }
}
