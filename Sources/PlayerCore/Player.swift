import Dispatch
import NowPlaying

/// Plays one item at a time. Its state and transitions are a `PlayerMachine`; one decode →
/// resample → write thread feeds it commands and facts and executes the actions it returns: it
/// owns the decoder and the output. `send` and `perform` only queue a command and wake that
/// thread, so they never block on I/O and may be called from any thread. Results show up in
/// `snapshot`, in `perform`'s outcome and as `nowPlaying` events; errors never stop the player: it
/// goes to `.stopped` with `snapshot.error` set.
/// Call `shutdown()` before dropping the player (its thread keeps it alive).
public final class Player: @unchecked Sendable {
    public let nowPlaying: NowPlayingCenter
    public let configuration: PlayerConfiguration

    private typealias Reply = PlayerMachine.Reply

    /// What waits for the decode thread, in order.
    private enum Envelope {
        case command(Command, Reply?)
        case shutdown
    }

    // Shared with callers; guarded by `cond`. Only the decode thread writes `machine` and
    // `output` (so it reads them without the lock). Lock order: never call into `output` holding `cond`.
    private let cond = Condition()
    private var machine = PlayerMachine()
    private var inbox: [Envelope] = []
    private var waiting: [Reply: CheckedContinuation<Outcome, Never>] = [:]
    private var replies: UInt64 = 0
    private var output: (any AudioOutput)?
    private var interrupt: InterruptFlag?
    /// The decode thread is opening media (`interrupt` is that open's).
    private var opening = false
    private var finished = false
    private let exited = DispatchSemaphore(value: 0)

    private let tracker: ProgressTracker
    private let publisher: NowPlayingPublisher
    // Decode-thread only.
    private var session: PlaybackSession?

    public init(configuration: PlayerConfiguration = PlayerConfiguration(),
                nowPlaying: NowPlayingCenter = NowPlayingCenter(),
                progressSink: (any ProgressSink)? = nil) {
        self.configuration = configuration
        self.nowPlaying = nowPlaying
        publisher = NowPlayingPublisher(nowPlaying)
        let weakSelf = WeakPlayer()
        tracker = ProgressTracker(sink: progressSink, probe: { weakSelf.player?.tick() })
        weakSelf.player = self
        startThread(name: "feedctl.player") { [self] in run() }
    }

    // MARK: Commands

    /// Queues `command` and returns at once.
    public func send(_ command: Command) {
        cond.lock()
        guard !finished else { cond.unlock(); return }
        let output = enqueue(.command(command, nil))
        cond.unlock()
        output?.wake()
    }

    /// Queues `command` and returns once it has run: a `play` once its item plays or failed to
    /// open, a pause once the output is paused and its checkpoint reached the progress sink.
    public func perform(_ command: Command) async -> Outcome {
        await withCheckedContinuation { continuation in
            cond.lock()
            guard !finished else {
                cond.unlock()
                continuation.resume(returning: .superseded)
                return
            }
            replies += 1
            let reply = Reply(id: replies)
            waiting[reply] = continuation
            let output = enqueue(.command(command, reply))
            cond.unlock()
            output?.wake()
        }
    }

    public func seekForward() { send(.seek(.relative(configuration.seekStep))) }
    public func seekBackward() { send(.seek(.relative(-configuration.seekStep))) }

    /// Saves progress, stops playback and ends the player's thread. Blocks until done.
    public func shutdown() {
        cond.lock()
        let already = finished
        finished = true
        let output = already ? nil : enqueue(.shutdown)
        cond.unlock()
        guard !already else { return }
        output?.wake()
        exited.wait()
        tracker.flush()
    }

    /// Under `cond`. Returns the output to wake, outside the lock.
    private func enqueue(_ envelope: Envelope) -> (any AudioOutput)? {
        inbox.append(envelope)
        switch envelope {
        case .command(.play, _):
            // An open in progress gives way. A playing item's reads do not: a play holds that
            // item, which must play on if the new one cannot open (an aborted read ends it).
            if opening { interrupt?.abort() }
        case .command(.stop, _), .command(.stopThenVolume, _), .shutdown:
            interrupt?.abort() // a blocking open/read must give way
        default:
            break
        }
        cond.signal()
        return output
    }

    // MARK: State

    /// What the listener hears now, in seconds from the start of the item.
    public var position: Double {
        cond.lock()
        let clock = machine.clock, epoch = machine.clockEpoch, output = self.output
        cond.unlock()
        return heard(clock.position(latency: output?.latency()), epoch: epoch)
    }

    private var heardSoFar = HeardPosition()

    private func heard(_ position: Double, epoch: UInt64) -> Double {
        cond.lock()
        defer { cond.unlock() }
        return heardSoFar.report(position, epoch: epoch)
    }

    public var snapshot: PlayerSnapshot {
        cond.lock()
        let machine = self.machine, output = self.output
        cond.unlock()
        let position = machine.status == .stopped ? 0 : heard(machine.position(latency: output?.latency()), epoch: machine.clockEpoch)
        return PlayerSnapshot(status: machine.status, key: machine.item?.request.key, position: position,
                              duration: machine.item?.duration, volume: machine.volume, rate: machine.rate,
                              error: machine.error)
    }

    /// The current item's chapters (empty when it has none or nothing plays).
    public var chapters: ChapterList {
        cond.lock()
        defer { cond.unlock() }
        return machine.chapters
    }

    /// The state as NowPlaying shows it, at the position heard now; with `onlyPlaying`, nil
    /// unless playing.
    private func view(onlyPlaying: Bool = false) -> NowPlayingView? {
        cond.lock()
        let machine = self.machine, output = self.output
        cond.unlock()
        if onlyPlaying && machine.status != .playing { return nil }
        let position = machine.status == .stopped ? 0 : heard(machine.position(latency: output?.latency()), epoch: machine.clockEpoch)
        return NowPlayingView(machine, position: position)
    }

    /// The 1 Hz tick, on the tracker's queue: publishes the position and reports it to the sink.
    private func tick() -> ProgressReport? {
        guard let view = publisher.publish(tick: true, { view(onlyPlaying: true) }),
              let key = view.key, let playback = view.playback else { return nil }
        return ProgressReport(.tick, key: key, playback: playback, position: view.position, duration: view.duration)
    }

    // MARK: Decode thread

    private func run() {
        while true {
            cond.lock()
            while inbox.isEmpty && !(session != nil && machine.status == .playing) { cond.wait() }
            let batch = inbox
            inbox.removeAll()
            cond.unlock()
            for envelope in batch {
                let latency = output?.latency()
                switch envelope {
                case .command(let command, let reply):
                    step(.command(command, reply: reply, latency: latency))
                case .shutdown:
                    step(.shutdown(latency: latency))
                    end()
                    return
                }
            }
            guard let session, machine.status == .playing, !hasCommands() else { continue }
            do throws(PlayerError) {
                try pump(session)
            } catch {
                if !isSuperseded() { step(.failed(error, latency: output?.latency())) }
            }
        }
    }

    /// One unit of work while playing: decode a frame, write some audio, or wait for the end to drain.
    private func pump(_ session: PlaybackSession) throws(PlayerError) {
        guard let output else { return }
        if !session.hasPending {
            if session.atEnd {
                if try output.drain(shouldYield: hasCommands) { step(.reachedEnd(latency: output.latency())) }
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
        step(.wrote(seconds: seconds, rate: session.pendingRate))
    }

    /// Feeds `input` to the machine and executes the actions it returns, then publishes the new
    /// state and answers the callers it completed. An action that reports a fact back runs last,
    /// after the publish (a slow open shows its item meanwhile); its fact is the next step. An
    /// action that throws skips the rest of its step (callers are still answered) and its
    /// failure is the next step, unless a newer play or stop aborted it.
    private func step(_ first: PlayerMachine.Input) {
        var next: PlayerMachine.Input? = first
        while let input = next {
            next = nil
            cond.lock()
            var actions = machine.handle(input)
            cond.unlock()
            let last = actions.last?.reportsBack == true ? actions.removeLast() : nil
            var completions: [(Reply, PlayerMachine.Completion)] = []
            var failure: PlayerError?
            for action in actions {
                if case .complete(let reply, let completion) = action {
                    completions.append((reply, completion))
                } else if failure == nil {
                    do throws(PlayerError) { try execute(action) } catch { failure = error }
                }
            }
            // Writing audio changes only the position, which ticks publish.
            if case .wrote = input {} else { publisher.publish { view() } }
            for (reply, completion) in completions { complete(reply, completion) }
            var owed: Reply?
            if let last {
                if failure == nil {
                    do throws(PlayerError) { next = try reportingBack(last) } catch { failure = error }
                }
                if failure != nil { owed = last.reply }
            }
            if let failure {
                if isSuperseded() {
                    if let owed { complete(owed, .done) }
                } else {
                    next = .failed(failure, latency: output?.latency(), reply: owed)
                }
            }
        }
    }

    private func execute(_ action: PlayerMachine.Action) throws(PlayerError) {
        switch action {
        case .uncork: try output?.cork(false)
        case .hold: try output?.cork(true)
        case .setTempo(let rate): try session?.setTempo(rate)
        case .setVolume(let volume): output?.setVolume(volume)
        case .close:
            output?.silence()
            session = nil
        case .report(let report): tracker.report(report)
        case .startTracker: tracker.start()
        case .stopTracker: tracker.stop()
        case .ended(let key, let error): tracker.ended(key: key, error: error)
        case .dropOutput:
            cond.lock()
            output = nil
            cond.unlock()
        case .exit: output?.close()
        case .open, .cork, .seek, .complete: break // see step
        }
    }

    /// Runs an action that reports a fact back, and returns the fact.
    private func reportingBack(_ action: PlayerMachine.Action) throws(PlayerError) -> PlayerMachine.Input? {
        switch action {
        case .open(let request, let playback, let rate, let startAt):
            return open(request, playback, rate: rate, startAt: startAt)
        case .cork(let reply):
            guard let output else { return .corked(reply: reply, latency: nil, heard: nil) }
            try output.cork(true)
            // Frozen where the listener got to: never behind a position already reported.
            return .corked(reply: reply, latency: output.latency(), heard: position)
        case .seek(let target, let reply):
            // A decoder that cannot get there has not moved: the item plays on (the output keeps
            // its audio). A failing output is a failure of the item, as anywhere else.
            do throws(PlayerError) {
                try session?.seek(to: target)
            } catch {
                return .seekFailed(error, reply: reply)
            }
            try output?.flush()
            return .seeked(to: target, reply: reply)
        default:
            return nil
        }
    }

    /// Opens the media first: while it opens, the item before (if any) is only corked, so a
    /// play that cannot open its media leaves it as it was (`.openFailed`). Once the media is
    /// open it replaces that item; the output failing after that is `.failed`.
    private func open(_ request: PlayRequest, _ playback: PlaybackID, rate: Double,
                      startAt: Double) -> PlayerMachine.Input {
        let flag = InterruptFlag()
        cond.lock()
        let held = interrupt
        interrupt = flag
        opening = true
        cond.unlock()
        let opened: PlaybackSession
        let start: Double
        do throws(PlayerError) {
            defer {
                cond.lock()
                opening = false
                cond.unlock()
            }
            let decoder = try Decoder(source: request.source, interrupt: flag, timeout: configuration.networkTimeout,
                                      rewindCache: configuration.rewindCacheBytes)
            opened = PlaybackSession(request: request, decoder: decoder)
            try opened.setTempo(rate)
            start = PlayerMachine.startPosition(startAt, duration: decoder.duration)
            if start > 0 { try opened.seek(to: start) }
        } catch {
            // Replaced by a newer command: not an error.
            if flag.isAborted { return .openCancelled(playback) }
            // The held item (if any) goes on: a stop must still be able to interrupt its reads.
            cond.lock()
            interrupt = held
            cond.unlock()
            return .openFailed(playback, error)
        }
        session = opened
        do throws(PlayerError) {
            let output = try connectedOutput()
            try output.open(rate: opened.outputRate)
        } catch {
            session = nil
            return isSuperseded() ? .openCancelled(playback) : .failed(error, latency: nil)
        }
        var tags = opened.decoder.tags
        if let art = opened.decoder.takeCoverArt(), let directory = configuration.artDirectory {
            tags.artURL = CoverArtFile.write(art, into: directory)
        }
        return .opened(playback, duration: opened.decoder.duration, chapters: opened.decoder.chapters, startAt: start, tags: tags)
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
        cond.unlock()
        made.setVolume(machine.volume)
        return made
    }

    /// Resumes the caller waiting for `reply` with the player as it is now, once the sink calls
    /// queued so far are made (a pause's checkpoint has reached the library when it returns).
    private func complete(_ reply: Reply, _ completion: PlayerMachine.Completion) {
        let outcome: Outcome = switch completion {
        case .done: .done(snapshot)
        case .failed(let error): .failed(error)
        case .superseded: .superseded
        }
        cond.lock()
        let continuation = waiting.removeValue(forKey: reply)
        cond.unlock()
        guard let continuation else { return }
        tracker.afterQueued { continuation.resume(returning: outcome) }
    }

    /// The thread ends: anyone still waiting is answered.
    private func end() {
        cond.lock()
        let left = waiting.keys
        cond.unlock()
        for reply in left { complete(reply, .superseded) }
        exited.signal()
    }

    private func hasCommands() -> Bool {
        cond.lock()
        defer { cond.unlock() }
        return !inbox.isEmpty
    }

    /// A `play`, `stop` or shutdown sent meanwhile aborted a blocking call: that is not the item
    /// failing, the queued command decides what happens next.
    private func isSuperseded() -> Bool {
        cond.lock()
        defer { cond.unlock() }
        return (interrupt?.isAborted ?? false) && !inbox.isEmpty
    }
}

/// Lets the tracker's closure reach the player without keeping it alive.
private final class WeakPlayer: @unchecked Sendable {
    weak var player: Player?
}
