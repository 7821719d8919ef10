import Dispatch
import NowPlaying

/// The 1 Hz progress tracker. Ticks come from a repeating DispatchSourceTimer: its deadlines are on
/// the monotonic clock and advance by exact intervals, so ticks do not drift. Every call into the
/// `ProgressSink` happens on `queue`, in order.
final class ProgressTracker: @unchecked Sendable {
    /// What a tick needs from the player; nil when nothing is playing.
    typealias Probe = @Sendable () -> (key: TrackKey, position: Double, duration: Double?)?
    typealias TickHandler = @Sendable (_ position: Double, _ duration: Double?) -> Void

    static let saveEvery = 5

    let queue = DispatchQueue(label: "feedctl.progress")
    private let sink: (any ProgressSink)?
    private let probe: Probe
    private let onTick: TickHandler
    // Only touched on `queue`.
    private var timer: DispatchSourceTimer?
    private var ticksSinceSave = 0
    private var finishedKey: TrackKey?

    init(sink: (any ProgressSink)?, probe: @escaping Probe, onTick: @escaping TickHandler) {
        self.sink = sink
        self.probe = probe
        self.onTick = onTick
    }

    /// Starts ticking one second from now (playback started or resumed).
    func start() {
        queue.async { [self] in
            timer?.cancel()
            let t = DispatchSource.makeTimerSource(queue: queue)
            t.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(5))
            t.setEventHandler { [weak self] in self?.tick() }
            t.resume()
            timer = t
        }
    }

    /// Stops ticking (pause, stop, end).
    func stop() {
        queue.async { [self] in
            timer?.cancel()
            timer = nil
        }
    }

    /// Saves now (pause, stop, seek, error, shutdown) and checks completion.
    func save(key: TrackKey, position: Double, duration: Double?) {
        queue.async { [self] in record(key: key, position: position, duration: duration) }
    }

    /// The item was played to its end.
    func finished(key: TrackKey, duration: Double?) {
        queue.async { [self] in
            record(key: key, position: duration ?? 0, duration: duration, atEnd: true)
        }
    }

    func ended(key: TrackKey, error: PlayerError?) {
        queue.async { [self] in sink?.playbackEnded(key: key, error: error) }
    }

    /// A new playback begins: its completion may be reported again.
    func begin(key: TrackKey) {
        queue.async { [self] in
            finishedKey = nil
            ticksSinceSave = 0
        }
    }

    /// Waits until every queued call has reached the sink.
    func flush() { queue.sync {} }

    private func tick() {
        guard let (key, position, duration) = probe() else { return }
        onTick(position, duration)
        ticksSinceSave += 1
        if ticksSinceSave >= Self.saveEvery {
            record(key: key, position: position, duration: duration)
        } else if CompletionRule.isFinished(position: position, duration: duration) {
            reportFinished(key)
        }
    }

    private func record(key: TrackKey, position: Double, duration: Double?, atEnd: Bool = false) {
        ticksSinceSave = 0
        sink?.saveProgress(key: key, position: position, duration: duration)
        if atEnd || CompletionRule.isFinished(position: position, duration: duration) { reportFinished(key) }
    }

    private func reportFinished(_ key: TrackKey) {
        guard finishedKey != key else { return }
        finishedKey = key
        sink?.itemFinished(key: key)
    }
}
