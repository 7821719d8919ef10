import Dispatch
import NowPlaying

/// Plays one item at a time: one decode → resample → write thread owns the decoder and the output;
/// the control methods only queue a command and wake that thread, so they never block on I/O and
/// may be called from any thread. Results show up in `snapshot` and as `nowPlaying` events; errors
/// never stop the player: it goes to `.stopped` with `snapshot.error` set.
/// Call `shutdown()` before dropping the player (its thread keeps it alive).
public final class Player: @unchecked Sendable {
    public let nowPlaying: NowPlayingCenter
    public let configuration: PlayerConfiguration

    private enum Command {
        case play(PlayRequest), pause, resume, toggle, stop(thenVolume: Double?), seekBy(Double), seekTo(Double), rate(Double)
        case chapters(ChapterList, key: TrackKey), shutdown
    }

    // Shared with the control methods; guarded by `cond`. Only the decode thread writes
    // `status`, `clock`, `current` and `output`. Lock order: never call into `output` holding `cond`.
    private let cond = Condition()
    private var commands: [Command] = []
    private var status: PlaybackStatus = .stopped
    private var clock = PositionClock()
    private var current: (key: TrackKey, playback: PlaybackID, duration: Double?)?
    private var playbacks: UInt64 = 0
    private var volume: Double = 1
    private var rate: Double = 1
    private var chapterList = ChapterList()
    private var lastError: PlayerError?
    private var output: (any AudioOutput)?
    private var interrupt: InterruptFlag?
    private var finished = false
    private let exited = DispatchSemaphore(value: 0)

    private let tracker: ProgressTracker
    // Decode-thread only.
    private var session: PlaybackSession?

    public init(configuration: PlayerConfiguration = PlayerConfiguration(),
                nowPlaying: NowPlayingCenter = NowPlayingCenter(),
                progressSink: (any ProgressSink)? = nil) {
        self.configuration = configuration
        self.nowPlaying = nowPlaying
        let weakSelf = WeakPlayer()
        tracker = ProgressTracker(
            sink: progressSink,
            probe: {
                guard let player = weakSelf.player, let report = player.progressProbe() else { return nil }
                player.nowPlaying.apply(.tick(position: report.position, duration: report.duration))
                player.updateChapter(at: report.position)
                return report
            })
        weakSelf.player = self
        startThread(name: "feedctl.player") { [self] in run() }
    }

    // MARK: Controls

    /// Stops what is playing and plays `request` from `request.startAt`.
    public func play(_ request: PlayRequest) { post(.play(request)) }
    public func pause() { post(.pause) }
    public func resume() { post(.resume) }
    public func toggle() { post(.toggle) }
    public func stop() { post(.stop(thenVolume: nil)) }
    /// Stops, then sets the volume once the output is silent and before the stop is published:
    /// a sleep timer's fade puts the volume back for the next item without a blip, and nobody
    /// sees "stopped" with the faded volume.
    public func stop(thenVolume volume: Double) { post(.stop(thenVolume: volume)) }
    /// Seeks relative to the current position, clamped at 0; past the end ends the item.
    public func seek(by seconds: Double) { post(.seekBy(seconds)) }
    public func seekForward() { post(.seekBy(configuration.seekStep)) }
    public func seekBackward() { post(.seekBy(-configuration.seekStep)) }
    /// Seeks to an absolute position, clamped to [0, duration]; at or past the end ends the item.
    public func seek(to seconds: Double) { post(.seekTo(seconds)) }

    /// Playback speed, pitch preserved: `Player.rateRange` in `Player.rateStep` steps (others are
    /// rounded and clamped). Applies to what is playing without a gap, and to later items.
    public func setRate(_ value: Double) { post(.rate(Self.normalizedRate(value))) }

    public static let rateRange: ClosedRange<Double> = 0.5...3.0
    public static let rateStep = 0.05

    /// `value` clamped to `rateRange` and rounded to a `rateStep` multiple; 1 when not a number.
    public static func normalizedRate(_ value: Double) -> Double {
        guard value.isFinite else { return 1 }
        let clamped = min(rateRange.upperBound, max(rateRange.lowerBound, value))
        // Through hundredths so 1.15 is 1.15, not 1.1500000000000001.
        return ((clamped / rateStep).rounded() * rateStep * 100).rounded() / 100
    }

    /// Replaces the chapters of item `key` (e.g. with a podcast's chapters file, which wins
    /// over embedded ones); ignored if another item is playing by then.
    public func setChapters(_ chapters: [Chapter], source: ChapterSource, key: TrackKey) {
        post(.chapters(ChapterList(chapters, source: source), key: key))
    }

    /// The current item's chapters (empty when it has none or nothing plays).
    public var chapters: ChapterList {
        cond.lock()
        defer { cond.unlock() }
        return chapterList
    }

    /// Volume 0–1, applied by PulseAudio to this player's stream at once.
    public func setVolume(_ value: Double) {
        let v = value.isFinite ? min(1, max(0, value)) : 1
        cond.lock()
        volume = v
        let output = self.output
        cond.unlock()
        output?.setVolume(v)
        nowPlaying.apply(.volume(v))
    }

    /// Saves progress, stops playback and ends the player's thread. Blocks until done.
    public func shutdown() {
        cond.lock()
        let already = finished
        finished = true
        cond.unlock()
        guard !already else { return }
        post(.shutdown, force: true)
        exited.wait()
        tracker.flush()
    }

    // MARK: State

    /// What the listener hears now, in seconds from the start of the item.
    public var position: Double {
        cond.lock()
        let clock = self.clock, output = self.output
        cond.unlock()
        return clock.position(latency: output?.latency())
    }

    public var snapshot: PlayerSnapshot {
        cond.lock()
        let clock = self.clock, output = self.output
        var snap = PlayerSnapshot(status: status, key: current?.key, position: 0,
                                  duration: current?.duration, volume: volume, rate: rate, error: lastError)
        cond.unlock()
        snap.position = snap.status == .stopped ? 0 : clock.position(latency: output?.latency())
        return snap
    }

    private func progressProbe() -> ProgressReport? {
        cond.lock()
        guard status == .playing, let current else { cond.unlock(); return nil }
        let clock = self.clock, output = self.output
        cond.unlock()
        return ProgressReport(.tick, key: current.key, playback: current.playback,
                              position: clock.position(latency: output?.latency()), duration: current.duration)
    }

    // MARK: Command queue

    private func post(_ command: Command, force: Bool = false) {
        cond.lock()
        if finished && !force { cond.unlock(); return }
        commands.append(command)
        switch command {
        case .play, .stop, .shutdown: interrupt?.abort() // a blocking open/read must give way
        default: break
        }
        let output = self.output
        cond.signal()
        cond.unlock()
        output?.wake()
    }

    private func hasCommands() -> Bool {
        cond.lock()
        defer { cond.unlock() }
        return !commands.isEmpty
    }

    // MARK: Decode thread

    private func run() {
        while true {
            cond.lock()
            while commands.isEmpty && !(session != nil && status == .playing) { cond.wait() }
            let batch = commands
            commands.removeAll()
            cond.unlock()
            for command in batch {
                if case .shutdown = command {
                    endSession(saving: true)
                    output?.close()
                    exited.signal()
                    return
                }
                handle(command)
            }
            guard let session, status == .playing, !hasCommands() else { continue }
            do throws(PlayerError) {
                try step(session)
            } catch {
                failUnlessSuperseded(error)
            }
        }
    }

    /// One unit of work while playing: decode a frame, write some audio, or wait for the end to drain.
    private func step(_ session: PlaybackSession) throws(PlayerError) {
        guard let output else { return }
        if !session.hasPending {
            if session.atEnd {
                if try output.drain(shouldYield: hasCommands) { finishItem() }
                return
            }
            try session.fill()
            return
        }
        let written = try session.withPending { pcm throws(PlayerError) in
            try output.write(pcm, shouldYield: hasCommands)
        }
        session.consume(written)
        let seconds = Double(written / Int(Resampler.channels)) / Double(session.outputRate)
        cond.lock()
        clock.rate = session.pendingRate
        clock.advance(by: seconds * session.pendingRate)
        cond.unlock()
    }

    private func handle(_ command: Command) {
        do throws(PlayerError) {
            switch command {
            case .play(let request):
                // A start that fails ends that item with its error (a queue moves on); a
                // session it replaced has already ended.
                do throws(PlayerError) { try start(request) } catch { failUnlessSuperseded(error, starting: request.key) }
            case .pause: try pauseNow()
            case .resume: try resumeNow()
            case .toggle: if status == .playing { try pauseNow() } else { try resumeNow() }
            case .stop(let volume): stopNow(thenVolume: volume)
            case .seekBy(let delta):
                guard session != nil else { return }
                try seekNow(to: position + delta)
            case .seekTo(let target): try seekNow(to: target)
            case .rate(let value): try changeRate(to: value)
            case .chapters(let list, let key):
                guard let session, session.request.key == key else { return }
                cond.lock()
                chapterList = ChapterList(list.chapters, source: list.source, duration: session.duration)
                cond.unlock()
                updateChapter(at: position)
            case .shutdown: break
            }
        } catch {
            failUnlessSuperseded(error)
        }
    }

    /// A `play` or `stop` posted meanwhile aborts blocking reads: that is not the item failing,
    /// the queued command decides what happens next.
    private func failUnlessSuperseded(_ error: PlayerError, starting key: TrackKey? = nil) {
        cond.lock()
        let superseded = (interrupt?.isAborted ?? false) && !commands.isEmpty
        cond.unlock()
        if !superseded { fail(error, starting: key) }
    }

    private func start(_ request: PlayRequest) throws(PlayerError) {
        endSession(saving: true)
        let flag = InterruptFlag()
        cond.lock()
        interrupt = flag
        lastError = nil
        cond.unlock()
        nowPlaying.apply(.error(nil))
        nowPlaying.apply(.metadata(request.metadata))
        let decoder: Decoder
        do throws(PlayerError) {
            decoder = try Decoder(source: request.source, interrupt: flag, timeout: configuration.networkTimeout)
        } catch {
            if flag.isAborted { return } // replaced by a newer command: not an error
            throw error
        }
        let output = try connectedOutput()
        let session = PlaybackSession(request: request, decoder: decoder)
        if let wanted = request.rate { setRateValue(Self.normalizedRate(wanted)) }
        try session.setTempo(currentRate)
        try output.open(rate: session.outputRate)
        var startAt = max(0, request.startAt.isFinite ? request.startAt : 0)
        if let duration = decoder.duration { startAt = min(startAt, duration) }
        if startAt > 0 { try session.seek(to: startAt) }
        self.session = session
        cond.lock()
        clock = PositionClock()
        clock.reset(at: startAt)
        playbacks += 1
        current = (request.key, PlaybackID(playbacks), decoder.duration)
        chapterList = ChapterList(decoder.chapters, source: .embedded, duration: decoder.duration)
        status = .playing
        cond.unlock()
        var metadata = request.metadata
        if metadata.length == nil { metadata.length = decoder.duration }
        nowPlaying.apply(.metadata(metadata))
        updateChapter(at: startAt)
        nowPlaying.apply(.status(.playing))
        if startAt > 0 { nowPlaying.apply(.seeked(position: startAt)) }
        tracker.start()
    }

    /// The PulseAudio connection, made on first use and again after the server went away.
    private func connectedOutput() throws(PlayerError) -> any AudioOutput {
        if let output, (output as? PulseOutput)?.isConnected ?? true { return output }
        let made: any AudioOutput
        switch configuration.output {
        case .discard: made = NullOutput()
        case .pulse(let server): made = try PulseOutput(server: server, applicationName: configuration.applicationName,
                                  bufferDuration: configuration.bufferDuration)
        }
        cond.lock()
        output = made
        let volume = self.volume
        cond.unlock()
        // A setVolume racing with this sets it again, to the same latest value.
        made.setVolume(volume)
        return made
    }

    /// Publishes the title of the chapter at `position` (NowPlaying drops repeats). Any thread.
    private func updateChapter(at position: Double) {
        cond.lock()
        let list = chapterList, playing = status != .stopped
        cond.unlock()
        guard playing else { return }
        nowPlaying.apply(.chapter(list.index(at: position).map { list.chapters[$0].title }))
    }

    private var currentPlayback: PlaybackID? {
        cond.lock()
        defer { cond.unlock() }
        return current?.playback
    }

    private var currentRate: Double {
        cond.lock()
        defer { cond.unlock() }
        return rate
    }

    private func setRateValue(_ value: Double) {
        cond.lock()
        rate = value
        cond.unlock()
        nowPlaying.apply(.rate(value))
    }

    private func changeRate(to value: Double) throws(PlayerError) {
        setRateValue(value)
        try session?.setTempo(value)
    }

    private func pauseNow() throws(PlayerError) {
        guard session != nil, status == .playing, let output else { return }
        try output.cork(true)
        let latency = output.latency()
        cond.lock()
        clock.freeze(latency: latency)
        status = .paused
        cond.unlock()
        tracker.stop()
        nowPlaying.apply(.status(.paused))
        saveProgress()
    }

    private func resumeNow() throws(PlayerError) {
        guard session != nil, status == .paused, let output else { return }
        try output.cork(false)
        cond.lock()
        clock.unfreeze()
        status = .playing
        cond.unlock()
        nowPlaying.apply(.status(.playing))
        tracker.start()
    }

    private func seekNow(to requested: Double) throws(PlayerError) {
        guard let session, let output else { return }
        var target = max(0, requested.isFinite ? requested : 0)
        if let duration = session.duration {
            if target >= duration {
                finishItem()
                return
            }
            target = min(target, duration)
        }
        try session.seek(to: target)
        try output.flush()
        cond.lock()
        clock.reset(at: target)
        cond.unlock()
        nowPlaying.apply(.seeked(position: target))
        updateChapter(at: target)
        saveProgress()
    }

    private func stopNow(thenVolume volume: Double?) {
        guard session != nil else {
            if let volume { setVolume(volume) }
            return
        }
        endSession(saving: true, thenVolume: volume)
    }

    /// The item played to its end.
    private func finishItem() {
        guard let session, let playback = currentPlayback else { return }
        let key = session.request.key
        let duration = session.duration ?? position
        tracker.stop()
        tracker.report(ProgressReport(.end, key: key, playback: playback, position: duration, duration: duration))
        tracker.ended(key: key, error: nil)
        endSession(saving: false)
    }

    private func fail(_ error: PlayerError, starting startingKey: TrackKey? = nil) {
        if let key = session?.request.key ?? startingKey { tracker.ended(key: key, error: error) }
        endSession(saving: true)
        if case .pulseUnavailable = error {
            cond.lock()
            output = nil // reconnect on the next play
            cond.unlock()
        }
        cond.lock()
        lastError = error
        cond.unlock()
        nowPlaying.apply(.error(error.description))
        nowPlaying.apply(.metadata(nil))
    }

    private func saveProgress() {
        guard let session, let playback = currentPlayback else { return }
        tracker.report(ProgressReport(.checkpoint, key: session.request.key, playback: playback, position: position,
                                      duration: session.duration))
    }

    /// Ends the current item (if any): optionally saves where it was, closes the stream, goes to stopped.
    private func endSession(saving: Bool, thenVolume volume: Double? = nil) {
        guard session != nil else { return }
        if saving { saveProgress() }
        tracker.stop()
        output?.silence()
        if let volume { setVolume(volume) }
        session = nil
        cond.lock()
        status = .stopped
        current = nil
        chapterList = ChapterList()
        clock = PositionClock()
        cond.unlock()
        nowPlaying.apply(.status(.stopped))
        nowPlaying.apply(.metadata(nil))
    }
}

/// Lets the tracker's closures reach the player without keeping it alive.
private final class WeakPlayer: @unchecked Sendable {
    weak var player: Player?
}
