/// "Position is what the listener hears": the media time at the end of the audio handed to the
/// output, minus the output's latency (as mpv computes it). A pure value; the player owns it.
struct PositionClock: Equatable {
    /// Media seconds at the end of the last audio written.
    private(set) var writtenEnd: Double = 0
    /// Nothing before this can be heard: the start position or the last seek target (the output was flushed).
    private(set) var floor: Double = 0
    /// Set while paused: the position does not move, whatever the output reports.
    private(set) var frozen: Double?
    /// Media seconds per output second (playback speed, for a future time-stretch stage): buffered
    /// output covers `latency * rate` of media, as in mpv's `pts - speed * delay`.
    var rate: Double = 1

    /// Starts over at `position` (load or seek); stays frozen there if it was paused.
    mutating func reset(at position: Double) {
        let p = max(0, position)
        writtenEnd = p
        floor = p
        if frozen != nil { frozen = p }
    }

    /// Adds `seconds` of media time (not output time) to what was written.
    mutating func advance(by seconds: Double) { writtenEnd += seconds }

    mutating func freeze(latency: Double?) { frozen = position(latency: latency) }
    mutating func unfreeze() { frozen = nil }

    /// The position for the output's current `latency` (nil while unknown: nothing heard yet).
    func position(latency: Double?) -> Double {
        if let frozen { return frozen }
        guard let latency else { return floor }
        return max(0, floor, min(writtenEnd, writtenEnd - latency * rate))
    }
}
