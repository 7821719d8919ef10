/// "Position is what the listener hears": the media time at the end of the audio handed to the
/// output, minus the output's latency (as mpv computes it). A pure value; the player owns it.
struct PositionClock: Equatable {
    /// Output seconds written at one speed; consecutive writes at the same speed merge.
    struct Span: Equatable {
        var output: Double
        var rate: Double
    }

    /// Media seconds at the end of the last audio written.
    private(set) var writtenEnd: Double = 0
    /// Nothing before this can be heard: the start position or the last seek target (the output was flushed).
    private(set) var floor: Double = 0
    /// Set while paused: the position does not move, whatever the output reports.
    private(set) var frozen: Double?
    /// Media seconds per output second of the audio written from now on (the playback speed).
    var rate: Double = 1
    /// The most recent output, newest last: buffered audio may predate a speed change, so the
    /// latency is converted to media time span by span (mpv's `pts - speed * delay`, per span).
    private(set) var recent: [Span] = []
    /// More output than any latency PulseAudio reports (its buffer is at most 2 s).
    private static let history = 5.0

    /// Starts over at `position` (load or seek); stays frozen there if it was paused.
    mutating func reset(at position: Double) {
        let p = max(0, position)
        writtenEnd = p
        floor = p
        recent.removeAll()
        if frozen != nil { frozen = p }
    }

    /// Adds `seconds` of media time (not output time), written at `rate`.
    mutating func advance(by seconds: Double) {
        guard seconds > 0 else { return }
        writtenEnd += seconds
        let output = seconds / max(rate, 0.01)
        if let last = recent.last, last.rate == rate {
            recent[recent.count - 1].output += output
        } else {
            recent.append(Span(output: output, rate: rate))
        }
        var total = recent.reduce(0) { $0 + $1.output }
        while recent.count > 1, total - recent[0].output >= Self.history {
            total -= recent.removeFirst().output
        }
    }

    /// Freezes at the position for `latency`, or at `atLeast` (a position already reported, see
    /// `HeardPosition`) when that is further.
    mutating func freeze(latency: Double?, atLeast: Double? = nil) { frozen = max(position(latency: latency), atLeast ?? 0) }
    mutating func unfreeze() { frozen = nil }

    /// Media seconds the last `latency` seconds of output cover.
    private func mediaSpan(ofOutput latency: Double) -> Double {
        var left = latency, media = 0.0
        for span in recent.reversed() {
            let part = min(left, span.output)
            media += part * span.rate
            left -= part
            if left <= 0 { return media }
        }
        return media + left * (recent.first?.rate ?? rate)
    }

    /// The position for the output's current `latency` (nil while unknown: nothing heard yet).
    func position(latency: Double?) -> Double {
        if let frozen { return frozen }
        guard let latency else { return floor }
        return max(0, floor, min(writtenEnd, writtenEnd - mediaSpan(ofOutput: max(0, latency))))
    }
}
