import NowPlaying

extension Player {
    /// What a caller can ask of the player (`send` or `perform`). Commands run in the order they
    /// were sent, one at a time, on the player's decode thread.
    public enum Command: Sendable, Equatable {
        /// Stops what is playing and plays `request` from `request.startAt` (clamped to the item).
        case play(PlayRequest)
        case pause
        case resume
        /// Pauses when playing, else resumes.
        case toggle
        /// Stops, saving where it was.
        case stop
        /// Stops, then sets the volume once the output is silent and before the stop is
        /// published: a sleep timer's fade puts the volume back for the next item without a
        /// blip, and nobody sees "stopped" with the faded volume.
        case stopThenVolume(Double)
        /// Seeks within the item playing or paused (it stays paused); at or past the end ends it.
        /// A seek the source cannot make is answered `.failed` and changes nothing.
        case seek(SeekTarget)
        /// Playback speed, pitch preserved (clamped to what the time-stretch filter can do; the
        /// caller chooses within the product's range). Applies to what is playing without a gap,
        /// and to later items.
        case rate(Double)
        /// Volume 0–1 (clamped), applied by PulseAudio to this player's stream, buffered audio included.
        case volume(Double)
        /// The volume changed by this much, clamped to 0–1 (one step, so two changes never race).
        case changeVolume(by: Double)
        /// Replaces the chapters of the track `key` (e.g. with a podcast's chapters file, which
        /// wins over embedded ones); ignored if another track is playing by then.
        case chapters(ChapterList, for: TrackKey)
        /// A play that failed before it reached the player (the service could not resolve its
        /// media: a redirect refused, a host that does not resolve): recorded as the last error,
        /// as a play that failed to open is, and nothing else changes.
        case failedToStart(PlayerError)
    }

    public enum SeekTarget: Sendable, Equatable {
        /// Seconds from the position heard now, clamped at 0.
        case relative(Double)
        /// Seconds from the start of the item, clamped at 0.
        case absolute(Double)
    }

    /// How a command `perform`ed ended.
    public enum Outcome: Sendable, Equatable {
        /// It ran; the player as it was right after (an error it caused is in `error`).
        case done(PlayerSnapshot)
        /// A `play` whose item could not be opened or started, or a `seek` the source could not
        /// make (the item plays on from where it was).
        case failed(PlayerError)
        /// A `play` that a newer `play` or `stop` replaced before it started, or any command
        /// sent after `shutdown`.
        case superseded
    }
}
