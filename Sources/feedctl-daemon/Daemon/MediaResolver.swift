import Downloads
import FeedModel
import FeedText
import FeedctlControl
import Foundation
import LibraryStore
import NowPlaying
import PlayerCore
import Synchronization


/// What a `play`/`queue add` target turned out to be.
struct Resolved: Sendable {
    var request: PlayRequest
    var entry: QueueEntry
}

/// Turns a target — a library item id, an http(s) URL or a file the user named — into something
/// the player can open, with metadata and the saved resume position.
struct MediaResolver: Sendable {
    let library: any PlayerLibrary
    /// Where `feedctl download` put episodes: a downloaded item plays its file.
    let downloads: DownloadStore
    /// Bound on `yt-dlp` resolving a YouTube/Rumble page to an audio URL.
    var ytdlpTimeout: Double = 60
    /// Speed for items without a remembered channel speed (the daemon's `--speed`).
    var defaultRate: Double = 1

    func resolve(_ target: String, fromStart: Bool) async throws -> Resolved {
        if let id = Int64(target) { return try await resolveItem(id, fromStart: fromStart) }
        if URLs.isHTTP(target) {
            let source = try MediaSource.parse(target, allowLocalFiles: false)
            let name = URL(string: target)?.lastPathComponent.removingPercentEncoding ?? target
            let meta = TrackMetadata(key: .url(target), title: name.isEmpty ? target : name, url: target)
            return Resolved(request: PlayRequest(key: .url(target), source: source, metadata: meta,
                                                 rate: defaultRate),
                            entry: QueueEntry(target: target, title: meta.title, itemID: nil))
        }
        // A path: the user named it, so a local file is allowed; the CLI made it absolute.
        let source = try MediaSource.parse(target, allowLocalFiles: true)
        guard case .localFile(let path) = source, FileManager.default.fileExists(atPath: path) else {
            throw ServiceError("no such file: \(target)")
        }
        let meta = TrackMetadata(key: .file(path), title: (path as NSString).lastPathComponent, url: "file://" + path)
        return Resolved(request: PlayRequest(key: .file(path), source: source, metadata: meta, rate: defaultRate),
                        entry: QueueEntry(target: path, title: meta.title, itemID: nil))
    }

    private func resolveItem(_ id: Int64, fromStart: Bool) async throws -> Resolved {
        let item = try await library.item(id: id)
        let source: MediaSource
        if let local = downloads.completedFile(item: id) {
            // Downloaded by the user (`feedctl download`): the one case a library item plays a local file.
            source = .localFile(local)
        } else if let enclosure = item.enclosureURL {
            // Feed media is untrusted: http(s) only, never a local path.
            source = try MediaSource.parse(enclosure, allowLocalFiles: false)
        } else if let page = item.url, item.platform.playsThroughPageResolver {
            source = try MediaSource.parse(try await ytdlpAudioURL(page), allowLocalFiles: false)
        } else {
            throw ServiceError("item \(id) has no media to play")
        }
        let meta = TrackMetadata(key: .item(id), title: item.title, artist: item.channel,
                                 album: item.channel, length: item.duration.map(Double.init), artURL: item.thumbnail,
                                 url: item.url ?? item.enclosureURL)
        let startAt = fromStart || item.watched ? 0 : Double(item.progress)
        let rate = try await channelRate(item.channelID)
        return Resolved(request: PlayRequest(key: .item(id), source: source, metadata: meta, startAt: startAt,
                                             rate: rate),
                        entry: QueueEntry(target: String(id), title: item.title, itemID: id))
    }

    /// The channel's remembered speed, else the daemon's default.
    func channelRate(_ channelID: Int64) async throws -> Double {
        try await library.channel(id: channelID).speed.map(Player.normalizedRate) ?? defaultRate
    }

    /// `yt-dlp -f bestaudio -g URL`: the direct audio URL of a YouTube or Rumble video.
    private func ytdlpAudioURL(_ page: String) async throws -> String {
        guard let ytdlp = findExecutable("yt-dlp") else {
            throw ServiceError("playing YouTube/Rumble items needs yt-dlp, which is not installed (pip install yt-dlp)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ytdlp)
        process.arguments = ["-f", "bestaudio/best", "-g", "--no-playlist", "--", page]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(ytdlpTimeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(nanoseconds: 50_000_000) }
        if process.isRunning {
            process.terminate()
            throw ServiceError("yt-dlp took longer than \(Int(ytdlpTimeout)) s to resolve \(page)")
        }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0, let url = text.split(separator: "\n").first.map(String.init), !url.isEmpty else {
            let why = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").last.map(String.init) ?? "exit status \(process.terminationStatus)"
            throw ServiceError("yt-dlp could not resolve \(page): \(why)")
        }
        return url
    }
}

func findExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// Writes listening progress to the library: the resume position at each checkpoint, and
/// "watched" plus a history entry once a playback counts as heard (`CompletionRule`). Only
/// library items have a place to go.
final class LibraryProgressSink: ProgressSink, @unchecked Sendable {
    let library: any PlayerLibrary
    /// Set once by the service before playback starts.
    nonisolated(unsafe) var onEnded: (@Sendable (TrackKey, PlayerError?) -> Void)?

    private let heard = Mutex(CompletionRule.OncePerPlayback())
    /// One writer task, so the library sees saves in the order the player reported them.
    private let writes: AsyncStream<@Sendable () async -> Void>.Continuation

    init(library: any PlayerLibrary) {
        self.library = library
        let (stream, writes) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.writes = writes
        Task.detached { for await write in stream { await write() } }
    }

    /// Returns once every write queued so far reached the library.
    func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            writes.yield { done.resume() }
        }
    }

    func progress(_ report: ProgressReport) {
        guard let id = report.key.itemID else { return }
        let library = self.library
        if report.kind != .tick {
            writes.yield {
                do { try await library.setProgress(id, seconds: Int(report.position.rounded(.down)), now: Clock.now()) }
                catch { log("saving progress of item \(id): \(error)") }
            }
        }
        guard heard.withLock({ $0.isNewlyHeard(report) }) else { return }
        writes.yield {
            do {
                try await library.setWatched([id], watched: true, now: Clock.now())
                try await library.appendHistory(item: id, now: Clock.now())
            } catch { log("marking item \(id) watched: \(error)") }
        }
    }

    func playbackEnded(key: TrackKey, error: PlayerError?) {
        onEnded?(key, error)
    }
}

/// The "heard it" rule: at the end, or ≥ 95 % with less than 2 minutes left. A product rule
/// about listening, so it lives with the library, not in the player (which reports positions).
enum CompletionRule {
    static func isFinished(position: Double, duration: Double?) -> Bool {
        guard let duration, duration > 0 else { return false }
        return position >= duration - 0.5 || (position >= 0.95 * duration && duration - position < 120)
    }

    /// Applies the rule to every report (each tick, each checkpoint, the end), and says yes once
    /// per playback: the first report of a playback that is at its end or meets the rule.
    struct OncePerPlayback {
        private var reported: PlaybackID?

        mutating func isNewlyHeard(_ report: ProgressReport) -> Bool {
            guard report.playback != reported else { return false }
            guard report.kind == .end || CompletionRule.isFinished(position: report.position, duration: report.duration)
            else { return false }
            reported = report.playback
            return true
        }
    }
}
