/// Where PCM goes: interleaved float32 stereo. The player's decode thread calls `open`, `write`,
/// `cork`, `flush`, `drain` and `close`; any thread may call `latency` and `wake`.
protocol AudioOutput: AnyObject, Sendable {
    /// Makes a playing, empty stream at `rate` (frames per second, stereo float32), reusing the
    /// current one when it can. Blocks until ready.
    func open(rate: Int32) throws(PlayerError)
    /// Writes as much of `samples` as the stream accepts, blocking while it is full, and returns the
    /// number of floats written; returns early (possibly 0) once `shouldYield()` is true.
    func write(_ samples: UnsafeBufferPointer<Float>, shouldYield: () -> Bool) throws(PlayerError) -> Int
    /// Pauses (true) or resumes (false) the stream; returns once the server applied it.
    func cork(_ paused: Bool) throws(PlayerError)
    /// Drops everything buffered (after a seek). Returns once the server applied it.
    func flush() throws(PlayerError)
    /// Blocks until everything written was played; false if `shouldYield()` interrupted it.
    func drain(shouldYield: () -> Bool) throws(PlayerError) -> Bool
    /// Seconds of written audio not yet heard (buffered + device), nil while unknown.
    func latency() -> Double?
    /// Ends the stream, dropping anything buffered.
    func close()
    /// Stops sound now (cork and flush) but keeps the stream for the next item.
    func silence()
    /// Wakes a `write` or `drain` blocked in this output so it re-checks `shouldYield`.
    func wake()
    /// Sets the volume (0–1) at once, including audio already buffered; kept for later streams.
    func setVolume(_ linear: Double)
}

/// Discards audio as fast as it comes: for the decode benchmark.
final class NullOutput: AudioOutput {
    func open(rate: Int32) throws(PlayerError) {}
    func write(_ samples: UnsafeBufferPointer<Float>, shouldYield: () -> Bool) throws(PlayerError) -> Int {
        samples.count
    }
    func cork(_ paused: Bool) throws(PlayerError) {}
    func flush() throws(PlayerError) {}
    func drain(shouldYield: () -> Bool) throws(PlayerError) -> Bool { true }
    func latency() -> Double? { 0 }
    func close() {}
    func silence() {}
    func wake() {}
    func setVolume(_ linear: Double) {}
}
