import CPulse

/// PulseAudio playback through the asynchronous API: a threaded mainloop runs the protocol, its
/// callbacks only signal the mainloop's condition, and the caller's thread does the work under the
/// mainloop lock (the pattern libpulse documents for threaded clients; mpv's ao_pulse does the same).
/// `stream` is only touched under that lock, so `latency`/`wake` are safe from any thread.
final class PulseOutput: AudioOutput, @unchecked Sendable {
    /// Target buffer (tlength): pause and seek act at once anyway (cork, flush); it bounds how
    /// late a volume change is heard and how often the server asks for data.
    private let targetLatency: pa_usec_t

    private let loop: OpaquePointer
    private let context: OpaquePointer
    private var stream: OpaquePointer?
    private var spec = pa_sample_spec()
    private var volume: Double = 1

    /// Connects to `server` (nil: libpulse's default: PULSE_SERVER, then the runtime dir). Never autospawns.
    init(server: String?, applicationName: String, bufferDuration: Double) throws(PlayerError) {
        targetLatency = pa_usec_t(min(2, max(0.02, bufferDuration)) * 1_000_000)
        guard let loop = pa_threaded_mainloop_new() else { throw .pulseUnavailable(reason: "out of memory") }
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(loop), applicationName) else {
            pa_threaded_mainloop_free(loop)
            throw .pulseUnavailable(reason: "out of memory")
        }
        self.loop = loop
        self.context = context
        pa_context_set_state_callback(context, { _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, UnsafeMutableRawPointer(loop))
        // From here on a throw runs deinit, which disconnects and frees everything.
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw .pulseUnavailable(reason: String(cString: pa_strerror(pa_context_errno(context))))
        }
        guard pa_threaded_mainloop_start(loop) >= 0 else {
            throw .pulseUnavailable(reason: "cannot start the mainloop thread")
        }
        pa_threaded_mainloop_lock(loop)
        var state = pa_context_get_state(context)
        while state != PA_CONTEXT_READY && state != PA_CONTEXT_FAILED && state != PA_CONTEXT_TERMINATED {
            pa_threaded_mainloop_wait(loop)
            state = pa_context_get_state(context)
        }
        let reason = String(cString: pa_strerror(pa_context_errno(context)))
        pa_threaded_mainloop_unlock(loop)
        guard state == PA_CONTEXT_READY else { throw .pulseUnavailable(reason: reason) }
    }

    deinit { shutdown() }

    private func shutdown() {
        pa_threaded_mainloop_lock(loop)
        closeLocked()
        pa_context_disconnect(context)
        pa_threaded_mainloop_unlock(loop)
        pa_threaded_mainloop_stop(loop)
        pa_context_unref(context)
        pa_threaded_mainloop_free(loop)
    }

    /// True while the server connection is usable.
    var isConnected: Bool {
        pa_threaded_mainloop_lock(loop)
        defer { pa_threaded_mainloop_unlock(loop) }
        return pa_context_get_state(context) == PA_CONTEXT_READY
    }

    func open(rate: Int32) throws(PlayerError) {
        pa_threaded_mainloop_lock(loop)
        // Reuse a live stream of the same rate: a new stream costs a round trip, and a null sink
        // that went idle between streams can sleep up to its 2 s idle latency before reading again.
        if let s = stream, pa_stream_get_state(s) == PA_STREAM_READY, spec.rate == UInt32(rate) {
            pa_threaded_mainloop_unlock(loop)
            try flush()
            try cork(false)
            return
        }
        defer { pa_threaded_mainloop_unlock(loop) }
        closeLocked()
        spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(rate), channels: UInt8(Resampler.channels))
        guard pa_sample_spec_valid(&spec) != 0 else { throw .audioOutput(reason: "unsupported sample rate \(rate)") }
        guard let s = pa_stream_new(context, "feedctl playback", &spec, nil) else { throw lostOrFailed() }
        let signal: pa_stream_notify_cb_t = { _, userdata in pa_threaded_mainloop_signal(OpaquePointer(userdata), 0) }
        pa_stream_set_state_callback(s, signal, UnsafeMutableRawPointer(loop))
        pa_stream_set_write_callback(s, { _, _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, UnsafeMutableRawPointer(loop))
        var attr = pa_buffer_attr(maxlength: UInt32.max,
                                  tlength: UInt32(pa_usec_to_bytes(targetLatency, &spec)),
                                  prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max)
        let flags = pa_stream_flags_t(PA_STREAM_AUTO_TIMING_UPDATE.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue)
        var cv = channelVolume()
        guard pa_stream_connect_playback(s, nil, &attr, flags, &cv, nil) >= 0 else {
            pa_stream_unref(s)
            throw lostOrFailed()
        }
        stream = s
        var state = pa_stream_get_state(s)
        while state == PA_STREAM_CREATING || state == PA_STREAM_UNCONNECTED {
            pa_threaded_mainloop_wait(loop)
            state = pa_stream_get_state(s)
        }
        guard state == PA_STREAM_READY else {
            closeLocked()
            throw lostOrFailed()
        }
    }

    func write(_ samples: UnsafeBufferPointer<Float>, shouldYield: () -> Bool) throws(PlayerError) -> Int {
        pa_threaded_mainloop_lock(loop)
        defer { pa_threaded_mainloop_unlock(loop) }
        guard let base = samples.baseAddress else { return 0 }
        let frameBytes = MemoryLayout<Float>.size * Int(Resampler.channels)
        var written = 0
        while written < samples.count {
            guard let s = stream, pa_stream_get_state(s) == PA_STREAM_READY else { throw lostOrFailed() }
            let writable = pa_stream_writable_size(s)
            if writable < 0 { throw lostOrFailed() }
            if writable == 0 {
                if shouldYield() { break }
                pa_threaded_mainloop_wait(loop)
                continue
            }
            let bytes = min(writable / frameBytes * frameBytes, (samples.count - written) * MemoryLayout<Float>.size)
            if bytes == 0 { pa_threaded_mainloop_wait(loop); continue }
            // nil free callback: libpulse copies the data.
            guard pa_stream_write(s, base + written, bytes, nil, 0, PA_SEEK_RELATIVE) >= 0 else { throw lostOrFailed() }
            written += bytes / MemoryLayout<Float>.size
        }
        return written
    }

    func cork(_ paused: Bool) throws(PlayerError) {
        try runOperation { s, cb, ud in pa_stream_cork(s, paused ? 1 : 0, cb, ud) }
    }

    func flush() throws(PlayerError) {
        try runOperation { s, cb, ud in pa_stream_flush(s, cb, ud) }
    }

    func drain(shouldYield: () -> Bool) throws(PlayerError) -> Bool {
        try runOperation(shouldYield: shouldYield) { s, cb, ud in pa_stream_drain(s, cb, ud) }
    }

    /// From the server's latest timing snapshot (AUTO_TIMING_UPDATE keeps them coming), carried
    /// forward to now: see `OutputTiming` for why not `pa_stream_get_latency`.
    func latency() -> Double? {
        pa_threaded_mainloop_lock(loop)
        defer { pa_threaded_mainloop_unlock(loop) }
        guard let s = stream, let info = pa_stream_get_timing_info(s)?.pointee,
              info.write_index_corrupt == 0, info.read_index_corrupt == 0 else { return nil }  // e.g. right after a flush
        let bytesPerSecond = Double(pa_bytes_per_second(&spec))
        var stamp = info.timestamp
        return OutputTiming(written: Double(max(0, info.write_index)) / bytesPerSecond,
                            read: Double(max(0, info.read_index)) / bytesPerSecond,
                            sinkLatency: Double(info.sink_usec) / 1_000_000,
                            playing: info.playing != 0,
                            age: Double(pa_timeval_age(&stamp)) / 1_000_000).latency
    }

    func close() {
        pa_threaded_mainloop_lock(loop)
        closeLocked()
        pa_threaded_mainloop_unlock(loop)
    }

    func silence() {
        _ = try? cork(true)
        _ = try? flush()
    }

    /// The server applies it to the sink input, buffered audio included (no lag as with software gain).
    func setVolume(_ linear: Double) {
        pa_threaded_mainloop_lock(loop)
        defer { pa_threaded_mainloop_unlock(loop) }
        volume = linear
        guard let s = stream, pa_stream_get_state(s) == PA_STREAM_READY else { return }
        var cv = channelVolume()
        if let op = pa_context_set_sink_input_volume(context, pa_stream_get_index(s), &cv, nil, nil) {
            pa_operation_unref(op) // fire and forget: nothing waits for it
        }
    }

    private func channelVolume() -> pa_cvolume {
        var cv = pa_cvolume()
        pa_cvolume_set(&cv, UInt32(Resampler.channels), pa_sw_volume_from_linear(volume))
        return cv
    }

    func wake() {
        pa_threaded_mainloop_lock(loop)
        pa_threaded_mainloop_signal(loop, 0)
        pa_threaded_mainloop_unlock(loop)
    }

    private func closeLocked() {
        guard let s = stream else { return }
        pa_stream_set_state_callback(s, nil, nil)
        pa_stream_set_write_callback(s, nil, nil)
        pa_stream_disconnect(s)
        pa_stream_unref(s)
        stream = nil
    }

    /// Starts a stream operation and waits for it under the lock; the success callback only signals.
    /// Returns false if `shouldYield` cancelled it.
    @discardableResult
    private func runOperation(
        shouldYield: () -> Bool = { false },
        _ start: (OpaquePointer, pa_stream_success_cb_t, UnsafeMutableRawPointer) -> OpaquePointer?
    ) throws(PlayerError) -> Bool {
        pa_threaded_mainloop_lock(loop)
        defer { pa_threaded_mainloop_unlock(loop) }
        guard let s = stream, pa_stream_get_state(s) == PA_STREAM_READY else { throw lostOrFailed() }
        let done: pa_stream_success_cb_t = { _, _, userdata in pa_threaded_mainloop_signal(OpaquePointer(userdata), 0) }
        guard let op = start(s, done, UnsafeMutableRawPointer(loop)) else { throw lostOrFailed() }
        defer { pa_operation_unref(op) }
        while pa_operation_get_state(op) == PA_OPERATION_RUNNING {
            if pa_stream_get_state(s) != PA_STREAM_READY { throw lostOrFailed() }
            if shouldYield() {
                pa_operation_cancel(op)
                return false
            }
            pa_threaded_mainloop_wait(loop)
        }
        if pa_operation_get_state(op) == PA_OPERATION_CANCELLED { throw lostOrFailed() }
        return true
    }

    /// The error for a failed call: the server being gone is reported as such. Call under the lock.
    private func lostOrFailed() -> PlayerError {
        if pa_context_get_state(context) != PA_CONTEXT_READY {
            return .pulseUnavailable(reason: "connection lost")
        }
        return .audioOutput(reason: String(cString: pa_strerror(pa_context_errno(context))))
    }
}

/// How much of the audio written to the stream is not yet heard, from one timing snapshot of the
/// server: heard = what the server had taken from the stream, minus what still sat in the sink,
/// plus the time since the snapshot while the stream plays; never more than was written.
///
/// Not `pa_stream_get_latency` with interpolation: its smoother runs from the moment the stream
/// exists, even while the server has not started it yet, and never runs backwards. A null sink
/// woken from idle reported 1.85 s of its own latency while nothing was read for ~1.4 s; the
/// smoother's time passed the written audio meanwhile, so the latency read 0 and the position was
/// the whole buffer (~0.2 s) ahead of what was heard for over a second after the real start.
struct OutputTiming: Equatable {
    /// Seconds of audio written into the stream (its write index).
    var written: Double
    /// Seconds the server had taken from the stream at the snapshot (its read index).
    var read: Double
    /// The sink's own buffer at the snapshot: taken from the stream, not yet heard.
    var sinkLatency: Double
    /// Whether the stream was playing at the snapshot (started, not corked, not underrun).
    var playing: Bool
    /// Seconds since the snapshot.
    var age: Double

    var heard: Double { min(written, max(0, read + (playing ? age : 0) - sinkLatency)) }
    var latency: Double { written - heard }
}
