import NowPlaying

/// The player's state and every transition, as a value. Inputs are the commands callers send and
/// the facts the decode thread reports back; `handle` returns the actions that thread must then
/// execute, in order. No I/O, no clock, no locks, so what pause, seek, stop, the end of an item or
/// a failure do is testable without audio (PlayerMachineTests). The `Player` keeps one under its
/// lock, and its decode thread is the only caller of `handle`.
struct PlayerMachine: Sendable {
    /// A caller waiting in `Player.perform` for the outcome of its command.
    struct Reply: Hashable, Sendable {
        let id: UInt64
    }

    /// The item the decode thread has open.
    struct Item: Equatable, Sendable {
        var request: PlayRequest
        var playback: PlaybackID
        var duration: Double?
        /// What the file says about itself (shown where the request left a field out).
        var tags = MediaTags()
    }

    /// A `play` handed to the decode thread: what became of it comes back as a fact.
    struct Opening: Equatable, Sendable {
        var request: PlayRequest
        var playback: PlaybackID
        /// The speed it opens at: the request's, else the player's.
        var rate: Double
        var reply: Reply?
        /// What played or was paused when the play came: kept (its output corked, its decoder
        /// open) until the new item opens, and given back as it was when it cannot.
        var held: Held?
    }

    /// The item a `play` interrupted, with what it needs to go on where it was.
    struct Held: Equatable, Sendable {
        var item: Item
        var wasPlaying: Bool
        /// Frozen at what was heard when the play came.
        var clock: PositionClock
        var chapters: ChapterList
    }

    enum Phase: Equatable, Sendable {
        case stopped
        case opening(Opening)
        case playing(Item)
        case paused(Item)
    }

    /// A jump of the position (a seek, or a start at a saved position), published as `seeked`.
    struct Jump: Equatable, Sendable {
        var count = 0
        var position = 0.0
    }

    enum Input: Sendable {
        /// A caller's command. `latency` is the output's (audio written, not yet heard) when the
        /// decode thread took it: the position a relative seek or a checkpoint starts from.
        case command(Player.Command, reply: Reply? = nil, latency: Double? = nil)
        /// Saves, stops and ends: the player is going away.
        case shutdown(latency: Double?)
        /// `.open` worked: the decoder is at `startAt` and the output plays; `tags` are the file's.
        case opened(PlaybackID, duration: Double?, chapters: [Chapter], startAt: Double, tags: MediaTags = MediaTags())
        /// `.open` could not open the media; nothing else changed (the held item is still there).
        case openFailed(PlaybackID, PlayerError)
        /// `.open` gave way to a newer `play` or `stop` sent meanwhile.
        case openCancelled(PlaybackID)
        /// `.cork` took effect; `latency` right after, so the position freezes at what was heard.
        case corked(reply: Reply?, latency: Double?, heard: Double?)
        /// Audio handed to the output: `seconds` of output at `rate` media seconds per second.
        case wrote(seconds: Double, rate: Double)
        /// `.seek` moved the decoder to `position` and the output dropped what it had.
        case seeked(to: Double, reply: Reply?)
        /// `.seek` could not move the decoder (a source that cannot get there): the item plays on
        /// from where it was, and the caller is told.
        case seekFailed(PlayerError, reply: Reply?)
        /// The output played the last of the item.
        case reachedEnd(latency: Double?)
        /// Decoding or the output failed, or an action did; `reply` is a caller that action still owed.
        case failed(PlayerError, latency: Double?, reply: Reply? = nil)
    }

    enum Action: Equatable, Sendable {
        /// Open the request's media, at `rate`, the decoder at `startAt` clamped to the item
        /// (`startPosition`), then the output; report `.opened`, `.openFailed` (the media could
        /// not be opened: the item before is untouched) or `.openCancelled`. Once the media is
        /// open it replaces the item before, whose sound is dropped; an output failing after that
        /// reports `.failed`.
        case open(PlayRequest, PlaybackID, rate: Double, startAt: Double)
        /// Move the decoder and drop what the output buffered; report `.seeked` or `.seekFailed`
        /// with `reply`.
        case seek(to: Double, reply: Reply?)
        /// Pause the output; report `.corked` with `reply`.
        case cork(reply: Reply?)
        case uncork
        /// Pause the output without a reply: a `play` holds the item it interrupts.
        case hold
        case setTempo(Double)
        case setVolume(Double)
        /// Stop sound now and drop the decoder (the output stays for the next item).
        case close
        /// Hand a checkpoint or the end to the progress sink.
        case report(ProgressReport)
        case startTracker
        case stopTracker
        /// Tell the progress sink the item ended on its own (a queue advances on it).
        case ended(TrackKey, PlayerError?)
        /// Forget the output: PulseAudio went away, the next play connects again.
        case dropOutput
        /// Resume a waiting caller, once this step is published.
        case complete(Reply, Completion)
        /// Close the output and end the decode thread.
        case exit

        /// Reports a fact back: always the last action of a step, run after it was published.
        var reportsBack: Bool {
            switch self {
            case .open, .cork, .seek: true
            default: false
            }
        }

        /// The caller a `.cork` or `.seek` owes its answer (given with `.failed` if it cannot run).
        var reply: Reply? {
            switch self {
            case .cork(let reply), .seek(_, let reply): reply
            default: nil
            }
        }
    }

    enum Completion: Equatable, Sendable {
        case done
        case failed(PlayerError)
        case superseded
    }

    private(set) var phase: Phase = .stopped
    private(set) var clock = PositionClock()
    /// Changes whenever the clock starts over (an item opened, a seek, a stop): within one epoch
    /// the position the player reports never goes back (`Player.heard`).
    private(set) var clockEpoch: UInt64 = 0
    private(set) var volume: Double = 1
    private(set) var rate: Double = 1
    /// The current item's chapters (empty when it has none or nothing plays).
    private(set) var chapters = ChapterList()
    /// The last error; cleared when a new item starts.
    private(set) var error: PlayerError?
    private(set) var jump = Jump()
    private(set) var isShutDown = false
    private var playbacks: UInt64 = 0

    /// Where an item starts: the requested position, at most its duration.
    static func startPosition(_ requested: Double, duration: Double?) -> Double {
        duration.map { min(requested, $0) } ?? requested
    }

    // MARK: What the state says

    var status: PlaybackStatus {
        switch phase {
        case .playing: .playing
        case .paused: .paused
        // An item being opened is not playing yet (and the one before has stopped).
        case .stopped, .opening: .stopped
        }
    }

    /// The item playing or paused.
    var item: Item? {
        switch phase {
        case .playing(let item), .paused(let item): item
        case .stopped, .opening: nil
        }
    }

    /// The track NowPlaying shows: the request as soon as it is taken (a slow URL shows its title
    /// while it opens), then with the file's tags (`TrackMetadata.filled(from:)`) and the length
    /// the decoder found when the request had none.
    var metadata: TrackMetadata? {
        switch phase {
        case .stopped: return nil
        case .opening(let opening): return opening.request.metadata
        case .playing(let item), .paused(let item):
            var metadata = item.request.metadata.filled(from: item.tags)
            if metadata.length == nil { metadata.length = item.duration }
            return metadata
        }
    }

    /// The position heard with `latency` of output not yet played; 0 when stopped.
    func position(latency: Double?) -> Double {
        status == .stopped ? 0 : clock.position(latency: latency)
    }

    // MARK: Transitions

    mutating func handle(_ input: Input) -> [Action] {
        guard !isShutDown else {
            // The decode thread has ended: nothing runs any more.
            if case .command(_, let reply?, _) = input { return [.complete(reply, .superseded)] }
            return []
        }
        switch input {
        case .command(let command, let reply, let latency):
            return handle(command, reply: reply, latency: latency)
        case .shutdown(let latency):
            let actions = supersedeOpening() + endItem(saving: true, latency: latency)
            isShutDown = true
            return actions + [.exit]
        case .opened(let playback, let duration, let found, let startAt, let tags):
            // Not the item asked for (it was superseded meanwhile): not wanted.
            guard case .opening(let opening) = phase, opening.playback == playback else { return [.close] }
            rate = opening.rate
            clock = PositionClock()
            clock.reset(at: startAt)
            clockEpoch &+= 1
            chapters = ChapterList(found, source: .embedded, duration: duration)
            phase = .playing(Item(request: opening.request, playback: playback, duration: duration, tags: tags))
            if startAt > 0 { jumped(to: startAt) }
            return [.startTracker] + complete(opening.reply, .done)
        case .openFailed(let playback, let failure):
            guard case .opening(let opening) = phase, opening.playback == playback else { return [] }
            // A play that failed changes nothing else: what played before plays on (or stays
            // paused, or stopped), and nothing has ended, so no queue moves on. Its caller is told.
            error = failure
            return giveBack(opening.held) + complete(opening.reply, .failed(failure))
        case .openCancelled(let playback):
            guard case .opening(let opening) = phase, opening.playback == playback else { return [] }
            // The newer play or stop decides; the item held for this one goes.
            return supersedeOpening()
        case .corked(let reply, let latency, let heard):
            guard case .playing(let item) = phase else { return complete(reply, .done) }
            clock.freeze(latency: latency, atLeast: heard)
            phase = .paused(item)
            return [.stopTracker, checkpoint(item, at: clock.position(latency: latency))] + complete(reply, .done)
        case .wrote(let seconds, let rate):
            guard case .playing = phase else { return [] }
            clock.rate = rate
            clock.advance(by: seconds * rate)
            return []
        case .seeked(let position, let reply):
            guard let item else { return complete(reply, .done) }
            clock.reset(at: position) // stays frozen there when paused
            clockEpoch &+= 1
            jumped(to: position)
            return [checkpoint(item, at: position)] + complete(reply, .done)
        case .seekFailed(let failure, let reply):
            // The clock never moved: the position is still what is heard.
            return complete(reply, .failed(failure))
        case .reachedEnd(let latency):
            guard case .playing(let item) = phase else { return [] }
            return finish(item, latency: latency)
        case .failed(let failure, let latency, let reply):
            if case .opening(let opening) = phase {
                // The output failed while opening: the item held goes too, and the caller is told
                // (nothing ended on its own, so no queue moves on).
                phase = .stopped
                let dropped: [Action] = opening.held == nil ? [] : [.close]
                return failed(failure, ended: nil, then: dropped) + complete(opening.reply, .failed(failure))
                    + complete(reply, .done)
            }
            let key = item?.request.key
            let ending = endItem(saving: true, latency: latency)
            return failed(failure, ended: key, then: ending) + complete(reply, .done)
        }
    }

    private mutating func handle(_ command: Player.Command, reply: Reply?, latency: Double?) -> [Action] {
        let actions: [Action]
        switch command {
        case .play(let request):
            return play(request, reply: reply, latency: latency) // answered once it opened, or not
        case .pause:
            guard case .playing = phase else { actions = []; break }
            return [.cork(reply: reply)] // answered once corked
        case .toggle:
            if case .playing = phase { return [.cork(reply: reply)] }
            actions = resume()
        case .resume:
            actions = resume()
        case .stop:
            actions = supersedeOpening() + endItem(saving: true, latency: latency)
        case .stopThenVolume(let value):
            actions = supersedeOpening() + endItem(saving: true, latency: latency) + setVolume(value)
        case .seek(let target):
            return seek(target, reply: reply, latency: latency) // answered once the decoder moved, or not
        case .rate(let value):
            rate = TimeStretch.tempo(value)
            actions = item == nil ? [] : [.setTempo(rate)]
        case .volume(let value):
            actions = setVolume(value)
        case .changeVolume(let delta):
            actions = setVolume(delta.isFinite ? volume + delta : volume)
        case .chapters(let list, let key):
            if let item, item.request.key == key {
                chapters = ChapterList(list.chapters, source: list.source, duration: item.duration)
            }
            actions = []
        case .failedToStart(let failure):
            error = failure
            actions = []
        }
        return actions + complete(reply, .done)
    }

    private mutating func play(_ request: PlayRequest, reply: Reply?, latency: Double?) -> [Action] {
        var actions = supersedeOpening()
        var held: Held?
        if let item {
            // Saved and paused, not ended: the new item replaces it only once it opened.
            let wasPlaying = status == .playing
            actions += [checkpoint(item, at: clock.position(latency: latency)), .stopTracker, .hold]
            clock.freeze(latency: latency)
            held = Held(item: item, wasPlaying: wasPlaying, clock: clock, chapters: chapters)
            becomeStopped()
        }
        error = nil
        playbacks += 1
        let opening = Opening(request: request, playback: PlaybackID(playbacks),
                              rate: request.rate.map(TimeStretch.tempo) ?? rate, reply: reply, held: held)
        phase = .opening(opening)
        let startAt = request.startAt.isFinite ? max(0, request.startAt) : 0
        actions.append(.open(request, opening.playback, rate: opening.rate, startAt: startAt))
        return actions
    }

    private mutating func resume() -> [Action] {
        guard case .paused(let item) = phase else { return [] }
        clock.unfreeze()
        phase = .playing(item)
        return [.uncork, .startTracker]
    }

    /// Clamped at 0; at or past the end of an item of known length, the item ends there. The
    /// position moves when the decoder did (`.seeked`).
    private mutating func seek(_ target: Player.SeekTarget, reply: Reply?, latency: Double?) -> [Action] {
        guard let item else { return complete(reply, .done) }
        var position = switch target {
        case .relative(let delta): clock.position(latency: latency) + delta
        case .absolute(let seconds): seconds
        }
        position = position.isFinite ? max(0, position) : 0
        if let duration = item.duration, position >= duration {
            return finish(item, latency: latency) + complete(reply, .done)
        }
        return [.seek(to: position, reply: reply)]
    }

    private mutating func setVolume(_ value: Double) -> [Action] {
        volume = value.isFinite ? min(1, max(0, value)) : 1
        return [.setVolume(volume)]
    }

    /// The item played to its end: reported as such (at its duration, or where it ended when it
    /// has none), not saved as a resume position.
    private mutating func finish(_ item: Item, latency: Double?) -> [Action] {
        let end = item.duration ?? clock.position(latency: latency)
        let report = ProgressReport(.end, key: item.request.key, playback: item.playback, position: end, duration: end)
        becomeStopped()
        return [.stopTracker, .report(report), .ended(item.request.key, nil), .close]
    }

    /// Ends the item playing or paused, if any: saves where it was, stops sound, goes to stopped.
    private mutating func endItem(saving: Bool, latency: Double?) -> [Action] {
        guard let item else { return [] }
        var actions: [Action] = saving ? [checkpoint(item, at: clock.position(latency: latency))] : []
        actions += [.stopTracker, .close]
        becomeStopped()
        return actions
    }

    /// A `play` still opening gives way to a newer command that replaces it, and so does the
    /// item it held.
    private mutating func supersedeOpening() -> [Action] {
        guard case .opening(let opening) = phase else { return [] }
        phase = .stopped
        return (opening.held == nil ? [] : [.close]) + complete(opening.reply, .superseded)
    }

    /// The item a failed `play` held, back as it was: playing on from where it was heard, or
    /// paused there; stopped when there was none.
    private mutating func giveBack(_ held: Held?) -> [Action] {
        guard let held else {
            phase = .stopped
            return []
        }
        clock = held.clock
        clockEpoch &+= 1
        chapters = held.chapters
        guard held.wasPlaying else {
            phase = .paused(held.item)
            return []
        }
        clock.unfreeze()
        phase = .playing(held.item)
        return [.uncork, .startTracker]
    }

    /// Records `failure` (the player stays usable): the item `ended` with it, then `ending` (the
    /// session's end), and a lost PulseAudio is connected again on the next play.
    private mutating func failed(_ failure: PlayerError, ended key: TrackKey?, then ending: [Action] = []) -> [Action] {
        error = failure
        var actions: [Action] = key.map { [.ended($0, failure)] } ?? []
        actions += ending
        if case .pulseUnavailable = failure { actions.append(.dropOutput) }
        return actions
    }

    private mutating func becomeStopped() {
        phase = .stopped
        clock = PositionClock()
        clockEpoch &+= 1
        chapters = ChapterList()
    }

    private mutating func jumped(to position: Double) {
        jump.count += 1
        jump.position = position
    }

    private func checkpoint(_ item: Item, at position: Double) -> Action {
        .report(ProgressReport(.checkpoint, key: item.request.key, playback: item.playback, position: position,
                               duration: item.duration))
    }

    private func complete(_ reply: Reply?, _ completion: Completion) -> [Action] {
        reply.map { [.complete($0, completion)] } ?? []
    }
}
