import Downloads
import FeedctlControl
import Foundation
import LibraryStore
import NowPlaying
import PlayerCore


/// The daemon's brain: turns control requests into player actions, resolves what to play
/// (library items, URLs, files), owns the up-next queue, and writes listening progress back to
/// the library. The player and the library do the work; this only connects them.
actor PlayerService: ControlHandler {
    let player: Player
    let library: any PlayerLibrary
    private let progress: LibraryProgressSink
    private let resolver: MediaResolver
    private let chapterLoader: ChapterLoader
    /// Loads the playing library item's podcast chapters; `chapters`/`chapter` wait for it.
    private var chapterTask: Task<Void, Never>?
    private var queue: [Resolved] = []
    private var sleep = SleepTimer()
    /// Runs a deadline sleep timer: fades out, then stops.
    private var sleepTask: Task<Void, Never>?
    /// Set by `quit`: the player is gone, so further commands are refused rather than left hanging.
    private var quitting = false

    init(library: any PlayerLibrary, downloads: DownloadStore, configuration: PlayerConfiguration = PlayerConfiguration(),
         defaultRate: Double = 1) {
        self.library = library
        var resolver = MediaResolver(library: library, downloads: downloads)
        resolver.defaultRate = Player.normalizedRate(defaultRate)
        self.resolver = resolver
        self.chapterLoader = ChapterLoader(library: library)
        let sink = LibraryProgressSink(library: library)
        self.progress = sink
        self.player = Player(configuration: configuration, progressSink: sink)
        sink.onEnded = { [weak self] key, error in
            guard let self else { return }
            Task { await self.itemEnded(key: key, error: error) }
        }
    }

    func handle(_ request: ControlRequest) async -> ControlResponse {
        var response = ControlResponse(id: request.id, ok: true)
        do {
            if quitting && request.cmd != "status" && request.cmd != "ping" {
                throw ServiceError("the feedctl daemon is shutting down")
            }
            switch request.cmd {
            case "status", "subscribe", "ping":
                break
            case "play":
                guard let target = request.target else { throw ServiceError("play needs a target: an item id, a URL or a file") }
                let resolved = try await resolver.resolve(target, fromStart: request.fromStart ?? false)
                try await start(resolved)
            // Each command's answer waits for the player's reply: the state after it, a pause's
            // or stop's saved progress already in the library (so `feedctl show` right after sees it).
            case "pause": _ = await player.perform(.pause); await progress.flush()
            case "resume": try await resumeOrStartQueue()
            case "toggle":
                if player.snapshot.status == .playing { _ = await player.perform(.pause); await progress.flush() }
                else { try await resumeOrStartQueue() }
            case "stop":
                _ = await player.perform(.stop)
                await progress.flush()
            case "seek":
                guard player.snapshot.status != .stopped else { throw ServiceError("nothing is playing") }
                guard request.offset != nil || request.position != nil else {
                    throw ServiceError("seek needs an offset or a position")
                }
                // Answered with the position after the seek (or stopped, when past the end).
                if let offset = request.offset { _ = await player.perform(.seek(.relative(offset))) }
                else if let position = request.position { _ = await player.perform(.seek(.absolute(position))) }
            case "volume":
                guard let value = request.value, value.isFinite, (0...1).contains(value) else {
                    throw ServiceError("volume must be between 0 and 1 (0–100 %)")
                }
                _ = await player.perform(.volume(value))
            case "queue_add":
                guard let target = request.target else { throw ServiceError("queue add needs a target") }
                let resolved = try await resolver.resolve(target, fromStart: request.fromStart ?? false)
                queue.append(resolved)
                publishQueue()
                response.message = "queued: \(resolved.request.metadata.title ?? target)"
            case "queue_list":
                break
            case "queue_clear":
                queue.removeAll()
                publishQueue()
            case "next":
                guard !queue.isEmpty else { throw ServiceError("the queue is empty") }
                try await start(queue.removeFirst())
            case "sleep":
                try setSleep(request)
            case "chapters":
                await chapterTask?.value
                response.chapters = chaptersPayload()
            case "chapter":
                response.message = try await jumpToChapter(request.target ?? "")
                response.chapters = chaptersPayload()
            case "speed":
                if let value = request.value { response.message = try await setSpeed(value) }
            case "quit":
                // Saves progress; the server then stops listening and ends the daemon.
                quitting = true
                player.shutdown()
            default:
                throw ServiceError("unknown command \"\(request.cmd)\"")
            }
        } catch {
            response.ok = false
            response.error = String(describing: error)
        }
        response.status = status()
        if request.cmd.hasPrefix("queue") { response.queue = queue.map(\.entry) }
        return response
    }

    /// Returns once every progress save so far reached the library (at shutdown).
    func flushProgress() async { await progress.flush() }

    func events() async -> AsyncStream<ControlEvent> {
        let source = player.nowPlaying.events()
        let (stream, continuation) = AsyncStream.makeStream(of: ControlEvent.self, bufferingPolicy: .bufferingNewest(64))
        let task = Task { [weak self] in
            for await event in source {
                guard let self else { break }
                continuation.yield(ControlEvent(event: event.name, status: await self.status()))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// `status --json`'s object, from the player's snapshot and the now-playing state.
    func status() -> PlayerStatus {
        let snapshot = player.snapshot
        let state = player.nowPlaying.state
        let meta = state.metadata
        return PlayerStatus(status: snapshot.status.word, position: snapshot.position,
                            duration: snapshot.duration ?? meta?.length, title: meta?.title, artist: meta?.artist,
                            itemID: meta?.key.itemID, url: meta?.url, volume: snapshot.volume, rate: state.rate,
                            chapter: state.chapter, error: snapshot.error?.description ?? state.error,
                            sleepAt: sleep.sleepAt(now: Date().timeIntervalSince1970,
                                                   // Wall seconds: media left, played at the current speed.
                                                   remaining: snapshot.duration.map { max(0, $0 - snapshot.position) / snapshot.rate }))
    }

    // MARK: Playing

    private func start(_ resolved: Resolved) async throws {
        let request = resolved.request
        switch await player.perform(.play(request)) {
        case .done:
            publishQueue()
            loadPodcastChapters(for: request.key)
        case .superseded:
            // A newer play or a stop replaced it before it started.
            publishQueue()
        case .failed(let error):
            throw ServiceError(error.description)
        }
    }

    private func resumeOrStartQueue() async throws {
        let snapshot = player.snapshot
        if snapshot.status == .paused {
            _ = await player.perform(.resume)
        } else if snapshot.status == .stopped {
            guard !queue.isEmpty else { throw ServiceError("nothing to resume: play an item first") }
            try await start(queue.removeFirst())
        }
    }

    /// An item ended on its own: the queue advances (past items that fail to start), unless the
    /// audio output itself is gone or the sleep timer said "end of item".
    private func itemEnded(key: TrackKey, error: PlayerError?) async {
        if case .pulseUnavailable? = error { return }
        if sleep.mode == .endOfItem {
            sleep.mode = .off
            log("sleep timer: stopped at the end of the item")
            publishQueue()
            return
        }
        // The player is stopped by the time it reports the end: advance only if nothing else
        // started meanwhile.
        while !queue.isEmpty, !quitting, player.snapshot.status == .stopped {
            let next = queue.removeFirst()
            do { try await start(next); return } catch { log("queue: \(error)") }
        }
        publishQueue()
    }

    // MARK: Chapters

    /// Fetches (or reads the cached) chapters file of a library item in the background; when it
    /// has chapters they replace the embedded ones.
    private func loadPodcastChapters(for key: TrackKey) {
        guard let id = key.itemID else { chapterTask = nil; return }
        let loader = chapterLoader, player = self.player
        chapterTask = Task {
            guard let chapters = await loader.chapters(itemID: id), !chapters.isEmpty else { return }
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
    private func jumpToChapter(_ target: String) async throws -> String {
        let jump: ChapterList.Jump
        switch target.lowercased() {
        case "next": jump = .next
        case "prev", "previous": jump = .previous
        default:
            guard let n = Int(target) else { throw ServiceError("chapter takes next, prev or a chapter number") }
            jump = .number(n)
        }
        guard player.snapshot.status != .stopped else { throw ServiceError("nothing is playing") }
        await chapterTask?.value
        let list = player.chapters
        guard !list.isEmpty else { throw ServiceError("this item has no chapters") }
        guard let index = list.target(jump, from: player.snapshot.position) else {
            if case .number(let n) = jump { throw ServiceError("no chapter \(n): this item has chapters 1–\(list.chapters.count)") }
            throw ServiceError("no next chapter: this is the last one")
        }
        let chapter = list.chapters[index]
        _ = await player.perform(.seek(.absolute(chapter.start)))
        return "chapter \(index + 1)/\(list.chapters.count): \(chapter.title)"
    }

    // MARK: Speed

    /// Changes the speed now; for a library item its channel remembers it.
    private func setSpeed(_ value: Double) async throws -> String {
        guard value.isFinite, Player.rateRange.contains(value) else {
            throw ServiceError("speed must be between \(Player.rateRange.lowerBound) and \(Player.rateRange.upperBound)")
        }
        let rate = Player.normalizedRate(value)
        _ = await player.perform(.rate(rate))
        var message = "speed \(RateText.format(rate))×"
        if let id = player.snapshot.key?.itemID {
            let item = try await library.item(id: id)
            try await library.setSpeed(channelID: item.channelID, rate)
            message += " (remembered for \(item.channel))"
        }
        return message
    }


    // MARK: Sleep timer

    private func setSleep(_ request: ControlRequest) throws {
        sleepTask?.cancel()
        sleepTask = nil
        restoreVolumeAfterFade()
        switch request.sleepMode {
        case "off":
            sleep.mode = .off
        case "end-of-item":
            guard player.snapshot.status != .stopped else { throw ServiceError("nothing is playing") }
            sleep.mode = .endOfItem
        default:
            guard let seconds = request.seconds, seconds.isFinite, seconds > 0 else {
                throw ServiceError("sleep needs a duration (30m, 90s, 1h30m), end-of-item or off")
            }
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
        if wait > 0 { try? await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
        guard !Task.isCancelled else { return }
        let volume = player.snapshot.volume
        fadeBase = volume
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
        _ = await player.perform(.stopThenVolume(base))
        log("sleep timer: stopped playback")
    }

    /// The volume before a fade began, to restore when the fade ends or is cancelled.
    private var fadeBase: Double?

    private func restoreVolumeAfterFade() {
        if let base = fadeBase { player.send(.volume(base)); fadeBase = nil }
    }

    private func publishQueue() {
        player.nowPlaying.apply(.queue(canGoNext: !queue.isEmpty, canGoPrevious: false))
    }

}


extension PlaybackStatus {
    /// The contract's lowercase word.
    var word: String { rawValue.lowercased() }
}

extension NowPlayingEvent {
    /// The event stream's `event` field.
    var name: String {
        switch self {
        case .tick: "tick"
        case .statusChanged: "status"
        case .metadataChanged: "metadata"
        case .seeked: "seeked"
        case .volumeChanged: "volume"
        case .rateChanged: "rate"
        case .errorChanged: "error"
        case .chapterChanged: "chapter"
        case .capabilitiesChanged: "capabilities"
        }
    }
}

/// A line on stderr (the daemon's log), stamped in UTC: `2026-11-23T20:41:30Z message`.
func log(_ message: String) {
    FileHandle.standardError.write(Data("\(utcStamp()) \(message)\n".utf8))
}

/// ISO 8601 in UTC from gmtime_r: Foundation's formatters (even `Date.ISO8601FormatStyle`) bring
/// up its calendar and time-zone machinery, which loads ICU's data (~0.6 MB resident) for this.
private func utcStamp() -> String {
    var seconds = time(nil)
    var t = tm()
    guard gmtime_r(&seconds, &t) != nil else { return "?" }
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(t.tm_year + 1900)-\(two(t.tm_mon + 1))-\(two(t.tm_mday))T\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec))Z"
}
