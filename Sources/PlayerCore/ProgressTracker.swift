import Dispatch
import NowPlaying

/// The 1 Hz progress tracker. Ticks come from a repeating DispatchSourceTimer: its deadlines are on
/// the monotonic clock and advance by exact intervals, so ticks do not drift. Every call into the
/// `ProgressSink` happens on `queue`, in order.
final class ProgressTracker: @unchecked Sendable {
    /// What a tick reports, read from the player (which publishes the tick to NowPlaying as it
    /// reads it); nil when nothing is playing.
    typealias Probe = @Sendable () -> ProgressReport?

    static let saveEvery = 5

    let queue = DispatchQueue(label: "feedctl.progress")
    private let sink: (any ProgressSink)?
    private let probe: Probe
    // Only touched on `queue`.
    private var timer: DispatchSourceTimer?
    private var ticksSinceSave = 0
    private var ticking: PlaybackID?

    init(sink: (any ProgressSink)?, probe: @escaping Probe) {
        self.sink = sink
        self.probe = probe
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

    /// Passes on a checkpoint or the end; the next periodic checkpoint is 5 ticks after it.
    func report(_ report: ProgressReport) {
        queue.async { [self] in
            ticksSinceSave = 0
            sink?.progress(report)
        }
    }

    func ended(key: TrackKey, error: PlayerError?) {
        queue.async { [self] in sink?.playbackEnded(key: key, error: error) }
    }

    /// Runs `body` on the queue after every call queued so far has reached the sink.
    func afterQueued(_ body: @escaping @Sendable () -> Void) { queue.async(execute: body) }

    /// Waits until every queued call has reached the sink.
    func flush() { queue.sync {} }

    private func tick() {
        guard var report = probe() else { return }
        if report.playback != ticking {
            // A new playback counts its own five ticks.
            ticking = report.playback
            ticksSinceSave = 0
        }
        ticksSinceSave += 1
        if ticksSinceSave >= Self.saveEvery {
            ticksSinceSave = 0
            report.kind = .checkpoint
        }
        sink?.progress(report)
    }
}
