import CFFmpeg

/// The decode side of one item: decoder, resampler, and converted audio not yet written.
/// Owned by the player's decode thread.
final class PlaybackSession {
    let request: PlayRequest
    let decoder: Decoder
    let resampler: Resampler
    /// Interleaved stereo floats waiting to be written, from `offset` on.
    private(set) var pending: [Float] = []
    private(set) var offset = 0
    private(set) var atEnd = false
    /// After a seek or a start position: audio before it is dropped (decoders land on the packet before).
    private var trimTarget: Double?
    /// Media time of the next frame when a frame carries no timestamp.
    private var nextTime: Double = 0
    private var decodedAny = false
    /// Playback speed (media seconds per output second); the time-stretch exists only while it is not 1.
    private(set) var tempo: Double = 1
    private var stretch: TimeStretch?
    /// The speed `pending` was stretched at: what one output second of it is worth in media time.
    private(set) var pendingRate: Double = 1

    /// How much shorter than announced an item may end (durations are estimates for VBR MP3).
    static let endTolerance = 2.0

    static func seconds(_ t: Double) -> String {
        let tenths = Int((t * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    init(request: PlayRequest, decoder: Decoder) {
        self.request = request
        self.decoder = decoder
        self.resampler = Resampler(outputRate: Resampler.outputRate)
    }

    var outputRate: Int32 { resampler.outputRate }
    var duration: Double? { decoder.duration }
    var hasPending: Bool { offset < pending.count }

    /// Moves the decoder to `seconds` and forgets buffered audio.
    func seek(to seconds: Double) throws(PlayerError) {
        try decoder.seek(to: seconds, from: nextTime)
        resampler.reset()
        pending.removeAll(keepingCapacity: true)
        offset = 0
        atEnd = false
        trimTarget = seconds
        nextTime = seconds
        stretch = nil // its buffered audio is from before the seek
    }

    /// Changes the speed for audio decoded from now on. Going back to 1× first drains the filter
    /// into `pending`, so no audio is lost or repeated.
    func setTempo(_ value: Double) throws(PlayerError) {
        guard value != tempo else { return }
        tempo = value
        if let stretch {
            if value == 1 {
                try stretch.finish(into: &pending)
                self.stretch = nil
            } else {
                try stretch.setTempo(value)
            }
        }
    }

    /// Decodes and converts the next frame into `pending`; sets `atEnd` at the end.
    func fill() throws(PlayerError) {
        pending.removeAll(keepingCapacity: true)
        offset = 0
        guard try decoder.nextFrame() else {
            if let stretch {
                // The filter holds the last few hundred milliseconds: let them out before ending.
                try stretch.finish(into: &pending)
                self.stretch = nil
                if hasPending { return }
            }
            // A "file" that ends before its first frame is broken, not finished.
            guard decodedAny else {
                throw .cannotDecode(source: request.source.description, reason: "no audio could be decoded")
            }
            // Ending well before the length the container announced: a cut download or a dropped
            // connection, which must not count as "heard to the end".
            if let duration, nextTime < duration - Self.endTolerance {
                throw .cannotDecode(source: request.source.description,
                                    reason: "ends at \(Self.seconds(nextTime)) of \(Self.seconds(duration)) (truncated?)")
            }
            atEnd = true
            return
        }
        decodedAny = true
        let frame = decoder.frame.pointee
        let start = decoder.framePosition ?? nextTime
        let rate = Double(max(1, frame.sample_rate))
        let end = start + Double(frame.nb_samples) / rate
        nextTime = end
        let count = try resampler.convert(decoder.frame, source: request.source.description)
        var skip = 0
        if let target = trimTarget {
            if end <= target { return }
            skip = min(count, max(0, Int(((target - start) * Double(outputRate)).rounded())))
            trimTarget = nil
        }
        // Filter stages sit here, between the resampler and the output; the player advances its
        // clock in media time (PositionClock.rate = pendingRate).
        let channels = Int(Resampler.channels)
        let converted = resampler.output[(skip * channels)..<(count * channels)]
        pendingRate = tempo
        if tempo == 1 && stretch == nil {
            pending.append(contentsOf: converted)
            return
        }
        if stretch == nil { stretch = try TimeStretch(rate: outputRate, tempo: tempo) }
        try stretch?.process(converted, into: &pending)
    }

    /// Marks `floats` of the pending audio as written.
    func consume(_ floats: Int) { offset = min(pending.count, offset + floats) }

    func withPending<R>(_ body: (UnsafeBufferPointer<Float>) throws(PlayerError) -> R) throws(PlayerError) -> R {
        let result: Result<R, PlayerError> = pending.withUnsafeBufferPointer { all in
            let rest = UnsafeBufferPointer(rebasing: all[offset...])
            do throws(PlayerError) { return .success(try body(rest)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
