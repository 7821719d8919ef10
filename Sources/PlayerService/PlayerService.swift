import ControlProtocol
import Downloads
import FeedModel
import HTTPFetch
import Foundation
import LibraryStore
import NowPlaying
import PlayerCore

/// The player as a service: carries out `PlayerCommand`s (from the control socket, MPRIS, the
/// HTTP API), resolves what to play (library items, URLs, files), owns the up-next queue and the
/// sleep timer, remembers speeds per channel and writes listening progress to the library. The
/// player and the library do the work; this connects them. Every command is answered once it
/// has taken effect: the player's own reply, never a poll of its state.
public actor PlayerService: PlayerControl {
    public nonisolated let player: Player
    private let library: any PlayerLibrary
    private let resolver: MediaResolver
    private let progress: ProgressWriter
    private let chapterLoader: ChapterLoader
    private let log: ServiceLog
    /// Loads the playing library item's podcast chapters; `chapters`/`chapter` wait for it.
    private var chapterTask: Task<Void, Never>?
    /// What plays now (or was paused), to remember as the last played at a pause or stop.
    private var current: (target: MediaTarget, title: String)?
    private var sleep = SleepTimer()
    /// Runs a deadline sleep timer: fades out, then stops.
    private var sleepTask: Task<Void, Never>?
    /// The volume before a fade began, to restore when the fade ends or is cancelled.
    private var fadeBase: Double?
    /// Set by `quit`: the player is gone, so further commands are refused rather than left hanging.
    private var quitting = false
    /// Smart resume's setting, and when (`now`) the current pause began.
    private let resumeRewind: ResumeRewind
    private let now: @Sendable () -> Double
    private var pausedAt: Double?

    /// `defaultRate` is the speed of items whose channel remembers none (`PlaybackSpeed.range`).
    /// `initialVolume` (0–1) is the volume to start with: where a remembered volume comes in.
    /// `resumeRewind` is smart resume's setting; `now` the monotonic clock it measures pauses with
    /// (seconds; tests pass their own, so a minute's pause takes no minute).
    public init(library: any PlayerLibrary, downloads: DownloadStore, configuration: PlayerConfiguration = PlayerConfiguration(),
                defaultRate: Double = 1, initialVolume: Double = 1, resumeRewind: ResumeRewind = ResumeRewind(),
                now: @escaping @Sendable () -> Double = { Clock.monotonic() }, log: @escaping ServiceLog) {
        self.library = library
        self.log = log
        self.resumeRewind = resumeRewind
        self.now = now
        var resolver = MediaResolver(library: library, downloads: downloads)
        resolver.defaultRate = PlaybackSpeed.normalized(defaultRate)
        self.resolver = resolver
        chapterLoader = ChapterLoader(library: library, log: log)
        let writer = ProgressWriter(library: library, log: log)
        progress = writer
        var configuration = configuration
        if configuration.artDirectory == nil { configuration.artDirectory = Self.artDirectory() }
        player = Player(configuration: configuration, progressSink: writer)
        if initialVolume != 1, initialVolume.isFinite { player.send(.volume(PlayerVolume(clamping: initialVolume).value)) }
        writer.onEnded = { [weak self] key, error in
            guard let self else { return }
            Task { await self.itemEnded(key: key, error: error) }
        }
    }

    public func perform(_ command: PlayerCommand) async -> PlayerReply {
        var reply = PlayerReply()
        do {
            if quitting && command != .status && command != .ping {
                throw PlayerFailure(.unavailable, "the feedctl daemon is shutting down")
            }
            switch command {
            case .status, .subscribe, .ping, .queueList:
                break
            case .play(let target, let fromStart):
                try await start(try await resolver.resolve(target, fromStart: fromStart))
            // Pause and stop answer once their checkpoint is in the library (`feedctl show`
            // right after sees it).
            case .pause:
                await pause()
            case .resume:
                try await resumeOrStartQueue()
            case .toggle:
                if player.snapshot.status == .playing { await pause() } else { try await resumeOrStartQueue() }
            case .stop:
                await rememberWhereItIs()
                _ = await player.perform(.stop)
                await progress.flush()
            case .seek(let target):
                guard player.snapshot.status != .stopped else { throw PlayerFailure(.notNow, "nothing is playing") }
                // Answered with the position after the seek (or stopped, when past the end); a
                // seek the source could not make leaves it playing where it was, and says so.
                let outcome = switch target.move {
                case .by(let seconds): await player.perform(.seek(.relative(seconds)))
                case .to(let seconds): await player.perform(.seek(.absolute(seconds)))
                // The daemon's `--seek-step`.
                case .steps(let count): await player.perform(.seek(.relative(Double(count) * player.configuration.seekStep)))
                }
                if case .failed(let error) = outcome { throw PlayerFailure(error) }
            case .volume(let volume):
                _ = await player.perform(.volume(volume.value))
                await rememberVolume()
            case .changeVolume(let change):
                _ = await player.perform(.changeVolume(by: change.value))   // the player clamps the sum
                await rememberVolume()
            case .queueAdd(let targets, let next):
                reply.message = try await addToQueue(targets, next: next)
            case .queueRemove(let position):
                let removed = try await library.removeFromUpNext(at: position)
                await publishQueue()
                reply.message = "removed \(position): \(removed.title)"
            case .queueMove(let from, let to):
                try await library.moveInUpNext(from: from, to: to)
                await publishQueue()
            case .queueClear:
                try await library.clearUpNext()
                await publishQueue()
            case .next:
                guard let entry = try await library.popUpNext() else { throw PlayerFailure(.notNow, "the queue is empty") }
                try await start(try await resolver.resolve(PlayTarget(entry.target), fromStart: false))
            case .sleep(let setting):
                try setSleep(setting)
            case .speed(let value):
                if let value { reply.message = try await setSpeed(value) }
            case .chapters:
                await chapterTask?.value
                reply.chapters = chaptersPayload()
            case .chapter(let target):
                reply.message = try await jumpToChapter(target)
                reply.chapters = chaptersPayload()
            case .quit:
                // Saves progress; the caller then stops listening and ends the daemon.
                quitting = true
                await rememberWhereItIs()
                player.shutdown()
                await progress.flush()
            }
        } catch {
            let failure = PlayerFailure(error)
            reply.ok = false
            reply.code = failure.kind
            reply.error = failure.description
        }
        reply.status = status()
        switch command {
        case .queueAdd, .queueList, .queueClear, .queueRemove, .queueMove:
            reply.queue = ((try? await library.upNext()) ?? []).map(QueueEntry.init)
        default: break
        }
        return reply
    }

    public func events() async -> AsyncStream<PlayerEvent> {
        let source = player.nowPlaying.events()
        let (stream, continuation) = AsyncStream.makeStream(of: PlayerEvent.self, bufferingPolicy: .bufferingNewest(64))
        let task = Task { [weak self] in
            for await event in source {
                guard let self else { break }
                continuation.yield(PlayerEvent(event: event.kind, status: await self.status()))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Where cover art from media files goes for MPRIS: beside the control socket's default place,
    /// `$XDG_RUNTIME_DIR/feedctl/art` (private to the user, gone at logout), else
    /// `/tmp/feedctl-UID/art`; the directories are made 0700. Nil when they cannot be made.
    static func artDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let base = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 + "/feedctl" } ?? "/tmp/feedctl-\(getuid())"
        do {
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            return nil
        }
        return base + "/art"
    }

    /// Returns once every progress save so far reached the library (at shutdown).
    public func flushProgress() async { await progress.flush() }

    /// `status --json`'s object, from the player's snapshot and the now-playing state.
    func status() -> PlayerStatus {
        let snapshot = player.snapshot
        let state = player.nowPlaying.state
        let meta = state.metadata
        return PlayerStatus(status: PlayerStatus.State(snapshot.status), position: snapshot.position,
                            duration: snapshot.duration ?? meta?.length, title: meta?.title, artist: meta?.artist,
                            itemID: meta?.key.itemID, url: meta?.url, volume: snapshot.volume, rate: state.rate,
                            chapter: state.chapter, error: snapshot.error?.description ?? state.error,
                            sleepAt: sleep.sleepAt(now: Date().timeIntervalSince1970,
                                                   // Wall seconds: media left, played at the current speed.
                                                   remaining: snapshot.duration.map { max(0, $0 - snapshot.position) / snapshot.rate }))
    }

    // MARK: Playing

    private func start(_ resolved: Resolved) async throws {
        var request = resolved.request
        if case .remote(let url) = request.source {
            let reach = if let reach = resolved.reach { reach } else { await MediaRedirects.reach(ofURL: url) }
            do throws(PlayerError) {
                request.source = .remote(try await MediaRedirects.finalURL(url, reach: reach))
            } catch {
                // The status tells it, as it tells a failed open; what played plays on.
                _ = await player.perform(.failedToStart(error))
                throw PlayerFailure(error)
            }
        }
        switch await player.perform(.play(request)) {
        case .done:
            current = (resolved.target, request.metadata.title ?? resolved.entry.target)
            try? await library.saveLastPlayed(LastPlayed(target: resolved.target, title: current?.title ?? "",
                                                         position: request.startAt), now: Clock.now())
            await publishQueue()
            loadPodcastChapters(for: request.key, reach: resolved.reach ?? .publicOnly)
        case .superseded:
            // A newer play or a stop replaced it before it started.
            await publishQueue()
        case .failed(let error):
            throw PlayerFailure(error)
        }
    }

    private func pause() async {
        let wasPlaying = player.snapshot.status == .playing
        _ = await player.perform(.pause)
        if wasPlaying { pausedAt = now() }
        await rememberWhereItIs()
        await progress.flush()
    }

    /// Keeps what plays and where in the library, for `play`/`resume` after a stop or a restart
    /// (a library item's own progress is saved as it plays; a URL or a file has only this).
    private func rememberWhereItIs() async {
        guard let current, player.snapshot.status != .stopped else { return }
        try? await library.saveLastPlayed(LastPlayed(target: current.target, title: current.title,
                                                     position: player.snapshot.position), now: Clock.now())
    }

    /// The volume a person set is the one the next start begins with (a fade's is not).
    private func rememberVolume() async {
        try? await library.saveVolume(player.snapshot.volume, now: Clock.now())
    }

    /// `queue add`: every target is checked (resolved) first, so a bad one adds none; then all
    /// go into the library's queue at once.
    private func addToQueue(_ targets: [PlayTarget], next: Bool) async throws -> String {
        var entries: [(target: MediaTarget, title: String)] = []
        for target in targets {
            do {
                let resolved = try await resolver.resolve(target, fromStart: false)
                entries.append((resolved.target, resolved.request.metadata.title ?? target.description))
            } catch {
                let cause = PlayerFailure(error)
                throw PlayerFailure(cause.kind, "\(target): \(cause) (nothing was queued)")
            }
        }
        let now = Clock.now()
        let change = next ? try await library.insertNextInUpNext(entries, now: now) : try await library.appendToUpNext(entries, now: now)
        await publishQueue()
        return Self.message(change, next: next)
    }

    /// What `queue add`/`queue next` did, in the words of `UpNextChange`'s rule (a target is
    /// queued once: already queued, it moves to the front for `next` and stays put otherwise).
    static func message(_ change: UpNextChange, next: Bool) -> String {
        let place = next ? " next" : ""
        switch (change.added.count, change.alreadyQueued.count) {
        case (1, 0): return "queued\(place): \(change.added[0].title)"
        case (0, 1):
            let entry = change.alreadyQueued[0]
            return next ? "moved to next: \(entry.title) (it was already queued; it plays once)"
                        : "already queued at \(entry.position): \(entry.title) (left there; `queue next` moves it up)"
        case (let added, 0): return "queued\(place) \(added) items"
        case (let added, let again):
            let what = next ? "moved to the front, not added twice" : "left where they were"
            return "queued\(place) \(added + again) items (\(again) already queued: \(what))"
        }
    }

    private func resumeOrStartQueue() async throws {
        let snapshot = player.snapshot
        if snapshot.status == .paused {
            // Smart resume: after a long pause, start a little earlier (the seek keeps it paused,
            // so the listener hears nothing twice).
            let rewind = pausedAt.map { resumeRewind.rewind(afterPausing: now() - $0) } ?? 0
            pausedAt = nil
            if rewind > 0 { _ = await player.perform(.seek(.relative(-rewind))) }
            _ = await player.perform(.resume)
        } else if snapshot.status == .stopped {
            // After a stop, a sleep timer's stop or a restart: what played last, where it was
            // left (a library item at its saved progress); else the queue.
            if let last = try await library.lastPlayed() {
                var resolved = try await resolver.resolve(PlayTarget(last.target), fromStart: false)
                if last.target.itemID == nil { resolved.request.startAt = last.position }
                try await start(resolved)
            } else if let entry = try await library.popUpNext() {
                try await start(try await resolver.resolve(PlayTarget(entry.target), fromStart: false))
            } else {
                throw PlayerFailure(.notNow, "nothing to resume: play an item first")
            }
        }
    }

    /// An item ended on its own: the queue advances (past items that fail to start), unless the
    /// audio output itself is gone or the sleep timer said "end of item".
    private func itemEnded(key: TrackKey, error: PlayerError?) async {
        if case .pulseUnavailable? = error { return }
        if error == nil, current?.target == MediaTarget(key) {
            // Heard to the end: nothing to continue.
            current = nil
            try? await library.saveLastPlayed(nil, now: Clock.now())
        }
        if sleep.mode == .endOfItem {
            sleep.mode = .off
            log("sleep timer: stopped at the end of the item")
            await publishQueue()
            return
        }
        // The player is stopped by the time it reports the end: advance only if nothing else
        // started meanwhile.
        while !quitting, player.snapshot.status == .stopped, let next = try? await library.popUpNext() {
            do {
                try await start(try await resolver.resolve(PlayTarget(next.target), fromStart: false))
                return
            } catch {
                log("queue: \(next.title): \(error)")
            }
        }
        await publishQueue()
    }

    private func publishQueue() async {
        let waiting = ((try? await library.upNext()) ?? []).isEmpty == false
        player.nowPlaying.apply(.queue(canGoNext: waiting, canGoPrevious: false))
    }

    // MARK: Chapters

    /// Fetches (or reads the cached) chapters file of a library item in the background, within
    /// what its channel may reach; when it has chapters they replace the embedded ones.
    private func loadPodcastChapters(for key: TrackKey, reach: AddressReach) {
        guard let id = key.itemID else { chapterTask = nil; return }
        let loader = chapterLoader, player = self.player
        chapterTask = Task {
            guard let chapters = await loader.chapters(itemID: id, reach: reach), !chapters.isEmpty else { return }
            // Until the player took them (or moved on), so a waiting `chapters` sees them.
            _ = await player.perform(.chapters(ChapterList(chapters, source: .podcast), for: key))
        }
    }

    private func chaptersPayload() -> ChaptersPayload {
        let list = player.chapters
        let position = player.snapshot.position
        return ChaptersPayload(source: list.source?.rawValue, current: list.index(at: position).map { $0 + 1 },
                               chapters: list.chapters.enumerated().map { i, c in
                                   ChaptersPayload.Entry(index: i + 1, start: c.start, end: c.end, title: c.title)
                               })
    }

    /// `chapter next|prev|N`: seeks to that chapter's start.
    private func jumpToChapter(_ target: ChapterTarget) async throws -> String {
        let jump: ChapterList.Jump
        switch target {
        case .next: jump = .next
        case .previous: jump = .previous
        case .number(let n): jump = .number(n)
        }
        guard player.snapshot.status != .stopped else { throw PlayerFailure(.notNow, "nothing is playing") }
        await chapterTask?.value
        let list = player.chapters
        guard !list.isEmpty else { throw PlayerFailure(.notFound, "this item has no chapters") }
        guard let index = list.target(jump, from: player.snapshot.position) else {
            if case .number(let n) = jump { throw PlayerFailure(.notFound, "no chapter \(n): this item has chapters 1–\(list.chapters.count)") }
            throw PlayerFailure(.notFound, "no next chapter: this is the last one")
        }
        let chapter = list.chapters[index]
        if case .failed(let error) = await player.perform(.seek(.absolute(chapter.start))) {
            throw PlayerFailure(error)
        }
        return "chapter \(index + 1)/\(list.chapters.count): \(chapter.title)"
    }

    // MARK: Speed

    /// Changes the speed now; for a library item its channel remembers it.
    private func setSpeed(_ value: Double) async throws -> String {
        let range = PlaybackSpeed.range
        guard value.isFinite, range.contains(value) else {
            throw PlayerFailure(.invalid, "speed must be between \(range.lowerBound) and \(range.upperBound)")
        }
        let rate = PlaybackSpeed.normalized(value)
        _ = await player.perform(.rate(rate))
        var message = "speed \(PlaybackSpeed.text(rate))×"
        if let id = player.snapshot.key?.itemID {
            let item = try await library.item(id: id)
            try await library.setSpeed(channelID: item.channelID, rate)
            message += " (remembered for \(item.channel))"
        }
        return message
    }

    // MARK: Sleep timer

    private func setSleep(_ setting: SleepSetting) throws {
        sleepTask?.cancel()
        sleepTask = nil
        restoreVolumeAfterFade()
        switch setting {
        case .off:
            sleep.mode = .off
        case .endOfItem:
            guard player.snapshot.status != .stopped else { throw PlayerFailure(.notNow, "nothing is playing") }
            sleep.mode = .endOfItem
        case .after(let seconds):
            if let why = PlayerLimits.sleepRefusal(seconds) { throw PlayerFailure(.invalid, why) }
            let deadline = Date().timeIntervalSince1970 + seconds
            sleep.mode = .at(deadline)
            sleepTask = Task { [weak self] in await self?.runSleep(until: deadline) }
        }
    }

    /// Waits for the fade, lowers the volume over the last seconds, then stops (progress saved)
    /// and puts the volume back for next time.
    private func runSleep(until deadline: Double) async {
        let fadeStart = deadline - SleepTimer.fadeSeconds
        let wait = fadeStart - Date().timeIntervalSince1970
        if wait > 0 { try? await Task.sleep(nanoseconds: PlayerLimits.nanoseconds(wait)) }
        guard !Task.isCancelled else { return }
        let volume = player.snapshot.volume
        fadeBase = volume
        // The fade's steps, four a second (a timer, not a wait for a result).
        while !Task.isCancelled {
            let now = Date().timeIntervalSince1970
            if now >= deadline { break }
            player.send(.volume(volume * SleepTimer.fadeFactor(now: now, deadline: deadline)))
            try? await Task.sleep(nanoseconds: 250_000_000)
        }
        guard !Task.isCancelled else { return }
        // All at once on this actor, with no suspension between: a status request never sees the
        // timer still set after the stop, or "stopped" with the faded volume.
        sleep.mode = .off
        sleepTask = nil
        let base = fadeBase ?? volume
        fadeBase = nil
        await rememberWhereItIs()
        _ = await player.perform(.stopThenVolume(base))
        await progress.flush()
        log("sleep timer: stopped playback")
    }

    private func restoreVolumeAfterFade() {
        if let base = fadeBase { player.send(.volume(base)); fadeBase = nil }
    }
}

extension PlayerStatus.State {
    init(_ status: PlaybackStatus) {
        switch status {
        case .playing: self = .playing
        case .paused: self = .paused
        case .stopped: self = .stopped
        }
    }
}

extension NowPlayingEvent {
    /// The event stream's `event` field.
    var kind: PlayerEvent.Kind {
        switch self {
        case .tick: .tick
        case .statusChanged: .status
        case .metadataChanged: .metadata
        case .seeked: .seeked
        case .volumeChanged: .volume
        case .rateChanged: .rate
        case .errorChanged: .error
        case .chapterChanged: .chapter
        case .capabilitiesChanged: .capabilities
        }
    }
}

extension MediaTarget {
    init(_ key: TrackKey) {
        switch key {
        case .item(let id): self = .item(id)
        case .url(let url): self = .url(url)
        case .file(let path): self = .file(path)
        }
    }
}

extension PlayTarget {
    init(_ target: MediaTarget) {
        switch target {
        case .item(let id): self = .item(id)
        case .url(let url): self = .url(url)
        case .file(let path): self = .local(path)
        }
    }
}

extension QueueEntry {
    init(_ entry: UpNextEntry) {
        self.init(target: entry.target.text, title: entry.title, itemID: entry.target.itemID)
    }
}

extension PlayerFailure {
    /// What a reply says about an error of the player, the library or the resolver: its kind
    /// from its type, never from its text.
    init(_ error: any Error) {
        switch error {
        case let failure as PlayerFailure: self = failure
        case let error as PlayerError:
            if case .pulseUnavailable = error {
                self.init(.unavailable, error.description)
            } else {
                self.init(.cannotPlay, error.description)
            }
        case let error as LibraryError:
            switch error {
            case .noItem, .noItems, .noChannel, .noCollection, .noCollectionID, .noSavedVideo, .noUser, .noSession, .noIdentity,
                 .notPublished, .noSharedCollection, .noFollowedCollection:
                self.init(.notFound, error.description)
            case .invalid: self.init(.invalid, error.description)
            case .collectionExists, .alreadyInCollection, .userExists, .userKept, .identityTaken, .notInCollection, .withdrawnCollection, .alreadyFollowing:
                self.init(.failed, error.description)
            case .database:
                // A reply may reach an HTTP client: no file paths. A full disk or a busy
                // database may pass; the rest is the library failing.
                self.init(error.isDiskFull || error.isRetryable ? .unavailable : .failed, error.descriptionWithoutPaths)
            }
        default: self.init(.failed, String(describing: error))
        }
    }
}
